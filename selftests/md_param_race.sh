#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The parameters scan, resync and watch (control.c) against the module's
# load and unload.  Their files are there before the init runs and after
# the exit returns, so a write may come at any step of either: delay
# points hold the load (after the probes are armed) and the unload (after
# the commands are stopped) open while a writer keeps writing all three.
# Until the load is done and from the unload's start they are refused
# (EBUSY, reported on the console); a command given at load is refused so,
# and the load with it.  Then load/unload cycles with the writer running.
# Nothing may crash or warn.
. ./lib.sh
md_require_writers
md_require_ko
P=/sys/module/memcg_dirty/parameters
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
md_mkcg md_pr
W=$MD_WORK

if md_load scan=1 2> /dev/null; then
	md_not_ok "a load with scan=1 is refused"
	md_unload
else
	md_ok "a load with scan=1 is refused"
fi
md_check "and says why" sh -c "dmesg | grep -q 'memcg_dirty: scan: refused while the module loads or unloads'"
md_check "and leaves no module behind" test ! -d /sys/module/memcg_dirty

# the writer: every command, over and over, errors ignored
stop=$W/stop
sh -c 'while [ ! -e "$0" ]; do
	echo 1 > "$1/scan"; echo 1 > "$1/resync"
	echo /md_pr > "$1/watch"; echo off > "$1/watch"
done 2> /dev/null' "$stop" "$P" &

md_load fault_inject=1 delay=load:1500000 &
md_check "the load is held open" md_poll 50 test -d /sys/module/memcg_dirty
wait $!
md_check "and ends" test -e "$MD/inject"
md_check "the commands were refused meanwhile" md_poll 50 sh -c \
	"[ \$(dmesg | grep -c 'memcg_dirty: [a-z]*: refused while the module loads or unloads') -ge 2 ]"
s0=$(awk '$1 == "scans" { print $2 }' "$MD/version")
md_check "then they run" md_poll 100 sh -c \
	"[ \$(awk '\$1 == \"scans\" { print \$2 }' $MD/version) -gt $s0 ]"
md_inject delay unload 1500000
md_check "an unload held open with the writer running" md_unload

for i in $(seq 10); do
	md_load || break
	sleep 0.$i
	md_unload || break
done
md_check "10 cycles of load and unload with the writer running" test "$i" = 10
touch "$stop"
wait
md_check "no kernel warning" md_dmesg_clean
md_finish
