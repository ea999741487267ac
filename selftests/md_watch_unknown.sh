#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The watch names the code that changed a counter by the first frame of
# its chain past the stat functions.  A chain that ends before any such
# frame (the unwinder lost its way, or the change was made deeper than the
# watch keeps frames) says nothing of where: the watch must list it as
# unknown and count it so, not guess outside and say it on the console.
# The zoo's "deep" makes a phantom increment at the bottom of a chain of
# functions named like the kernel's stat functions; its "phantom" makes
# the same increment directly, which the watch must still call outside.
. ./lib.sh
md_require_writers
md_require_ko
md_zoo_ready
md_load || md_skip_all "cannot load memcg_dirty"
md_check "md_zoo loads" insmod "$zoo_ko" || md_finish
Z=/sys/kernel/debug/md_zoo/trigger
W=$MD_WORK

md_hold_writeback
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_mkcg md_unknown
md_wait_dir md_unknown
id=$(stat -c %i "$CG/md_unknown")
md_in_cg md_unknown mdfile write "$W/u" 1
sync

# md_count KEY: the value after the word KEY in the watch file's header
md_count() {
	head -n 1 "$MD/watch" | sed -n "s/.* $1 \\([0-9]*\\).*/\\1/p"
}

echo "watch /md_unknown" > "$MD/control"
md_check "the zoo makes an increment deep down a chain of stat-like calls" sh -c "echo 'deep $W/u 0' > $Z"
md_diag "$(head -n 1 "$MD/watch")"
grep -v '^watching \|^cpu ' "$MD/watch" | while read -r l; do md_diag "$l"; done
md_check "the watch lists it as unknown" \
	grep -Eq '^[0-9]+ [0-9]+ [0-9]+ 1 unknown ' "$MD/watch"
md_eq "and counts it unknown" 1 "$(md_count unknown)"
md_eq "not outside" 0 "$(md_count outside)"
md_eq "nothing reported on the console" "" \
	"$(dmesg | grep -m 1 "memcg_dirty: watch /md_unknown (id $id)")"
echo "phantom $W/u 0" > "$Z"
md_check "the same increment made directly is outside" \
	grep -Eq '^[0-9]+ [0-9]+ [0-9]+ 1 outside md_zoo_' "$MD/watch"
md_eq "and counted outside" 1 "$(md_count outside)"
md_check "and reported on the console" md_poll 50 sh -c \
	"dmesg | grep -q 'memcg_dirty: watch /md_unknown (id $id) node [0-9]*: counter +1 outside the dirty accounting, at md_zoo_'"
echo "watch off" > "$MD/control"
echo undo > "$Z"

rm -f "$W/u"
sync
md_check "rmmod md_zoo" rmmod md_zoo
md_check "dmesg is clean" md_dmesg_clean
md_release_writeback
md_rmcg md_unknown
md_check "rmmod" md_unload
md_finish
