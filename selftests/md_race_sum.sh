#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: a memcg near 0 pages, dirtied on one CPU and cleaned on another,
# can have its per-CPU ledger summed below 0 (the sum is not one atomic
# read), and any negative value was called underflow.  A delay point holds
# each ledger sum open after the first CPU's share (20 ms) while a writer on
# CPU 0 dirties one page and a syncer on CPU 1 cleans it, over and over.
# No check may say underflow; some must see the ledger summed negative.
. ./lib.sh
md_require_writers
md_require_ko
[ "$(nproc)" -ge 2 ] || md_skip_all "needs 2 CPUs"
W=$MD_WORK
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_mkcg md_us
md_wait_dir md_us
sync
md_in_cg md_us mdfile write "$W/f" 1
sync
touch "$W/stop"
rm "$W/stop"
md_in_cg md_us taskset -c 0 sh -c "while [ ! -e $W/stop ]; do mdfile write $W/f 1; done" &
md_in_cg md_us taskset -c 1 sh -c "while [ ! -e $W/stop ]; do sync -d $W/f; done" &
md_inject delay sum 20000
# at least 40 checks, and on until one saw the window (a slow, loaded guest
# interleaves the writer and the syncer less often), 400 at most
under=0 neg=0 n=0
while [ $n -lt 40 ] || { [ $neg = 0 ] && [ $n -lt 400 ]; }; do
	v=$(awk '{ v[$1] = $2 } END { print v["verdict"], v["ledger"], v["bound"] }' "$MD/cgroups/md_us/check")
	set -- $v
	[ "$2" -lt 0 ] && neg=$((neg + 1))
	[ "$1" = underflow ] && { under=$((under + 1)); md_diag "check: $v"; }
	n=$((n + 1))
done
md_inject delay sum 0
touch "$W/stop"
wait
md_diag "$n checks, $neg summed the ledger below 0"
md_check "some check summed the ledger below 0 (the window was open)" test $neg -ge 1
md_eq "no check reported underflow" 0 $under
sync
md_eq "after sync: ok, 0" "ok 0" "$(md_chk md_us verdict) $(md_chk md_us ledger)"
rm -rf "$W"
md_rmcg md_us
md_check "rmmod" md_unload
md_finish
