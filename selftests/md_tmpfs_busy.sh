#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the scan counted a locked tmpfs folio as "busy" although tmpfs is
# never dirty-accounted, so a memcg writing to tmpfs stayed busy: it never
# resynced and its checks stayed loose.  A writer keeps rewriting two huge
# tmpfs folios (each locked for the whole copy of 2 MiB) in a memcg that
# also holds dirty ext4 pages: no check may count busy pages for it, and
# its checks stay strict (quiescent) while the ext4 pages sit still.
. ./lib.sh
md_require_writers
md_require_module
W=$MD_WORK
T=/tmp/md_tmpfs_busy.$$
mkdir -p "$T"
mount -t tmpfs -o huge=always,size=16m none "$T" 2> /dev/null ||
	{ rmdir "$T"; md_skip_all "cannot mount a tmpfs with huge=always"; }
md_mkcg md_tb
md_wait_dir md_tb
sync
md_hold_writeback
md_in_cg md_tb mdfile write "$W/f" 16
md_in_cg md_tb sh -c "while [ ! -e $W/stop ]; do dd if=/dev/zero of=$T/big bs=1M count=4 conv=notrunc 2> /dev/null; done" &
sleep 1
busy=0 strict=0 n=0
while [ $n -lt 20 ]; do
	v=$(awk '{ v[$1] = $2 } END { print v["scan_busy"], v["quiescent"], v["verdict"] }' "$MD/cgroups/md_tb/check")
	set -- $v
	[ "$1" -gt 0 ] && { busy=$((busy + 1)); md_diag "check: scan_busy $1 quiescent $2 verdict $3"; }
	[ "$2" = 1 ] && strict=$((strict + 1))
	n=$((n + 1))
done
touch "$W/stop"
wait
md_eq "no check counted tmpfs folios as busy" 0 $busy
md_check "checks stayed strict ($strict of $n quiescent)" test $strict -ge $((n / 2))
md_eq "verdict ok" ok "$(md_chk md_tb verdict)"
umount "$T"
rmdir "$T"
md_release_writeback
rm -rf "$W"
sync
md_rmcg md_tb
md_finish
