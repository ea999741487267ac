#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.1 on): a unit's members took their ledger bases from different
# scans.  A live child C synced from one resync's scan, with its dirty
# pages; then removed, its folios repointed to the parent P at the
# offlining, with no event; then P, busy until then, synced from a later
# scan, which found those pages at P: the ledger counted them twice, in
# C's base and in P's, and P's unit read ledger = kernel + C's pages,
# suspect ledger, a false alarm (make check-audit on 7.3: /md_soak/churn
# after the module's reload under load, 64 pages per such child).  A root
# now syncs only with every member still, and bases them all again on its
# scan; a dying member does not sync alone.
#
# The window, opened: with the module unloaded, P/d writes 64 pages and is
# removed (its folios go to P); P/c writes 256 and stays.  A task outside P
# keeps rewriting and syncing d's file, so P has events in every resync
# pass.  The module is loaded: C syncs alone, P does not.  C is removed
# and its memcg goes offline; the rewriting stops, P syncs.  P's unit must
# then read ok, kernel = ledger = scan, before and after writeback.
# Before 7.1 nothing is repointed: SKIP.
. ./lib.sh
md_require_writers
md_require_ko
md_load_reparenting
md_check "rmmod" md_unload
W=$MD_WORK
P=md_rr
md_mkcg $P $P/d $P/c
md_hold_writeback
md_in_cg $P/d mdfile write "$W/d" 64
rmdir "$CG/$P/d"
md_in_cg $P/c mdfile write "$W/c" 256
md_poll 100 sh -c "[ \$(awk '\$1 == \"nr_dying_descendants\" { print \$2 }' $CG/$P/cgroup.stat) = 0 ]" ||
	md_diag "P/d still dying: $(cat "$CG/$P/cgroup.stat" | tr '\n' ' ')"
# P busy: d's pages, now P's, dirtied and cleaned over and over
(while [ ! -e "$W/stop" ]; do mdfile fsync "$W/d" 64; done) &
busy=$!
md_load || exit 1
md_check "C synced alone" md_poll 300 sh -c "[ \$(awk '\$1 == \"synced\" { print \$2 }' $MD/cgroups/$P/c/stat) = 1 ]"
[ "$(md_stat $P synced)" = 0 ] ||
	md_skip_all "P synced in a pass between two rewrites: the window did not open"
md_ok "P not synced while busy"
md_eq "C's ledger holds its pages" 256 "$(md_stat $P/c dirty)"
o0=$(md_probe_hits memcg_offline)
rmdir "$CG/$P/c"
md_check "C removed, its memcg offline" md_poll 100 \
	sh -c "[ \$(awk '\$1 == \"memcg_offline\" { print \$5 }' $MD/probes) -gt $o0 ]"
md_eq "P still not synced" 0 "$(md_stat $P synced)"
touch "$W/stop"
wait $busy
md_check "P synced once still" md_wait_synced $P
md_diag "$P: $(tr '\n' ' ' < "$MD/cgroups/$P/check")"
md_eq "P's unit: ok, kernel = ledger = scan" "ok 1 1" \
	"$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"], v["ledger"] == v["scan"] }' "$MD/cgroups/$P/check")"
md_release_writeback
sync
md_eq "after writeback: ok, kernel = ledger = scan" "ok 1 1" \
	"$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"], v["ledger"] == v["scan"] }' "$MD/cgroups/$P/check")"
rm -rf "$W"
md_rmcg $P
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
