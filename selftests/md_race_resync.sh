#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: resync decided a scan was valid at its end, then read the events
# entry by entry; an event in that gap was baked into the base, leaving the
# ledger short for the module's lifetime.  A memcg is made unsynced (its
# first events are lost: fault injection fails its entry), then a resync is
# held between its scan and its bases (1.5 s) while the memcg dirties 64
# pages.  It must not sync from that scan; once it syncs, ledger, kernel and
# scan agree, and after sync all are 0.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
sync
md_check "root: synced after the load" md_wait_synced ""
md_hold_writeback
md_inject nomem md_rs 8
md_mkcg md_rs
md_in_cg md_rs mdfile write "$W/a" 32
md_check "md_rs's directory appears" md_wait_dir md_rs
md_check "events were lost for want of its entry" test "$(awk '$1 == "lost_events" { print $2 }' "$MD/version")" -gt 0
md_eq "so md_rs starts unsynced" 0 "$(md_stat md_rs synced)"
md_eq "the root is not poisoned by md_rs's loss" ok "$(md_chk "" verdict)"
md_inject delay resync 1500000
echo resync > "$MD/control" &
resync=$!
sleep 0.5
md_in_cg md_rs mdfile write "$W/b" 64
wait $resync
md_inject delay resync 0
md_check "the resync was held in the gap" test "$(md_delay_hits resync)" -ge 1
md_eq "a memcg with events in the gap is not synced from that scan" 0 "$(md_stat md_rs synced)"
md_check "md_rs syncs once still" md_wait_synced md_rs
v=$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"] && v["ledger"] == v["scan"], v["kernel"] }' "$MD/cgroups/md_rs/check")
md_check "md_rs: check ok, ledger = kernel = scan, >= 64 pages ($v)" test "${v% *}" = "ok 1" -a "${v##* }" -ge 64
md_release_writeback
sync
md_eq "after sync: ledger and kernel 0" "0 0" "$(md_stat md_rs dirty) $(md_stat md_rs kernel_dirty)"
md_eq "after sync: verdict ok" ok "$(md_chk md_rs verdict)"
rm -rf "$W"
md_rmcg md_rs
md_check "rmmod" md_unload
md_finish
