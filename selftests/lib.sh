# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared helpers for the memcg_dirty selftests: POSIX sh, so busybox ash runs
# them in the test VM and any /bin/sh on a real machine.  TAP output; exit 4
# (kselftest's SKIP) when the machine cannot run a test, with the reason.

MD=/sys/kernel/debug/memcg_dirty
# The memory hierarchy: cgroup v2 at /sys/fs/cgroup, or v1's memory controller.
CG=/sys/fs/cgroup
MD_CGV=2
if [ ! -e "$CG/cgroup.controllers" ] && [ -e "$CG/memory/cgroup.procs" ]; then
	CG=/sys/fs/cgroup/memory
	MD_CGV=1
fi
# the helpers: built in the tree, or installed beside the tests (bin/)
md_here=$(cd "$(dirname "$0")" && pwd)
PATH=$PATH:$md_here/../build/helpers:$md_here/bin
KSFT_SKIP=4
md_n=0
md_failed=0

md_cgs=""		# cgroups made by md_mkcg, removed on exit

# On every exit, passing or not: stop background jobs, put writeback back,
# remove the test's cgroups (deepest first) and work directory; after a
# failure also unload the module, so that no test leaves state behind.
md_cleanup() {
	md_rc=$?
	trap - EXIT
	# through a file: dash lists no jobs inside $(...)
	md_jobs=$(mktemp "${TMPDIR:-/tmp}/md_jobs.XXXXXX" 2> /dev/null) || md_jobs=/tmp/md_jobs.$$
	jobs -p > "$md_jobs" 2> /dev/null
	for p in $(cat "$md_jobs"); do
		kill "$p" 2> /dev/null
	done
	rm -f "$md_jobs"
	# a writeback held by a freeze: its waiters end only at the thaw
	md_wb_thaw
	wait 2> /dev/null
	md_wb_hold_undo
	md_release_writeback
	md_rev=
	for c in $md_cgs; do
		md_rev="$c $md_rev"
	done
	# the zoo's exit puts back every count it changed, before rmdir
	[ ! -d /sys/module/md_zoo ] || rmmod md_zoo 2> /dev/null
	md_rmcg $md_rev
	[ -z "${MD_WORK:-}" ] || rm -rf "$MD_WORK"
	[ -z "${MD_MEM:-}" ] || { umount "$MD_MEM" 2> /dev/null; rmdir "$MD_MEM"; }
	[ -z "${md_saved_preempt:-}" ] || echo "$md_saved_preempt" > "$md_preempt_file"
	if [ "$md_rc" != 0 ] && [ "$md_rc" != "$KSFT_SKIP" ] && [ -d /sys/module/memcg_dirty ]; then
		rmmod memcg_dirty 2> /dev/null
	fi
	exit "$md_rc"
}
trap md_cleanup EXIT
trap 'exit 143' TERM INT

md_ok() { md_n=$((md_n + 1)); echo "ok $md_n - $*"; }
md_not_ok() { md_n=$((md_n + 1)); md_failed=$((md_failed + 1)); echo "not ok $md_n - $*"; }
md_skip() { md_n=$((md_n + 1)); echo "ok $md_n - $1 # SKIP $2"; }
md_diag() { echo "# $*"; }

# md_check DESCRIPTION COMMAND...: one TAP line from a command's status.
md_check() {
	md_desc=$1
	shift
	if "$@"; then md_ok "$md_desc"; else md_not_ok "$md_desc"; fi
}

# md_eq DESCRIPTION EXPECTED ACTUAL
md_eq() {
	if [ "$2" = "$3" ]; then
		md_ok "$1 ($3)"
	else
		md_not_ok "$1: expected '$2', got '$3'"
	fi
}

md_skip_all() { echo "1..0 # SKIP $*"; exit $KSFT_SKIP; }

md_finish() {
	echo "1..$md_n"
	[ "$md_failed" -eq 0 ] || exit 1
	exit 0
}

md_require_root() {
	[ "$(id -u)" = 0 ] || md_skip_all "must run as root"
}

