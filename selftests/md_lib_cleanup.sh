#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lib.sh's cleanup: a test that fails while its writer, its compaction
# antagonist and held writeback are all running leaves nothing behind: no
# cgroup, no background job, no work directory, no loaded module, and the
# writeback settings as they were.
. ./lib.sh
md_require_writers
md_require_ko
wb0=$(cat /proc/sys/vm/dirty_writeback_centisecs)
child=/tmp/md_lib_cleanup_child.$$.sh
cat > "$child" <<'CHILD'
. ./lib.sh
md_require_writers
md_require_module
md_hold_writeback
md_mkcg md_lc md_lc/a
md_writer "$MD_WORK/stop" "$MD_WORK/f" 64 2
echo $! > "$CG/md_lc/a/cgroup.procs"
md_compactor "$MD_WORK/stop" 0.2
sleep 1
md_not_ok "a deliberate failure"
md_finish
CHILD
MEMCG_DIRTY_DIR=$MD_FS sh "$child" > /dev/null 2>&1
rc=$?
rm -f "$child"
md_eq "the failing test exited 1" 1 $rc
md_check "its cgroups are gone" test ! -d "$CG/md_lc"
md_check "the module is unloaded" test ! -d /sys/module/memcg_dirty
# the writer and the compactor are subshells of the child script: their
# command line is the child's (the brackets keep grep from finding itself)
md_eq "no writer or compactor left" 0 \
	"$(grep -l 'md_lib_cleanup_chil[d]\|mdfil[e]' /proc/[0-9]*/cmdline 2>/dev/null | wc -l)"
md_eq "writeback settings put back" "$wb0" "$(cat /proc/sys/vm/dirty_writeback_centisecs)"
md_eq "its work directory is gone" 1 "$(ls -d "$MD_FS"/md_selftest.* 2>/dev/null | wc -l)"
md_finish
