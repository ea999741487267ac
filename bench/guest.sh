#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memcg_dirty benchmarks, run inside the test VM by bench/run (one boot per
# kernel flavour).  Prints "BENCH ..." records for bench/report:
#
#   BENCH info KEY VALUE
#   BENCH sample WORKLOAD off|on PAIR VALUE UNIT   the 4.2 commit's table
#   BENCH fix43 COLUMN PHASE MBPS KERNEL LEDGER SCAN VERDICT SUSPECT
#   BENCH scan RUN MODULE_S PAGETYPES_S MODULE_PAGES PAGETYPES_PAGES LEDGER KERNEL MODULE_MS
#   BENCH scale CGROUPS SUMMARY_S CHECK_S ENTRIES ENTRY_BYTES SLAB_KB PERCPU_KB
#   BENCH slab CGROUPS CACHE KB                   what each slab cache grew by
#   BENCH rmmod CGROUPS SECONDS                   one unload with CGROUPS cgroups
#   BENCH audit CGROUPS PASS_US WAIT_US MEMCGS    one pass of the audit (audit_ms)
#   BENCH floor WORKLOAD off|floor|count|on ROUND VALUE UNIT  bare and counting-only
#                                                 probes against the module
#   BENCH watch WORKLOAD on|watch PAIR VALUE UNIT  the module, its watch armed or not
#   BENCH steps-ready|steps-done VARIANT ...      for bench/steps on the host, which
#                                                 writes the "BENCH steps" records
#
# BENCH_SECTIONS picks sections (default: table fix43 scan scale floor watch; steps
# only with bench/steps attached);
# BENCH_WORKLOADS narrows the table and the floor to the workloads named;
# BENCH_PAIRS sets the pairs, BENCH_SCALE the scale section's cgroup counts
# (defaults in defaults.sh, shipped beside this).
#
# Each workload runs with the module unloaded (off) and loaded (on) in
# adjacent pairs, alternating which comes first (off on, on off, off on ...)
# so that a slow drift of the host does not favour either side; the report
# takes the ratio within each pair.  Workloads run in the memory cgroup
# /bench, on ext4, so the non-root memcg paths are the ones measured.
. ./lib.sh
# shellcheck source=bench/defaults.sh
. ./defaults.sh
md_require_writers
md_require_ko
command -v mdbench > /dev/null || md_skip_all "mdbench helper missing"

PAIRS=${BENCH_PAIRS:-$BENCH_DEFAULT_PAIRS}
SCALE=${BENCH_SCALE:-$BENCH_DEFAULT_SCALE}
FIX43_MB=${BENCH_FIX43_MB:-256}
SCAN_MB=${BENCH_SCAN_MB:-256}
FAULT_MB=${BENCH_FAULT_MB:-64}
DIRTY_MB=${BENCH_DIRTY_MB:-32}
REPS=${BENCH_REPS:-5}		# CPU-bound loops: median of REPS passes per sample
SECTIONS=${BENCH_SECTIONS:-table fix43 scan scale floor watch}
TABLE_WORKLOADS=${BENCH_WORKLOADS:-$BENCH_DEFAULT_WORKLOADS}
FLOOR_WORKLOADS=${BENCH_WORKLOADS:-write_fault dirty writeback dd100 kbuild}
WATCH_WORKLOADS=${BENCH_WORKLOADS:-dirty write_fault}
FLOOR_KO=/selftests/bin/md_floor.ko
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
W=$MD_WORK
# bench/run's disks come last: the kbuild tar, then (--icount) the RAM
# disk's file system image
SRC="" image=""
for d in /dev/vd?; do
	SRC=$image
	image=$d
