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
md_load_reparenting "the folio lock pins the memcg"
[ "$(md_probe_status cleaned_io)" = attached ] || md_skip_all "cleaned_io is $(md_probe_status cleaned_io)"
md_require_catch
W=$MD_WORK
md_watched_window md_rw

md_catch_cleaning $T "$W/f"
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
# held past ext4's 5 s commit interval: the journal's commit then waits
# for the syncer, as it did on a slow host (make check hung there when the
# flag was on ext4), and the release must not need the journal
sleep 7
md_let_go
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
md_release_writeback
rm -rf "$W"
md_rmcg $T $P
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
