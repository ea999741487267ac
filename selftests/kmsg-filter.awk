# SPDX-License-Identifier: GPL-2.0
# Kernel log lines that are no kernel problem, dropped before the problem
# patterns are looked for (selftests/lib.sh's md_dmesg_clean, and
# selftests/vm/console-scan on a VM's console):
# - an OOM kill's report, which carries a stack dump by design (md_oom.sh);
# - a WARN of memcg_dirty's audit between the markers a test writes to
#   /dev/kmsg around the bugs it stages on purpose (md_audit.sh), which
#   counts those WARNs itself.  Any other warning there still counts;
# - the kernel's echo of its command line, whose parameters may name what
#   the patterns look for (rcupdate.rcu_cpu_stall_timeout=), and RCU's
#   boot line saying that timeout.
/Kernel command line: |(^|\] )Command line: |RCU CPU stall warnings timeout set to/ { next }
/memcg_dirty selftest: expected audit warnings begin/ { expected = 1 }
/memcg_dirty selftest: expected audit warnings end/ { expected = 0 }
/invoked oom-killer/ { oom = 1 }
expected && /memcg_dirty: audit found/ { warn = 1 }
!oom && !warn { print }
/Killed process|oom_reaper|Out of memory and no killable/ { oom = 0 }
/---\[ end trace/ { warn = 0 }
