#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: one lost event (a memcg found no ledger entry: the pool empty, an
# allocation failed) made every verdict untrusted for the module's
# lifetime.  Fault injection fails md_lo's first entry creations while it
# writes: events are lost, md_lo's entry starts unsynced, the root's and a
# bystander's verdicts stay ok, and once still md_lo syncs and agrees.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_mkcg md_lo_by
md_wait_dir md_lo_by
sync
md_check "root: synced after the load" md_wait_synced ""
md_hold_writeback
md_in_cg md_lo_by mdfile write "$W/by" 16
md_inject nomem md_lo 8
md_mkcg md_lo
md_in_cg md_lo mdfile write "$W/a" 32
md_check "md_lo's directory appears" md_wait_dir md_lo
md_check "events were lost for want of its entry" test "$(awk '$1 == "lost_events" { print $2 }' "$MD/version")" -gt 0
md_eq "md_lo starts unsynced" 0 "$(md_stat md_lo synced)"
md_eq "the root is not poisoned by md_lo's loss" ok "$(md_chk "" verdict)"
md_eq "nor is a bystander" ok "$(md_chk md_lo_by verdict)"
md_check "md_lo syncs once still" md_wait_synced md_lo
v=$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"] && v["ledger"] == v["scan"] }' "$MD/cgroups/md_lo/check")
md_eq "md_lo: check ok, ledger = kernel = scan" "ok 1" "$v"
md_release_writeback
sync
md_eq "after sync: ledger and kernel 0" "0 0" "$(md_stat md_lo dirty) $(md_stat md_lo kernel_dirty)"
rm -rf "$W"
md_rmcg md_lo md_lo_by
md_check "rmmod" md_unload
md_finish
