#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.1 on, seen on 7.3 in CI): the watch said "mismatched" for a
# change the kernel rightly counted in the watched parent.  From the
# moment a memcg is killed (rmdir sets CSS_DYING), 7.3 counts its folios'
# changes in its nearest live ancestor (get_non_dying_memcg_start()), long
# before its offlining repoints them; the watch excused a change of a
# child's folio in the parent only if the child was dying when its probe
# noted the change, or an offlining had begun since.  A kill between the
# note and the kernel's count, with the offlining not yet begun, was
# reported: "counter -1 in the dirty accounting, but the state change
# there is 1 page of cgroup id C (cleaned_io)".
#
# The window, opened: as md_race_reparent_window, a task in P/t writing
# back a file C dirtied is held inside folio_clear_dirty_for_io() (in
# folio_mkclean(): after the probe's note, before the kernel's count), but
# held inside an RCU read-side critical section.  There it holds up every
# grace period, so C's offlining, which waits for one, cannot begin:
# rmdir C kills it, and the task counts its folio with C killed and not
# offline.  Let go within seconds (RCU warns of a stall after 21 s).  With
# the watch armed on P: nothing mismatched, and the held change judged by
# the kill ("killed": what the earlier rule called mismatched).  The
# cleanings after it are spaced out (a delay in cleaned_io's return
# handler) for a while, so that the watch's report reads the held change's
# record before the CPU's ring of 32 is overwritten.  Before 7.1: SKIP.
. ./lib.sh
md_require_writers
md_require_ko
md_load_reparenting "no memcg is counted in its ancestor" fault_inject=1
[ "$(md_probe_status cleaned_io)" = attached ] || md_skip_all "cleaned_io is $(md_probe_status cleaned_io)"
md_require_catch
W=$MD_WORK
md_watched_window md_rk

md_catch_cleaning $T "$W/f" folio_mkclean reader
o0=$(md_probe_hits memcg_offline)
rmdir "$CG/$C"
# (not from the summary: it waits for a grace period)
md_eq "C: killed (P's dying descendants)" 1 \
	"$(awk '$1 == "nr_dying_descendants" { print $2 }' "$CG/$P/cgroup.stat")"
sleep 1
md_eq "C: its offlining waits for the grace period the held task holds up" "$o0" \
	"$(md_probe_hits memcg_offline)"
md_inject delay cleaned_io 5000
md_let_go sh -c "sleep 1; echo 'delay cleaned_io 0' > $MD/inject"
o1=$(md_probe_hits memcg_offline)
md_check "C: offline once the task went on" md_poll 100 \
	sh -c "[ \$(awk '\$1 == \"memcg_offline\" { print \$5 }' $MD/probes) -gt $o0 ]"
md_diag "memcg_offline hits: $o0 while held, $o1 when let go"
sync
v=$(md_views $P)
md_diag "$P: $v"
md_eq "$P's unit after writeback: ok, kernel = ledger = scan" "ok 1 1" \
	"$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"], v["ledger"] == v["scan"] }' "$MD/cgroups/$P/check")"
hdr=$(head -n 1 "$MD/watch")
md_diag "$hdr"
md_hdr() {
	echo "$hdr" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}
md_eq "the watch on $P: nothing mismatched" 0 "$(md_hdr mismatched)"
md_check "the watch on $P: the held change judged, C killed since its note ($(md_hdr killed) killed)" \
	test "$(md_hdr killed)" -ge 1
md_eq "nothing reported on the console" "" "$(dmesg | grep -m 1 "memcg_dirty: watch /$P (id $pid)")"
echo "watch off" > "$MD/control"
md_release_writeback
rm -rf "$W"
md_rmcg $T $P
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
