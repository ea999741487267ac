#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cross-node migration of dirty LARGE file folios (move_pages(2)): the
# kernel moves NR_FILE_DIRTY between the nodes' lruvecs by the folio's
# page count, not by one (folio_migrate_mapping() in 6.1,
# __folio_migrate_mapping() in 7.x).  mdfile largedirty reads a file back
# through readahead (6.1's xfs makes large folios only there; its
# write_begin allocates single pages) and dirties every page in place;
# mdfile folios measures the folios in /proc/kpageflags before and after
# the move: they must arrive on the other node as large and as dirty as
# they left, and ledger and kernel move by the same pages per node.  On
# ext4 where it caches large folios (7.x; 6.1's ext4 does not), and on xfs.
# mdfile keeps 7.x's khugepaged off the file (no_collapse()): it would write
# the dirty folios back and fold them into PMD-sized ones.  Where the move
# wrote dirty folios back all the same, the per-node values cannot be
# predicted and only md_agree applies.  SKIP with the measured reason when
# no filesystem migrated dirty large folios.
. ./lib.sh
md_require_writers
md_require_module
md_require_numa

N=4096
md_mkcg md_large
md_wait_dir md_large
done_on=""	# the filesystems that migrated dirty large folios
why=""		# and why the others did not

# fol KEY: a value from the last "mdfile folios" ($fol)
fol() {
	echo "$fol" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

# dl NODE: dirty large pages on NODE in the last "mdfile folios"
dl() {
	echo "$fol" | awk -v k="node$1" '$1 == "dirty_large" {
		for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == k) n = a[2] } }
		END { print n + 0 }'
}

# move TO: move the file's pages to node TO and check both views and the
# folios; 2 if dirty pages were written back around the move, or none
# migrated dirty
move() {
	to=$1
	from=$((1 - to))
	lp=$(fol large_pages) dp=$(fol dirty_large_pages) lf=$(fol large_folios)
	mig=$(md_stat md_large migrated) cleaned=$(md_stat md_large cleaned_io)
	l_from=$(md_stat md_large dirty_node$from) l_to=$(md_stat md_large dirty_node$to)
	k_from=$(md_stat md_large kernel_dirty_node$from) k_to=$(md_stat md_large kernel_dirty_node$to)
	total=$(md_stat md_large dirty)
	h0=$(md_probe_hits migrated)
	reported=$(mdfile migrate "$F" "$to")
	fol=$(mdfile folios "$F")
	md_diag "$fs: node$from -> node$to: move_pages: $reported; $(echo "$fol" | tr '\n' ';')"
	m=$(($(md_stat md_large migrated) - mig))
	c=$(($(md_stat md_large cleaned_io) - cleaned))
	h=$(($(md_probe_hits migrated) - h0))
	md_diag "$fs: node$from -> node$to: $m dirty pages migrated in $h calls of $(md_probe_symbol migrated)"
	if [ "$c" -gt 0 ] || [ "$m" = 0 ]; then
		md_diag "$fs: written back around the move: $total dirty before, $c cleaned, $m migrated dirty"
		md_check "$fs: written back around the move: ledger equals kernel per node" md_agree md_large
		return 2
	fi
	md_eq "$fs: node$from -> node$to: all $dp dirty large pages now on node$to" "$dp 0" "$(dl "$to") $(dl "$from")"
	md_eq "$fs: node$from -> node$to: still large and dirty (folios, pages, dirty pages)" \
		"$lf $lp $dp" "$(fol large_folios) $(fol large_pages) $(fol dirty_large_pages)"
	md_check "$fs: node$from -> node$to: migrated counted $m pages, the $dp dirty large ones among them" \
		test "$m" -ge "$dp"
	# every call moves one folio: more pages than calls, some were large
	md_check "$fs: node$from -> node$to: more pages ($m) than folios migrated ($h calls)" \
		test "$m" -gt "$h"
	md_eq "$fs: node$from -> node$to: total unchanged" "$total" "$(md_stat md_large dirty)"
	got_l="$(md_stat md_large dirty_node$from) $(md_stat md_large dirty_node$to)"
	got_k="$(md_stat md_large kernel_dirty_node$from) $(md_stat md_large kernel_dirty_node$to)"
	md_eq "$fs: node$from -> node$to: ledger per node moved by $m" "$((l_from - m)) $((l_to + m))" "$got_l"
	md_eq "$fs: node$from -> node$to: kernel per node moved the same" "$((k_from - m)) $((k_to + m))" "$got_k"
	md_check "$fs: node$from -> node$to: ledger equals kernel per node" md_agree md_large
}

# on FS DIR: N pages in dirty large folios made from node 0, moved to
# node 1 and back; 3 if there were no dirty large folios to move
on() {
	fs=$1 F=$2/md_large.$$
	sync
	md_hold_writeback
	md_in_cg md_large taskset -c "$node0_cpu" mdfile largedirty "$F" $N
	fol=$(mdfile folios "$F")
	md_diag "$fs: after readahead and dirtying in place: $(echo "$fol" | tr '\n' ';')"
	md_diag "$fs: memcg dirty $(md_stat md_large dirty), kernel $(md_stat md_large kernel_dirty)"
	if [ "$(fol dirty_large_pages)" = 0 ] || [ "$(dl 0)" = 0 ]; then
		r="no dirty large folios on node0: $(fol large_pages) of $(fol pages) cached pages in large folios, $(fol dirty_large_pages) dirty, $(dl 0) on node0"
		md_skip "$fs: dirty large folios migrated" "$r"
		why="$why $fs: $r;"
		rc=3
	else
		move 1 && move 0
		rc=$?
	fi
	md_release_writeback
	sync
	md_eq "$fs: after sync: 0" "0 0" "$(md_stat md_large dirty) $(md_stat md_large kernel_dirty)"
	rm -f "$F"
	case $rc in
	0) done_on="$done_on $fs" ;;
	2) md_skip "$fs: dirty large folios migrated" "written back around the move"
	   why="$why $fs: written back around the move;" ;;
	esac
}

on ext4 "$MD_WORK"
if X=$(md_xfs_dir); then
	on xfs "$X"
else
	why="$why no xfs mounted (set MEMCG_DIRTY_XFS);"
fi
rm -rf "$MD_WORK"
md_rmcg md_large
if [ -n "$done_on" ]; then
	md_ok "dirty large folios migrated on:$done_on"
	[ -z "$why" ] || md_diag "not on:$why"
	md_finish
fi
[ "$md_failed" = 0 ] || md_finish
md_skip "dirty large folios migrated" "none:$why"
echo "1..$md_n"
exit $KSFT_SKIP
