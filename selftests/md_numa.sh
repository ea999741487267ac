#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cross-node migration of dirty file pages (move_pages(2)): the cgroup's
# totals do not change, the per-node values move, in the ledger and in the
# kernel alike.  On ext4 first (buffer_migrate_folio); where the move wrote
# dirty pages back there, the per-node values cannot be predicted: ledger
# and kernel must agree per node, and the moves run again on xfs, where
# every check applies.  (On 7.x that writeback was khugepaged's, let in by
# mdfile's own mapping of the file; mdfile keeps it out now: no_collapse().)
. ./lib.sh
md_require_writers
md_require_module
md_require_numa

N=2048
md_mkcg md_numa
md_wait_dir md_numa

# move TO: move the file's pages to node TO and check both views; 2 if
# dirty pages were written back around the move, or none migrated dirty
move() {
	to=$1
	from=$((1 - to))
	mig=$(md_stat md_numa migrated) cleaned=$(md_stat md_numa cleaned_io)
	l_from=$(md_stat md_numa dirty_node$from) l_to=$(md_stat md_numa dirty_node$to)
	k_from=$(md_stat md_numa kernel_dirty_node$from) k_to=$(md_stat md_numa kernel_dirty_node$to)
	total=$(md_stat md_numa dirty)
	moved=$(mdfile migrate "$F" "$to" | awk '{ print $2 }')
	md_diag "$fs: node$from -> node$to: $moved pages on node$to after move_pages"
	m=$(($(md_stat md_numa migrated) - mig))
	c=$(($(md_stat md_numa cleaned_io) - cleaned))
	if [ "$c" -gt 0 ] || [ "$m" = 0 ]; then
		md_diag "$fs: written back around the move: $total dirty before, $c cleaned, $m migrated dirty"
		md_check "$fs: written back around the move: ledger equals kernel per node" md_agree md_numa
		return 2
	fi
	md_check "$fs: node$from -> node$to: pages moved" test "$moved" -gt 0
	md_eq "$fs: node$from -> node$to: total unchanged" "$total" "$(md_stat md_numa dirty)"
	got_l="$(md_stat md_numa dirty_node$from) $(md_stat md_numa dirty_node$to)"
	got_k="$(md_stat md_numa kernel_dirty_node$from) $(md_stat md_numa kernel_dirty_node$to)"
	md_check "$fs: node$from -> node$to: migrated event counted $m pages" test "$m" -gt 0
	md_eq "$fs: node$from -> node$to: ledger per node moved by $m" "$((l_from - m)) $((l_to + m))" "$got_l"
	md_eq "$fs: node$from -> node$to: kernel per node moved the same" "$((k_from - m)) $((k_to + m))" "$got_k"
	md_check "$fs: node$from -> node$to: ledger equals kernel per node" md_agree md_numa
}

# on FS DIR: write N dirty pages from node 0, move them there and back
on() {
	fs=$1 F=$2/md_numa.$$
	sync
	md_hold_writeback
	md_in_cg md_numa taskset -c "$node0_cpu" mdfile write "$F" $N
	md_diag "$fs: pages by node after the write: $(mdfile nodes "$F" | tr '\n' ' ')"
	move 1 && move 0
	rc=$?
	md_release_writeback
	sync
	md_eq "$fs: after sync: 0" "0 0" "$(md_stat md_numa dirty) $(md_stat md_numa kernel_dirty)"
	rm -f "$F"
	return $rc
}
if ! on ext4 "$MD_WORK"; then
	if X=$(md_xfs_dir); then
		on xfs "$X"
		md_check "xfs: the dirty pages were migrated" test $? = 0
	else
		md_check "no xfs mounted to migrate dirty pages on (set MEMCG_DIRTY_XFS)" false
	fi
fi
rm -rf "$MD_WORK"
md_rmcg md_numa
md_finish
