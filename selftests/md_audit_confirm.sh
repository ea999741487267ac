#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The audit says a bad verdict only when two escalations in a row find it.
# A page scan can catch a folio in passing (in a dirtier's gap: see
# md_race_retag.sh), so one full verdict is not enough for a console line,
# let alone a WARN; a bug's offset stays, and is reported one period later.
# With audit_ms=1000 audit_warn=1, the kernel's counter of md_cf is skewed
# by 5 pages until its first escalation, then put back: the escalation's
# mismatch is counted unconfirmed, and nothing is reported or logged.  Skewed
# again and left so, it is reported after the second escalation, with one WARN
# (each pass held 1 s between its lines and its totals, which are read
# once the printing pass has added to them).
. ./lib.sh
md_require_writers
md_require_ko
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
md_load_inject audit_ms=1000 audit_warn=1 ||
	md_skip_all "cannot load memcg_dirty with fault_inject=1 audit_ms=1000 audit_warn=1"
md_mkcg md_cf
md_wait_dir md_cf
id=$(stat -c %i "$CG/md_cf")
mark=$(dmesg | wc -l)

# escalated: the escalations counter passed E
escalated() {
	[ "$(md_audit escalations)" -gt "$1" ]
}

not_logged() {
	! md_has_event mismatch "$id"
}

# --- a mismatch that lasts for one escalation only
e0=$(md_audit escalations)
md_inject skew /md_cf 5
md_check "the skew is escalated" md_poll 600 escalated "$e0"
md_inject unskew /md_cf
md_check "two audits pass" md_audits_pass 2
md_eq "its mismatch is counted unconfirmed" 1 "$(md_audit unconfirmed)"
md_eq "not as a bad verdict" 0 "$(md_audit bad_verdicts)"
md_eq "no console line" 0 "$(md_lines mismatch "$id")"
md_check "no event logged" not_logged
md_eq "no WARN" 0 "$(md_audit warned)"
md_eq "the check reads ok" ok "$(md_chk md_cf verdict)"

# --- a mismatch that stays, each pass held 1 s between its lines and its
# totals: the window in which md_reported_within once read the totals
# without the pass that printed (reported after -4 audits, no bad verdict)
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
md_inject delay audit_totals 1000000
a0=$(md_audit audits)
md_inject skew /md_cf 5
took=$(md_reported_within mismatch "$id" "$a0")
md_inject delay audit_totals 0
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
md_diag "reported after $took audits"
md_check "the passes were held before their totals ($(md_delay_hits audit_totals))" \
	test "$(md_delay_hits audit_totals)" -ge 1
md_check "a mismatch that stays is reported within 1 to 4 audits" \
	sh -c "[ '$took' -ge 1 ] && [ '$took' -le 4 ]" 2> /dev/null
md_eq "one bad verdict" 1 "$(md_audit bad_verdicts)"
md_eq "one WARN" 1 "$(md_marked_warnings)"
md_eq "one console line" 1 "$(md_lines mismatch "$id")"
md_inject unskew /md_cf
md_eq "no other console line of the audit since the start" 1 \
	"$(dmesg | tail -n +$((mark + 1)) | grep -Ec 'memcg_dirty: (mismatch|underflow) /' || true)"

# --- a constant offset that its memcg's count swings around: the kernel's
# counter 64 pages low, the memcg's 128 dirty pages written and removed in
# turn after each audit, so that escalations read mismatch (kernel 64,
# ledger 128) and underflow (kernel -64) in turn, the gap always -64
md_mkcg md_cf2
md_wait_dir md_cf2
id2=$(stat -c %i "$CG/md_cf2")
sync
md_hold_writeback
# no flusher at all: with dirty_writeback_centisecs 0 an inode dirtied on an
# idle writeback context wakes it at once, and a new cgroup's small share of
# the limit has it clean the pages (md_zoo.sh)
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
md_inject skew /md_cf2 -64
a0=$(md_audit audits)
e0=$(md_audit escalations)
dirty=0 n=0
while [ $n -lt 12 ] && ! md_reported mismatch "$id2" && ! md_reported underflow "$id2"; do
	md_audits_pass 1
	if [ $dirty = 0 ]; then
		md_in_cg md_cf2 mdfile write "$MD_WORK/cf2" 128
		dirty=1
	else
		rm -f "$MD_WORK/cf2"
		dirty=0
	fi
	n=$((n + 1))
done
took=never
for v in mismatch underflow; do
	md_reported $v "$id2" && md_poll 600 md_printed_since "$a0" &&
		took="$(($(md_audit printed_audit) - a0)) ($v)"
done
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
md_diag "$(($(md_audit escalations) - e0)) escalations; reported after $took audits"
md_check "an offset read as mismatch and underflow in turn is reported within 6 audits" \
	test "${took%% *}" -le 6 2> /dev/null
md_eq "its WARN" 1 "$(md_marked_warnings)"
md_inject unskew /md_cf2
rm -f "$MD_WORK/cf2"
md_release_writeback
md_rmcg md_cf md_cf2
md_check "rmmod" md_unload
md_check "outside the expected warnings, dmesg is clean" md_dmesg_clean
md_finish
