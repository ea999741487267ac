#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The watch's ring (32 changes per CPU) is read by a work item: a record
# the ring has since lapped must be counted lost, never read as the record
# that took its slot (which would be counted twice, and lost undercount).
# With the report held (delay point "watch") after taking a CPU's head, a
# few of the kernel's own changes (dirtied pages, accounted) are followed
# on the same CPU by 32 phantom increments of the zoo (outside), which
# lap them: the watch must count exactly the phantoms as outside, and the
# lapped changes as lost.
. ./lib.sh
md_require_writers
md_require_ko
md_zoo_ready
md_load_inject || md_skip_all "cannot load memcg_dirty with fault injection"
md_check "md_zoo loads" insmod "$zoo_ko" || md_finish
Z=/sys/kernel/debug/md_zoo/trigger
W=$MD_WORK
phantoms=32

md_hold_writeback
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_mkcg md_ring
md_wait_dir md_ring
# a clean cached page for the phantoms
md_in_cg md_ring mdfile write "$W/r" 1
sync

echo "watch /md_ring" > "$MD/control"
md_inject delay watch 2000000
# the kernel's changes, then the phantoms, all on CPU 0, within the delay
md_in_cg md_ring taskset -c 0 mdfile write "$W/acc" 8
taskset -c 0 sh -c 'i=0; while [ $i -lt $1 ]; do echo "phantom $2 0" > "$3"; i=$((i + 1)); done' \
	x "$phantoms" "$W/r" "$Z"
md_eq "the zoo made $phantoms phantom increments" "$phantoms" "$(grep -c '^phantom ' "$Z")"
head=$(head -n 1 "$MD/watch")
md_diag "$head"
md_inject delay watch 0
md_check "the report was held" test "$(md_delay_hits watch)" -ge 1
# field N of the header: the value after the word KEY
md_count() {
	echo "$head" | sed -n "s/.* $1 \\([0-9]*\\).*/\\1/p"
}
md_eq "the phantoms, and only they, are outside" "$phantoms" "$(md_count outside)"
md_check "the lapped changes are counted lost" test "$(md_count lost)" -ge 1
md_eq "nothing mismatched" 0 "$(md_count mismatched)"
echo "watch off" > "$MD/control"
echo undo > "$Z"

rm -f "$W"/r "$W"/acc
sync
md_check "rmmod md_zoo" rmmod md_zoo
md_check "dmesg is clean" md_dmesg_clean
md_release_writeback
md_rmcg md_ring
md_check "rmmod" md_unload
md_finish
