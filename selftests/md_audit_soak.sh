#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The audit's false alarms: audit_ms=100 and audit_warn=1 for MD_SOAK_S
# seconds (default 30; make check-audit runs 600) under the suite's heaviest
# workloads at once: a writer in a memory-limited cgroup with the 4.3 fix's
# compaction antagonist (dirty folios migrate), a writer of fresh files
# removed once written, and cgroups created, written and removed while
# still dirty (dying memcgs), in a loop.  No fault is staged, so not one
# console line, bad verdict or WARN may come of it, while the audits run
# and compare every memcg; nor may the per-page shadow (track=1) find a
# page cleaned that was never counted dirty.
. ./lib.sh
md_require_writers
md_require_ko
SOAK=${MD_SOAK_S:-30}
md_reload audit_ms=100 audit_warn=1 track=1 ||
	md_skip_all "cannot load memcg_dirty with audit_ms=100 audit_warn=1 track=1"
W=$MD_WORK

secs() { awk '{ printf "%d\n", $1 }' /proc/uptime; }

mark=$(dmesg | wc -l)
md_mkcg md_soak md_soak/lim md_soak/fresh md_soak/churn
echo +memory > "$CG/md_soak/churn/cgroup.subtree_control"
echo 64M > "$CG/md_soak/lim/memory.max"
md_wait_dir md_soak/churn
md_writer "$W/stop" "$W/lim" 8192 2
echo $! > "$CG/md_soak/lim/cgroup.procs"
md_writer "$W/stop" "$W/fresh" 256 0
echo $! > "$CG/md_soak/fresh/cgroup.procs"
md_compactor "$W/stop" 1

a0=$(md_audit audits)
end=$(($(secs) + SOAK))
n=0
while [ "$(secs)" -lt $end ]; do
	n=$((n + 1))
	mkdir "$CG/md_soak/churn/c$n"
	md_in_cg "md_soak/churn/c$n" mdfile write "$W/c$n" 64
	# removed while dirty; every other file goes too, dirty or not
	rmdir "$CG/md_soak/churn/c$n"
	[ $((n % 2)) = 0 ] || rm -f "$W/c$n"
done
touch "$W/stop"
wait
audits=$(($(md_audit audits) - a0))
md_diag "$SOAK s: $audits audits, $n cgroups churned; $(tr '\n' ' ' < "$MD/audit")"
md_check "the audits ran (at least one per 2 s)" test "$audits" -ge $((SOAK / 2))
md_check "they compared memcgs" test "$(md_audit last_memcgs)" -gt 0
md_eq "no bad verdict" 0 "$(md_audit bad_verdicts)"
md_eq "no WARN" 0 "$(md_audit warned)"
md_eq "no console line of the audit" 0 \
	"$(dmesg | tail -n +$((mark + 1)) | grep -Ec 'memcg_dirty: (mismatch|underflow|untrusted|audit found)' || true)"
echo scan > "$MD/control"
md_eq "a scan after it finds no dirty page the ledger never counted (folios)" 0 \
	"$(awk 'NR == 1 { print $2 }' "$MD/folios")"
md_diag "$(awk '$1 ~ /^shadow_/ { printf "%s %s ", $1, $2 }' "$MD/version")"
md_eq "the shadow (track=1) said no page cleaned uncounted" 0 \
	"$(awk '$1 == "shadow_said" { print $2 }' "$MD/version")"
md_check "dmesg is clean" md_dmesg_clean
rm -f "$W"/c*
md_rmcg md_soak/lim md_soak/fresh md_soak/churn md_soak
md_check "rmmod" md_unload
md_finish
