#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The auditor on a machine that was busy before it loaded (make
# check-audit; issue 39's soak).  20 cgroups, nested, some under
# memory.high, already writing, fsyncing, dirtying through shared mappings
# and truncating when the module is loaded in the middle of it with
# audit_ms=200 audit_warn=1, as a DKMS module at modprobe on a running
# host.  Each writer pauses now and then, as a real service does: a memcg
# never still through a whole page scan is never based (and is reported as
# unsynced after audit_unsynced_s instead, md_audit_unsynced.sh).  Then
# four of them are removed dirty, four new ones made, and the module is
# reloaded twice under the same load.  It passes only with no console
# line of the audit, the watch or the shadow, no WARN, and every
# verdict ok once the writers stop and sync; it says how long each
# pre-existing memcg took to be synced, and the longest.  Last, a bug
# staged to recur (the zoo's phantom page every second) in one of the
# pre-existing memcgs and one in the root memcg, at once: both must be
# reported within 40 s (docs/verdicts.md, "never silent").
# MD_PRELOAD_S: seconds of load after each (re)load (default 30).
. ./lib.sh
md_require_writers
md_require_ko
S=${MD_PRELOAD_S:-30}
W=$MD_WORK
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
zoo_ko=${MEMCG_DIRTY_ZOO:-$md_here/bin/md_zoo.ko}
[ ! -d /sys/module/md_zoo ] || rmmod md_zoo
PARAMS="audit_ms=200 audit_warn=1"
mark=$(dmesg | wc -l)

secs() { awk '{ printf "%d\n", $1 }' /proc/uptime; }

# KIND CGROUP: a worker of KIND in CGROUP until $W/stop.CGROUP's name or
# $W/stop exists, pausing 0.5 s every other round
worker() {
	n=$(echo "$2" | tr / _)
	f=$W/$n
	sh -c "echo \$\$ > $CG/$2/cgroup.procs
	i=0
	while [ -d $W ] && [ ! -e $W/stop ] && [ ! -e $W/stop.$n ]; do
		case $1 in
		write) mdfile write $f.\$((i % 4)) 64 ;;
		fsync) mdfile fsync $f 32 ;;
		mmap) mdfile mmapnosync $f 32 ;;
		trunc) mdfile write $f 48; : > $f ;;
		esac
		i=\$((i + 1))
		[ \$((i % 2)) = 0 ] && sleep 0.5
	done" > /dev/null 2>&1 &
}

kinds="write fsync mmap trunc"
cgs=
md_mkcg md_pl md_pl/n md_pl/n/deep
for i in $(seq 1 20); do
	case $i in
	1|2|3|4|5|6|7) c=md_pl/a$i ;;
	8|9|10|11|12|13|14) c=md_pl/n/b$i ;;
	*) c=md_pl/n/deep/c$i ;;
	esac
	md_mkcg $c
	[ $((i % 4)) = 0 ] && echo 32M > "$CG/$c/memory.high"
	set -- $kinds
	shift $((i % 4))
	worker "${1:-write}" $c
	cgs="$cgs $c"
done
md_diag "20 cgroups busy before the load: $cgs"
sleep 3

# wait until each of CGROUPS is synced (its stat alone, which starts no
# resync), at most 120 s; say how long each took after T0
took_all() {
	t0=$1
	shift
	longest=0 slow=
	for c in "$@"; do
		md_poll 1200 md_synced "$c" || { md_diag "$c not synced after 120 s"; return 1; }
		t=$(($(secs) - t0))
		[ $t -gt $longest ] && longest=$t slow=$c
		printf '%s:%ss ' "$c" "$t"
	done
	echo
	md_diag "longest: $slow, ${longest} s after the load"
}

