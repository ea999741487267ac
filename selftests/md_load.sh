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
md_check "rmmod succeeds" md_unload
md_check "debugfs root gone after unload" test ! -e "$MD"
left=$(grep -c 'folio_clear_dirty_for_io\|folio_account_cleaned\|migrate_mapping\|mem_cgroup_css\|mem_cgroup_move_account\|reparent_memcg_lruvec_state_local' /sys/kernel/debug/kprobes/list)
md_eq "no probes left behind after unload" 0 "$left"
md_check "module gone from /sys/module" test ! -e /sys/module/memcg_dirty

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
