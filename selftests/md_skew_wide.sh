#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: fault injection's skew of a memcg's counter went through the
# kernel's lruvec_stat_mod_folio(), whose count is an int, with a long:
# an undo of skews summing past 2^31 pages was truncated on the memcg's
# side (the node's side takes a long), and left the memcg's counter off by
# 2^32 pages for good.  2100 skews of 2^20 pages each, then one unskew.
# Without the fix memory.stat's file_dirty stays 2^32 pages (16 TiB) above
# where it was; with it, it comes back exactly.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_cgroup2_memory
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_mkcg md_sw
md_wait_dir md_sw
page=$(getconf PAGESIZE 2>/dev/null || echo 4096)
base=$(md_memstat md_sw file_dirty)
n=2100
i=0
while [ $i -lt $n ] && md_inject skew /md_sw 1048576; do
	i=$((i + 1))
done
md_eq "$n skews of 2^20 pages accepted" $n $i
want=$((base + n * 1048576 * page))
md_eq "memory.stat shows them ($n * 2^20 pages > 2^31)" $want "$(md_memstat_settled md_sw $want)"
md_inject unskew /md_sw
md_eq "one unskew puts file_dirty back where it was" "$base" "$(md_memstat_settled md_sw "$base")"
md_rmcg md_sw
md_check "rmmod" md_unload
md_check "no kernel warning or oops" md_dmesg_clean
md_finish
