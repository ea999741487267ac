#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.x, where the kernel reparents): a child that never synced (it
# was busy from before the load) was carried into its synced parent when
# it was released: its ledger, events since the load only, went into the
# parent's, which then differed by the child's dirty pages at the load for
# good: "mismatch, suspect ledger", a WARN with audit_warn=1 (issue 39,
# finding 4).  The carry now unsyncs the parent, which the next resync
# bases with what it took.  md_cu/r writes and removes files without a
# pause from before the load (audit_ms=1000 audit_warn=1); once md_cu is synced and
# md_cu/r still is not, the writer stops, sync, rmdir md_cu/r: nothing may
# be reported, and md_cu's verdict is ok.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
# where the kernel does not reparent, skip before any writer starts
md_load_reparenting "a child is carried into its parent only where the kernel reparents"
md_unload || md_skip_all "memcg_dirty cannot be unloaded"
md_mkcg md_cu md_cu/r
sync
# dirty pages at the load, cleaned (removed) after it: the ledger of
# md_cu/r, events only, ends below its kernel count by what it held then
# (two of them, so that no scan finds md_cu/r still)
md_in_cg md_cu/r sh -c "while [ -d $W ] && [ ! -e $W/stop ]; do mdfile write $W/r 16; rm -f $W/r; done" &
writer=$!
md_in_cg md_cu/r sh -c "while [ -d $W ] && [ ! -e $W/stop ]; do mdfile write $W/s 16; rm -f $W/s; done" &
writer2=$!
sleep 1
md_load audit_ms=1000 audit_warn=1 || { touch "$W/stop"; wait; md_skip_all "cannot load memcg_dirty with audit_ms=1000 audit_warn=1"; }
mark=$(dmesg | wc -l)
id=$(stat -c %i "$CG/md_cu")
md_wait_dir md_cu/r
md_check "md_cu synced, md_cu/r not" md_poll 300 sh -c \
	"[ \"\$(awk '\$1 == \"synced\" { print \$2 }' $MD/cgroups/md_cu/stat)\" = 1 ]"
md_eq "md_cu/r unsynced (busy since before the load)" 0 "$(md_stat md_cu/r synced)"
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
touch "$W/stop"
wait $writer $writer2
sync
md_rmcg md_cu/r
md_check "md_cu/r released" md_poll 300 sh -c "! grep -q '/md_cu/r ' $MD/summary"
md_audits_pass 4
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
md_eq "nothing reported of md_cu" 0 \
	"$(dmesg | tail -n +$((mark + 1)) | grep -Ec "memcg_dirty: (mismatch|underflow) /md_cu \(id $id\)" || true)"
md_eq "no WARN" 0 "$(md_marked_warnings)"
md_check "md_cu synced again" md_wait_synced md_cu
md_eq "md_cu: ok" ok "$(md_chk md_cu verdict)"
rm -rf "$W"
sync
md_rmcg md_cu
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
