#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memcg-dirty against the real module on a real workload: its numbers equal
# the debugfs files, check's exit status follows injected faults, and its
# node_exporter textfile is valid Prometheus text.
. ./lib.sh
md_require_writers
command -v memcg-dirty > /dev/null || md_skip_all "memcg-dirty is not built (make cli)"
md_require_ko
W=$MD_WORK
PS=$(getconf PAGESIZE 2>/dev/null || echo 4096)

md_unload
out=$(memcg-dirty check 2>&1)
rc=$?
md_eq "module not loaded: exit 2" 2 $rc
md_check "and says what to do ($out)" sh -c "echo \"$out\" | grep -q \"run 'modprobe memcg_dirty'\""
md_load fault_inject=1 || exit 1
md_mkcg md_cli md_cli/a
md_wait_dir md_cli/a
sync
md_wait_synced "" > /dev/null
md_hold_writeback
md_in_cg md_cli/a mdfile write "$W/a" 2048

j=$(memcg-dirty --json /sys/fs/cgroup/md_cli/a)
got=$(echo "$j" | sed -n 's/.*"path":"\/md_cli\/a","state":"online","dirty_bytes":\([0-9-]*\),"kernel_dirty_bytes":\([0-9-]*\).*/\1 \2/p')
want="$(($(md_stat md_cli/a dirty) * PS)) $(($(md_stat md_cli/a kernel_dirty) * PS))"
md_eq "the CLI's bytes equal debugfs' pages x page size" "$want" "$got"
md_check "the table lists md_cli/a" sh -c "memcg-dirty | grep -q '^/md_cli/a '"
md_check "the tree shows subtree totals" sh -c "memcg-dirty --tree md_cli | grep -q '^md_cli '"
memcg-dirty check /md_cli/a > /dev/null
md_eq "check on a clean cgroup: exit 0" 0 $?
echo "skew /md_cli/a 5" > "$MD/inject"
memcg-dirty check /md_cli/a > /dev/null
md_eq "kernel skewed: exit 1" 1 $?
echo "unskew /md_cli/a" > "$MD/inject"
memcg-dirty check md_cli/a > /dev/null
md_eq "undone: exit 0" 0 $?
memcg-dirty --prometheus /tmp/md.prom --max-cgroups 50
md_eq "textfile written" 0 $?
md_check "textfile is valid Prometheus text" mdpromcheck /tmp/md.prom
md_check "textfile has md_cli/a's ledger bytes" \
	grep -q "memcg_dirty_bytes{cgroup=\"/md_cli/a\",source=\"ledger\"} $(($(md_stat md_cli/a dirty) * PS))" /tmp/md.prom
md_check "probes view" sh -c "memcg-dirty probes | grep -q writeback_dirty_folio"
md_check "scan runs" sh -c "memcg-dirty scan | grep -q 'scan took'"
# the writeback domains: judged once nothing moves while the module scans
md_check "domains: judged, ok, exit 0" md_poll 50 sh -c "memcg-dirty domains > /tmp/md.dom && grep -q '^writeback domains: ok, judged' /tmp/md.dom"
md_diag "$(head -n 3 /tmp/md.dom | tr '\n' ' ')"
md_check "domains --json: the verdict and the exit" sh -c "memcg-dirty domains --json | grep -q '\"exit\":0'"
md_check "textfile has the domains' status" grep -q '^memcg_dirty_domains_status{verdict=' /tmp/md.prom
md_check "rates prints plain lines off a tty" sh -c "memcg-dirty rates -n 0.5 -c 1 | grep -q '/md_cli/a dirty='"
echo "miss dirtied 1" > "$MD/inject"
memcg-dirty check > /dev/null
md_eq "probe misses: exit 3" 3 $?
md_check "events lists the miss" sh -c "memcg-dirty events --json | grep -q probe_missed"
md_release_writeback
md_unload
rm -rf "$W"
sync
md_rmcg md_cli/a md_cli
md_finish
