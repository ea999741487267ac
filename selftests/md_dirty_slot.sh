#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Suspicion: the kernel's per-memcg NR_FILE_DIRTY is read from a slot of a
# per-CPU array that, from 6.11, only a table private to mm/memcontrol.c
# maps (read through a kprobe registration's side effect, and in the u8
# encoding of 6.11, not the int8 "+1" one of 6.11-rc): a wrong slot would
# read another counter and every verdict would be false.  The load checks
# the slot against the kernel's own update of the counter, and refuses a
# wrong one.  Fault injection's slot_shift reads a slot that far off.
# Without the check the module loads with a wrong slot; with it, the load
# fails with a message saying why.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_ko
md_unload || md_skip_all "cannot unload memcg_dirty"
md_check "the module loads on this kernel (its slot checked)" md_load
md_check "rmmod" md_unload
md_refusals() { dmesg | grep -c 'memcg_dirty: .*refusing to load' || true; }
for shift in 1 2; do
	n0=$(md_refusals)
	if md_load fault_inject=1 slot_shift=$shift 2> /dev/null; then
		md_not_ok "a slot $shift off NR_FILE_DIRTY's is refused (the module loaded)"
		md_unload
	else
		md_ok "a slot $shift off NR_FILE_DIRTY's is refused"
	fi
	md_check "the console says why" test "$(md_refusals)" -gt "$n0"
done
dmesg | grep 'memcg_dirty: .*refusing to load' | sed 's/^/# /'
md_check "it loads again without" md_load
md_check "rmmod" md_unload
md_check "no kernel warning or oops" md_dmesg_clean
md_finish
