#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The auditor never cries wolf: audit_ms=100 audit_warn=1 track=1 for
# MD_SOAK_S seconds (default 30; make check-audit runs 600, also on generic
# kernels booted with preempt=full) under antagonists that open the windows
# a false verdict would come from, all at once:
# - a writer in a memory-limited cgroup with the 4.3 fix's compaction
#   antagonist (dirty folios migrate), and a writer of fresh files removed
#   once written;
# - a writer pinned to the last CPU beside a SCHED_FIFO hog on that CPU
#   whose wake-ups preempt it (where the kernel preempts: -rt, preempt=full)
#   anywhere, between setting PG_dirty and counting it too;
# - O_DSYNC and fsync writers, whose counts stay near 0;
# - cgroups created, written and removed while still dirty (dying memcgs);
# - the last CPU taken offline and back, every few seconds;
# - the watch armed on the busy limited cgroup for the middle third;
# - the module unloaded and loaded again, under load, at three quarters,
#   and page scans and resyncs asked for all along.
# No fault is staged, so not one console line, bad verdict or WARN may come
# of it, the watch may find no change outside the dirty accounting or
# mismatched, nor may the per-page shadow find a page cleaned that was
# never counted dirty; and once the writers stop and sync, every cgroup's
# verdict is ok.
. ./lib.sh
md_require_writers
md_require_ko
SOAK=${MD_SOAK_S:-30}
PARAMS="audit_ms=100 audit_warn=1 track=1"
# shellcheck disable=SC2086 # PARAMS: several words
md_reload $PARAMS || md_skip_all "cannot load memcg_dirty with $PARAMS"
W=$MD_WORK

secs() { awk '{ printf "%d\n", $1 }' /proc/uptime; }

# the audit's counters, summed over the loads of this run
TOTAL_KEYS="audits differed escalations bad_verdicts unconfirmed printed warned watches domain_scans domain_bad"
for k in $TOTAL_KEYS; do eval "sum_$k=0"; done
add_audit() {
	for k in $TOTAL_KEYS; do
		eval "sum_$k=\$((sum_$k + $(md_audit "$k")))"
	done
}

last=$(($(nproc) - 1))
hot=/sys/devices/system/cpu/cpu$last/online
[ "$last" -gt 0 ] && [ -w "$hot" ] || hot=""

mark=$(dmesg | wc -l)
md_mkcg md_soak md_soak/lim md_soak/fresh md_soak/sync md_soak/pinned md_soak/churn
echo +memory > "$CG/md_soak/churn/cgroup.subtree_control"
echo 64M > "$CG/md_soak/lim/memory.max"
md_wait_dir md_soak/churn
md_writer "$W/stop" "$W/lim" 8192 2
echo $! > "$CG/md_soak/lim/cgroup.procs"
md_writer "$W/stop" "$W/fresh" 256 0
echo $! > "$CG/md_soak/fresh/cgroup.procs"
md_compactor "$W/stop" 1
(while [ ! -e "$W/stop" ]; do
	mdfile dsync "$W/dsync" 64
	mdfile fsync "$W/fsync" 64
done) &
echo $! > "$CG/md_soak/sync/cgroup.procs"
md_writer "$W/stop" "$W/pinned" 128 4
pinned=$!
echo $pinned > "$CG/md_soak/pinned/cgroup.procs"
# the hog preempts the writer on their CPU: 2 ms busy, 3 ms asleep
hogs=0
if [ "$last" -gt 0 ]; then
	taskset -p -c "$last" $pinned > /dev/null
	mdfile fifohog "$last" 2000 3000 "$SOAK" > "$W/hog.out" &
	hogs=1
fi

start=$(secs)
end=$((start + SOAK))
watch_on=$((start + SOAK / 3))
watch_off=$((start + 2 * SOAK / 3))
reload_at=$((start + 3 * SOAK / 4))
watching=0 watched=0 reloaded=0 offlines=0 next_hot=$((start + 4))
watch_head=""
n=0
while [ "$(secs)" -lt $end ]; do
	n=$((n + 1))
	now=$(secs)
	if [ $watched = 0 ] && [ "$now" -ge $watch_on ]; then
		echo "watch /md_soak/lim" > "$MD/control" && watching=1
		watched=1
	fi
	if [ $watching = 1 ] && [ "$now" -ge $watch_off ]; then
		watch_head=$(head -n 1 "$MD/watch")
		grep -E '^[0-9]+ [0-9]+ [0-9]+ -?[0-9]+ (outside|mismatched) ' "$MD/watch" > "$W/watch.bad"
		echo "watch off" > "$MD/control"
		watching=0
	fi
	if [ $reloaded = 0 ] && [ "$now" -ge $reload_at ]; then
		add_audit
		# shellcheck disable=SC2086
		md_reload $PARAMS || break
		reloaded=1
	fi
	if [ -n "$hot" ] && [ "$now" -ge $next_hot ]; then
		echo 0 > "$hot" && offlines=$((offlines + 1))
		sleep 1
		echo 1 > "$hot"
		taskset -p -c "$last" $pinned > /dev/null 2>&1
		next_hot=$((now + 6))
	fi
	# scans and resyncs while the writers run, which a dirtier preempted
	# between PG_dirty and its count must not fool
	[ $((n % 4)) != 0 ] || echo resync > "$MD/control"
	[ $((n % 4)) != 2 ] || echo scan > "$MD/control"
	mkdir "$CG/md_soak/churn/c$n"
	md_in_cg "md_soak/churn/c$n" mdfile write "$W/c$n" 64
	# removed while dirty; every other file goes too, dirty or not
	rmdir "$CG/md_soak/churn/c$n"
	[ $((n % 2)) = 0 ] || rm -f "$W/c$n"
