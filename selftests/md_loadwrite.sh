#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load in the middle of writing: writers run in three cgroups when the
# module loads.  Their ledgers start unsynced (their starting point is
# unknown) and no check ever says mismatch; once the writers stop and the
# system settles, a quiescent scan gives the starting point and every
# check is ok.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK

md_unload
md_mkcg md_lw md_lw/a md_lw/b md_lw/c
pids=
for c in a b c; do
	md_writer "$W/stop" "$W/$c" 256 4 3
	echo $! > "$CG/md_lw/$c/cgroup.procs"
	pids="$pids $!"
done
sleep 1
md_check "loads while writers run" md_load
bad=0 uns=0 n=0
while [ $n -lt 30 ]; do
	for c in a b c; do
		md_wait_dir md_lw/$c > /dev/null
		v=$(md_chk md_lw/$c verdict)
		case $v in
		mismatch|underflow) bad=$((bad + 1)); md_diag "md_lw/$c: $(tr '\n' ' ' < "$MD/cgroups/md_lw/$c/check")" ;;
		unsynced) uns=$((uns + 1)) ;;
		esac
	done
	n=$((n + 1))
done
touch "$W/stop"
wait
md_eq "90 checks during the writes: no false mismatch" 0 $bad
md_diag "$uns of 90 checks reported unsynced"
sync
for c in a b c; do
	md_check "md_lw/$c resyncs once the writer stops" md_wait_synced md_lw/$c
	md_eq "md_lw/$c then ok" ok "$(md_chk md_lw/$c verdict)"
done
rm -rf "$W"
sync
md_rmcg md_lw/a md_lw/b md_lw/c md_lw
md_finish