round=0
for phase in load reload1 reload2; do
	round=$((round + 1))
	t0=$(secs)
	# shellcheck disable=SC2086 # PARAMS: several words
	md_reload $PARAMS || md_not_ok "$phase: memcg_dirty loads"
	for c in $cgs; do md_wait_dir "$c"; done
	md_diag "$phase: synced after: $(took_all "$t0" $cgs)"
	md_check "$phase: every pre-existing memcg synced under load" took_all "$t0" $cgs > /dev/null
	sleep "$S"
	if [ $round = 1 ]; then
		# four removed dirty, four new ones
		gone="md_pl/a1 md_pl/n/b8 md_pl/n/deep/c15 md_pl/n/deep/c16"
		for c in $gone; do touch "$W/stop.$(echo "$c" | tr / _)"; done
		sleep 1
		md_rmcg $gone
		newc=
		for i in 21 22 23 24; do
			c=md_pl/n/new$i
			md_mkcg $c
			set -- $kinds
			shift $((i % 4))
			worker "${1:-write}" $c
			newc="$newc $c"
		done
		cgs=$(for c in $cgs $newc; do case " $gone " in *" $c "*) ;; *) echo "$c" ;; esac; done)
		sleep "$S"
	fi
done
touch "$W/stop"
sleep 2
sync
md_check "every memcg synced once the writers stopped" md_all_synced
md_eq "after sync: the global check ok" ok "$(awk '$1 == "verdict" { print $2 }' "$MD/check")"
bad=$(awk 'NR > 1 && $6 != "ok" { print }' "$MD/summary")
md_eq "after sync: every cgroup ok" "" "$bad"
md_eq "no WARN" 0 "$(dmesg | tail -n +$((mark + 1)) | grep -c 'WARNING:' || true)"
lines=$(dmesg | tail -n +$((mark + 1)) |
	grep -E 'memcg_dirty: (mismatch|underflow|untrusted|unsynced|audit found|watch|cleaned a page)' || true)
md_eq "no console line of the audit, the watch or the shadow" "" "$lines"
md_audits_pass 2

# --- a bug that recurs, in a pre-existing memcg and in the root
if [ ! -r "$zoo_ko" ]; then
	md_skip "a recurring bug reported" "no md_zoo.ko (built with the module in a clone)"
else
	md_check "md_zoo loads" insmod "$zoo_ko"
	rm -f "$W/stop"
	mdfile write "$W/root" 4
	md_in_cg md_pl/a2 mdfile write "$W/a2bug" 4
	ida=$(stat -c %i "$CG/md_pl/a2")
	echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
	(while [ -d "$W" ] && [ ! -e "$W/stop" ]; do
		echo "phantom $W/a2bug 0" > /sys/kernel/debug/md_zoo/trigger
		echo "phantom $W/root 0" > /sys/kernel/debug/md_zoo/trigger
		sleep 1
	done) &
	t0=$(secs)
	md_poll 400 sh -c "dmesg | grep -Eq 'memcg_dirty: (mismatch|underflow) /md_pl/a2 \(id $ida\)' &&
		dmesg | grep -Eq 'memcg_dirty: (mismatch|underflow) / \(id 1\)'"
	dmesg | grep -E 'memcg_dirty: (mismatch|underflow) (/|/md_pl/a2) \(id' | head -n 2 | sed 's/^/# /'
	md_check "the bug in /md_pl/a2 reported within 40 s" sh -c \
		"dmesg | grep -Eq 'memcg_dirty: (mismatch|underflow) /md_pl/a2 \(id $ida\)'"
	md_check "the bug in the root memcg reported within 40 s" sh -c \
		"dmesg | grep -Eq 'memcg_dirty: (mismatch|underflow) / \(id 1\)'"
	md_diag "after $(($(secs) - t0)) s"
	touch "$W/stop"
	wait
	echo undo > /sys/kernel/debug/md_zoo/trigger
	echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
	md_check "rmmod md_zoo" rmmod md_zoo
fi
wait
rm -rf "$W"
sync
md_rmcg $cgs md_pl/n/deep md_pl/n md_pl
md_check "rmmod" md_unload
md_check "outside the expected warnings, dmesg is clean" md_dmesg_clean
md_finish
