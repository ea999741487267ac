#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: a resync took a page into the ledger's base that the kernel had
# not counted yet, and the audit then cried wolf.  The page scan counts a
# dirty folio once it carries the dirty tag, set with the count; but
# folio_clear_dirty_for_io() leaves the tag until the writeback starts,
# and a dirtier that sets PG_dirty in between (mark_buffer_dirty() needs
# no folio lock) and is then preempted in its gap past the writeback's
# start (nothing there is an RCU reader from 6.13 on) leaves a folio dirty,
# tagged and not counted, for as long as it is kept off its CPU.  A resync
# of its memcg, quiet meanwhile, took the scan as the base: once the
# dirtier counted the page, the ledger stayed the kernel's + 1 for good,
# and with the audit on, a false mismatch and a WARN followed.
# The zoo makes that folio: page 0 of md_tag's file, written back once
# (so that a later write only overwrites: no block allocation, which
# data=ordered would write back at a journal commit), dirtied again,
# cleaned for I/O with its tag kept (clean_io), then its dirtier asleep in
# the gap (class 9).  The module loads meanwhile (md_tag unsynced, as every
# memcg at load), with the audit at its period's floor and audit_warn=1.
# Resyncs while the gap is open must leave md_tag unsynced (its kernel
# count and its scan apart); once the dirtier counts the page, md_tag
# syncs, all three views agree, and the audit says nothing.
. ./lib.sh
md_require_writers
md_require_ko
mark=$(dmesg | wc -l)
md_zoo_one_page md_tag
if ! md_check "md_zoo loads" insmod "$zoo_ko"; then
	md_finish
fi

# dirty page 0 again and clean it for I/O at once: tries again if it was
# written back in between (nothing should, with writeback held)
clean_io_dirty() {
	for try in 1 2 3 4 5; do
		md_in_cg md_tag dd if=/dev/zero of="$W/t" bs=4096 count=1 conv=notrunc 2> /dev/null
		echo "clean_io $W/t 0" 2> /dev/null > "$Z/trigger" && return 0
		md_diag "page 0 was clean again before clean_io (try $try)"
	done
	return 1
}

if ! clean_io_dirty; then
	# seen on 6.12-rt: the zoo found page 0 clean after every write
	md_release_writeback
	rmmod md_zoo
	rm -rf "$W"
	md_rmcg md_tag
	md_skip_all "page 0 was clean for the zoo after each of 5 writes: its folio cannot be staged here"
fi
md_ok "page 0 is dirtied, then cleaned for I/O, its dirty tag kept"
md_check "its dirtier sets PG_dirty and sleeps in its gap" md_zoo_gap_start "$W/t" 0 6000
md_load audit_ms=100 audit_warn=1 || md_skip_all "cannot load memcg_dirty with audit_ms=100 audit_warn=1"
md_check "md_tag's directory appears" md_wait_dir md_tag
md_eq "md_tag starts unsynced" 0 "$(md_stat md_tag synced)"
echo resync > "$MD/control"
echo resync > "$MD/control"
md_check "the gap was still open after the resyncs" md_zoo_gap_open
md_diag "in the gap: synced $(md_stat md_tag synced) ledger $(md_stat md_tag dirty) kernel $(md_stat md_tag kernel_dirty) scan $(md_chk md_tag scan)"
md_eq "in the gap the kernel counts no page" 0 "$(md_stat md_tag kernel_dirty)"
md_eq "a resync does not sync md_tag while its scan (1) and kernel count (0) are apart" \
	0 "$(md_stat md_tag synced)"
wait "$md_gap_pid"
md_check "md_tag syncs once the dirtier counted the page" md_wait_synced md_tag
md_eq "ledger and kernel 1" "1 1" "$(md_stat md_tag dirty) $(md_stat md_tag kernel_dirty)"
md_eq "check ok, all three views 1" "ok 1 1 1" "$(md_views md_tag)"
sleep 1		# ten audits
md_check "the audit ran" test "$(md_audit audits)" -ge 3
md_eq "the audit found no bad verdict" 0 "$(md_audit bad_verdicts)"
md_eq "and raised no WARN" 0 "$(md_audit warned)"

md_release_writeback
sync
md_eq "after sync: ledger and kernel 0" "0 0" "$(md_stat md_tag dirty) $(md_stat md_tag kernel_dirty)"
md_eq "after sync: verdict ok" ok "$(md_chk md_tag verdict)"
md_eq "no line of the audit on the console" 0 \
	"$(dmesg | tail -n +$((mark + 1)) | grep -Ec 'memcg_dirty: (mismatch|underflow|audit found)' || true)"
rmmod md_zoo
rm -rf "$W"
md_rmcg md_tag
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