done
[ "${BENCH_RAMDISK:-0}" = 1 ] || SRC=$image
# Under --icount, ext4 on a RAM disk (brd, sized by bench/run): writeback
# is then the guest's own copying, which the instruction clock counts,
# where a virtio disk's wait is skipped by an amount that depends on the host
if [ "${BENCH_RAMDISK:-0}" = 1 ]; then
	[ -b /dev/ram0 ] || md_skip_all "no /dev/ram0 for the RAM disk"
	dd if="$image" of=/dev/ram0 bs=1M 2> /dev/null || exit 1
	mkdir -p /mnt/ram
	mount -t ext4 /dev/ram0 /mnt/ram || exit 1
	W=/mnt/ram/bench
	# and the kbuild tar in the initramfs's RAM: the last close of its
	# virtio disk drops the disk's page cache, so every untar read it from
	# the host again, and the clock jumped over those waits
	cat "$SRC" > /kbuild.tar || exit 1
	SRC=/kbuild.tar
fi

info() { echo "BENCH info $1 $2"; }
info kernel "$(uname -r)"
info cpus "$(nproc)"
info mem_mib "$(awk '$1 == "MemTotal:" { printf "%d", $2 / 1024 }' /proc/meminfo)"
info pairs "$PAIRS"
info reps "$REPS"
info sections "$(echo $SECTIONS | tr ' ' ,)"
info disk "$(awk -v w="$W" 'index(w, $2) == 1 && length($2) > 1 { d = $1 } END { print d }' /proc/mounts)"

# Module state for the next run: loaded with every memcg synced (a memcg
# that existed at load is unsynced until a quiescent scan; that scan must
# not land inside a timed run), or not loaded at all.
state() {
	case "$1" in
	on|watch)
		floor_unload
		[ -d "$MD" ] || md_load || exit 1
		i=0
		while grep -q ' unsynced$' "$MD/summary" && [ $i -lt 40 ]; do
			echo resync > "$MD/control"
			sleep 0.25
			i=$((i + 1))
		done
		! grep -q ' unsynced$' "$MD/summary" || { echo "# bench: /bench never synced"; exit 1; }
		if [ "$1" = watch ]; then
			echo "watch /bench" > "$MD/control" || exit 1
		else
			echo "watch off" > "$MD/control" || exit 1
		fi
		;;
	floor|count)
		md_unload || exit 1
		floor_unload
		if [ "$1" = count ]; then
			insmod "$FLOOR_KO" count=1 || exit 1
		else
			insmod "$FLOOR_KO" || exit 1
		fi
		;;
	*)
		md_unload || exit 1
		floor_unload
		;;
	esac
	# the same settling either way: loading waits for its sync above,
	# so unloading must not hand the next run a busier machine
	sync
	sleep 1
}

floor_unload() {
	[ ! -d /sys/module/md_floor ] || rmmod md_floor || exit 1
}

in_bench() { md_in_cg bench "$@"; }

# --- the 4.2 commit's table
# one run of WORKLOAD in the current state: prints "VALUE UNIT" lines
# (dirty prints two workloads' values)
run_workload() {
	case "$1" in
	dd*)
		mb=${1#dd}
		rm -f "$W/dd"
		sync
		in_bench mdbench time sh -c "dd if=/dev/zero of=$W/dd bs=1M count=$mb 2>/dev/null && sync"
		;;
	kbuild)
		rm -rf "$W/src"
		sync
		mkdir "$W/src"
		in_bench mdbench time sh -c "tar -xf $SRC -C $W/src && sync"
		;;
	read_fault|write_fault)
		in_bench mdbench fault "${1%_fault}" "$W/fault" "$REPS" | awk '{ print $1 }'
		;;
	dirty)
		in_bench mdbench dirty "$W/fresh" "$DIRTY_MB" "$REPS"
		;;
	writeback)
		# per page: its pwrite, writeback and completion (fsync waits for both)
		rm -f "$W/wb"
		sync
		in_bench mdbench time dd if=/dev/zero of="$W/wb" bs=4k count="$BENCH_WB_PAGES" conv=fsync 2> /dev/null |
			awk -v n="$BENCH_WB_PAGES" '{ printf "%.1f\n", $1 * 1e9 / n }'
		;;
	esac
}

unit_of() {
	case "$1" in
	*_fault) echo cycles ;;
	dirty|writeback) echo ns ;;
	*) echo s ;;
	esac
}

