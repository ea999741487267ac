#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own bugs (make check-bugs): on a bug kernel
# (scripts/kernel-build bugs LINE) booted with md_bug=BUG, a workload that
# takes the buggy path in a cgroup, with the module loaded as a test
# machine would have it (audit_ms=200 audit_warn=1, the audit arming the
# watch), and nobody reading debugfs while it runs.  What must show in the
# kernel log, by itself:
#   - the audit's line naming a cgroup, a node and the suspect, within
#     5 s of the bug's first wrong count (the bug kernel logs that moment:
#     "md_bug: BUG taken for the first time");
#   - a WARN (one per cgroup and verdict at most);
#   - the watch the audit armed naming the kernel function and what is
#     wrong with the change ("mismatched": another memcg, another size).
# Then, after sync, how far the kernel's counter is off, against the ledger
# and the scan.  The last lines are the result the host's table is made of,
# one "md_bug result KEY: VALUE" each (md_result): caught, seconds, reported
# (every cgroup, node and verdict the audit named), suspect, warns,
# localized (the function the watch named), what (its words), after_sync.
#
# usage: md_bug.sh BUG WORKLOAD        on a kernel booted with md_bug=BUG
#        md_bug.sh control WORKLOAD... the same workloads without md_bug=:
#                                      no line, no WARN, nothing off
# WORKLOAD: migrate (dirty pages moved between the nodes with move_pages),
#           migrate_large (the same with large folios), rmdir (removal of
#           children with dirty pages while the parent lives on),
#           truncate_wb (files truncated as their writeback ends, in four
#           writers at once), wb_switch (a file of large folios dirtied
#           from one cgroup, then from another until its inode switches
#           writeback domains).
# A bug that loses an update writes no counter, and the watch follows the
# memcgs' counters, not the writeback domains': then it has nothing to
# name (its workload says so, watchable=0), and is not asked to.
. ./lib.sh
md_require_writers
md_require_ko
[ $# -ge 2 ] || { echo "usage: md_bug.sh BUG|control WORKLOAD..." >&2; exit 2; }
bug=$1
shift
md_require_numa
X=$(md_xfs_dir) || md_skip_all "migration keeps pages dirty on xfs only: set MEMCG_DIRTY_XFS"
on=$(sed -n 's/.*md_bug=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ "$bug" = control ]; then
	[ -z "$on" ] || md_skip_all "control run on a kernel booted with md_bug=$on"
else
	[ "$on" = "$bug" ] || md_skip_all "needs a bug kernel booted with md_bug=$bug (cmdline: $(cat /proc/cmdline))"
	dmesg | grep -q "md_bug: switched on: $bug" ||
		md_skip_all "md_bug=$bug on the command line, but this kernel has no md_bug (not a bug kernel)"
fi
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
md_load audit_ms=200 audit_warn=1 || md_skip_all "cannot load memcg_dirty with audit_ms=200 audit_warn=1"
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
md_hold_writeback

# caught: the audit reported something, or the watch named something
caught() {
	dmesg | grep -Eq "memcg_dirty: (mismatch|underflow) |memcg_dirty: watch .*: counter .*(, but |outside)"
}
# watched: the watch named the code
named() {
	dmesg | grep -Eq "memcg_dirty: watch .*: counter .*(, but |outside)"
}

# migrate [large]: dirty pages of md_bug moved between the nodes, once a
# second, until the watch has named the code (at most 30 moves)
migrate() {
	cg=md_bug${1:+_$1}
	md_mkcg $cg
	md_wait_dir $cg
	F=$X/$cg.$$
	if [ "${1:-}" = large ]; then
		pages=4096
		md_in_cg $cg taskset -c "$node0_cpu" mdfile largedirty "$F" $pages ||
			{ md_not_ok "large dirty folios made in $cg"; return; }
		md_diag "large folios: $(mdfile folios "$F" | head -n 1)"
	else
		pages=512
		md_in_cg $cg taskset -c "$node0_cpu" mdfile write "$F" $pages
	fi
	# an odd number of moves: pages left on node 1, so that a count
	# moved wrongly between the nodes does not cancel out by the sync
	i=0 to=1
	while [ $i -lt 31 ]; do
		# the pages dirty again, whatever writeback cleaned meanwhile
		# (on 6.1's xfs about half of 512 pages were clean again
		# before the first move, all of them in one run, writeback
		# held or not); a write over a cached large folio dirties
		# it whole
		md_in_cg $cg mdfile write "$F" $pages
		md_diag "move $i to node$to, $(md_stat $cg dirty) pages dirty: $(mdfile migrate "$F" $to)"
		to=$((1 - to)) i=$((i + 1))
		sleep 1
		[ $((i % 2)) = 1 ] || continue
		named && [ $i -ge 5 ] && break
		[ "$bug" = control ] && [ $i -ge 7 ] && break
	done
	cgs="$cg $cgs"
	files="$F $files"
}

# rmdir: children of md_bugp with dirty pages removed one by one, two
# seconds apart, while the parent lives on
rmdir_children() {
	md_mkcg md_bugp md_bugp/c1 md_bugp/c2 md_bugp/c3 md_bugp/c4 md_bugp/c5 md_bugp/c6
	md_wait_dir md_bugp
	for c in 1 2 3 4 5 6; do
		md_in_cg md_bugp/c$c taskset -c "$node0_cpu" mdfile write "$X/md_bugp$c.$$" 256
		files="$X/md_bugp$c.$$ $files"
	done
	for c in 1 2 3 4 5 6; do
		rmdir "$CG/md_bugp/c$c"
		md_diag "rmdir md_bugp/c$c"
		sleep 2
		named && [ $c -ge 2 ] && break
	done
	cgs="md_bugp $cgs"
}

# truncate_wb: four writers in md_bugw, each round writing 32 pages of its
# file on ext4 (whose ends run in the disk's interrupt), starting their
# writeback and truncating the file at once, so that truncation frees
# folios as their writeback ends (739f79fc9db1); short bursts of two rounds
# a second apart, so that the audit finds the memcg still between them (a
# check of a busy memcg holds kernel against ledger only, and names no
# suspect), until the audit has found something (at most 60)
truncate_wb() {
	watchable=0
	md_mkcg md_bugw
	md_wait_dir md_bugw
	b=0
	while [ $b -lt 60 ]; do
		for i in 0 1 2 3; do
			md_in_cg md_bugw mdfile wbtrunc "$MD_WORK/md_bugw$i" 32 2 > /dev/null &
		done
		wait
		b=$((b + 1))
		sleep 1
		[ "$bug" = control ] && [ $b -ge 10 ] && break
		caught && [ $b -ge 2 ] && break
	done
	md_diag "truncate_wb: $b bursts of 4 x 2 rounds"
	cgs="md_bugw $cgs"
	files="$MD_WORK/md_bugw0 $MD_WORK/md_bugw1 $MD_WORK/md_bugw2 $MD_WORK/md_bugw3 $files"
}

# wb_switch: a file on xfs written in md_bugsa (its inode joins md_bugsa's
# writeback domain), then made again of large folios charged to md_bugsb;
# then, a round a second, all of it dirtied from md_bugsb and its first 64
# pages written back, so that the kernel's foreign inode detection (at the
# end of that writeback) moves the inode to md_bugsb's domain with the rest
# dirty, in large folios (22b3c8d6612e moved each as one page), until the
# audit has found something (at most 40 rounds)
wb_switch() {
	watchable=0
	md_mkcg md_bugsa md_bugsb
	md_wait_dir md_bugsa
	F=$X/md_bugs.$$
	md_in_cg md_bugsa mdfile write "$F" 1024
	sync
	md_in_cg md_bugsb mdfile largedirty "$F" 1024 ||
		{ md_not_ok "large dirty folios made in md_bugsb"; return; }
	md_diag "large folios: $(mdfile folios "$F" | head -n 1)"
	r=0
	while [ $r -lt 40 ]; do
		md_in_cg md_bugsb mdfile write "$F" 1024
		md_in_cg md_bugsb mdfile syncrange "$F" 0 64
		r=$((r + 1))
		sleep 1
		[ "$bug" = control ] && [ $r -ge 12 ] && break
		caught && [ $r -ge 2 ] && break
	done
	md_diag "wb_switch: $r rounds; domains: $(grep -E 'cgroup /md_bugs[ab] ' "$MD/domains" | cut -d' ' -f2,4,7- | paste -sd ';')"
	cgs="md_bugsa md_bugsb $cgs"
	files="$F $files"
}

cgs="" files="" watchable=1
for w in "$@"; do
	case "$w" in
	migrate) migrate ;;
	migrate_large) migrate large ;;
	rmdir) rmdir_children ;;
	truncate_wb) truncate_wb ;;
	wb_switch) wb_switch ;;
	*) md_not_ok "unknown workload $w"; exit 1 ;;
	esac
