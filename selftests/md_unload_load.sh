#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unload under load: insmod/rmmod cycles while writers, the compaction
# antagonist, and readers holding debugfs files open all run.  No oops, no
# warning, no leak (the probes and files are gone after each unload);
# readers get text or an error, never garbage.  An open debugfs file holds
# a reference on the module, so rmmod is refused (EBUSY) until the readers
# close; it is retried.  MD_UNLOAD_CYCLES cycles: 20 by default, make
# check-audit 40.
. ./lib.sh
md_require_writers
md_require_ko
CYCLES=${MD_UNLOAD_CYCLES:-20}
W=$MD_WORK

md_unload
md_mkcg md_ul md_ul/a md_ul/b
for c in a b; do
	md_writer "$W/stop" "$W/$c" 128 4
	echo $! > "$CG/md_ul/$c/cgroup.procs"
done
md_compactor "$W/stop" 0.2

ok=0 garbage=0 leaks=0 c=0 busy=0
while [ $c -lt "$CYCLES" ]; do
	md_load || break
	for f in summary probes cgroups/stat cgroups/check events; do
		mdfile readloop "$MD/$f" 1 > "$W/r.$(echo "$f" | tr / _)" 2>&1 &
	done
	sleep 0.3
	tries=0
	while ! rmmod memcg_dirty 2>/dev/null && [ $tries -lt 100 ]; do
		busy=$((busy + 1))
		sleep 0.1
		tries=$((tries + 1))
	done
	[ -e /sys/module/memcg_dirty ] && break
	grep -q garbage "$W"/r.* && garbage=$((garbage + 1))
	[ -e "$MD" ] && leaks=$((leaks + 1))
	grep -q 'folio_clear_dirty_for_io\|folio_account_cleaned\|migrate_mapping\|mem_cgroup_css' \
		/sys/kernel/debug/kprobes/list && leaks=$((leaks + 1))
	ok=$((ok + 1))
	c=$((c + 1))
done
touch "$W/stop"
wait
md_eq "load/unload cycles under load" "$CYCLES" $ok
md_diag "rmmod refused $busy times while readers held files open"
md_eq "readers never saw garbage" 0 $garbage
md_eq "nothing left after any unload (files, probes)" 0 $leaks
md_check "no kernel warnings" md_dmesg_clean
rm -rf "$W"
sync
md_rmcg md_ul/a md_ul/b md_ul
md_finish
