#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every event path, each seen in its own event counter, with the ledger equal
# to the kernel's counter after each one: buffered write, shared mmap write +
# msync, fsync, truncate and unlink of dirty files, fadvise(DONTNEED),
# O_DIRECT over dirty pages, reclaim under a small memory.max, and the 4.3
# fix's compaction antagonist.
. ./lib.sh
md_require_writers
md_require_module

N=1024
md_mkcg md_ev
md_wait_dir md_ev || md_not_ok "cgroups/md_ev appeared"
sync
md_hold_writeback
W=$MD_WORK

# step NAME EVENT MIN COMMAND...: run COMMAND in md_ev and expect EVENT to
# grow by at least MIN pages, with ledger == kernel afterwards.
step() {
	name=$1 ev=$2 min=$3
	shift 3
	before=$(md_stat md_ev "$ev")
	md_in_cg md_ev "$@" || md_not_ok "$name: command failed"
	after=$(md_stat md_ev "$ev")
	md_check "$name: $ev +$((after - before)) (>= $min)" test $((after - before)) -ge "$min"
	md_check "$name: ledger equals kernel" md_agree md_ev
}

step "buffered write" dirtied $N mdfile write "$W/buf" $N
step "shared mmap write" dirtied $N mdfile mmapnosync "$W/map" $N
step "msync" cleaned_io $N mdfile mmap "$W/map" $N
step "write + fsync" cleaned_io $N mdfile fsync "$W/fs" $N
md_in_cg md_ev mdfile write "$W/tr" $N
step "truncate of a dirty file" cancelled $N truncate -s 0 "$W/tr"
md_in_cg md_ev mdfile write "$W/ul" $N
step "unlink of a dirty file" cancelled $N rm -f "$W/ul"
md_in_cg md_ev mdfile write "$W/fa" $N
step "fadvise(DONTNEED) over dirty pages" cleaned_io $N mdfile dontneed "$W/fa"
md_in_cg md_ev mdfile write "$W/dio" $N
step "O_DIRECT over dirty pages" cleaned_io $N mdfile direct "$W/dio" $N
md_check "md_ev: ledger equals kernel after all of them" md_agree md_ev

# Reclaim: 32 MiB of memory for 96 MiB of writes, so writeback must clean
# at least 64 MiB to make room.  The dirty limit is held at 8 MiB meanwhile:
# 6.12's multi-gen LRU (on in Debian's build) does not wait for writeback
# in memcg reclaim, and OOM-kills a writer that outruns the emulated disk.
md_release_writeback
ratio=$(cat /proc/sys/vm/dirty_ratio)
echo $((8 << 20)) > /proc/sys/vm/dirty_bytes
echo 32M > "$CG/md_ev/memory.max"
step "reclaim writeback under memory.max=32M" cleaned_io 8192 \
	sh -c "dd if=/dev/zero of=$W/rec bs=1M count=96 2>/dev/null"
echo max > "$CG/md_ev/memory.max"
echo "$ratio" > /proc/sys/vm/dirty_ratio
sync

# The 4.3 fix's antagonist: compaction while writing dirties and migrates.
md_hold_writeback
md_compactor "$W/stop"
antagonist=$!
before=$(md_stat md_ev migrated)
# at least 8 files; more (up to 24) until compaction has moved some of ours
i=0
while [ $i -lt 8 ] || { [ "$(md_stat md_ev migrated)" = "$before" ] && [ $i -lt 24 ]; }; do
	md_in_cg md_ev mdfile write "$W/cmp$i" 2048
	i=$((i + 1))
done
touch "$W/stop"
wait $antagonist
after=$(md_stat md_ev migrated)
md_check "compaction antagonist: migrated +$((after - before)) dirty pages" test $((after - before)) -gt 0
md_check "compaction antagonist: ledger equals kernel" md_agree md_ev
md_check "compaction antagonist: root ledger equals kernel" md_agree ""

md_release_writeback
sync
md_eq "md_ev: ledger and kernel 0 after sync" "0 0" "$(md_stat md_ev dirty) $(md_stat md_ev kernel_dirty)"
rm -rf "$MD_WORK"
sync
md_rmcg md_ev
md_finish
