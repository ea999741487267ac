#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.1 on): the return probes' windows (cleaned_io, migrated) hold
# the folio's memcg from the entry handler to the return handler
# (md_race_reparent_window.sh).  Unloading while a task was inside one
# unregistered the probe under it: its return handler never ran, the
# reference was never put, and the memcg, once removed, stayed a dying
# cgroup for good.  Unloading now closes the windows first: no new one
# opens, and those open are waited for (10 s at most) while their
# handlers still run.
#
# The window, opened as in md_race_reparent_window.sh: a task in P/t held
# inside folio_clear_dirty_for_io() while it cleans a page of its sibling
# C's; C removed; rmmod started; 3 s later the task is let go.  rmmod must
# end well, and C's memcg be freed (P's nr_dying_subsys_memory back to 0).
. ./lib.sh
md_require_writers
md_require_ko
md_load_reparenting "no window holds a memcg"
[ "$(md_probe_status cleaned_io)" = attached ] || md_skip_all "cleaned_io is $(md_probe_status cleaned_io)"
grep -q '^nr_dying_subsys_memory ' "$CG/cgroup.stat" ||
	md_skip_all "no nr_dying_subsys_memory in cgroup.stat to tell a memcg freed"
md_require_catch
W=$MD_WORK
P=md_uw
C=$P/c
T=$P/t		# the syncer's (v2: no task in P itself)
md_mkcg $P $C $T
md_wait_dir $C
dying() { awk '$1 == "nr_dying_subsys_memory" { print $2 }' "$CG/$P/cgroup.stat"; }
none_dying() { [ "$(dying)" = 0 ]; }
md_eq "none of P's memcgs dying yet" 0 "$(dying)"
md_hold_writeback
md_dirty_from $C $T "$W/f" 16384

md_catch_cleaning $T "$W/f"
rmdir "$CG/$C"
md_diag "C removed: P's dying memcgs $(dying)"
rmmod memcg_dirty &
rmmoder=$!
sleep 3
if kill -0 $rmmoder 2> /dev/null; then
	md_diag "after 3 s rmmod still waits for the task inside the window"
else
	md_diag "rmmod ended with the task inside the window"
fi
md_let_go
wait $rmmoder
md_eq "rmmod, once the task has left" 0 $?
md_check "unloaded" test ! -d /sys/module/memcg_dirty
md_check "C's memcg freed: P's nr_dying_subsys_memory back to 0" md_poll 300 none_dying
md_diag "P's dying memcgs: $(dying)"
md_eq "no window left open by the unloading" "" "$(dmesg | grep -m 1 'memcg_dirty: unloading while')"
md_release_writeback
rm -rf "$W"
md_rmcg $T $P
md_check "dmesg is clean" md_dmesg_clean
md_finish
