#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: resync decided a scan was valid at its end, then read the events
# entry by entry; an event in that gap was baked into the base, leaving the
# ledger short for the module's lifetime.  md_rs holds dirty pages when the
# module loads (so it starts unsynced), and the first resync is held
# between its scan and its bases (1.5 s, set at load) while md_rs dirties
# 64 more pages.  It must not sync from that scan; once it syncs, ledger,
# kernel and scan agree, and after sync all are 0.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
md_unload
md_mkcg md_rs
sync
md_hold_writeback
md_in_cg md_rs mdfile write "$W/a" 32
md_load fault_inject=1 delay=resync:1500000 || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_check "md_rs's directory appears" md_wait_dir md_rs
md_eq "md_rs starts unsynced (pages from before the load)" 0 "$(md_stat md_rs synced)"
md_in_cg md_rs mdfile write "$W/b" 64
sleep 2
md_check "the first resync was held in the gap" test "$(md_delay_hits resync)" -ge 1
md_eq "a memcg with events in the gap is not synced from that scan" 0 "$(md_stat md_rs synced)"
md_inject delay resync 0
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
