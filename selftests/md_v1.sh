#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroup v1 memory hierarchy: the ledger agrees with v1's memory.stat
# "dirty" (local) and "total_dirty" (hierarchical), in bytes there.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_disk
[ "$MD_CGV" = 1 ] || md_skip_all "needs the v1 memory hierarchy (in the VM: selftests/vm/run --cgroup v1)"
md_require_module
md_eq "version file says v1" v1 "$(awk '$1 == "hierarchy" { print $2 }' "$MD/version")"

N=2048
md_mkcg md_v1 md_v1/a md_v1/b
for c in md_v1 md_v1/a md_v1/b; do md_wait_dir $c; done
sync
md_hold_writeback
md_in_cg md_v1/a mdfile write "$MD_WORK/a" $N
md_in_cg md_v1/b mdfile write "$MD_WORK/b" $((N / 2))
sleep 3		# let the kernel's 2 s periodic rstat flush catch up for total_dirty
for c in md_v1/a md_v1/b md_v1; do
	md_check "$c: ledger equals kernel" md_agree $c
	v1=$(awk '$1 == "dirty" { print $2 / 4096 }' "$CG/$c/memory.stat")
	md_eq "$c: v1 memory.stat dirty equals the ledger" "$v1" "$(md_stat $c dirty)"
	v1t=$(awk '$1 == "total_dirty" { print $2 / 4096 }' "$CG/$c/memory.stat")
	md_eq "$c: v1 memory.stat total_dirty equals dirty_hier" "$v1t" "$(md_stat $c dirty_hier)"
done
md_release_writeback
sync
md_eq "after sync: 0" "0 0" "$(md_stat md_v1 dirty_hier) $(md_stat md_v1 kernel_dirty_hier)"
rm -rf "$MD_WORK"
md_rmcg md_v1/a md_v1/b md_v1
md_finish
