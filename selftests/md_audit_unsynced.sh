#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Never silent where the ledger has no starting point.  A memcg that held
# dirty pages when the module loaded starts unsynced, and the audit, which
# compares kernel and ledger, skipped it; a kernel bug that recurs there,
# moving its count against its pages between the resync's still passes,
# kept it unsynced for ever, and nothing was said (issue 39, finding 1).
# (1) md_ud holds 8 dirty pages from before the load; the zoo raises its
# kernel count by one page every second (class 4, phantom), with no page
# changing, from before the load on: the audit must report a mismatch of
# kernel and scan, the
# ledger unknown, suspect kernel, within 40 s, its check and the CLI must
# say mismatch, and once the zoo puts the counts back it syncs and reads
# ok.  (2) md_ub is kept busy from before the load, so that no resync can
# base it: it is reported once as unsynced after audit_unsynced_s (10 s),
# and once its writers stop a check bases it at once (finding 15).  The
# drift takes 4 still passes of the resync, 15 s after the load here.
. ./lib.sh
md_require_writers
md_zoo_ready
W=$MD_WORK
md_mkcg md_ud md_ub
sync
md_hold_writeback
# no flusher at all: with dirty_writeback_centisecs 0 an inode dirtied on an
# idle writeback context wakes it at once, and a new cgroup's small share of
# the limit has it clean the pages (md_zoo.sh)
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_in_cg md_ud mdfile write "$W/ud" 8
# two writers that dirty a page and truncate it without a pause: a shell
# loop's fork and exec left md_ub still through a whole scan (12 ms on 7.3
# under TCG) now and then, and a resync based it
md_in_cg md_ub mdfile churn "$W/ub1" "$W/stop" > /dev/null &
writer1=$!
md_in_cg md_ub mdfile churn "$W/ub2" "$W/stop" > /dev/null &
writer2=$!
md_check "md_zoo loads" insmod "$zoo_ko"
# the bug recurs from before the load: one phantom page a second
(while [ -d "$W" ] && [ ! -e "$W/stop_ud" ]; do
	echo "phantom $W/ud 0" > /sys/kernel/debug/md_zoo/trigger
	sleep 1
done) &
bug=$!
sleep 1.5
if ! md_load audit_ms=200 audit_warn=1 audit_unsynced_s=10; then
	touch "$W/stop" "$W/stop_ud"
	wait
	md_skip_all "cannot load memcg_dirty with audit_ms=200 audit_warn=1 audit_unsynced_s=10"
fi
md_wait_dir md_ud
md_wait_dir md_ub
idd=$(stat -c %i "$CG/md_ud")
idb=$(stat -c %i "$CG/md_ub")
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
# --- (1) a recurring bug in a memcg unsynced since the load
md_poll 400 md_reported mismatch "$idd"
md_diag "synced: $(md_stat md_ud synced); audit: $(awk '{ printf "%s %s ", $1, $2 }' "$MD/audit")"
md_check "the drift of md_ud's count is reported within 40 s" md_reported mismatch "$idd"
touch "$W/stop_ud"
wait $bug
line=$(dmesg | grep -m 1 "memcg_dirty: mismatch /md_ud (id $idd) node ")
md_diag "$line"
md_check "the line says the ledger is unknown and suspects the kernel" sh -c \
	"echo '$line' | grep -Eq 'kernel -?[0-9]+ ledger unknown \(unsynced\) scan 8, suspect kernel\$'"
md_eq "md_ud still unsynced" 0 "$(md_stat md_ud synced)"
md_eq "its check: mismatch of kernel and scan, ledger unknown, suspect kernel" "mismatch 0 kernel" \
	"$(awk '{ v[$1] = $2 } END { print v["verdict"], v["ledger_known"], v["suspect"] }' "$MD/cgroups/md_ud/check")"
memcg-dirty check /md_ud > /dev/null 2>&1
md_eq "memcg-dirty check /md_ud exits 1" 1 $?
echo undo > /sys/kernel/debug/md_zoo/trigger
md_check "the counts put back: md_ud syncs" md_wait_synced md_ud
md_eq "md_ud: ok, 8 pages in each view" "ok 8 8 8" "$(md_views md_ud)"
# --- (2) a memcg that is never still
md_check "md_ub reported unsynced once" md_poll 300 sh -c \
	"dmesg | grep -q 'memcg_dirty: unsynced /md_ub (id $idb) for 10 s'"
# md_ud, unsynced as long before its drift was found, may be said so too
md_eq "md_ub said so once" 1 "$(dmesg | grep -c "memcg_dirty: unsynced /md_ub (id $idb)" || true)"
md_check "md_ud at most once" test "$(dmesg | grep -c "memcg_dirty: unsynced /md_ud (id $idd)" || true)" -le 1
touch "$W/stop"
wait $writer1 $writer2
sync
memcg-dirty check /md_ub > /dev/null 2>&1
md_eq "the writers stopped: memcg-dirty check /md_ub exits 0 at once" 0 $?
md_eq "md_ub: synced" 1 "$(md_stat md_ub synced)"
md_audits_pass 3
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
md_eq "one WARN, md_ud's" 1 "$(md_marked_warnings)"
md_eq "the audit counted each unsynced line" "$(md_marked_lines 'memcg_dirty: unsynced /')" \
	"$(md_audit unsynced_long)"
rm -rf "$W"
sync
md_check "rmmod md_zoo" rmmod md_zoo
md_release_writeback
md_rmcg md_ud md_ub
md_check "rmmod" md_unload
md_check "outside the expected warnings, dmesg is clean" md_dmesg_clean
md_finish
