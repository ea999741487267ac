# SPDX-License-Identifier: GPL-2.0
# Kernel log lines that are no kernel problem, dropped before the problem
# patterns are looked for (selftests/lib.sh's md_dmesg_clean, and
# selftests/vm/console-scan on a VM's console):
# - an OOM kill's report, which carries a stack dump by design (md_oom.sh);
# - a WARN of memcg_dirty's audit between the markers a test writes to
#   /dev/kmsg around the bugs it stages on purpose (md_audit.sh), which
#   counts those WARNs itself.  Any other warning there still counts.  The
#   kernel's ring may have dropped a window's begin marker (a long suite on
#   a small buffer): lines before the first marker seen are in a window
#   when that marker is an end; and the ring may begin inside a report,
#   whose tail up to its "end trace" is the audit's if its stack is;
# - the kernel's echo of its command line, whose parameters may name what
#   the patterns look for (rcupdate.rcu_cpu_stall_timeout=), and RCU's
#   boot line saying that timeout.
# A VM's console holds the boot's log, then the guest's dmesg again after
# MEMCG_DIRTY_DMESG_BEGIN (selftests/vm/init): a stream of its own.
function line(l) {
	if (l ~ /Kernel command line: |(^|\] )Command line: |RCU CPU stall warnings timeout set to/)
		return
	if (l ~ /memcg_dirty selftest: expected audit warnings begin/)
		expected = 1
	if (l ~ /memcg_dirty selftest: expected audit warnings end/)
		expected = 0
	if (l ~ /invoked oom-killer/)
		oom = 1
	if (expected && l ~ /memcg_dirty: audit found/)
		warn = 1
	if (!oom && !warn)
		print l
	if (l ~ /Killed process|oom_reaper|Out of memory and no killable/)
		oom = 0
	if (l ~ /---\[ end trace/)
		warn = 0
}
# the stream's lines held before its first marker, in a window or not
function replay(in_window,	i, j, k) {
	expected = in_window
	j = 0
	if (in_window)
		for (i = 1; i <= held && !j; i++) {
			if (early[i] ~ /cut here|memcg_dirty: audit found/)
				break
			if (early[i] ~ /---\[ end trace/)
				j = i
		}
	for (k = 1; k <= j; k++)
		if (early[k] ~ /md_audit_fn|md_audit_report|md_domains_report/)
			break
	if (k > j)
		j = 0		# not the audit's: every line counts
	for (i = j + 1; i <= held; i++)
		line(early[i])
	held = 0
}
function stream() {
	if (!marked)
		replay(0)
	marked = 0
	expected = 0
	oom = 0
	warn = 0
}
/^MEMCG_DIRTY_DMESG_BEGIN/ {
	stream()
	print
	next
}
!marked && /memcg_dirty selftest: expected audit warnings (begin|end)/ {
	marked = 1
	replay($0 ~ /warnings end/)
}
!marked { early[++held] = $0; next }
{ line($0) }
END { stream() }
