#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: load memcg_dirty, dirty 64 MiB of ext4 pages from a cgroup,
# and show the module's view beside the kernel's memory.stat, then sync.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_cgroup2_memory
md_require_disk
md_load || exit 1
md_hold_writeback

show() {
	echo "--- /sys/kernel/debug/memcg_dirty/summary"
	cat "$MD/summary"
	echo "--- cgroups/demo/stat"
	cat "$MD/cgroups/demo/stat"
	echo "--- cgroups/demo/check"
	cat "$MD/cgroups/demo/check"
	echo "--- /sys/fs/cgroup/demo/memory.stat (file_dirty is in bytes)"
	grep -E '^file_dirty ' "$CG/demo/memory.stat"
	if command -v memcg-dirty > /dev/null; then
		echo "--- memcg-dirty"
		memcg-dirty
		echo "--- memcg-dirty check"
		memcg-dirty check
	fi
}

echo "=== memcg_dirty $(awk '$1 == "version" { print $2 }' "$MD/version") on $(uname -r)"
echo "--- /sys/kernel/debug/memcg_dirty/probes"
cat "$MD/probes"
md_mkcg demo
md_wait_dir demo
echo "=== writing 64 MiB to $MD_FS from cgroup /demo"
md_in_cg demo dd if=/dev/zero of="$MD_WORK/demo" bs=1M count=64 2>/dev/null
show
echo "=== after sync"
md_release_writeback
sync
show
echo "--- probes after the writes"
cat "$MD/probes"
rm -rf "$MD_WORK"
md_rmcg demo
