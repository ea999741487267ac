#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the debugfs files exist before the load gives each memcg its
# unsynced entry.  A reader during the load (a textfile timer at boot)
# made synced entries, based at 0, for memcgs that held dirty pages: every
# such memcg logged "mismatch".  A delay point holds the load 2 s with the
# files made and no entry yet, while summary is read in a loop; a cgroup
# holds dirty pages from before.  No summary line may say mismatch, none
# may be logged, and after a resync every verdict is ok.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
md_unload
md_mkcg md_rlf
sync
md_hold_writeback
# no flusher at all: with dirty_writeback_centisecs 0 an inode dirtied on an
# idle writeback context wakes it at once, and a new cgroup's small share of
# the limit has it clean the pages (md_zoo.sh)
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_in_cg md_rlf mdfile write "$W/f" 64
md_diag "md_rlf before the load: file_dirty $(md_memstat md_rlf file_dirty)"
md_load fault_inject=1 delay=load_files:2000000 &
loader=$!
reads=0 bad=0
while md_running $loader; do
	if [ -r "$MD/summary" ]; then
		s=$(cat "$MD/summary" 2> /dev/null) || continue
		reads=$((reads + 1))
		echo "$s" | awk '$2 == "/md_rlf" && $6 == "mismatch" { f = 1 } END { exit !f }' &&
			bad=$((bad + 1))
	fi
	sleep 0.1
done
wait $loader || md_not_ok "load"
md_diag "md_rlf after the load: file_dirty $(md_memstat md_rlf file_dirty), $(md_views md_rlf)"
md_diag "$reads summaries read during the load"
md_check "the load held its window ($(md_delay_hits load_files))" test "$(md_delay_hits load_files)" = 1
md_check "summary was read while the load was held" test $reads -ge 3
md_eq "no summary line said mismatch during the load" 0 $bad
md_check "no mismatch logged" sh -c "! awk '\$5 ~ /mismatch|underflow|negative/' $MD/events | grep -q ."
md_check "md_rlf syncs" md_wait_synced md_rlf
md_eq "md_rlf: ok, 64 pages in each view" "ok 64 64 64" "$(md_views md_rlf)"
md_release_writeback
rm -rf "$W"
sync
md_rmcg md_rlf
md_check "rmmod" md_unload
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
md_finish
