#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroup v1 charge moving is dirty accounting: mem_cgroup_move_account()
# moves a dirty page's count from one memcg to the other.  Where the
# compiler inlined it into its caller (Debian's 6.1 -rt build has no
# mem_cgroup_move_account symbol: the count moves in
# mem_cgroup_move_charge_pte_range()), the watch must still call the
# change accounted: a task that maps dirty pages moves from A to B, with
# the watch on A; no change is listed outside or mismatched, none reported.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_disk
[ "$MD_CGV" = 1 ] || md_skip_all "needs the v1 memory hierarchy (in the VM: selftests/vm/run --cgroup v1)"
md_require_ko
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
md_load || md_skip_all "cannot load memcg_dirty"
[ -e "$CG/memory.move_charge_at_immigrate" ] ||
	md_skip_all "this kernel cannot move charges (no memory.move_charge_at_immigrate)"
N=16
W=$MD_WORK

md_v1_mover md_wm_a md_wm_b "$W/f" $N
pid=$md_mover
md_eq "the task mapped and dirtied its pages" mapped "$md_mover_line"
md_diag "moved: $(md_probe_status moved)"
ida=$(md_cgid md_wm_a)
echo "watch /md_wm_a" > "$MD/control"
echo $pid > "$CG/md_wm_b/cgroup.procs"
md_eq "A: nothing left in the kernel's count" 0 "$(md_stat md_wm_a kernel_dirty)"
md_diag "$(head -n 1 "$MD/watch")"
grep -v '^watching \|^cpu ' "$MD/watch" | head -n 3 | while read -r l; do md_diag "$l"; done
md_eq "the watch saw the $N pages move out of A" $N \
	"$(awk 'NR > 2 && $4 == -1 { n++ } END { print n + 0 }' "$MD/watch")"
md_eq "each accounted, in the charge move" $N \
	"$(grep -Ec '^[0-9]+ [0-9]+ [0-9]+ -1 accounted mem_cgroup_move_(account|charge_pte_range)(\.[a-z]+(\.[0-9]+)?)*\+' "$MD/watch" || true)"
md_eq "none outside or mismatched" "0 0" \
	"$(head -n 1 "$MD/watch" | sed -n 's/.* outside \([0-9]*\) mismatched \([0-9]*\) .*/\1 \2/p')"
md_eq "nothing reported on the console" "" "$(dmesg | grep -m 1 "memcg_dirty: watch /md_wm_a (id $ida)")"
echo "watch off" > "$MD/control"
kill $pid
wait
md_release_writeback
sync
rm -rf "$W"
md_rmcg md_wm_a md_wm_b
md_check "dmesg is clean" md_dmesg_clean
md_check "rmmod" md_unload
md_finish
