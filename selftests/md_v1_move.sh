#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroup v1 charge moving (memory.move_charge_at_immigrate = 3): a task that
# maps dirty file pages moves from A to B; the dirty count moves with it.
# Ledger, kernel and scan agree for both cgroups.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_disk
[ "$MD_CGV" = 1 ] || md_skip_all "needs the v1 memory hierarchy (in the VM: selftests/vm/run --cgroup v1)"
md_require_module
[ "$(md_probe_status moved)" = attached ] ||
	md_skip_all "this kernel has no mem_cgroup_move_account to probe"
N=1024
W=$MD_WORK

md_v1_mover md_mv_a md_mv_b "$W/f" $N
pid=$md_mover
md_eq "the task mapped and dirtied its pages" mapped "$md_mover_line"
md_eq "A: ledger holds them" $N "$(md_stat md_mv_a dirty)"
m0=$(md_stat md_mv_b moved_in)
echo $pid > "$CG/md_mv_b/cgroup.procs"
md_eq "B: moved_in counted the pages" $N "$(($(md_stat md_mv_b moved_in) - m0))"
md_eq "A: moved_out counted the pages" $N "$(md_stat md_mv_a moved_out)"
md_eq "A: nothing left (ledger, kernel)" "0 0" "$(md_stat md_mv_a dirty) $(md_stat md_mv_a kernel_dirty)"
md_eq "B: all of them (ledger, kernel)" "$N $N" "$(md_stat md_mv_b dirty) $(md_stat md_mv_b kernel_dirty)"
md_eq "A: check ok, scan agrees" "ok 0" "$(md_chk md_mv_a verdict) $(md_chk md_mv_a scan)"
md_eq "B: check ok, scan agrees" "ok $N" "$(md_chk md_mv_b verdict) $(md_chk md_mv_b scan)"
kill $pid
wait
md_release_writeback
sync
md_eq "B after sync: 0" "0 0" "$(md_stat md_mv_b dirty) $(md_stat md_mv_b kernel_dirty)"
rm -rf "$W"
md_rmcg md_mv_a md_mv_b
md_finish
