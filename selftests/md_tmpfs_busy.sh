#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the scan counted a locked tmpfs folio as "busy" although tmpfs is
# never dirty-accounted, so a memcg writing to tmpfs (whose folios its
# writers keep locking) stayed busy: it never resynced and its checks stayed
# loose.  Fault injection holds a dirty folio locked while a scan runs: a
# tmpfs one must not count as busy, and the memcg's check stays strict; an
# ext4 one (the control, showing the hold works) must.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
T=/tmp/md_tb.$$
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
mkdir -p "$T"
mount -t tmpfs -o size=16m none "$T" || { rmdir "$T"; md_skip_all "cannot mount a tmpfs"; }
md_mkcg md_tb
md_wait_dir md_tb
sync
md_hold_writeback
md_in_cg md_tb mdfile write "$W/f" 16
md_in_cg md_tb dd if=/dev/zero of="$T/f" bs=4k count=16 2> /dev/null
# the check must read the scan made while the folio is held, not a later one
P=/sys/module/memcg_dirty/parameters/scan_cache_ms
cache_ms=$(cat $P)
echo 30000 > $P
# scan_busy of the memcg while FILE's first folio is held locked
busy_held() {
	md_inject hold "$1" 2000 &
	i=0
	while [ "$(awk '$1 == "holding" { print $2 }' "$MD/inject")" != 1 ] && [ $i -lt 100 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	echo scan > "$MD/control"
	held=$(awk '$1 == "holding" { print $2 }' "$MD/inject")
	awk -v h="$held" '{ v[$1] = $2 } END { print v["scan_busy"], v["quiescent"], v["verdict"], h }' \
		"$MD/cgroups/md_tb/check"
	wait
}
# shellcheck disable=SC2046 # busy_held's words, split into $1..$4
set -- $(busy_held "$T/f")
md_eq "the tmpfs folio was held locked through the scan" 1 "$4"
md_eq "a locked tmpfs folio is not counted busy" 0 "$1"
md_eq "the check stays strict and ok" "1 ok" "$2 $3"
# The control, up to 3 times: on a loaded machine the hold (2 s at most)
# can end before the check reads the scan.  ext4 may have written the
# first page back already: dirty it again each time.
try=0
while [ $try -lt 3 ]; do
	try=$((try + 1))
	md_in_cg md_tb dd if=/dev/zero of="$W/f" bs=4k count=1 conv=notrunc 2> /dev/null
	# shellcheck disable=SC2046 # busy_held's words, split into $1..$4
	set -- $(busy_held "$W/f")
	[ "$4" = 1 ] && [ "$1" -ge 1 ] && break
	md_diag "control, try $try: held $4, scan_busy $1"
done
md_eq "the ext4 folio was held locked through the scan" 1 "$4"
md_check "control: a locked dirty ext4 folio is counted busy ($1)" test "$1" -ge 1
echo "$cache_ms" > $P
umount "$T"
rmdir "$T"
md_release_writeback
rm -rf "$W"
sync
md_rmcg md_tb
md_check "rmmod" md_unload
md_finish
