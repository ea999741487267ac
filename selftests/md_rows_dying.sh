#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.1 on, where the kernel reparents): a missed hit of a writeback
# point unsyncs every memcg's writeback row, to be based again from a
# still scan (md_resync_rows()).  A unit with a dying member, a removed
# memcg the kernel has not freed yet, waited for the member to be freed
# and carried; a dying memcg need not ever be, and the unit root and its
# dying members stayed "unsynced" for good, at 0 pages in every view
# (make check-audit on 7.3: md_audit_preload.sh, 2 runs of 3).  Now a
# dying member hands its rows to its root, and the root bases them, its
# own and its members', from one scan in which the whole unit was still.
# Here: two units with a dying member each, synced; one injected miss of
# wb_ended; every memcg synced again, and ok.
. ./lib.sh
md_require_writers
md_require_ko
md_load_reparenting "a unit has dying members only where the kernel reparents" fault_inject=1
[ -e "$MD/inject" ] || md_skip_all "memcg_dirty was built without fault injection"
W=$MD_WORK
md_mkcg md_rd md_rd/k md_rd/j md_rd/j/q
for c in md_rd md_rd/k md_rd/j md_rd/j/q; do md_wait_dir $c; done
# dirty pages, mapped ones and pages under writeback in both, then removed
for i in 1 2 3; do
	md_in_cg md_rd/k mdfile write "$W/k$i" 64
	md_in_cg md_rd/k mdfile mmapnosync "$W/km$i" 32
	md_in_cg md_rd/j/q mdfile write "$W/q$i" 64
	md_in_cg md_rd/j/q mdfile fsync "$W/qf$i" 32
done
md_rmcg md_rd/k md_rd/j/q
sleep 1
sync
state() { awk -v p="/$1" '$2 == p { print $3 }' "$MD/summary"; }
[ "$(state md_rd/k) $(state md_rd/j/q)" = "dying dying" ] ||
	md_skip_all "the kernel freed the removed memcgs at once: no dying member to test with"
md_check "every memcg synced before the miss" md_all_synced
md_inject miss wb_ended 1
cat "$MD/events" > /dev/null	# the miss is logged, and acted on, when read
md_eq "the miss: md_rd's writeback row to be based again, the entry synced" "0 1" \
	"$(md_stat md_rd writeback_synced) $(md_stat md_rd synced)"
md_check "every memcg synced again, the dying members' units too" md_all_synced
md_diag "md_rd/k, md_rd/j/q: $(state md_rd/k), $(state md_rd/j/q)"
for c in md_rd md_rd/j; do
	md_eq "$c: verdict ok, writeback ok" "ok ok" "$(md_chk $c verdict) $(md_chk $c writeback_verdict)"
done
md_check "rmmod" md_unload
rm -rf "$W"
md_rmcg md_rd/j md_rd
md_check "dmesg is clean" md_dmesg_clean
md_finish
