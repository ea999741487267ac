#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.x, where the kernel reparents): a check found its unit's dying
# members once, before its own scan (two grace periods and a walk of every
# page): a child killed meanwhile was left out, while the kernel counted
# its folios' changes in the parent from the kill on and the ledger in the
# child, whose folios were not yet repointed: "mismatch, suspect kernel",
# logged, and memcg-dirty check exit 1 (issue 39, finding 5).  Members are
# found again at every read now.  A check of md_rk is held 2 s before its
# views ("carry_read" delay) with md_rk/c alive and 16 pages dirty; then
# rmdir md_rk/c, its offlining held 1.5 s before the kernel repoints its
# folios ("offline"), and in that window the pages are written back.  The
# check must not say mismatch.
. ./lib.sh
md_require_writers
md_require_ko
[ -d /sys/devices/system/cpu/cpu1 ] || md_skip_all "needs two CPUs: the offlining held on one, the write-back on the other"
W=$MD_WORK
md_load_reparenting "a killed child's changes count in its parent" fault_inject=1
[ -e "$MD/inject" ] || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_mkcg md_rk md_rk/c
md_wait_dir md_rk/c
sync
md_hold_writeback
# no flusher at all: with dirty_writeback_centisecs 0 an inode dirtied on an
# idle writeback context wakes it at once, and a new cgroup's small share of
# the limit has it clean the pages (md_zoo.sh)
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_in_cg md_rk/c mdfile write "$W/c" 16
md_eq "md_rk/c: ok, 16 dirty pages" "ok 16 16 16" "$(md_views md_rk/c)"
md_inject delay carry_read 2000000
h=$(md_delay_hits carry_read)
awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"], v["ledger"], v["scan"], v["suspect"] }' \
	"$MD/cgroups/md_rk/check" > "$W/check.out" &
checker=$!
md_poll 100 sh -c "[ \"\$(awk '\$1 == \"delay\" && \$2 == \"carry_read\" { print \$5 }' $MD/inject)\" != $h ]"
md_inject delay carry_read 0
md_inject delay offline 1500000
o=$(md_delay_hits offline)
rmdir "$CG/md_rk/c"
md_poll 100 sh -c "[ \"\$(awk '\$1 == \"delay\" && \$2 == \"offline\" { print \$5 }' $MD/inject)\" != $o ]"
sync -d "$W/c"
wait $checker
md_inject delay offline 0
v=$(cat "$W/check.out")
md_diag "md_rk's check across the kill (verdict kernel ledger scan suspect): $v"
md_check "the offlining was held ($(md_delay_hits offline))" test "$(md_delay_hits offline)" -gt "$o"
md_check "the check did not say mismatch" test "${v%% *}" != mismatch -a "${v%% *}" != underflow
md_check "no mismatch logged" sh -c "! awk '\$5 ~ /mismatch|underflow|negative/' $MD/events | grep -q ."
md_release_writeback
rm -rf "$W"
sync
md_check "md_rk: ok" md_poll 50 sh -c "[ \"\$(awk '\$1 == \"verdict\" { print \$2 }' $MD/cgroups/md_rk/check)\" = ok ]"
md_rmcg md_rk
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
