#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The probes count: a dd to ext4 inside a cgroup hits the dirty probe, its
# writeback the cleaning probe, a truncate of dirty pages the cancel probe.
# Hits are folios (large ones on 7.x's ext4); the memcg's event totals are
# pages, and those must cover every page.
. ./lib.sh
md_require_writers
md_require_module

md_mkcg md_probes
md_wait_dir md_probes
sync
# md_count POINT: the probe's hits and the memcg's pages for its event
md_count() {
	echo "$(md_probe_hits "$1") $(md_stat md_probes "$1")"
}
md_grew() {	# NAME "HITS0 PAGES0" "HITS1 PAGES1" PAGES
	set -- "$1" $2 $3 "$4"
	md_check "$1 probe counted $6 pages ($2 -> $4 hits, $3 -> $5 pages)" \
		test "$4" -gt "$2" -a "$5" -ge $(($3 + $6))
}
d0=$(md_count dirtied)
c0=$(md_count cleaned_io)
x0=$(md_count cancelled)
md_in_cg md_probes dd if=/dev/zero of="$MD_WORK/f" bs=1M count=16 2>/dev/null
md_grew dirtied "$d0" "$(md_count dirtied)" 4096
sync
md_grew cleaned_io "$c0" "$(md_count cleaned_io)" 4096
md_in_cg md_probes dd if=/dev/zero of="$MD_WORK/g" bs=1M count=4 2>/dev/null
truncate -s 0 "$MD_WORK/g"
md_grew cancelled "$x0" "$(md_count cancelled)" 1024
for p in dirtied cleaned_io cancelled; do
	md_eq "no missed hits on $p" 0 "$(awk -v p=$p '$1 == p { print $6 }' "$MD/probes")"
done
rm -rf "$MD_WORK"
sync
md_rmcg md_probes
md_finish
