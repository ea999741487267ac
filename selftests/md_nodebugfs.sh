#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memcg_dirty in a kernel booted with debugfs=off (selftests/vm/run
# --append debugfs=off; scripts/vm-check gives it a boot of its own): the
# module loads and says once that it has no files; a bug staged by the zoo
# (through its parameter trigger: no debugfs) is reported by the audit on the
# console, which then arms the watch, and the watch names the zoo's code
# when the bug strikes again; the parameters scan, resync and watch work;
# memcg-dirty says why it has nothing to read; the unload is clean.
. ./lib.sh
md_require_root
md_require_cgroup2_memory
md_require_disk
md_require_ko
grep -qw 'debugfs=off' /proc/cmdline || md_skip_all "debugfs is on: boot with debugfs=off (selftests/vm/run --append debugfs=off)"
zoo_ko=${MEMCG_DIRTY_ZOO:-$md_here/bin/md_zoo.ko}
[ -r "$zoo_ko" ] || md_skip_all "no md_zoo.ko: it is built with the module in a clone (build/KVER/zoo/)"
[ ! -d /sys/module/memcg_dirty ] || rmmod memcg_dirty || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
P=/sys/module/memcg_dirty/parameters
Z=/sys/module/md_zoo/parameters/trigger
W=$MD_WORK

md_check "debugfs cannot be mounted" sh -c "! mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null"
md_check "memcg_dirty loads" md_load audit_ms=200
md_eq "and says once that debugfs is off" 1 "$(dmesg | grep -c 'memcg_dirty: debugfs is off')"
out=$(memcg-dirty check 2>&1)
md_eq "memcg-dirty: exit 2" 2 $?
md_check "and says why ($out)" sh -c "echo \"$out\" | grep -q 'no debugfs (booted with debugfs=off?)'"
md_check "md_zoo loads" insmod "$zoo_ko"

md_mkcg md_nd
id=$(stat -c %i "$CG/md_nd")
sleep 1
md_in_cg md_nd mdfile write "$W/z" 1
sync
md_check "scan=1" sh -c "echo 1 > $P/scan"
md_check "resync=1" sh -c "echo 1 > $P/resync"

# a phantom increment: the audit says it, and arms the watch
echo "phantom $W/z 0" > $Z
md_reported_nd() {
	dmesg | grep -q "memcg_dirty: mismatch /md_nd (id $id) node [0-9]*: kernel 1 ledger 0 scan 0, suspect kernel"
}
md_check "the audit says the mismatch on the console" md_poll 600 md_reported_nd
md_diag "$(dmesg | grep -m 1 "memcg_dirty: mismatch /md_nd ")"
md_check "and arms the watch on it" md_poll 100 sh -c "[ \"\$(cat $P/watch)\" = /md_nd ]"
md_check "reported on the console" sh -c "dmesg | grep -q 'memcg_dirty: watch /md_nd (id $id) armed by the audit'"
echo "phantom $W/z 0" > $Z
md_named() {
	dmesg | grep -q "memcg_dirty: watch /md_nd (id $id) node [0-9]*: counter +1 outside the dirty accounting, at .*md_zoo_phantom_dirty"
}
md_check "the watch names the zoo's code on the console" md_poll 100 md_named
md_diag "$(dmesg | grep -m 1 "memcg_dirty: watch /md_nd (id $id) node [0-9]*: counter")"
md_check "and stops by itself" md_poll 100 sh -c "[ -z \"\$(cat $P/watch)\" ]"

# the parameter: arm, read, stop
md_check "watch=/md_nd" sh -c "echo /md_nd > $P/watch"
md_eq "watch reads the path" /md_nd "$(cat $P/watch)"
md_check "watch=off" sh -c "echo off > $P/watch"
md_eq "watch reads empty" "" "$(cat $P/watch)"

echo undo > $Z
rmmod md_zoo
md_check "the unload" rmmod memcg_dirty
md_check "no kernel warning" md_dmesg_clean
md_finish
