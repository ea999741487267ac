#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The watch pairs each change of the watched counter with the state change
# its task began (the probes' notes): by task, not by the CPU the change
# is made on.  One task starts writeback of cgroup A's page on CPU 0, then
# of cgroup B's mapped page on CPU 1, where it sleeps in folio_mkclean()
# (the zoo holds the file's rmap lock) between cleaned_io's entry and the
# kernel's decrement; moved to CPU 0 meanwhile, it wakes there and makes
# B's decrement on CPU 0, where its older note, of A's cleaning, is.  The
# watch on B must list that change as accounted and paired with B's own
# note: neither mismatched (A's note) nor unpaired.
. ./lib.sh
md_require_writers
md_require_ko
md_zoo_ready
[ -d /sys/devices/system/cpu/cpu1 ] && grep -q 1 /sys/devices/system/cpu/cpu1/online 2> /dev/null ||
	md_skip_all "one CPU online: nothing to migrate between"
md_load || md_skip_all "cannot load memcg_dirty"
md_check "md_zoo loads" insmod "$zoo_ko" || md_finish
Z=/sys/kernel/debug/md_zoo/trigger
W=$MD_WORK

md_hold_writeback
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_mkcg md_pair_a md_pair_b
md_wait_dir md_pair_a
md_wait_dir md_pair_b
idb=$(stat -c %i "$CG/md_pair_b")

# A: a dirty page; B: a dirty page mapped shared by a task that keeps it
md_in_cg md_pair_a mdfile write "$W/pa" 1
mkfifo "$W/ready"
sh -c 'echo $$ > "$0/cgroup.procs" && exec mdfile mapwait "$1" 1 120' \
	"$CG/md_pair_b" "$W/pb" > "$W/ready" &
mapper=$!
read -r reported < "$W/ready"
md_eq "B's page is dirty through a mapping" mapped "$reported"

echo "watch /md_pair_b" > "$MD/control"
md_check "the zoo holds B's rmap lock" sh -c "echo 'hold_mmap $W/pb' > $Z"
mdfile startwb "$W/pa" 0 "$W/pb" 1 &
wb=$!
md_check "the writeback of B sleeps in its cleaning" md_poll 100 md_task_blocked "$wb"
md_diag "writeback task $wb: state $(md_task_state $wb), on CPU $(awk '{ print $39 }' "/proc/$wb/stat")"
md_check "moved to CPU 0 meanwhile" sh -c "taskset -p 1 $wb > /dev/null"
echo "hold_mmap off" > "$Z"
wait "$wb"
md_eq "the writeback task is done" 0 "$?"
md_diag "$(head -n 1 "$MD/watch")"
grep -v '^watching \|^cpu ' "$MD/watch" | while read -r l; do md_diag "$l"; done
md_check "the watch saw B's decrement on CPU 0, in cleaned_io's accounting" \
	grep -Eq '^0 [0-9]+ [0-9]+ -1 [a-z]+ folio_clear_dirty_for_io\+' "$MD/watch"
md_eq "it lists no change as mismatched" 0 \
	"$(grep -Ec '^[0-9]+ [0-9]+ [0-9]+ -?[0-9]+ mismatched ' "$MD/watch" || true)"
md_eq "and counts none" 0 "$(sed -n 's/^watching .* mismatched \([0-9]*\) .*/\1/p' "$MD/watch")"
md_check "the decrement is accounted" \
	grep -Eq '^0 [0-9]+ [0-9]+ -1 accounted folio_clear_dirty_for_io\+' "$MD/watch"
md_eq "paired with its own state change (none unpaired)" 0 \
	"$(sed -n 's/^watching .* unpaired \([0-9]*\) .*/\1/p' "$MD/watch")"
md_eq "nothing reported on the console" "" \
	"$(dmesg | grep -m 1 "memcg_dirty: watch /md_pair_b (id $idb)")"
echo "watch off" > "$MD/control"

kill "$mapper" 2> /dev/null
wait "$mapper" 2> /dev/null
rm -f "$W"/p* "$W/ready"
sync
md_check "rmmod md_zoo" rmmod md_zoo
md_check "dmesg is clean" md_dmesg_clean
md_release_writeback
md_rmcg md_pair_b md_pair_a
md_check "rmmod" md_unload
md_finish
