#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the scan and the shadow took an RCU grace period for the end of
# every dirtier whose PG_dirty they saw.  block_dirty_folio(),
# mark_buffer_dirty() and filemap_dirty_folio() set PG_dirty first and
# count it later (__folio_mark_dirty()), and where folio_memcg_lock() is
# empty (CONFIG_MEMCG_V1=n, and every kernel from 6.13) nothing in between
# is an RCU reader: a dirtier preempted there outlives any grace period.
# The zoo's class 9 is such a dirtier, asleep in its gap for seconds on a
# folio it does not hold locked.
#   1 a resync of a memcg unsynced at load, while its page is in the gap,
#     took the page into the ledger's base: once counted, the ledger stayed
#     the kernel's + 1 for good
#   2 a scan of a synced memcg listed the page as dirty and never counted
#   3 a cleaning of the page in the gap (folio_clear_dirty_for_io()) was
#     reported by the shadow as a page never counted dirty, and once the
#     dirtier counted it, the clean page was left counted by the shadow;
#     and since a suspect now waits (uncounted_ms), a dirtying and a
#     cleaning of the page after the dirtier's count must not make it look
#     as if nothing had raced it
#   4 what stays a bug is still reported: a page dirty and never counted (the
#     zoo's class 1) is listed once it has stayed so for uncounted_ms
# After the gaps, and after sync, ledger and kernel agree and check is ok.
. ./lib.sh
md_require_writers
md_require_ko
# this test's console lines only: an earlier test of the same boot has its own
mark=$(dmesg | wc -l)
md_zoo_ready
W=$MD_WORK
Z=/sys/kernel/debug/md_zoo
md_hold_writeback
# no flusher at all: the pages must stay as the test leaves them
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
md_mkcg md_gap
# one page per write, so one page per folio
for i in 0 1 2 3; do
	md_in_cg md_gap dd if=/dev/zero of="$W/g" bs=4096 count=1 seek=$i conv=notrunc 2> /dev/null
done
sync
if ! md_check "md_zoo loads" insmod "$zoo_ko"; then
	md_finish
fi

# gap_start INDEX MS: the zoo's dirtier in its gap on page INDEX of g
gap_start() {
	md_zoo_gap_start "$W/g" "$1" "$2"
}

# folios_n SIDE: how many folios the last scan listed (uncounted, uncleaned)
folios_n() {
	awk -v s="$1" '$1 == s { print $2 }' "$MD/folios"
}

# version_n KEY: a value of the version file
version_n() {
	awk -v k="$1" '$1 == k { print $2 }' "$MD/version"
}

# --- 1: a resync while the page is in its gap
md_check "1: the dirtier is in its gap (page 0)" gap_start 0 8000
md_load track=1 || md_skip_all "cannot load memcg_dirty with track=1"
md_check "md_gap's directory appears" md_wait_dir md_gap
echo resync > "$MD/control"
echo resync > "$MD/control"
md_check "1: the gap was still open after the resyncs" md_zoo_gap_open
md_diag "in the gap: synced $(md_stat md_gap synced) ledger $(md_stat md_gap dirty) kernel $(md_stat md_gap kernel_dirty)"
md_eq "1: in the gap the kernel has not counted the page" 0 "$(md_stat md_gap kernel_dirty)"
md_eq "1: nor has the ledger" 0 "$(md_stat md_gap dirty)"
wait "$md_gap_pid"
md_check "1: md_gap syncs" md_wait_synced md_gap
md_eq "1: gap closed: ledger and kernel 1" "1 1" "$(md_stat md_gap dirty) $(md_stat md_gap kernel_dirty)"
md_eq "1: check ok, all three views 1" "ok 1 1 1" "$(md_views md_gap)"