done
md_diag "md_soak/churn synced at the end: $(md_stat md_soak/churn synced)"
touch "$W/stop"
wait
[ -z "$hot" ] || echo 1 > "$hot"
add_audit
# shellcheck disable=SC2154 # the sum_* are assigned by eval, above
md_diag "$SOAK s: $sum_audits audits, $sum_differed differed, $sum_escalations escalated, $sum_unconfirmed unconfirmed," \
	"$sum_domain_scans scans for the writeback domains, $n cgroups churned, $offlines CPU offlines," \
	"hog: $(cat "$W/hog.out" 2>/dev/null)"
md_diag "watch: ${watch_head:-never armed}"
md_check "the module was reloaded under load" test $reloaded = 1
md_check "the audits ran (at least one per 2 s)" test "$sum_audits" -ge $((SOAK / 2))
md_check "they compared memcgs" test "$(md_audit last_memcgs)" -gt 0
# shellcheck disable=SC2154 # assigned by eval, above
md_eq "no bad verdict" 0 "$sum_bad_verdicts"
# shellcheck disable=SC2154 # assigned by eval, above
md_eq "no WARN" 0 "$sum_warned"
dmesg | tail -n +$((mark + 1)) |
	grep -E 'memcg_dirty: (mismatch|underflow|untrusted|audit found|watch)' > "$W/audit.lines"
md_eq "no console line of the audit" 0 \
	"$(grep -Ec 'memcg_dirty: (mismatch|underflow|untrusted|audit found)' "$W/audit.lines" || true)"
# what a false verdict reported, and how its cgroup reads now: to find why
while read -r line; do md_diag "console: $line"; done < "$W/audit.lines"
for p in $(sed -n 's/.*memcg_dirty: \(mismatch\|underflow\) \([^ ]*\) .*/\2/p' "$W/audit.lines" | sort -u); do
	for f in check stat; do
		[ ! -r "$MD/cgroups$p/$f" ] || sed "s|^|# $p/$f: |" "$MD/cgroups$p/$f"
	done
done
md_check "the watch was armed on the busy cgroup" test -n "$watch_head"
md_check "the watch saw changes" \
	test "$(echo "$watch_head" | awk '{ for (i = 1; i < NF; i++) if ($i == "changes") print $(i + 1) }')" -gt 0
md_eq "the watch found no change outside the accounting or mismatched" 0 \
	"$(cat "$W/watch.bad" 2>/dev/null | wc -l)"
md_eq "no console line of the watch" 0 \
	"$(dmesg | tail -n +$((mark + 1)) | grep -c 'memcg_dirty: watch .*: counter ' || true)"
md_check "the hog ran beside the pinned writer" test $hogs = 0 -o -s "$W/hog.out"
[ -n "$hot" ] || md_skip "CPU offline and online" "one CPU, or it cannot be taken offline"
[ -z "$hot" ] || md_check "the CPU went offline and back ($offlines times)" test $offlines -gt 0
echo scan > "$MD/control"
md_eq "a scan after it finds no dirty page the ledger never counted (folios)" 0 \
	"$(awk 'NR == 1 { print $2 }' "$MD/folios")"
md_diag "$(awk '$1 ~ /^shadow_/ { printf "%s %s ", $1, $2 }' "$MD/version")"
md_eq "the shadow (track=1) reported no page cleaned uncounted" 0 \
	"$(awk '$1 == "shadow_reported" { print $2 }' "$MD/version")"
sync
# churn too: its unit (the dying children) resyncs after the reload
for c in lim fresh sync pinned churn; do
	md_wait_synced "md_soak/$c" > /dev/null
	md_check "md_soak/$c: verdict ok after sync" \
		md_poll 20 sh -c "[ \"\$(awk '\$1 == \"verdict\" { print \$2 }' $MD/cgroups/md_soak/$c/check)\" = ok ]"
done
md_check "dmesg is clean" md_dmesg_clean
rm -f "$W"/c*
md_rmcg md_soak/lim md_soak/fresh md_soak/sync md_soak/pinned md_soak/churn md_soak
md_check "rmmod" md_unload
md_finish