# sample WORKLOAD VARIANT PAIR: a "BENCH $REC" record
REC=sample
sample() {
	out=$(run_workload "$1") || { echo "# bench: $1 failed"; exit 1; }
	[ -n "$out" ] || { echo "# bench: $1 printed nothing"; exit 1; }
	if [ "$1" = dirty ]; then
		set -- "$2" "$3" $out
		echo "BENCH $REC pwrite_page $1 $2 $3 ns"
		echo "BENCH $REC truncate_page $1 $2 $4 ns"
	else
		echo "BENCH $REC $1 $2 $3 $out $(unit_of "$1")"
	fi
}

bench_setup() {
	md_unload
	md_mkcg bench
	mkdir -p "$W"
	in_bench dd if=/dev/zero of="$W/fault" bs=1M count="$FAULT_MB" 2>/dev/null
	sync
}

bench_teardown() {
	rm -rf "$W/src" "$W/dd" "$W/fault" "$W/fresh" "$W/wb"
	state off
	md_rmcg bench
	sync
}

# pairs WORKLOAD A B: a warm-up in state A (not reported), then PAIRS pairs
# of samples in states A and B, alternating which comes first
pairs() {
	state "$2"
	run_workload "$1" > /dev/null || exit 1
	p=1
	while [ $p -le "$PAIRS" ]; do
		if [ $((p % 2)) = 1 ]; then first=$2 second=$3; else first=$3 second=$2; fi
		state $first
		sample "$1" $first $p
		state $second
		sample "$1" $second $p
		p=$((p + 1))
	done
}

if want table; then
	bench_setup
	for w in $TABLE_WORKLOADS; do
		if [ "${BENCH_RAMDISK:-0}" = 1 ] && [ "$w" = dd1000 ]; then
			echo "# bench: dd1000 left out: 1000 MiB do not fit the RAM disk"
			continue
		fi
		echo "# bench: $w, $PAIRS pairs"
		pairs "$w" off on
	done
	bench_teardown
fi

# --- the floor: the same probe points with empty handlers (md_floor.ko)
# and with handlers that only count pages per memcg (md_floor.ko count=1)
# against none and against the module, in rounds of four whose order
# rotates, so that what attaching costs, what counting at all adds and
# what the module's handlers add are told apart
if want floor && [ -r "$FLOOR_KO" ]; then
	bench_setup
	REC=floor
	for w in $FLOOR_WORKLOADS; do
		echo "# bench: floor, $w, $PAIRS rounds"
		state off
		run_workload "$w" > /dev/null || exit 1
		p=1
		while [ $p -le "$PAIRS" ]; do
			case $((p % 4)) in
			1) order="off floor count on" ;;
			2) order="floor count on off" ;;
			3) order="count on off floor" ;;
			0) order="on off floor count" ;;
			esac
			for v in $order; do
				state $v
				sample "$w" $v $p
			done
			p=$((p + 1))
		done
	done
	REC=sample
	bench_teardown
elif want floor; then
	echo "# bench: no $FLOOR_KO: floor skipped"
fi

# --- the watch (control: watch CGROUP): the module with hardware
# watchpoints on /bench's counter against the module alone, in pairs of
# alternating order; every page /bench dirties or cleans traps once
if want watch; then
	bench_setup
	REC=watch
	for w in $WATCH_WORKLOADS; do
		echo "# bench: watch, $w, $PAIRS pairs"
		pairs "$w" on watch
	done
	REC=sample
	bench_teardown
fi

# --- steps: instructions per write fault, counted by bench/steps on the
# host, which single-steps this guest through QEMU's gdb stub.  Timing plays
# no part, so the host's noise cannot blur it.  For each variant the guest
# says where the page fault entry and the dirtied handler are, then keeps
# faulting long enough for the host to step through some faults.
ksym() { awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms; }
if want steps; then
	bench_setup
	for v in off floor count on; do
		state $v
		case $v in
		on) h=$(ksym md_tp_dirtied) ;;
		floor) h=$(ksym md_floor_tp) ;;
		count) h=$(ksym md_floor_tp_count) ;;
		*) h=0 ;;
		esac
		echo "BENCH steps-ready $v $(ksym asm_exc_page_fault) ${h:-0}"
		in_bench mdbench fault write "$W/fault" "${BENCH_STEPS_REPS:-12}" > /dev/null
		echo "BENCH steps-done $v"
	done
	bench_teardown
