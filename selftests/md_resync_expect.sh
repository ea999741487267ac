#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A difference that appears after the module has seen a memcg at rest is
# never absorbed (docs/verdicts.md, principle 1), not even where the
# kernel reparents and a synced unit root is made to resync with a dying
# member that never synced (issue 39, finding 2).  Such a root took, at
# its next resync, whatever its unit's kernel count and pages were apart
# by then: the member's offset from before the load, and any bug since.
# Now it is held to what it had (none) plus the member's offset as the
# resync saw it stand while the member was live.
#
# md_rx/a and md_rx/b hold 8 dirty pages each from before the load, and a
# kernel count one page above them (the zoo's class 4, phantom): an
# offset the resync sees stand, but, with uncounted_ms long, does not take
# as a base.  md_rx itself has no offset and syncs.  (1) rmdir md_rx/a,
# dirty: md_rx resyncs with it, takes its page, reads ok, nothing is
# reported.  (2) rmdir md_rx/b and a phantom page in md_rx right after
# (on a folio of md_rx/a's, reparented to md_rx): the unit is two pages
# off where one was seen; the audit must
# report md_rx, ledger unknown, suspect kernel, within 40 s, and md_rx
# stays unsynced (without the fix: synced, nothing said).  (3) A member
# never seen at rest, busy from before a load to its removal: its root
# takes what it finds and says so, kernel_carried_unseen.
. ./lib.sh
md_require_writers
md_zoo_ready
W=$MD_WORK
md_load_reparenting "a dying member's wait exists only where the kernel reparents"
md_unload || md_skip_all "memcg_dirty cannot be unloaded"
md_mkcg md_rx md_rx/a md_rx/b
sync
md_hold_writeback
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_in_cg md_rx/a mdfile write "$W/a" 8
md_in_cg md_rx/b mdfile write "$W/b" 8
md_check "md_zoo loads" insmod "$zoo_ko"
echo "phantom $W/a 0" > /sys/kernel/debug/md_zoo/trigger
echo "phantom $W/b 0" > /sys/kernel/debug/md_zoo/trigger
md_load audit_ms=200 audit_warn=1 uncounted_ms=600000 ||
	md_skip_all "cannot load memcg_dirty with audit_ms=200 audit_warn=1 uncounted_ms=600000"
md_wait_dir md_rx/a
md_wait_dir md_rx/b
id=$(stat -c %i "$CG/md_rx")
md_check "md_rx syncs" md_wait_synced md_rx
# three passes of the resync, each judging both children still: their
# offsets stand
for i in 1 2 3; do echo resync > "$MD/control"; done
md_eq "md_rx/a unsynced (its offset stood, the wait is long)" 0 "$(md_stat md_rx/a synced)"
md_eq "md_rx/b unsynced" 0 "$(md_stat md_rx/b synced)"
md_eq "md_rx/a: kernel one page above its 8" "unsynced 9 8" \
	"$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"], v["scan"] }' "$MD/cgroups/md_rx/a/check")"
mark=$(dmesg | wc -l)
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
# --- (1) no bug: the root takes the member's seen offset
md_rmcg md_rx/a
echo resync > "$MD/control"
md_eq "md_rx made to resync with md_rx/a" 0 "$(md_stat md_rx synced)"
md_check "md_rx resyncs with md_rx/a" md_wait_synced md_rx
md_audits_pass 3
md_eq "md_rx: ok" ok "$(md_chk md_rx verdict)"
md_eq "nothing taken unseen" 0 "$(md_stat md_rx kernel_carried_unseen)"
md_eq "nothing reported" 0 "$(dmesg | tail -n +$((mark + 1)) | grep -c 'memcg_dirty: [a-z]* /md_rx' || true)"
# --- (2) a bug while md_rx waits for md_rx/b
md_rmcg md_rx/b
# md_rx/a's folios are md_rx's now
echo "phantom $W/a 0" > /sys/kernel/debug/md_zoo/trigger
# a wait that could end now must not take the bug in (it did: md_rx synced
# with kernel_carried -2, nothing said)
echo 3000 > /sys/module/memcg_dirty/parameters/uncounted_ms
md_poll 400 md_reported mismatch "$id"
md_diag "md_rx synced $(md_stat md_rx synced), kernel_carried $(md_stat md_rx kernel_carried)"
md_check "the bug in md_rx's wait is reported within 40 s" md_reported mismatch "$id"
line=$(dmesg | grep -m 1 "memcg_dirty: mismatch /md_rx (id $id) node ")
md_diag "$line"
md_check "the line: ledger unknown, suspect kernel" sh -c \
	"echo '$line' | grep -Eq 'ledger unknown \(unsynced\) scan [0-9]+, suspect kernel\$'"
