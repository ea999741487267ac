#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: reading the check (or stat) file of a memcg that is being freed
# took a reference with css_tryget() on the memcg behind the entry, but
# the kernel exits the css's refcount before mem_cgroup_css_free(), where
# the module learns of the free: the tryget read a NULL pointer (an oops,
# first on 7.3-rt under md_churn).  The "free" delay point holds the
# memcg_free probe 200 ms in that window while readers hammer the removed
# cgroup's files; every read must fail cleanly or succeed.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_cgroup2_memory
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
T=$(mktemp -d)
md_inject delay free 200000
n=0 reads=0
while [ $n -lt 8 ]; do
	md_mkcg md_pin
	md_wait_dir md_pin
	id=$(md_cgid md_pin)
	# a reader of the removed cgroup's files from before the rmdir
	# until after the free (the probe held in the window meanwhile)
	rm -f "$T/stop"
	( while [ ! -e "$T/stop" ]; do
		for f in "$MD"/cgroups/md_pin/check "$MD"/cgroups/md_pin@*/check "$MD"/cgroups/md_pin@*/stat; do
			cat "$f" > /dev/null 2>&1 && echo read
		done
	done ) > "$T/reads" &
	reader=$!
	# (on a slow kernel the reader may take a while to start)
	md_poll 100 test -s "$T/reads"
	rmdir "$CG/md_pin"
	md_poll 100 md_unlisted "$id"
	sleep 0.3
	touch "$T/stop"
	wait $reader
	reads=$((reads + $(wc -l < "$T/reads")))
	n=$((n + 1))
done
md_inject delay free 0
rm -rf "$T"
md_check "the free probe was held ($(md_delay_hits free))" test "$(md_delay_hits free)" -ge 8
md_check "the cgroups' files were read around their removal ($reads)" test "$reads" -ge 1
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
md_check "rmmod" md_unload
md_finish
