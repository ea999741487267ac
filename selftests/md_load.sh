#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload: the debugfs tree appears and goes, the probes come and go,
# and a load whose required probe cannot attach fails loudly.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_ko
[ -e /sys/kernel/debug/kprobes/list ] || md_skip_all "no kprobes support in this kernel"

md_unload
md_check "not loaded before the test" test ! -d "$MD"
md_check "insmod succeeds" md_load
md_check "debugfs root exists" test -d "$MD"
md_check "version, probes, summary and cgroups/ exist" \
	test -f "$MD/version" -a -f "$MD/probes" -a -f "$MD/summary" -a -d "$MD/cgroups"
nprobes=$(grep -c 'memcg_dirty\|folio_clear_dirty_for_io\|folio_account_cleaned\|migrate_mapping\|mem_cgroup_css' /sys/kernel/debug/kprobes/list)
md_check "kprobes registered ($nprobes)" test "$nprobes" -ge 4
# truncation's point is an ftrace callback of the module's own (cheaper
# than a kprobe); tracefs lists the functions ftrace calls out from
ftrace_list=/sys/kernel/debug/tracing/enabled_functions
md_eq "cancelled attached by ftrace" "folio_account_cleaned ftrace attached" \
	"$(awk '$1 == "cancelled" { print $2, $3, $4 }' "$MD/probes")"
if [ -r "$ftrace_list" ]; then
	md_check "ftrace calls out from folio_account_cleaned" grep -q '^folio_account_cleaned ' "$ftrace_list"
else
	md_skip "ftrace calls out from folio_account_cleaned" "no $ftrace_list"
fi
md_check "rmmod succeeds" md_unload
md_check "debugfs root gone after unload" test ! -e "$MD"
left=$(grep -c 'folio_clear_dirty_for_io\|folio_account_cleaned\|migrate_mapping\|mem_cgroup_css\|mem_cgroup_move_account\|reparent_memcg_lruvec_state_local' /sys/kernel/debug/kprobes/list)
md_eq "no probes left behind after unload" 0 "$left"
md_check "module gone from /sys/module" test ! -e /sys/module/memcg_dirty
if [ -r "$ftrace_list" ]; then
	md_check "no ftrace callback left behind" sh -c "! grep -q '^folio_account_cleaned ' $ftrace_list"
else
	md_skip "no ftrace callback left behind" "no $ftrace_list"
fi

# Where ftrace cannot take the point, the kprobe after it does.
md_check "load with the ftrace candidate refused" md_load fail_probe=cancelled/ftrace
md_eq "cancelled attached by its kprobe" "folio_account_cleaned kprobe attached" \
	"$(awk '$1 == "cancelled" { print $2, $3, $4 }' "$MD/probes")"
md_check "the kprobe is registered" grep -q 'folio_account_cleaned' /sys/kernel/debug/kprobes/list
md_check "unload after the fallback" md_unload

# A required probe point that cannot attach must fail the load.
mark=$(dmesg | wc -l)
if md_load fail_probe=cancelled 2>/dev/null; then
	md_not_ok "load with an unattachable required probe fails"
	md_unload
else
	md_ok "load with an unattachable required probe fails"
fi
md_check "dmesg names the probe that failed" sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'required probe point cancelled could not attach'"
md_check "nothing left after the failed load" test ! -e "$MD" -a ! -e /sys/module/memcg_dirty

md_check "second load succeeds" md_load
md_check "second unload succeeds" md_unload
md_finish