md_require_debugfs() {
	[ -d /sys/kernel/debug/tracing ] || [ -n "$(ls -A /sys/kernel/debug 2>/dev/null)" ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null ||
		md_skip_all "debugfs is not mounted and cannot be mounted"
}

md_require_cgroup2_memory() {
	[ "$MD_CGV" = 2 ] || md_skip_all "needs the cgroup v2 memory controller (this machine mounts v1)"
	grep -qw memory "$CG/cgroup.controllers" 2>/dev/null ||
		md_skip_all "no cgroup v2 memory controller at $CG"
	grep -qw memory "$CG/cgroup.subtree_control" ||
		echo +memory > "$CG/cgroup.subtree_control" ||
		md_skip_all "cannot enable the memory controller in $CG"
}

# A block-backed filesystem: tmpfs pages are not dirty-accounted.
md_require_disk() {
	MD_FS=${MEMCG_DIRTY_EXT4:-${MEMCG_DIRTY_DIR:-}}
	[ -n "$MD_FS" ] || md_skip_all "set MEMCG_DIRTY_DIR to a directory on a disk filesystem (ext4, xfs)"
	[ -d "$MD_FS" ] || md_skip_all "MEMCG_DIRTY_DIR: $MD_FS is not a directory"
	MD_WORK=$MD_FS/md_selftest.$$
	mkdir -p "$MD_WORK" || md_skip_all "cannot write to $MD_FS"
}

# md_load_reparenting WHY [PARAM=VALUE...]: the module freshly loaded, with
# the PARAMs, on a kernel that repoints a removed memcg's folios to its
# parent (7.1 on, cgroup v2), else SKIP, saying WHY that matters to the test.
md_load_reparenting() {
	md_why=${1:-}
	[ $# = 0 ] || shift
	[ "$MD_CGV" = 2 ] || md_skip_all "cgroup v1: no reparenting"
	md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
	md_load "$@" || md_skip_all "cannot load memcg_dirty"
	[ "$(md_probe_status memcg_release)" != unused:no_reparenting ] ||
		md_skip_all "kernel $(uname -r) does not reparent (7.1 on)${md_why:+: $md_why}"
}

# md_memdir: MD_MEM, a directory on a tmpfs of its own, gone at exit: for
# the files a test touches while it holds a task inside a disk
# filesystem's writeback.  That task may hold a journal handle (ext4's
# writepages does); once the journal's commit waits for it, any change on
# that filesystem, even a file's removal, waits too: a flag there that is
# to release the task would never go.
md_memdir() {
	MD_MEM=$(mktemp -d "${TMPDIR:-/tmp}/md_mem.XXXXXX") ||
		md_skip_all "cannot make a directory for the test's flags"
	mount -t tmpfs -o size=1m md_mem "$MD_MEM" ||
		md_skip_all "cannot mount a tmpfs on $MD_MEM for the test's flags"
}

# A task held inside a kernel function (mdfile catch): a SCHED_FIFO
# spinner on the task's CPU preempts it there and keeps the CPU.
# md_require_catch: what it needs, and the kernel made preemptible
# (preempt=full, put back at exit).  Not on PREEMPT_RT: the spinner would
# starve the CPU's rcuc and ktimers threads too (an RCU stall, seen).
md_require_catch() {
	md_catch_cpu=$(($(nproc) - 1))
	[ "$md_catch_cpu" -ge 1 ] || md_skip_all "one CPU: the spinner would stop the test itself"
	! uname -v | grep -q PREEMPT_RT ||
		md_skip_all "PREEMPT_RT: a SCHED_FIFO spinner would starve the CPU's RCU and timer threads"
	md_preempt_file=/sys/kernel/debug/sched/preempt
	[ -w $md_preempt_file ] || md_skip_all "no $md_preempt_file to make the kernel preemptible"
	md_saved_preempt=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' $md_preempt_file)
	echo full > $md_preempt_file || md_skip_all "cannot set preempt=full in $md_preempt_file"
	md_memdir
}

# md_dirty_from C T FILE PAGES: PAGES of FILE dirty, C's, the file's
# writeback T's (first dirtied from T), so that writing it back from T holds
# no reference on C's memcg (cgroup writeback): only a probe's window can.
md_dirty_from() {
	md_in_cg "$2" mdfile write "$3" 1
	sync
	mdfile dontneed "$3"		# and every page cleaned is C's
	md_in_cg "$1" mdfile write "$3" "$4"
	md_check "$1: its pages dirty ($(md_stat "$1" dirty))" test "$(md_stat "$1" dirty)" -ge $(($4 / 2))
	md_eq "none of $2's" 0 "$(md_stat "$2" dirty)"
}

# md_watched_window P: the set-up of a window test where a syncer cleans
# another memcg's pages.  Cgroups P, C=P/c (its pages) and T=P/t (the
# syncer's; v2: no task in P itself), pid and cid P's and C's ids, 16384
# pages of $MD_WORK/f dirty from C (md_dirty_from), writeback held, the
# watch armed on P.
md_watched_window() {
	P=$1
	C=$P/c
	T=$P/t
	md_mkcg "$P" "$C" "$T"
	md_wait_dir "$C"
	# shellcheck disable=SC2034 # read by the tests that source this file
	pid=$(stat -c %i "$CG/$P")
	cid=$(stat -c %i "$CG/$C")
	md_diag "C: cgroup id $cid"
	md_hold_writeback
	md_dirty_from "$C" "$T" "$MD_WORK/f" 16384
	echo "watch /$P" > "$MD/control"
	md_check "the watch is armed on $P" sh -c "head -n 1 $MD/watch | grep -q '^watching /$P '"
}

# md_catch_cleaning CG FILE [FUNC [reader]]: a task in CG writes FILE back
# in its own context (sync_file_range), FILE mapped 64 times so that each
# cleaning walks 64 mappings, and is held inside FUNC (default
# folio_clear_dirty_for_io()) until md_let_go: never inside an RCU
# read-side critical section, where it would hold up every grace period
# (a removed memcg's offlining among them), unless "reader" asks for
# exactly that (mdfile catch).  md_held: its pid.  SKIP if it was never
# seen there.  The flags are on MD_MEM: the held task may hold a journal
# handle.
md_catch_cleaning() {
	md_catch_fn=${3:-folio_clear_dirty_for_io}
	md_in_cg "$1" mdfile mapsync "$2" 64 "$md_catch_cpu" "$MD_MEM/go" > "$MD_MEM/sync.out" &
	md_syncer=$!
	md_poll 600 grep -qs ready "$MD_MEM/sync.out"
	md_diag "$(cat "$MD_MEM/sync.out")"
	md_held=$(head -n 1 "$CG/$1/cgroup.procs")
	touch "$MD_MEM/spin"
	mdfile catch "$md_catch_cpu" "$md_held" "$md_catch_fn" "$MD_MEM/spin" ${4:+"$4"} \
		> "$MD_MEM/catch.out" &
	md_catcher=$!
	md_poll 600 grep -qs looking "$MD_MEM/catch.out"
	touch "$MD_MEM/go"
	md_poll 1200 grep -q 'caught\|missed' "$MD_MEM/catch.out"
	grep -q caught "$MD_MEM/catch.out" ||
		md_skip_all "the syncer was never seen inside $md_catch_fn${4:+ in an RCU reader}: $(tail -n 1 "$MD_MEM/catch.out")"
	md_ok "the syncer is held inside $md_catch_fn${4:+ in an RCU reader} ($(grep caught "$MD_MEM/catch.out"))"
	sed 's/^/# stack: /' "/proc/$md_held/stack" | head -n 8
}

# md_let_go [COMMAND...]: the held task goes on and writes its file back;
# COMMAND runs once the catcher let go, before the write-back is waited for.
md_let_go() {
	rm -f "$MD_MEM/spin"
	wait "$md_catcher"
	md_eq "the catcher let go when told" "" "$(grep released "$MD_MEM/catch.out")"
	[ $# = 0 ] || "$@"
	wait "$md_syncer"
	md_check "the syncer wrote the file back" grep -q synced "$MD_MEM/sync.out"
}

# Load the module unless it is loaded: from $MEMCG_DIRTY_KO, else modprobe.
md_load() {
	[ -d "$MD" ] && return 0
	if [ -n "${MEMCG_DIRTY_KO:-}" ]; then
		insmod "$MEMCG_DIRTY_KO" "$@"
	else
		modprobe memcg_dirty "$@"
	fi
}

md_require_module() {
	md_load 2>/dev/null || md_skip_all "memcg_dirty cannot be loaded (set MEMCG_DIRTY_KO or install it with dkms)"
	[ -d "$MD" ] || md_skip_all "memcg_dirty loaded but $MD is missing"
}

md_unload() {
	[ -d /sys/module/memcg_dirty ] || return 0
	rmmod memcg_dirty
}

# md_stat DIR KEY: a value from cgroups/DIR/stat ("" for the root memcg).
md_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$MD/cgroups/$1/stat"
}

# md_probe_hits POINT
md_probe_hits() {
	awk -v p="$1" '$1 == p { print $5 }' "$MD/probes"
}

# md_xfs_dir: print the xfs mount the suite may use (MEMCG_DIRTY_XFS);
# false if nothing is set, or no xfs is mounted there.
md_xfs_dir() {
	[ -n "${MEMCG_DIRTY_XFS:-}" ] && grep -q " $MEMCG_DIRTY_XFS xfs " /proc/mounts &&
		echo "$MEMCG_DIRTY_XFS"
}

# md_probe_status POINT: attached, absent, error:N, ... (probes' 4th column)
md_probe_status() {
	awk -v p="$1" '$1 == p { print $4 }' "$MD/probes"
}

# md_probe_symbol POINT: the kernel function it is attached to (2nd column)
md_probe_symbol() {
	awk -v p="$1" '$1 == p { print $2 }' "$MD/probes"
}

# md_wait_dir DIR: the cgroups/ mirror is built by deferred work.
md_wait_dir() {
	md_poll 50 md_dir_ready "$1"
}

# md_dir_ready DIR: cgroups/DIR is there; if not, a summary read asks for it.
md_dir_ready() {
	[ -e "$MD/cgroups/$1/stat" ] || { cat "$MD/summary" > /dev/null; false; }
}

# md_poll TRIES COMMAND...: COMMAND until it succeeds, retried every 0.1 s
# at most TRIES times; its last status.
md_poll() {
	md_tries=$1
	shift
	while ! "$@"; do
		[ "$md_tries" -gt 0 ] || return 1
		md_tries=$((md_tries - 1))
		sleep 0.1
	done
}

# md_mkcg NAME...: cgroups under the root, memory enabled for nested ones.
md_mkcg() {
	for c in "$@"; do
		[ -d "$CG/$c" ] || md_cgs="$md_cgs $c"
		mkdir -p "$CG/$c" || return 1
		p=$(dirname "$c")
		[ "$MD_CGV" = 1 ] || [ "$p" = . ] || grep -qw memory "$CG/$p/cgroup.subtree_control" ||
			echo +memory > "$CG/$p/cgroup.subtree_control"
	done
}

# md_rmcg NAME...: deepest first; moves any stray task to the root first.
md_rmcg() {
	for c in "$@"; do
		[ -d "$CG/$c" ] || continue
		for t in $(cat "$CG/$c/cgroup.procs" 2>/dev/null); do
			echo "$t" > "$CG/cgroup.procs" 2>/dev/null
		done
		rmdir "$CG/$c" 2>/dev/null
	done
}

# md_in_cg CGROUP COMMAND...: run a command inside a cgroup, wait for it.
md_in_cg() {
	md_cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/$md_cg" "$@"
}

# md_dmesg_clean: no kernel warning in dmesg (kmsg-filter.awk says what is
# left out: an OOM kill's report, a test's expected audit warnings), and no
# line of the kernel's about the module that is not the module's own (7.2's
# "work func ... [memcg_dirty] enqueued on deprecated workqueue").
md_dmesg_clean() {
	! dmesg | awk -f "$md_here/kmsg-filter.awk" |
		grep -Eq 'WARNING:|BUG:|Oops|Call Trace|general protection fault|soft lockup|hard LOCKUP|rcu_.*stall|RCU stall' &&
	! dmesg | awk -f "$md_here/kmsg-filter.awk" | grep 'memcg_dirty' |
		grep -Evq '(^|\] )(memcg_dirty: |memcg_dirty selftest)'
}

# md_require_ko: the module can be loaded by the test itself.
md_require_ko() {
	[ -n "${MEMCG_DIRTY_KO:-}" ] || modinfo memcg_dirty > /dev/null 2>&1 ||
		md_skip_all "memcg_dirty is neither installed nor given as MEMCG_DIRTY_KO"
}

# md_require_writers: what a test that dirties pages in cgroups needs.
# md_require_numa: two NUMA nodes, or SKIP; node0_cpu: a CPU of node 0
md_require_numa() {
	[ -d /sys/devices/system/node/node1 ] ||
		md_skip_all "needs two NUMA nodes (in the VM: selftests/vm/run --numa)"
	# shellcheck disable=SC2034 # read by the tests that source this file
	node0_cpu=$(sed 's/[-,].*//' /sys/devices/system/node/node0/cpulist)
}

md_require_writers() {
	md_require_root
	md_require_debugfs
	md_require_cgroup2_memory
	md_require_disk
}

# md_hold_writeback: keep dirty pages dirty (no periodic or background
# writeback) until md_release_writeback; restored on exit.
md_hold_writeback() {
	md_saved_wb="$(cat /proc/sys/vm/dirty_writeback_centisecs) $(cat /proc/sys/vm/dirty_expire_centisecs) $(cat /proc/sys/vm/dirty_background_ratio) $(cat /proc/sys/vm/dirty_ratio)"
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	echo 360000 > /proc/sys/vm/dirty_expire_centisecs
	echo 1073741824 > /proc/sys/vm/dirty_bytes
	echo 805306368 > /proc/sys/vm/dirty_background_bytes
}

# md_wb_hold_disk: MD_WBD, a small ext4 (ext2 layout) on a loop device whose
# backing file is on the xfs mount if there is one, else on MD_FS.  While
# that filesystem is frozen (md_wb_freeze, until md_wb_thaw) the loop's
# writes to its backing file wait, so folios written back on MD_WBD stay
# under writeback: their start counted, their end not yet.  False, the
# reason in md_wb_why, where it cannot be had, or where the backing
# filesystem is the root's (freezing it would stop the test too).  Undone
# at exit.
md_wb_hold_disk() {
	md_wbl=$(md_xfs_dir) || md_wbl=$MD_FS
	md_wb_why="$md_wbl is on the root filesystem, which a held writeback would freeze"
	[ "$(stat -c %d "$md_wbl")" != "$(stat -c %d /)" ] || return 1
	md_wb_why="a held writeback needs fsfreeze, losetup and mke2fs"
	command -v fsfreeze > /dev/null && command -v losetup > /dev/null &&
		command -v mke2fs > /dev/null || return 1
	md_wbimg=$md_wbl/md_wbhold.$$
	md_wb_why="cannot make a filesystem image in $md_wbl"
	truncate -s 256M "$md_wbimg" && mke2fs -q -F "$md_wbimg" > /dev/null 2>&1 || return 1
	# busybox's losetup has no --show
	md_wb_why="no free loop device"
	md_wbdev=$(losetup -f) && losetup "$md_wbdev" "$md_wbimg" || return 1
	MD_WBD=${TMPDIR:-/tmp}/md_wbd.$$
	mkdir -p "$MD_WBD"
	# shellcheck disable=SC2034 # read by the tests that source this file
	md_wb_why="cannot mount $md_wbdev"
	mount -t ext4 "$md_wbdev" "$MD_WBD"
}

md_wb_freeze() {
	fsfreeze --freeze "$md_wbl" && md_wb_frozen=1
}

md_wb_thaw() {
	[ -z "${md_wb_frozen:-}" ] || fsfreeze --unfreeze "$md_wbl"
	md_wb_frozen=
}

md_wb_hold_undo() {
	[ -n "${md_wbimg:-}" ] || return 0
	[ -z "${MD_WBD:-}" ] || { umount "$MD_WBD" 2> /dev/null; rmdir "$MD_WBD"; }
	[ -z "${md_wbdev:-}" ] || losetup -d "$md_wbdev" 2> /dev/null
	rm -f "$md_wbimg"
	MD_WBD='' md_wbdev='' md_wbimg=
}

md_release_writeback() {
	[ -n "${md_saved_wb:-}" ] || return 0
	set -- $md_saved_wb
	echo "$1" > /proc/sys/vm/dirty_writeback_centisecs
	echo "$2" > /proc/sys/vm/dirty_expire_centisecs
	echo "$3" > /proc/sys/vm/dirty_background_ratio
	echo "$4" > /proc/sys/vm/dirty_ratio
	md_saved_wb=
}

# md_agree DIR: ledger equals the kernel's local counter, in total and per
# node; prints the differing keys on failure.
md_agree() {
	awk '
	{ v[$1] = $2 }
	END {
		bad = 0
		if (v["dirty"] != v["kernel_dirty"]) { print "# " d ": dirty " v["dirty"] " kernel " v["kernel_dirty"]; bad = 1 }
		for (k in v) if (k ~ /^dirty_node/) {
			kk = "kernel_" k
			if (v[k] != v[kk]) { print "# " d ": " k " " v[k] " " kk " " v[kk]; bad = 1 }
		}
		exit bad
	}' d="$1" "$MD/cgroups/$1/stat"
}

# md_delta DIR: |ledger - kernel| for the local value.
md_delta() {
	awk '{ v[$1] = $2 } END { d = v["dirty"] - v["kernel_dirty"]; print d < 0 ? -d : d }' "$MD/cgroups/$1/stat"
}

# md_writer STOP FILE PAGES [NFILES [RMEVERY]]: in the background until the
# file STOP exists, write PAGES pages to FILE0 .. FILE<NFILES-1> in turn
# (NFILES 0: a new file every round, removed once written); every RMEVERY-th
# round also removes the file it wrote.  $! is the writer.
md_writer() {
	(md_i=0
	while [ ! -e "$1" ]; do
		if [ "${4:-1}" = 0 ]; then md_f=$2$md_i; else md_f=$2$((md_i % ${4:-1})); fi
		mdfile write "$md_f" "$3"
		if [ "${4:-1}" = 0 ] || { [ -n "${5:-}" ] && [ $((md_i % $5)) = 0 ]; }; then
			rm -f "$md_f"
		fi
		md_i=$((md_i + 1))
	done) &
}

# md_compactor STOP [SECONDS]: the 4.3 fix's antagonist in the background,
# compacting memory (pausing SECONDS between rounds) until STOP exists.
md_compactor() {
	(while [ ! -e "$1" ]; do
		echo 1 > /proc/sys/vm/compact_memory
		[ -z "${2:-}" ] || sleep "$2"
	done) &
}

# md_task_state PID: its scheduling state (R, S, D...), empty once it is gone
md_task_state() {
	sed 's/.*) \([A-Z]\).*/\1/' "/proc/$1/stat" 2> /dev/null
}

# md_task_blocked PID: it sleeps uninterruptibly (D), e.g. held in a lock
md_task_blocked() { [ "$(md_task_state "$1")" = D ]; }

md_running() {
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 0
	done
	return 1
}

# md_resync_until COMMAND...: ask for resyncs until COMMAND succeeds, 10 s
# at most; its status.
md_resync_until() {
	i=0
	while ! "$@" && [ $i -lt 40 ]; do
		echo resync > "$MD/control"
		sleep 0.25
		i=$((i + 1))
	done
	"$@"
}

# md_wait_synced DIR: a memcg that existed at load gets its starting point
# from a scan during which it had no events; ask for that until it happens.
md_synced() { [ "$(md_stat "$1" synced)" = 1 ]; }
md_wait_synced() { md_resync_until md_synced "$1"; }

# md_all_synced: the same until the global check counts no memcg unsynced;
# a memcg's own sync says nothing of the root's or another's.  Those left
# unsynced go to the diagnostics.
md_none_unsynced() { [ "$(awk '$1 == "unsynced" { print $2 }' "$MD/check")" = 0 ]; }
md_all_synced() {
	md_resync_until md_none_unsynced && return
	awk 'NR > 1 && $6 != "ok" { print "# not ok in the summary: " $0 }' "$MD/summary"
	return 1
}

# md_agree_settled DIR: md_agree at a moment without traffic, for memcgs
# (the root) whose writers the test does not control: up to 5 tries.
md_agree_settled() {
	for i in 1 2 3 4 5; do
		md_agree "$1" > /dev/null && return 0
		sleep 0.5
	done
	md_agree "$1"
}

# md_chk DIR KEY: a value from cgroups/DIR/check (each call runs a check).
md_chk() {
	awk -v k="$2" '$1 == k { print $2 }' "$MD/cgroups/$1/check"
}

# md_views DIR: "verdict kernel ledger scan" from one reading of check.
md_views() {
	awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"], v["ledger"], v["scan"] }' \
		"$MD/cgroups/$1/check"
}

# md_verdict DIR: "verdict suspect delta" from one reading of check.
md_verdict() {
	awk '{ v[$1] = $2 } END { print v["verdict"], v["suspect"], v["delta"] }' "$MD/cgroups/$1/check"
}

# md_cgid CGROUP: its id as summary shows it.
md_cgid() {
	awk -v p="/$1" '$2 == p && $3 == "online" { print $1 }' "$MD/summary"
}

# md_has_event KIND CGID: the anomaly log has that kind for that cgroup.
md_has_event() {
	awk -v k="$1" -v id="$2" '$5 == k && (id == "" || $2 == id) { f = 1 } END { exit !f }' "$MD/events"
}

# md_zoo_ready: the zoo of staged bugs (selftests/zoo/: built with the
# module in a clone, never packaged) is at hand as $zoo_ko, and neither it
# nor memcg_dirty is loaded; SKIP if it is missing or will not unload.
md_zoo_ready() {
	zoo_ko=${MEMCG_DIRTY_ZOO:-$md_here/bin/md_zoo.ko}
	[ -r "$zoo_ko" ] ||
		md_skip_all "no md_zoo.ko: it is built with the module in a clone (build/KVER/zoo/), never packaged"
	[ ! -d /sys/module/md_zoo ] || rmmod md_zoo || md_skip_all "md_zoo is loaded and cannot be unloaded"
	md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
}

# md_zoo_one_page CGROUP: the zoo ready (md_zoo_ready), writeback held,
# CGROUP made and $MD_WORK/t one page of it (one page, so one page per
# folio) written back once; the zoo not loaded yet.  W set, and Z, the
# zoo's debugfs directory.
md_zoo_one_page() {
	md_zoo_ready
	W=$MD_WORK
	# shellcheck disable=SC2034 # read by the tests that source this file
	Z=/sys/kernel/debug/md_zoo
	md_hold_writeback
	md_mkcg "$1"
	md_in_cg "$1" dd if=/dev/zero of="$W/t" bs=4096 count=1 2> /dev/null
	sync
}

# md_zoo_gap_start FILE INDEX MS: the zoo's class 9, a dirtier asleep in
# its gap on page INDEX of FILE for MS ms, in the background
# ($md_gap_pid); true once the gap is open.  md_zoo_gap_open: it is.
md_zoo_gap_open() {
	[ "$(cat /sys/kernel/debug/md_zoo/gap_open)" = 1 ]
}
md_zoo_gap_start() {
	echo "gap $1 $2 $3" > /sys/kernel/debug/md_zoo/trigger &
	# shellcheck disable=SC2034 # read by the tests that source this file
	md_gap_pid=$!
	md_poll 100 md_zoo_gap_open
}

# md_reload ARGS...: unload and load again with module parameters.
md_reload() {
	md_unload || return 1
	md_load "$@"
}

# md_load_inject [PARAM=VALUE...]: the module loaded afresh with fault
# injection (which taints the kernel); unload it with md_unload when done.
md_load_inject() {
	md_unload || return 1
	md_load fault_inject=1 "$@" && [ -e "$MD/inject" ]
}

# md_v1_mover A B FILE PAGES [SECS]: cgroups A and B (v1; B takes charges of
# tasks moving in), and a task in A that maps FILE's PAGES pages dirty and
# keeps them mapped for SECS (30) s; md_mover is its pid, md_mover_line its first
# line ("mapped").  Writeback is held from before the pages are dirtied.
md_v1_mover() {
	md_mkcg "$1" "$2"
	md_wait_dir "$1"
	md_wait_dir "$2"
	echo 3 > "$CG/$2/memory.move_charge_at_immigrate"
	sync
	md_hold_writeback
	mkfifo "$3.ready"
	# not through md_in_cg: $! must be the very process that maps the pages
	sh -c 'echo $$ > "$0/cgroup.procs" && exec mdfile mapwait "$1" "$2" "$3"' \
		"$CG/$1" "$3" "$4" "${5:-30}" > "$3.ready" &
	# shellcheck disable=SC2034 # read by the tests that source this file
	md_mover=$!
	# shellcheck disable=SC2034 # read by the tests that source this file
	read -r md_mover_line < "$3.ready"
}

# md_inject COMMAND...: one fault-injection command.
md_inject() {
	echo "$*" > "$MD/inject"
}

# md_delay_hits POINT: how often a delay point has held its window open.
md_delay_hits() {
	awk -v p="$1" '$1 == "delay" && $2 == p { print $5 }' "$MD/inject"
}

# md_memstat CGROUP KEY: a value of the kernel's memory.stat (v2).
md_memstat() {
	awk -v k="$2" '$1 == k { print $2 }' "$CG/$1/memory.stat"
}

# md_memstat_settled CGROUP PAGES: memory.stat's file_dirty, once it reads PAGES
# (it is flushed at most every 2 s), or what it reads after 10 s
md_memstat_settled() {
	i=0
	while [ "$(md_memstat "$1" file_dirty)" != "$2" ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	md_memstat "$1" file_dirty
}

# md_wait_gone CGROUP_ID: until the summary no longer lists the id (freed).
md_wait_gone() {
	md_poll 100 md_unlisted "$1"
}

# md_unlisted CGROUP_ID: the summary does not list the id.
md_unlisted() {
	awk -v id="$1" '$1 == id { f = 1 } END { exit f }' "$MD/summary"
}

# --- the continuous audit (audit_ms): md_audit.sh, md_zoo.sh

# md_audit KEY: a value of the audit file
md_audit() {
	awk -v k="$1" '$1 == k { print $2 }' "$MD/audit"
}

# md_lines VERDICT CGROUP_ID: the audit's console lines for that memcg and verdict
md_lines() {
	dmesg | grep -c "memcg_dirty: $1 .* (id $2) node " || true
}

# md_reported_within VERDICT CGROUP_ID AUDITS0: wait (up to 60 s) for the line
# of a bug staged when AUDITS0 audits had run; print how many audits it
# took (audits, not seconds: the emulator's pace varies): the number of
# the pass that printed it, less AUDITS0.  The pass running while the bug
# was staged counts as the first.  A pass prints as it goes and adds to the
# audit file's totals (printed_audit, bad_verdicts, warned) when it ends,
# its domains' scan after its lines: those are waited for too.
md_reported_within() {
	if md_poll 600 md_reported "$1" "$2" && md_poll 600 md_printed_since "$3"; then
		echo $(($(md_audit printed_audit) - $3))
	else
		echo never
	fi
}
# md_printed_since AUDITS0: a pass after AUDITS0 printed, and has ended
md_printed_since() {
	[ "$(md_audit printed_audit)" -gt "$1" ]
}
md_reported() {
	[ "$(md_lines "$1" "$2")" != 0 ]
}

# md_marked_lines RE: kernel lines that match RE (awk) between the last
# pair of markers (this test's: an earlier test of the same boot has its own)
md_marked_lines() {
	dmesg | awk -v re="$1" '/expected audit warnings begin/ { on = 1; n = 0 }
		/expected audit warnings end/ { on = 0 } on && $0 ~ re { n++ } END { print n + 0 }'
}

# md_marked_warnings: kernel warnings between the last pair of markers
md_marked_warnings() {
	md_marked_lines 'WARNING:'
}

# md_audits_pass N: wait until N more audits have run
md_audits_pass() {
	md_a0=$(md_audit audits)
	md_poll 600 sh -c "[ \$(awk '\$1 == \"audits\" { print \$2 }' $MD/audit) -ge $((md_a0 + $1)) ]"
}
