#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The 4.3 fix's own test ("memcg: fix dirty page migration"): buffered
# writes in a memory-limited cgroup on ext4 (on xfs where ext4 migrates no
# dirty page, as on 7.x), (1) baseline, (2) with the
# compaction antagonist, (3) again; speed and dirty residue after sync.
# Run twice: on this (fixed) kernel, where every residue is 0 and the
# verdict ok; and with the 4.2 bug replayed by fault injection, where the
# kernel's residue goes negative while ledger and scan stay at 0, and the
# verdict is underflow with the kernel as suspect.
. ./lib.sh
md_require_writers
md_require_ko
# MD_FIX43_MB MiB written, the cgroup's memory.max three quarters of it
# (the 4.3 commit: 1 GiB, memory.limit_in_bytes 1G)
MB=${MD_FIX43_MB:-128}
case "$MB" in ''|*[!0-9]*|?|0*) md_skip_all "MD_FIX43_MB takes MiB, 10 or more: '$MB'" ;; esac
MAX=$((MB * 3 / 4))M
W=$MD_WORK FS=ext4

# phase N ANTAGONIST: dd MB MiB in md_fix43, sync; prints the table row
phase() {
	rm -f "$W/foo"
	sync
	if [ "$2" = 1 ]; then
		md_compactor "$W/stop"
	fi
	t0=$(awk '{ print $1 }' /proc/uptime)
	md_in_cg md_fix43 dd if=/dev/zero of="$W/foo" bs=1M count="$MB" 2>/dev/null
	speed=$(awk -v t0="$t0" '{ print $1 - t0 }' /proc/uptime)
	touch "$W/stop"
	wait
	rm -f "$W/stop"
	sync
	mbs=$(awk -v s="$speed" -v mb="$MB" 'BEGIN { if (s > 0) printf "%d", mb / s; else print "?" }')
	# shellcheck disable=SC2046 # the five words, split into $1..$5
	set -- $(awk '{ v[$1] = $2 } END { print v["kernel"], v["ledger"], v["scan"], v["verdict"], v["suspect"] }' \
		"$MD/cgroups/md_fix43/check")
	row="$mbs MB/s  kernel $1  ledger $2  scan $3  $4/$5"
	K=$1 L=$2 S=$3 V=$4 SU=$5
}

run() {
	label=$1
	md_mkcg md_fix43
	echo "$MAX" > "$CG/md_fix43/memory.max"
	md_wait_dir md_fix43
	mig0=$(md_stat md_fix43 migrated)
	echo "# 4.3 fix test, $label: dd $MB MiB, memory.max $MAX, $FS; (speed, dirty residue after sync, pages)"
	phase 1 0; echo "#   1) baseline              $row"; K1=$K L1=$L S1=$S V1=$V
	phase 2 1; echo "#   2) compaction antagonist $row"; K2=$K L2=$L S2=$S V2=$V SU2=$SU
	phase 3 0; echo "#   3) again                 $row"; K3=$K L3=$L S3=$S V3=$V SU3=$SU
	MIG=$(($(md_stat md_fix43 migrated) - mig0))
	echo "#   dirty pages migrated: $MIG"
}

# --- on this kernel as it is
md_reload || exit 1
run "this kernel"
if [ "$MIG" = 0 ] && X=$(md_xfs_dir); then
	# 7.x's ext4 writes its dirty folios back rather than migrate them
	md_diag "no dirty page migrated on $FS: the test runs on xfs"
	rm -f "$W/foo"
	md_unload
	md_rmcg md_fix43
	rm -rf "$W"
	W=$X/md_fix43.$$ FS=xfs
	mkdir -p "$W"
	md_reload || exit 1
	run "this kernel"
fi
md_check "migration happened under the antagonist ($MIG pages)" test "$MIG" -gt 0
md_eq "phase 1: residues 0, ok" "0 0 0 ok" "$K1 $L1 $S1 $V1"
md_eq "phase 2: residues 0, ok" "0 0 0 ok" "$K2 $L2 $S2 $V2"
md_eq "phase 3: residues 0, ok" "0 0 0 ok" "$K3 $L3 $S3 $V3"
rm -f "$W/foo"
md_unload
md_rmcg md_fix43
sync

# --- with the 4.2 bug replayed
md_reload fault_inject=1 || exit 1
echo "replay42 on" > "$MD/inject"
run "4.2 bug replayed"
if [ "$MIG" = 0 ] && [ "$FS" = ext4 ] && X=$(md_xfs_dir); then
	md_diag "no dirty page migrated on ext4 this time: the replay runs on xfs"
	rm -f "$W/foo"
	md_rmcg md_fix43
	rm -rf "$W"
	W=$X/md_fix43.$$ FS=xfs
	mkdir -p "$W"
	run "4.2 bug replayed"
fi
echo "replay42 off" > "$MD/inject"
md_diag "replayed: $(awk '$1 == "replayed_pages" { print $2 }' "$MD/inject") pages"
md_eq "phase 1: residues 0, ok" "0 0 0 ok" "$K1 $L1 $S1 $V1"
md_check "phase 2: kernel residue negative ($K2)" test "$K2" -lt 0
md_eq "phase 2: ledger and scan 0, underflow, kernel suspect" "0 0 underflow kernel" "$L2 $S2 $V2 $SU2"
md_check "phase 3: kernel residue still negative ($K3)" test "$K3" -lt 0
md_eq "phase 3: ledger and scan 0, underflow, kernel suspect" "0 0 underflow kernel" "$L3 $S3 $V3 $SU3"
md_check "a kernel_negative event" md_has_event kernel_negative "$(md_cgid md_fix43)"
rm -f "$W/foo"
md_unload		# puts the kernel's counter back
sleep 3			# memory.stat is rstat-flushed every 2 s
md_eq "after unload the kernel's counter is back at 0" 0 \
	"$(awk '$1 == "file_dirty" { print $2 }' "$CG/md_fix43/memory.stat")"
md_rmcg md_fix43
rm -rf "$W"
md_finish