# --- 2: a scan of a synced memcg while a page is in its gap
md_check "2: the dirtier is in its gap (page 1)" gap_start 1 6000
echo scan > "$MD/control"
md_check "2: the gap was still open after the scan" md_zoo_gap_open
md_diag "$(tr '\n' ' ' < "$MD/folios")"
md_eq "2: in the gap, folios lists no page as dirty and never counted" 0 "$(folios_n uncounted)"
md_eq "2: in the gap, check ok, all three views 1" "ok 1 1 1" "$(md_views md_gap)"
wait "$md_gap_pid"
md_eq "2: gap closed: check ok, all three views 2" "ok 2 2 2" "$(md_views md_gap)"

# --- 3: a cleaning while the page is in its gap
echo 20000 > /sys/module/memcg_dirty/parameters/uncounted_ms 2> /dev/null
md_check "3: the dirtier is in its gap (page 2)" gap_start 2 8000
md_check "3: the page is cleaned for writeback meanwhile" sh -c "echo 'clean_io $W/g 2' > $Z/trigger"
md_check "3: the gap was still open after the cleaning" md_zoo_gap_open
s0=$(version_n shadow_suspects)
md_eq "3: the shadow suspects the cleaning" 1 "$s0"
wait "$md_gap_pid"
echo scan > "$MD/control"
md_eq "3: while the suspect waits, folios lists the page on neither side" "0 0" \
	"$(folios_n uncounted) $(folios_n uncleaned)"
# the page dirtied and cleaned once more, while the suspect waits
md_in_cg md_gap dd if=/dev/zero of="$W/g" bs=4096 count=1 seek=2 conv=notrunc 2> /dev/null
md_check "3: then dirtied and cleaned again" sh -c "echo 'clean_io $W/g 2' > $Z/trigger"
md_check "3: the shadow settles it" md_poll 300 sh -c \
	"[ \$(awk '\$1 ~ /^shadow_(reported|raced|dropped)\$/ { n += \$2 } END { print n + 0 }' $MD/version) -ge 1 ]"
md_eq "3: and says nothing: a dirtier raced it" "0 1" "$(version_n shadow_reported) $(version_n shadow_raced)"
md_eq "3: no line on the console" 0 \
	"$(dmesg | tail -n +$((mark + 1)) | grep -c 'cleaned a page never counted dirty' || true)"
echo scan > "$MD/control"
md_diag "$(tr '\n' ' ' < "$MD/folios")"
md_eq "3: folios lists no page on either side" "0 0" "$(folios_n uncounted) $(folios_n uncleaned)"
md_eq "3: check ok, all three views 2" "ok 2 2 2" "$(md_views md_gap)"
echo 10000 > /sys/module/memcg_dirty/parameters/uncounted_ms 2> /dev/null

# --- 4: a page dirty and never counted is still reported, once it stayed so
md_check "4: the zoo makes page 3 dirty, never counted" sh -c "echo 'dirty_unaccounted $W/g 3' > $Z/trigger"
echo scan > "$MD/control"
md_eq "4: not listed at once (a dirtier may be in its gap)" 0 "$(folios_n uncounted)"
ms=$(cat /sys/module/memcg_dirty/parameters/uncounted_ms 2> /dev/null || echo 10000)
sleep $((ms / 1000 + 1))
echo scan > "$MD/control"
md_diag "$(tr '\n' ' ' < "$MD/folios")"
md_check "4: listed once it stayed so for uncounted_ms ($ms): inode, index 3" \
	grep -Eq "^$(stat -c %i "$CG/md_gap") [0-9]+ [0-9]+ [0-9]+:[0-9]+ $(stat -c %i "$W/g") 3$" "$MD/folios"
md_check "4: put right (the zoo cleans it uncounted)" sh -c "echo 'clean_unaccounted $W/g 3' > $Z/trigger"

md_release_writeback
sync
md_eq "after sync: ledger and kernel 0" "0 0" "$(md_stat md_gap dirty) $(md_stat md_gap kernel_dirty)"
md_eq "after sync: verdict ok" ok "$(md_chk md_gap verdict)"
md_eq "the shadow reported nothing in all" 0 "$(version_n shadow_reported)"
rmmod md_zoo
rm -rf "$W"
md_rmcg md_gap
md_check "rmmod" md_unload
md_finish
