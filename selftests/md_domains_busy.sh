#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The writeback domains on a machine that never stops writing: each domain
# is judged by its own events (domain_events.h), so a writer in one cgroup
# does not silence the audit of another's domain.  With audit_ms=200
# audit_warn=1, cgroup v2:
# - md_bw dirties a page and truncates it without a pause (two `mdfile
#   churn`), on the same disk as md_bc's file, for the whole test;
# - the domains file: md_bc's domain judged ok while md_bw's is busy;
# - the zoo raises md_bc's domain's WB_RECLAIMABLE by a page
#   (22b3c8d6612e's residue): the audit reports it while md_bw still
#   writes, one line and one WARN;
# - undone: md_bc's domain judged ok again.
# A domain is known to the probes by two of 128 buckets: one that shares
# both with md_bw's domain stays busy (about 1 in 8,000); then md_bw is
# made again (a new domain, new buckets), at most three times.
. ./lib.sh
md_require_writers
md_require_ko
md_zoo_ready
[ "$MD_CGV" = 2 ] || md_skip_all "a cgroup's own writeback domain needs cgroup v2"
md_load audit_ms=200 audit_warn=1 || md_skip_all "cannot load memcg_dirty with audit_ms=200 audit_warn=1"
D=$MD/domains
W=$MD_WORK
md_mkcg md_bc
md_wait_dir md_bc
z=$W/md_bc.$$
md_in_cg md_bc dd if=/dev/zero of="$z" bs=4096 count=1 2> /dev/null
sync

# row CGROUP: the verdict of CGROUP's domain (it writes to one disk) in a
# read of the domains file (kept in $MD_WORK/dom), or "none"
row() {
	cat "$D" > "$MD_WORK/dom"
	awk -v c="/$1" '$1 == "bdi" && $4 == c { v = $18 } END { print v == "" ? "none" : v }' \
		"$MD_WORK/dom"
}
# writing: md_bw's writers are running and its dirtying goes on
writing() {
	h0=$(md_probe_hits dirtied)
	sleep 0.5
	h1=$(md_probe_hits dirtied)
	kill -0 "$writer1" 2> /dev/null && [ "$h1" -gt "$h0" ]
}
start_writers() {
	rm -f "$W/stop"
	md_mkcg md_bw
	md_in_cg md_bw mdfile churn "$W/bw1" "$W/stop" > /dev/null &
	writer1=$!
	md_in_cg md_bw mdfile churn "$W/bw2" "$W/stop" > /dev/null &
	writer2=$!
}
stop_writers() {
	touch "$W/stop"
	wait "$writer1" "$writer2"
	rm -f "$W/bw1" "$W/bw2"
	md_rmcg md_bw
}
# judged_apart: a read with md_bc's domain ok and md_bw's busy
judged_apart() {
	[ "$(row md_bc)" = ok ] &&
		awk '$1 == "bdi" && $4 == "/md_bw" && $18 == "busy" { f = 1 } END { exit !f }' \
			"$MD_WORK/dom"
}
reported() {
	dmesg | grep -q "memcg_dirty: mismatch writeback domain of /md_bc (id [0-9]*) on bdi [0-9:]*: reclaimable kernel 1 scan 0,"
}

echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
tries=0 found=0
while [ $tries -lt 3 ] && [ $found = 0 ]; do
	tries=$((tries + 1))
	start_writers
	md_poll 100 writing
	if md_poll 150 judged_apart; then
		found=1
	else
		md_diag "try $tries: md_bc's domain never judged apart from md_bw's: $(grep -E 'cgroup /md_b[cw] ' "$MD_WORK/dom" | tr '\n' ' ')"
		stop_writers
	fi
done
# the audit is tested with md_bw writing, whether or not a read judged apart
[ $found = 1 ] || start_writers
md_check "md_bw writes without a pause" md_poll 100 writing
md_check "md_bc's domain judged ok while md_bw's is busy (try $tries)" test $found = 1
md_diag "$(head -n 5 "$MD_WORK/dom" | tr '\n' ' ')"
md_eq "the domains file: judged no (md_bw's domain is not)" no \
	"$(awk '$1 == "judged" { print $2 }' "$MD_WORK/dom")"
s0=$(md_audit domain_scans)
if ! md_check "md_zoo loads" insmod "$zoo_ko"; then
	stop_writers
	md_unload
	md_finish
fi
echo "wbd_residue $z 0" > /sys/kernel/debug/md_zoo/trigger
md_check "the audit reports md_bc's domain while md_bw writes" md_poll 600 reported
md_check "md_bw was writing all along" writing
md_diag "$(dmesg | grep -m 1 'writeback domain of /md_bc ')"
md_diag "domain scans meanwhile: $(($(md_audit domain_scans) - s0))"
echo undo > /sys/kernel/debug/md_zoo/trigger
md_check "undone: md_bc's domain judged ok again" md_poll 150 judged_apart
stop_writers
md_audits_pass 5
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
md_eq "one WARN" 1 "$(md_marked_warnings)"
md_eq "the audit counted one bad domain" 1 "$(md_audit domain_bad)"
rm -f "$z"
rmmod md_zoo
md_rmcg md_bc
md_check "rmmod" md_unload
md_check "outside the expected warnings, dmesg is clean" md_dmesg_clean
md_finish
