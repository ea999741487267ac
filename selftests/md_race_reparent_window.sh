#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.1 on): folio_clear_dirty_for_io()'s return probe counted the
# cleaning against the ledger entry its entry handler found, trusting the
# folio lock to keep the folio's memcg alive until the return.  From 7.1 a
# folio holds its obj_cgroup, not its memcg: rmdir of the memcg repoints
# the folio to the parent, and the memcg can then be released and freed
# while the cleaning task sleeps or is preempted inside the call.  The
# count went to a freed memcg's entry (lost: the parent's unit kept the
# pages, and 10-minute soaks on 7.3 blamed the ledger with a WARN), and
# the window's end wrote to an entry that could itself be freed.  The
# entry handler now holds the memcg over the window.  And the watch held
# the kernel's count in the parent (it reads the folio's memcg after the
# repointing) against the probe's note of the child, and said
# "mismatched": a reparenting since the note now makes it right.
#
# The window, opened: a task in P/t writes back, in its own
# context (sync_file_range), a file whose pages its child C dirtied, the
# file mapped 64 times so that each cleaning walks 64 mappings; a
# SCHED_FIFO spinner on the task's CPU preempts it until it is seen inside
# folio_clear_dirty_for_io() (its /proc stack, read every 0.5 ms by the
# spinner itself); then C is removed, and
# its memcg freed unless the window holds it, before the task goes on.
# With the watch armed on P: after writeback P's unit must read
# kernel = ledger = scan, and the watch must find nothing mismatched.
# Before 7.1 the folio lock pins the memcg: SKIP.
. ./lib.sh
md_require_writers
md_require_ko
[ "$MD_CGV" = 2 ] || md_skip_all "cgroup v1: no reparenting"
last=$(($(nproc) - 1))
[ "$last" -ge 1 ] || md_skip_all "one CPU: the spinner would stop the test itself"
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
md_load || md_skip_all "cannot load memcg_dirty"
[ "$(md_probe_status memcg_release)" != unused:no_reparenting ] ||
	md_skip_all "kernel $(uname -r) does not reparent (7.1 on): the folio lock pins the memcg"
[ "$(md_probe_status cleaned_io)" = attached ] || md_skip_all "cleaned_io is $(md_probe_status cleaned_io)"
# the task must be preemptible inside the kernel; on PREEMPT_RT the
# spinner above it would starve the CPU's rcuc and ktimers threads too (an
# RCU stall, seen): there the soak (make check-audit) meets the window
uname -v | grep -q PREEMPT_RT &&
	md_skip_all "PREEMPT_RT: a SCHED_FIFO spinner would starve the CPU's RCU and timer threads"
pf=/sys/kernel/debug/sched/preempt
[ -w $pf ] || md_skip_all "no $pf to make the kernel preemptible"
saved_preempt=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' $pf)
echo full > $pf || md_skip_all "cannot set preempt=full in $pf"
W=$MD_WORK
P=md_rw
C=$P/c
T=$P/t		# the syncer's (v2: no task in P itself)
md_mkcg $P $C $T
md_wait_dir $C
pid=$(stat -c %i "$CG/$P")
cid=$(stat -c %i "$CG/$C")
md_hold_writeback
pages=16384
# the inode's writeback goes with T's (first dirtied from T), so the
# writing back holds no reference on C's memcg: only the window can
md_in_cg $T mdfile write "$W/f" 1
sync
mdfile dontneed "$W/f"		# and every page cleaned is C's
md_in_cg $C mdfile write "$W/f" $pages
md_check "C (id $cid): its pages dirty ($(md_stat $C dirty))" test "$(md_stat $C dirty)" -ge $((pages / 2))
md_eq "none of T's" 0 "$(md_stat $T dirty)"
echo "watch /$P" > "$MD/control"
md_check "the watch is armed on $P" sh -c "head -n 1 $MD/watch | grep -q '^watching /$P '"

md_in_cg $T mdfile mapsync "$W/f" 64 "$last" "$W/go" > "$W/sync.out" &
syncer=$!
md_poll 600 grep -q ready "$W/sync.out"
md_diag "$(cat "$W/sync.out")"
task=$(head -n 1 "$CG/$T/cgroup.procs")

# hold the syncer on its CPU once it is inside folio_clear_dirty_for_io()
touch "$W/spin"
mdfile catch "$last" "$task" folio_clear_dirty_for_io "$W/spin" > "$W/catch.out" &
catcher=$!
touch "$W/go"
md_poll 1200 grep -q 'caught\|missed' "$W/catch.out"
if ! grep -q caught "$W/catch.out"; then
	echo "$saved_preempt" > $pf
	md_skip_all "the syncer was never seen inside folio_clear_dirty_for_io: $(cat "$W/catch.out")"
fi
md_ok "the syncer is held inside folio_clear_dirty_for_io ($(cat "$W/catch.out"))"
sed 's/^/# stack: /' "/proc/$task/stack" | head -n 8
o0=$(md_probe_hits memcg_offline)
rmdir "$CG/$C"
md_check "C: rmdir, its memcg offline" md_poll 100 \
	sh -c "[ \$(awk '\$1 == \"memcg_offline\" { print \$5 }' $MD/probes) -gt $o0 ]"
# freed (its entry gone from the summary), unless the window holds it
if md_poll 50 md_unlisted "$cid"; then
	md_diag "C's memcg was freed while the syncer was held: no window held it"
else
	md_diag "C's memcg stays while the syncer is held"
fi
rm -f "$W/spin"
wait $catcher
wait $syncer
md_check "the syncer wrote the file back" grep -q synced "$W/sync.out"
md_poll 100 md_unlisted "$cid"
sync
v=$(md_views $P)
md_diag "$P: $v"
md_eq "$P's unit after writeback: ok, kernel = ledger = scan" "ok 1 1" \
	"$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"], v["ledger"] == v["scan"] }' "$MD/cgroups/$P/check")"
md_diag "$(head -n 1 "$MD/watch")"
md_eq "the watch on $P: nothing mismatched" 0 \
	"$(head -n 1 "$MD/watch" | awk '{ for (i = 1; i < NF; i++) if ($i == "mismatched") print $(i + 1) }')"
md_eq "nothing reported on the console" "" "$(dmesg | grep -m 1 "memcg_dirty: watch /$P (id $pid)")"
echo "watch off" > "$MD/control"
echo "$saved_preempt" > $pf
md_release_writeback
rm -rf "$W"
md_rmcg $T $P
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
