#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cross-node migration of dirty file pages (move_pages(2)): the cgroup's
# totals do not change, the per-node values move, in the ledger and in the
# kernel alike.
. ./lib.sh
md_require_writers
md_require_module
[ -d /sys/devices/system/node/node1 ] ||
	md_skip_all "needs two NUMA nodes (in the VM: selftests/vm/run --numa)"

N=2048
md_mkcg md_numa
md_wait_dir md_numa
sync
md_hold_writeback
node0_cpu=$(sed 's/[-,].*//' /sys/devices/system/node/node0/cpulist)
md_in_cg md_numa taskset -c "$node0_cpu" mdfile write "$MD_WORK/f" $N
md_diag "pages by node after the write: $(mdfile nodes "$MD_WORK/f" | tr '\n' ' ')"

# move ONE TO: move the file's pages to node TO and check both views.
move() {
	to=$1
	from=$((1 - to))
	l_from=$(md_stat md_numa dirty_node$from) l_to=$(md_stat md_numa dirty_node$to)
	k_from=$(md_stat md_numa kernel_dirty_node$from) k_to=$(md_stat md_numa kernel_dirty_node$to)
	total=$(md_stat md_numa dirty)
	mig=$(md_stat md_numa migrated)
	moved=$(mdfile migrate "$MD_WORK/f" "$to" | awk '{ print $2 }')
	md_diag "node$from -> node$to: $moved pages on node$to after move_pages"
	md_check "node$from -> node$to: pages moved" test "$moved" -gt 0
	md_eq "node$from -> node$to: total unchanged" "$total" "$(md_stat md_numa dirty)"
	got_l="$(md_stat md_numa dirty_node$from) $(md_stat md_numa dirty_node$to)"
	got_k="$(md_stat md_numa kernel_dirty_node$from) $(md_stat md_numa kernel_dirty_node$to)"
	m=$(($(md_stat md_numa migrated) - mig))
	md_check "node$from -> node$to: migrated event counted $m pages" test "$m" -gt 0
	md_eq "node$from -> node$to: ledger per node moved by $m" "$((l_from - m)) $((l_to + m))" "$got_l"
	md_eq "node$from -> node$to: kernel per node moved the same" "$((k_from - m)) $((k_to + m))" "$got_k"
	md_check "node$from -> node$to: ledger equals kernel per node" md_agree md_numa
}
move 1
move 0
md_release_writeback
sync
md_eq "after sync: 0" "0 0" "$(md_stat md_numa dirty) $(md_stat md_numa kernel_dirty)"
rm -rf "$MD_WORK"
md_rmcg md_numa
md_finish
