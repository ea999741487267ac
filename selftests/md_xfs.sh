#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# xfs caches files in large folios (6.1): the ledger counts pages, not folios.
# A file read back through readahead (large folios) and then overwritten
# through a shared mapping dirties whole folios; ledger and kernel must both
# say one count per page.  Migration of those dirty folios, and truncation,
# reach the migrated and cancelled probes.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_cgroup2_memory
md_require_module
X=$(md_xfs_dir) || md_skip_all "no xfs mounted (set MEMCG_DIRTY_XFS)"
W=$X/md_xfs.$$
mkdir -p "$W"

N=4096
md_mkcg md_xfs
md_wait_dir md_xfs
md_in_cg md_xfs mdfile write "$W/f" $N
sync
echo 3 > /proc/sys/vm/drop_caches
md_in_cg md_xfs cat "$W/f" > /dev/null	# readahead: large folios, charged here
md_hold_writeback
d0=$(md_stat md_xfs dirtied)
h0=$(md_probe_hits dirtied)
md_in_cg md_xfs mdfile mmapnosync "$W/f" $N
h=$(($(md_probe_hits dirtied) - h0))
md_diag "$N pages dirtied through $h folio dirtying events"
if [ "$h" -lt "$N" ]; then
	md_ok "large folios were dirtied ($h events for $N pages)"
else
	md_skip "large folios were dirtied" "this kernel cached the file in small folios"
fi
md_check "ledger equals kernel after dirtying large folios" md_agree md_xfs
md_eq "every page of the file counted dirty" "$N $N" "$(md_stat md_xfs dirty) $(md_stat md_xfs kernel_dirty)"
# (xfs may dirty a few pages of its own charged here too)
n=$(($(md_stat md_xfs dirtied) - d0))
md_check "dirtied counts pages ($n for $N)" test "$n" -ge "$N" -a "$n" -le $((N + 64))
# xfs migrates through filemap_migrate_folio(), not ext4's buffer path
# (md_numa): both must reach the migrated probe, whatever the compiler
# inlined in this kernel.
if [ -d /sys/devices/system/node/node1 ]; then
	m0=$(md_stat md_xfs migrated) c0=$(md_stat md_xfs cleaned_io)
	to=$(( $(mdfile nodes "$W/f" | sed -n 's/^node\([0-9]*\)=.*/\1/p' | head -n 1) == 0 ? 1 : 0 ))
	moved=$(mdfile migrate "$W/f" $to | awk '{ print $2 }')
	m=$(($(md_stat md_xfs migrated) - m0)) c=$(($(md_stat md_xfs cleaned_io) - c0))
	if [ "$m" = 0 ] && [ "$c" -ge "$N" ] && [ "$(md_stat md_xfs dirty)" = 0 ]; then
		# written back, then moved clean: 7.3's khugepaged did that
		# to files mdfile mapped, before mdfile kept it out (no_collapse())
		md_diag "xfs: the kernel wrote the $N mapped dirty pages back ($c cleaned), then moved $moved clean"
		md_eq "xfs: written back, not migrated: ledger and kernel 0" "0 0" \
			"$(md_stat md_xfs dirty) $(md_stat md_xfs kernel_dirty)"
	else
		md_check "xfs: move_pages migrated dirty pages ($moved), migrated +$m" \
			test "$moved" -gt 0 -a "$m" -gt 0
	fi
	md_check "xfs: ledger equals kernel per node after migration" md_agree md_xfs
else
	md_skip "xfs: migration reaches the probe" "one NUMA node"
fi
md_in_cg md_xfs truncate -s $((N * 2048)) "$W/f"
md_check "truncate of half: ledger equals kernel" md_agree md_xfs
md_release_writeback
sync
md_eq "after sync: 0" "0 0" "$(md_stat md_xfs dirty) $(md_stat md_xfs kernel_dirty)"
rm -rf "$W"
sync
md_rmcg md_xfs
md_finish