fi

# --- the 4.3 fix's table: three phases in a memory-limited cgroup, residues
# of the three views after sync; module unloaded (the kernel's view only),
# loaded, and loaded with the 4.2 bug replayed by fault injection
fix43_phase() {
	rm -f "$W/foo"
	sync
	if [ "$3" = 1 ]; then
		(while [ ! -e "$W/stop" ]; do echo 1 > /proc/sys/vm/compact_memory; done) &
	fi
	s=$(md_in_cg fix43 mdbench time dd if=/dev/zero of="$W/foo" bs=1M count="$FIX43_MB" 2>/dev/null)
	touch "$W/stop"
	wait
	rm -f "$W/stop"
	sync
	sleep 2.5		# memory.stat is rstat-flushed every 2 s
	mbs=$(awk -v s="$s" -v mb="$FIX43_MB" 'BEGIN { printf "%.1f", mb / s }')
	if [ -d "$MD" ]; then
		# shellcheck disable=SC2046 # the five words, split into $3..$7
		set -- "$1" "$2" $(awk '{ v[$1] = $2 } END { print v["kernel"], v["ledger"], v["scan"], v["verdict"], v["suspect"] }' \
			"$MD/cgroups/fix43/check")
	else
		# shellcheck disable=SC2046 # one word, $3
		set -- "$1" "$2" $(awk '$1 == "file_dirty" { print $2 / 4096 }' "$CG/fix43/memory.stat") - - - -
	fi
	echo "BENCH fix43 $1 $2 $mbs $3 $4 $5 $6 $7"
}

fix43() {
	md_mkcg fix43
	echo 192M > "$CG/fix43/memory.max"
	[ -d "$MD" ] && md_wait_dir fix43
	fix43_phase "$1" 1 0
	fix43_phase "$1" 2 1
	fix43_phase "$1" 3 0
	rm -f "$W/foo"
	md_rmcg fix43
}
if want fix43; then
	echo "# bench: 4.3 fix test, $FIX43_MB MiB, memory.max 192M"
	mkdir -p "$W"
	fix43 unloaded
	md_load || exit 1
	fix43 loaded
	md_unload
	md_load fault_inject=1 || exit 1
	echo "replay42 on" > "$MD/inject"
	fix43 replay42
	echo "replay42 off" > "$MD/inject"
	md_unload		# puts the kernel's counter back
fi

# --- scan speed: the module's full scan against page-types counting the
# dirty pages of one cgroup, on the same still page cache
if ! want scan; then
	:
elif command -v page-types > /dev/null && [ -r /proc/kpagecgroup ]; then
	echo "# bench: scan of $SCAN_MB MiB dirty in /scan"
	mkdir -p "$W"
	md_load || exit 1
	md_hold_writeback
	md_mkcg scan
	md_wait_dir scan
	md_in_cg scan dd if=/dev/zero of="$W/scan" bs=1M count="$SCAN_MB" 2>/dev/null
	r=1
	while [ $r -le "$PAIRS" ]; do
		ms=$(mdbench write "$MD/control" scan)
		kms=$(awk '$1 == "scan_ms" { print $2 }' "$MD/version")
		mp=$(awk '$1 == "scan" { print $2 }' "$MD/cgroups/scan/check")
		pt=$(mdbench time -o /tmp/pt.out page-types -c "$CG/scan" -b dirty)
		pp=$(awk '$1 == "total" { print $2 }' /tmp/pt.out)
		echo "BENCH scan $r $ms $pt $mp ${pp:-0} $(md_stat scan dirty) $(md_stat scan kernel_dirty) $kms"
		r=$((r + 1))
	done
	rm -f "$W/scan"
	md_release_writeback
	sync
	md_rmcg scan
	md_unload
else
	echo "# bench: no page-types or /proc/kpagecgroup: scan comparison skipped"
	echo "BENCH skipped scan"
fi

