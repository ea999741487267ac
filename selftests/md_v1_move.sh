#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroup v1 charge moving (memory.move_charge_at_immigrate = 3): a task that
# maps dirty file pages moves from A to B; the dirty count moves with it.
# Ledger, kernel and scan agree for both cgroups.  Then one whose pages
# are held under writeback (md_wb_hold_disk) moves from C to D: the
# writeback count moves with them (wb_moved_in, wb_moved_out), and their
# ends, after the move, are D's.
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

# wbviews CG: "writeback kernel_writeback" from its stat
wbviews() {
	echo "$(md_stat "$1" writeback) $(md_stat "$1" kernel_writeback)"
}
# held_still CG: some of CG's pages under writeback, as many as a second ago
held_still() {
	h1=$(md_stat "$1" kernel_writeback)
	sleep 1
	[ "$h1" -gt 0 ] && [ "$h1" = "$(md_stat "$1" kernel_writeback)" ]
}

# wbmove: C's task, its mapped pages held under writeback, moves to D
wbmove() {
	# few enough pages that every one is under writeback at once: the loop
	# device's queue takes a mapped file's pages one request each.  Their
	# blocks are allocated beforehand and nothing of the filesystem's is
	# left to write: once the freeze holds the loop's first write, a read
	# queued behind it (a block bitmap, to allocate) would hold the
	# writeback before any folio is under it
	N=256
	mdfile fsync "$MD_WBD/wf" $N && mdfile dontneed "$MD_WBD/wf" && sync
	md_v1_mover md_mv_c md_mv_d "$MD_WBD/wf" $N 120
	pid=$md_mover
	md_eq "C: the task mapped and dirtied its pages" mapped "$md_mover_line"
	md_check "C: the backing filesystem frozen" md_wb_freeze
	sync -d "$MD_WBD/wf" &
	spid=$!
	# held briefly: the kernel's hung-task warning comes at 120 s
	if ! md_poll 30 held_still md_mv_c; then
		md_wb_thaw
		wait $spid
		md_skip "pages held under writeback move" "none went under writeback in 30 s"
		return
	fi
	K=$(md_stat md_mv_c kernel_writeback)
	md_diag "C: $K of its $N pages under writeback"
	m0=$(md_stat md_mv_d wb_moved_in)
	echo $pid > "$CG/md_mv_d/cgroup.procs"
	M=$(($(md_stat md_mv_d wb_moved_in) - m0))
	md_diag "D: $M pages under writeback moved in"
	md_check "D: wb_moved_in counted pages under writeback ($M)" test "$M" -gt 0
	md_eq "C: wb_moved_out counted as many" "$M" "$(md_stat md_mv_c wb_moved_out)"
	md_eq "C: writeback left (ledger, kernel)" "$((K - M)) $((K - M))" "$(wbviews md_mv_c)"
	md_eq "D: writeback moved in (ledger, kernel)" "$M $M" "$(wbviews md_mv_d)"
	md_eq "C: check ok, writeback scan agrees" "ok $((K - M))" \
		"$(md_chk md_mv_c verdict) $(md_chk md_mv_c writeback_scan)"
	md_eq "D: check ok, writeback scan agrees" "ok $M" \
		"$(md_chk md_mv_d verdict) $(md_chk md_mv_d writeback_scan)"
	md_wb_thaw
	wait $spid
	md_eq "C after the ends: 0 0" "0 0" "$(wbviews md_mv_c)"
	md_eq "D after the ends, counted there: 0 0" "0 0" "$(wbviews md_mv_d)"
	md_check "D: its ends counted ($(md_stat md_mv_d wb_ended), $M moved in)" \
		test "$(md_stat md_mv_d wb_ended)" -ge "$M"
}

if ! md_wb_hold_disk; then
	md_skip "pages held under writeback move" "$md_wb_why"
else
	wbmove
	kill "$md_mover" 2> /dev/null
	wait
	rm -f "$MD_WBD/wf"
fi
md_release_writeback
rm -rf "$W"
md_rmcg md_mv_a md_mv_b md_mv_c md_mv_d
md_finish
