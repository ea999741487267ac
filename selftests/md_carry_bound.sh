#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Suspicion: a sum over a subtree (stat's _hier values, a check's unit) is
# read again whenever a carry ran meanwhile, and any memcg release anywhere
# carries (where the kernel reparents), so on a large tree under release
# churn the reader could retry for ever.  The "carry_read" delay point
# holds each sum 200 ms after it read the carry sequence (outside its RCU
# section: a release waits for a grace period), while cgroups elsewhere
# are made and removed without a pause, so that a carry runs through every
# sum.  Without the bound a stat read of the parent does not finish while
# the churn goes on; with it, it finishes after at most MD_CARRY_TRIES
# sums, and says whether the last one was settled.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_cgroup2_memory
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
[ -n "$(md_stat "" carried)" ] ||
	md_skip_all "this kernel does not reparent (before 7.1): nothing carries, no sum is read again"
md_uptime_cs() { awk '{ sub(/\./, "", $1); print $1 + 0 }' /proc/uptime; }
md_mkcg md_cb md_cbc md_cbc/x0	# x0: memory enabled in md_cbc
md_mkcg md_cb/k1 md_cb/k2
md_check "cgroups/ mirrors the parent and its children" md_wait_dir md_cb/k2
stop=/tmp/md_cb.stop.$$
out=/tmp/md_cb.out.$$
rm -f "$stop" "$out"
# the churn: releases of memcgs with entries, which an open of summary
# gives them (a reconcile; not a read, which would wait for a grace period
# after the reader's sum)
(while [ ! -e "$stop" ]; do
	mkdir "$CG/md_cbc/x1" "$CG/md_cbc/x2" "$CG/md_cbc/x3" 2> /dev/null
	: < "$MD/summary"
	rmdir "$CG/md_cbc/x1" "$CG/md_cbc/x2" "$CG/md_cbc/x3" 2> /dev/null
done) &
churn=$!
sleep 1
md_inject delay carry_read 200000
# md_read_within FILE SECS: read FILE into $out in the background; true if
# it finished within SECS
md_read_within() {
	rm -f "$out" "$out.tmp"
	(cat "$1" > "$out.tmp" && mv "$out.tmp" "$out") &
	i=0
	while [ ! -e "$out" ] && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	test -e "$out"
}
t0=$(md_uptime_cs)
r0=$(md_probe_hits memcg_release)
h0=$(md_delay_hits carry_read)
# a bounded reader is done after 8 sums of ~200 ms; give it 20 s
md_check "a stat read of the parent finished under churn" md_read_within "$MD/cgroups/md_cb/stat" 20
t1=$(md_uptime_cs)
r1=$(md_probe_hits memcg_release)
md_diag "the read took $(((t1 - t0) * 10)) ms, $(($(md_delay_hits carry_read) - h0)) sums"
md_check "memcgs were released meanwhile ($((r1 - r0)))" test $((r1 - r0)) -gt 0
settled=$(awk '$1 == "hier_settled" { print $2 }' "$out" 2> /dev/null)
md_check "stat says whether its _hier sums were settled ($settled)" \
	test "$settled" = 0 -o "$settled" = 1
md_check "the churn ran all along" md_running "$churn"
touch "$stop"
wait $churn
# a check holds md_mutex, which the churn's reconciles need: its churn is
# the removal, one by one, of cgroups given their entries before
md_inject delay carry_read 0
i=1
while [ $i -le 100 ]; do
	mkdir "$CG/md_cbc/y$i"
	i=$((i + 1))
done
cat "$MD/summary" > /dev/null
md_inject delay carry_read 200000
(i=1
while [ $i -le 100 ]; do
	rmdir "$CG/md_cbc/y$i"
	sleep 0.1
	i=$((i + 1))
done) &
remover=$!
# 8 sums of ~200 ms per node at most, and a scan; the removals last 10 s
h0=$(md_delay_hits carry_read)
md_check "a check of the parent finished under churn" md_read_within "$MD/cgroups/md_cb/check" 8
verdict=$(awk '$1 == "verdict" { print $2 }' "$out" 2> /dev/null)
md_diag "the check took $(($(md_delay_hits carry_read) - h0)) sums"
md_check "its verdict is no alarm ($verdict)" test "$verdict" = ok -o "$verdict" = untrusted
md_check "the removals ran all along" md_running "$remover"
md_inject delay carry_read 0
wait
md_eq "unhindered, the _hier sums are settled" 1 "$(md_stat md_cb hier_settled)"
md_eq "unhindered, the check's verdict is ok" ok "$(md_chk md_cb verdict)"
rm -f "$stop" "$out" "$out.tmp"
md_rmcg md_cbc/x0 md_cb/k1 md_cb/k2 md_cb md_cbc
md_check "rmmod" md_unload
md_check "no kernel warning or oops" md_dmesg_clean
md_finish
