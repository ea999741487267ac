#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the stillness test read an entry's event sequence before its
# return probes' windows, while a return handler counts its event, then
# closes its window.  A handler ending between the two reads showed "old
# sequence, no window open", and the views read before it, the kernel
# already cleaned and the ledger not yet, straddled its event: a strict
# "mismatch, suspect kernel" in a user's check.
# A check on CPU 1 is held 0.4 s before it reads the views ("views" delay)
# and 2 s between its two reads after them ("quiet"); once it is held, a
# write-back on CPU 0 cleans a page, its return handler held 1.5 s
# ("cleaned_io", spinning): the check reads the views inside that window
# and the two reads across its end.  Each of the pages is written back
# so, after a still check that leaves a valid scan for this one to reuse
# (scan_cache_ms).  No check may say mismatch.
. ./lib.sh
md_require_writers
md_require_ko
[ -d /sys/devices/system/cpu/cpu1 ] || md_skip_all "needs two CPUs: the check and the write-back on each its own"
N=4
W=$MD_WORK
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_mkcg md_rq
md_wait_dir md_rq
sync
md_hold_writeback
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
echo 600000 > /sys/module/memcg_dirty/parameters/scan_cache_ms
i=0
while [ $i -lt $N ]; do
	md_in_cg md_rq mdfile write "$W/f$i" 1
	i=$((i + 1))
done
md_check "md_rq: $N dirty pages, still: ok ($(md_views md_rq))" test "$(md_views md_rq)" = "ok $N $N $N"
bad=0 i=0 inwin=0
while [ $i -lt $N ]; do
	# a still check: a valid scan, this page and the later ones dirty
	v=$(md_views md_rq)
	[ "${v%% *}" = ok ] || md_diag "before page $i: $v"
	md_inject delay views 400000
	md_inject delay quiet 2000000
	md_inject delay cleaned_io 1500000
	h=$(md_delay_hits views)
	taskset -c 1 awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"], v["ledger"], v["scan"], v["suspect"] }' \
		"$MD/cgroups/md_rq/check" > "$W/check.$i" &
	checker=$!
	md_poll 100 sh -c "[ \"\$(awk '\$1 == \"delay\" && \$2 == \"views\" { print \$5 }' $MD/inject)\" != $h ]"
	taskset -c 0 sync -d "$W/f$i"
	wait $checker
	md_inject delay cleaned_io 0
	md_inject delay quiet 0
	md_inject delay views 0
	v=$(cat "$W/check.$i")
	md_diag "page $i, a check across its return handler's window: $v"
	set -- $v
	[ "$2" != "$4" ] && inwin=$((inwin + 1))
	case $1 in mismatch|underflow) bad=$((bad + 1)) ;; esac
	i=$((i + 1))
done
md_check "every write-back held in its return handler" test "$(md_delay_hits cleaned_io)" -ge $N
md_check "checks read their views inside the window (kernel cleaned, scan not: $inwin)" test $inwin -ge 1
md_eq "no check said mismatch or underflow" 0 $bad
md_check "no mismatch logged" sh -c "! awk '\$5 ~ /mismatch|underflow|negative/' $MD/events | grep -q ."
md_eq "after writeback: ok, kernel = ledger = scan = 0" "ok 0 0 0" "$(md_views md_rq)"
echo 1000 > /sys/module/memcg_dirty/parameters/scan_cache_ms
md_release_writeback
rm -rf "$W"
md_rmcg md_rq
md_check "rmmod" md_unload
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
md_finish