md_eq "md_rx unsynced" 0 "$(md_stat md_rx synced)"
echo undo > /sys/kernel/debug/md_zoo/trigger
md_audits_pass 3
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg

# --- (3) a member never seen at rest: what its root takes is said.  md_ru/c
# has a dirty page and a phantom one from before the load, and that page
# locked by a writeback sleeping in its cleaning (the zoo holds the file's
# rmap lock; a task maps the page) from before the load until after
# md_ru/c's removal: no pass can judge md_ru/c, so md_ru, once made to
# resync with it, has no offset to be held to and takes what it finds,
# md_ru/c's phantom page.  Its stat must say so: kernel_carried_unseen -1
# (scan - kernel), nothing reported.
Z=/sys/kernel/debug/md_zoo/trigger
md_check "rmmod for (3)" md_unload
md_mkcg md_ru md_ru/c
md_in_cg md_ru/c mdfile write "$W/c" 1
echo "phantom $W/c 0" > "$Z"
mkfifo "$W/ready"
mdfile mapwait "$W/c" 1 300 > "$W/ready" &
mapper=$!
read -r mapped < "$W/ready"
md_eq "md_ru/c's page is mapped" mapped "$mapped"
md_check "the zoo holds the file's rmap lock" sh -c "echo 'hold_mmap $W/c' > $Z"
mdfile startwb "$W/c" 0 "$W/c" 0 &
wb=$!
md_check "the writeback sleeps in its cleaning, the page locked" md_poll 100 md_task_blocked "$wb"
md_load audit_ms=200 uncounted_ms=3000 ||
	md_skip_all "cannot load memcg_dirty with audit_ms=200 uncounted_ms=3000"
md_wait_dir md_ru/c
idu=$(stat -c %i "$CG/md_ru")
md_check "md_ru syncs" md_wait_synced md_ru
for i in 1 2 3; do echo resync > "$MD/control"; done
md_eq "md_ru/c unsynced: its page locked, no pass judged it" 0 "$(md_stat md_ru/c synced)"
md_rmcg md_ru/c
ru_unsynced() { echo resync > "$MD/control"; ! md_synced md_ru; }
md_check "md_ru made to resync with md_ru/c" md_poll 100 ru_unsynced
echo "hold_mmap off" > "$Z"
wait "$wb"
md_eq "the writeback is done" 0 "$?"
kill "$mapper" 2> /dev/null
wait "$mapper" 2> /dev/null
ru_synced() { echo resync > "$MD/control"; md_synced md_ru; }
md_check "md_ru resyncs once its unit is at rest" md_poll 300 ru_synced
md_eq "md_ru took md_ru/c's phantom page unseen" -1 "$(md_stat md_ru kernel_carried_unseen)"
md_audits_pass 3
md_eq "md_ru: ok" ok "$(md_chk md_ru verdict)"
md_eq "nothing reported for md_ru" 0 "$(md_lines '[a-z]*' "$idu")"
# the phantom page put back is a change no probe saw, reported (not checked)
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
echo undo > "$Z"
md_audits_pass 3
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg

rm -rf "$W"
sync
md_check "rmmod md_zoo" rmmod md_zoo
md_release_writeback
md_rmcg md_rx md_ru
md_check "rmmod" md_unload
md_check "outside the expected warnings, dmesg is clean" md_dmesg_clean
md_finish
