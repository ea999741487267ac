#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The continuous audit (audit_ms).  A bug staged with fault injection (the
# kernel's counter of a cgroup moved without any page changing state) is
# reported on the console within four audit periods, with the cgroup's path
# and id, the node's three values and the suspect; once per memcg and
# verdict, however long it lasts.  With audit_warn=1 each memcg and
# verdict also raises exactly one WARN, including memcgs found bad before
# it was turned on.  A cgroup with a writer running
# beside them gets no line.  audit_ms refuses periods under 100 ms, and 0
# stops the audits.
. ./lib.sh
md_require_writers
md_require_ko
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
if md_load audit_ms=50 2>/dev/null; then
	md_not_ok "a load with audit_ms=50 is refused"
	md_unload
else
	md_ok "a load with audit_ms=50 is refused"
fi
md_check "and leaves no module behind" test ! -d /sys/module/memcg_dirty
md_load_inject audit_ms=200 || md_skip_all "cannot load memcg_dirty with fault_inject=1 audit_ms=200"
P=/sys/module/memcg_dirty/parameters
W=$MD_WORK

md_eq "audit_ms reads back" 200 "$(cat $P/audit_ms)"
md_check "a period under 100 ms is refused" sh -c "! echo 50 2>/dev/null > $P/audit_ms"
md_check "a period that is no number is refused" sh -c "! echo 2x 2>/dev/null > $P/audit_ms"
md_eq "the period stays" 200 "$(cat $P/audit_ms)"
md_check "audits run" md_audits_pass 3
md_eq "audit file: the period" 200 "$(md_audit audit_ms)"

md_mkcg md_au_busy md_au_kernel md_au_low md_au_warn
for c in md_au_busy md_au_kernel md_au_low md_au_warn; do
	md_wait_dir $c
done
busy=$(stat -c %i "$CG/md_au_busy")
kern=$(stat -c %i "$CG/md_au_kernel")
low=$(stat -c %i "$CG/md_au_low")
warn=$(stat -c %i "$CG/md_au_warn")

# a writer beside the staged bugs: never a line for it
md_writer "$W/stop" "$W/busy" 64 2
echo $! > "$CG/md_au_busy/cgroup.procs"

# the kernel's counter of md_au_kernel 5 pages above what its pages say
a0=$(md_audit audits)
md_inject skew /md_au_kernel 5
took=$(md_reported_within mismatch "$kern" "$a0")
md_diag "mismatch of md_au_kernel reported after $took audits"
md_check "a mismatch is reported within 4 audits" test "$took" -le 4 2>/dev/null
line=$(dmesg | grep "memcg_dirty: mismatch .* (id $kern) node ")
md_diag "$line"
md_check "the line names the path, the node, the three values and the suspect" \
	sh -c "echo '$line' | grep -Eq 'memcg_dirty: mismatch /md_au_kernel \(id $kern\) node [0-9]+: kernel 5 ledger 0 scan 0, suspect kernel$'"
md_check "events logged the mismatch" md_has_event mismatch "$kern"
md_audits_pass 6
md_eq "reported once, not at every audit" 1 "$(md_lines mismatch "$kern")"
md_eq "no WARN without audit_warn" 0 "$(md_audit warned)"

# below zero: an underflow, with its own line
a0=$(md_audit audits)
md_inject skew /md_au_low -3
took=$(md_reported_within underflow "$low" "$a0")
md_diag "underflow of md_au_low reported after $took audits"
md_check "an underflow is reported within 4 audits" test "$took" -le 4 2>/dev/null
md_check "its line: kernel -3, suspect kernel" \
	sh -c "dmesg | grep -Eq 'memcg_dirty: underflow /md_au_low \(id $low\) node [0-9]+: kernel -3 ledger 0 scan 0, suspect kernel$'"

# audit_warn=1: one WARN per memcg and verdict
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
echo 1 > $P/audit_warn
md_eq "audit_warn reads back in the audit file" 1 "$(md_audit audit_warn)"
a0=$(md_audit audits)
md_inject skew /md_au_warn 7
took=$(md_reported_within mismatch "$warn" "$a0")
md_check "with audit_warn, the line still comes within 4 audits" test "$took" -le 4 2>/dev/null
md_check "the WARN names memcg_dirty and what to read" \
	sh -c "dmesg | grep -q 'memcg_dirty: audit found mismatch in memory cgroup /md_au_warn (id $warn).*read /sys/kernel/debug/memcg_dirty/events'"
# the counter moves again: a new escalation, still no second WARN or line
md_inject skew /md_au_warn 2
md_audits_pass 6
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
for id in $warn $kern $low; do
	md_eq "exactly one WARN for cgroup $id" 1 \
		"$(dmesg | grep -c "memcg_dirty: audit found .* (id $id)" || true)"
done
md_check "the WARN of a memcg found bad before says its verdict" \
	sh -c "dmesg | grep -q 'memcg_dirty: audit found underflow in memory cgroup /md_au_low (id $low)'"
md_eq "three kernel warnings in all" 3 "$(md_marked_warnings)"
md_eq "the audit file counts them" 3 "$(md_audit warned)"
md_eq "and one console line for md_au_warn" 1 "$(md_lines mismatch "$warn")"
md_check "outside the expected ones, dmesg is clean" md_dmesg_clean
echo 0 > $P/audit_warn

touch "$W/stop"
wait
md_eq "no line for the cgroup with the writer" 0 "$(dmesg | grep -c "memcg_dirty: [a-z]* .* (id $busy) node " || true)"
md_eq "the audit file counts the lines printed" 3 "$(md_audit printed)"
md_diag "$(tr '\n' ' ' < "$MD/audit")"

# 0 stops the audits
echo 0 > $P/audit_ms
sleep 0.5
a=$(md_audit audits)
sleep 1
md_eq "audit_ms=0: no more audits" "$a" "$(md_audit audits)"
echo 150 > $P/audit_ms
md_check "set again at run time, audits resume" md_audits_pass 2

md_inject unskew /md_au_kernel
md_inject unskew /md_au_low
md_inject unskew /md_au_warn
# no dirty page left behind in a removed cgroup: on 7.x, one released while
# the module is unloaded leaves its parent's counter off for the next load
rm -f "$W"/busy*
sync
md_rmcg md_au_busy md_au_kernel md_au_low md_au_warn
md_check "rmmod" md_unload
md_finish
