#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroup v1 charge moving, two defects.  (1) The moved probe read the
# folio's dirty flag after mem_cgroup_move_account() had unlocked it: a
# folio dirtied (or cleaned) in between was counted as moved (or not), and
# one of the memcgs later underflowed.  A delay point holds each return
# handler 200 ms while write(2) dirties the pages being moved; the probe
# must leave both memcgs unsynced rather than guess, and after a resync
# everything agrees.  On 6.1 this window is narrow: cleaning cannot enter
# it (the move holds the page table lock folio_mkclean() needs), and the
# writer here has not yet been seen to land in it, so this part guards the
# fix rather than proving the defect.  (2)
# Without the moved probe attached, moves go unseen: verdicts must say
# untrusted.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_disk
md_require_ko
[ "$MD_CGV" = 1 ] || md_skip_all "needs the v1 memory hierarchy (in the VM: selftests/vm/run --cgroup v1)"
N=16
W=$MD_WORK
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
[ "$(md_probe_status moved)" = attached ] ||
	md_skip_all "this kernel has no mem_cgroup_move_account to probe"
md_v1_mover md_mr_a md_mr_b "$W/f" $N
pid=$md_mover
md_eq "the task mapped and dirtied its pages" mapped "$md_mover_line"
# Writeback cannot clean a page while its move is held: the move runs
# under the page table lock, which folio_mkclean() needs.  But the pages,
# cleaned and still mapped, can be dirtied by write(2) between the memcg
# switch and the handler: the new memcg is charged for it, and a handler
# reading the dirty flag would move it once more.
# The moves go page by page in address order, 200 ms each; a writer
# dirties the pages one by one in the same order, 150 ms apart, so that its
# phase against the moves drifts through the whole window.
sync -d "$W/f"
md_inject delay moved 200000
h0=$(md_delay_hits moved)
echo $pid > "$CG/md_mr_b/cgroup.procs" &
mover=$!
while [ "$(md_delay_hits moved)" = "$h0" ] && md_running $mover; do sleep 0.05; done
(k=0
while [ $k -lt $N ]; do
	dd if=/dev/zero of="$W/f" bs=4k count=1 seek=$k conv=notrunc 2> /dev/null
	sleep 0.15
	k=$((k + 1))
done) &
writer=$!
wait $mover
wait $writer
md_inject delay moved 0
md_diag "after the moves: synced A $(md_stat md_mr_a synced) B $(md_stat md_mr_b synced)"
md_check "the moves were held ($(md_delay_hits moved))" test "$(md_delay_hits moved)" -ge $N
kill $pid 2> /dev/null
wait $pid 2> /dev/null
md_release_writeback
sync
for c in md_mr_a md_mr_b; do
	md_check "$c syncs" md_wait_synced $c
	md_eq "$c: ok, ledger = kernel = 0" "ok 0 0" "$(md_chk $c verdict) $(md_stat $c dirty) $(md_stat $c kernel_dirty)"
done
md_check "no underflow logged" sh -c "! awk '\$5 ~ /underflow|negative/' $MD/events | grep -q ."
md_check "reload without the moved probe" md_reload fail_probe=moved
md_eq "moved not attached: verdicts say untrusted" untrusted "$(md_chk md_mr_a verdict)"
rm -rf "$W"
md_rmcg md_mr_a md_mr_b
md_check "rmmod" md_unload
md_finish