done
# the audit has had its chance
sleep 2

# after sync: how far each cgroup's kernel counter is off, once the audit
# has had its passes (what it finds after sync is between the markers)
md_release_writeback
sync
md_audits_pass 5
after=""
for c in $cgs ""; do
	[ -e "$MD/cgroups/$c/check" ] || continue
	after="$after${after:+; }${c:-/}: $(awk '{ v[$1] = $2 } END { printf "%s kernel %s ledger %s scan %s", v["verdict"], v["kernel"], v["ledger"], v["scan"]; if (v["counter"] != "dirty") printf " (%s)", v["counter"] }' "$MD/cgroups/$c/check")"
	# per node where pages moved between nodes (where the kernel reparents,
	# a unit's local counters are not its verdict's values)
	[ "$c" = md_bugp ] || [ "$c" = md_bugw ] ||
		after="$after, per node kernel $(md_stat "$c" kernel_dirty_node0)/$(md_stat "$c" kernel_dirty_node1) ledger $(md_stat "$c" dirty_node0)/$(md_stat "$c" dirty_node1)"
done
# the writeback domains of the cgroups, where the kernel's counts are
# apart from their pages
doms=$(for c in $cgs; do grep -E "cgroup /$c .* verdict (mismatch|underflow)$" "$MD/domains"; done |
	awk '{ printf "%s%s domain on %s: reclaimable kernel %s scan %s, writeback kernel %s scan %s, %s",
		n++ ? "; " : "", $4, $2, $9, $11, $14, $16, $18 }')