# --- scale: summary and the global check with N cgroups, and what the
# module holds for them: slab (objects in use, from /proc/slabinfo) and
# per-CPU memory (/proc/meminfo), loaded minus unloaded, the median of three
# alternations.  The pool of spare entries is a fixed cost, the same at
# every size, so the report takes per-cgroup figures between sizes.
slabs() {	# CACHE KB lines, objects in use times their size
	awk 'NR > 2 { printf "%s %d\n", $1, $2 * $4 / 1024 }' /proc/slabinfo | sort
}
mem_snapshot() {	# FILE: slab lines and one "percpu KB" line
	sync
	sleep 1
	{ slabs; awk '$1 == "Percpu:" { print "percpu", $2 }' /proc/meminfo; } > "$1"
}
# DELTA ON OFF: CACHE KB for what grew
mem_delta() {
	awk 'FNR == NR { off[$1] = $2; next } { d = $2 - off[$1]; if (d) print $1, d }' "$2" "$1"
}
med3() { sort -n | sed -n 2p; }

made=0
# audit_cost N: the audit's pass over every memcg (its own timing, from
# the audit file), PAIRS passes at the shortest period, nothing to escalate
audit_cost() {
	echo 100 > /sys/module/memcg_dirty/parameters/audit_ms
	r=1
	while [ $r -le "$PAIRS" ]; do
		a=$(awk '$1 == "audits" { print $2 }' "$MD/audit")
		while [ "$(awk '$1 == "audits" { print $2 }' "$MD/audit")" = "$a" ]; do
			sleep 0.05
		done
		echo "BENCH audit $1 $(awk '$1 == "last_us" || $1 == "last_wait_us" || $1 == "last_memcgs" { printf "%s ", $2 }' "$MD/audit")"
		r=$((r + 1))
	done
	echo 0 > /sys/module/memcg_dirty/parameters/audit_ms
}

# rmmod_timed N: unload, timed (the debugfs tree and every entry go)
rmmod_timed() {
	t=$(mdbench time rmmod memcg_dirty) || exit 1
	echo "BENCH rmmod $1 $t"
}

want scale || made=-1
for n in $SCALE; do
	[ $made -ge 0 ] || break
	echo "# bench: scale, $n cgroups"
	md_unload
	while [ $made -lt $n ]; do
		made=$((made + 1))
		mkdir "$CG/scale$made" || exit 1
	done
	for i in 1 2 3; do
		[ ! -d /sys/module/memcg_dirty ] || rmmod_timed $n
		mem_snapshot /tmp/mem.off
		md_load || exit 1
		cat "$MD/summary" > /dev/null	# reconciled: every entry and directory made
		mem_snapshot /tmp/mem.on
		mem_delta /tmp/mem.on /tmp/mem.off > /tmp/mem.d$i
	done
	# the alternation with the median slab growth, and its caches
	# shellcheck disable=SC2046 # the median's two words, split into $1 and $2
	set -- $(for i in 1 2 3; do awk -v i=$i '$1 != "percpu" { kb += $2 } END { print kb + 0, i }' /tmp/mem.d$i; done |
		sort -n | sed -n 2p)
	slab=$1
	pcpu=$(for i in 1 2 3; do awk '$1 == "percpu" { kb += $2 } END { print kb + 0 }' /tmp/mem.d$i; done | med3)
	grep -v '^percpu' /tmp/mem.d$2 | while read -r cache kb; do echo "BENCH slab $n $cache $kb"; done
	state on
	r=1
	while [ $r -le "$PAIRS" ]; do
		echo "BENCH scale $n $(mdbench read "$MD/summary") $(mdbench read "$MD/check")" \
			"$(awk '$1 == "entries" || $1 == "entry_bytes" { printf "%s ", $2 }' "$MD/version")$slab $pcpu"
		r=$((r + 1))
	done
	audit_cost $n
	rmmod_timed $n
done
md_unload
i=1
while [ $i -le $made ]; do
	rmdir "$CG/scale$i"
	i=$((i + 1))
done
rm -rf "$W"
md_dmesg_clean || { echo "# bench: kernel warning in dmesg"; exit 1; }
echo "BENCH done"
