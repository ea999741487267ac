#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: a resync based an unsynced memcg on an offset between its kernel
# count and its scan that two of its still passes had seen uncounted_ms
# apart, though passes in between could not judge it (the memcg busy):
# two equal transients, each a dirtier in its gap, were taken for a count
# off since before the load, and the base kept the uncounted page for
# good: the ledger the kernel's + 1 (issue 39, finding 9).  Now a pass
# that cannot judge starts the wait again.  As md_race_retag.sh, the zoo
# makes the transient: page 0 of md_tt's file dirty, cleaned for I/O with
# its tag kept, and its dirtier asleep in its gap, so that the scan counts
# it and the kernel does not.  With uncounted_ms=3000: a resync in a first
# gap, then a busy spell of 4 s (a writer in md_tt; resyncs asked for),
# then a second gap and a resync in it: md_tt must stay unsynced, and once
# the dirtier counts the page, all three views agree.
. ./lib.sh
md_require_writers
md_require_ko
md_zoo_one_page md_tt
md_check "md_zoo loads" insmod "$zoo_ko" || md_finish

# busy WHILE_FILE: a writer in md_tt until WHILE_FILE goes
busy() {
	touch "$1"
	md_in_cg md_tt sh -c "while [ -e $1 ]; do mdfile write $W/b 8; rm -f $W/b; done" &
	busy_pid=$!
}
# a transient: page 0 dirtied, cleaned for I/O (its tag kept), its dirtier
# in its gap for MS ms; the busy writer stopped first
transient() {
	rm -f "$W/busy"
	wait $busy_pid
	staged=0
	for try in 1 2 3 4 5; do
		md_in_cg md_tt dd if=/dev/zero of="$W/t" bs=4096 count=1 conv=notrunc 2> /dev/null
		echo "clean_io $W/t 0" 2> /dev/null > "$Z/trigger" && { staged=1; break; }
		md_diag "page 0 was clean again before clean_io (try $try)"
	done
	if [ $staged = 0 ]; then
		# seen on 6.12-rt by md_race_retag.sh: page 0 clean after each write
		md_release_writeback
		rmmod md_zoo
		rm -rf "$W"
		md_rmcg md_tt
		md_unload
		md_skip_all "page 0 was clean for the zoo after each of 5 writes: its folio cannot be staged here"
	fi
	md_zoo_gap_start "$W/t" 0 "$1"
}

busy "$W/busy"
md_load uncounted_ms=3000 || md_skip_all "cannot load memcg_dirty with uncounted_ms=3000"
md_wait_dir md_tt
md_eq "md_tt starts unsynced (busy at the load)" 0 "$(md_stat md_tt synced)"
md_check "a first transient: the scan counts a page the kernel does not" transient 2500
echo resync > "$MD/control"
echo resync > "$MD/control"
busy "$W/busy"
md_eq "the first gap's resyncs leave md_tt unsynced" 0 "$(md_stat md_tt synced)"
wait "$md_gap_pid"
i=0
while [ $i -lt 8 ]; do
	echo resync > "$MD/control"
	sleep 0.5
	i=$((i + 1))
done
md_eq "busy for 4 s: still unsynced" 0 "$(md_stat md_tt synced)"
md_check "a second transient, the same offset" transient 4000
echo resync > "$MD/control"
echo resync > "$MD/control"
md_check "the gap was still open after the resyncs" md_zoo_gap_open
md_diag "in the second gap: synced $(md_stat md_tt synced) ledger $(md_stat md_tt dirty) kernel $(md_stat md_tt kernel_dirty)"
md_eq "two equal transients with a busy spell between are no base" 0 "$(md_stat md_tt synced)"
wait "$md_gap_pid"
md_check "md_tt syncs once the dirtier counted the page" md_wait_synced md_tt
md_eq "check ok, all three views 1" "ok 1 1 1" "$(md_views md_tt)"
md_release_writeback
rmmod md_zoo
rm -rf "$W"
sync
md_rmcg md_tt
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