[ -z "$doms" ] || after="$after${after:+; }$doms"
md_diag "after sync: $after"
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
dmesg | grep -E "md_bug:|memcg_dirty: (mismatch|underflow|watch|audit found|untrusted)" | sed 's/^/# /'

# md_result KEY VALUE: one line of the result for scripts/check-bugs
md_result() {
	echo "md_bug result $1: ${2:--}"
}

# dmesg time of the first line matching ERE $1 (empty if none)
t_of() {
	dmesg | grep -E "$1" | head -n 1 | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}
warns=$(dmesg | grep -c "memcg_dirty: audit found" || true)
if [ "$bug" = control ]; then
	md_eq "no audit line" 0 "$(dmesg | grep -Ec 'memcg_dirty: (mismatch|underflow) ' || true)"
	md_eq "no WARN" 0 "$warns"
	md_eq "the watch was not armed" 0 "$(md_audit watches)"
	md_check "no bug was taken" sh -c "! dmesg | grep -q 'md_bug: .* taken'"
	for c in $cgs; do
		md_eq "$c: ok after sync" ok "$(md_chk "$c" verdict)"
	done
	md_check "dmesg is clean" md_dmesg_clean
	md_result caught no
	md_result warns "$warns"
	md_result after_sync "$after"
	rm -f $files
	md_finish
fi

t0=$(t_of "md_bug: $bug taken for the first time")
md_check "the bug was taken" test -n "$t0"
line=$(dmesg | grep -E "memcg_dirty: (mismatch|underflow) " | head -n 1)
t1=$(t_of "memcg_dirty: (mismatch|underflow) ")
md_check "the audit reported it" test -n "$line"
secs=-
[ -z "$t0" ] || [ -z "$t1" ] || secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
md_diag "first wrong count at $t0 s, the audit's line at $t1 s: $secs s"
md_check "within 5 s of the first wrong count" awk -v s="$secs" 'BEGIN { exit !(s != "-" && s <= 5) }'
# every cgroup, node and verdict the audit named, in order
reported=$(dmesg | sed -n -e 's/.*memcg_dirty: \(mismatch\|underflow\) \([^ ]*\) (id [0-9]*) node \([0-9]*\): .*suspect \([a-z]*\)\(, counter \([a-z]*\)\)\{0,1\}$/\1 \2 node \3 (\4\5)/p' \
	-e 's/.*memcg_dirty: \(mismatch\|underflow\) writeback domain of \([^ ]*\) (id [0-9]*) on bdi \([^ ]*\): .*suspect \([a-z]*\)$/\1 \2 domain on \3 (\4)/p' |
	awk '!seen[$0]++' | paste -sd ';' | sed 's/;/; /g')
suspect=$(echo "$line" | sed -n 's/.*, suspect \([a-z]*\)\(, counter [a-z]*\)\{0,1\}$/\1/p')
md_eq "the suspect is the kernel" kernel "$suspect"
md_check "a WARN" test "$warns" -ge 1
md_eq "each WARN is one the audit raised, between the markers" "$warns" "$(md_marked_warnings)"
wline=$(dmesg | grep -E "memcg_dirty: watch .*: counter .*(, but |outside)" | head -n 1)
func=$(echo "$wline" | sed -n 's/.*, at \([A-Za-z0-9_.]*\)+.*/\1/p')
what=$(echo "$wline" | sed -n 's/.*: counter \(.*\), at .*/counter \1/p')
if [ $watchable = 1 ]; then
	md_check "the watch named the code" test -n "$func"
else
	md_diag "a lost update or a domain's count: nothing for the watch to see (it named: ${func:-nothing})"
	func=-
fi
md_check "dmesg is clean but for the expected WARNs" md_dmesg_clean
md_result caught "$([ -n "$line" ] && echo yes || echo no)"
md_result seconds "$secs"
md_result reported "$reported"
md_result suspect "$suspect"
md_result warns "$warns"
md_result localized "${func:-none}"
md_result what "$what"
md_result after_sync "$after"
md_unload
rm -f $files
md_finish
