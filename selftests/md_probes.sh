#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The probes count: a dd to ext4 inside a cgroup hits the dirty probe, its
# writeback the cleaning probe, a truncate of dirty pages the cancel probe.
. ./lib.sh
md_require_writers
md_require_module

md_mkcg md_probes
sync
d0=$(md_probe_hits dirtied)
c0=$(md_probe_hits cleaned_io)
x0=$(md_probe_hits cancelled)
md_in_cg md_probes dd if=/dev/zero of="$MD_WORK/f" bs=1M count=16 2>/dev/null
d1=$(md_probe_hits dirtied)
md_check "dirtied probe counted the dd ($d0 -> $d1)" test "$d1" -ge $((d0 + 4096))
sync
c1=$(md_probe_hits cleaned_io)
md_check "cleaned_io probe counted the writeback ($c0 -> $c1)" test "$c1" -ge $((c0 + 4096))
md_in_cg md_probes dd if=/dev/zero of="$MD_WORK/g" bs=1M count=4 2>/dev/null
truncate -s 0 "$MD_WORK/g"
x1=$(md_probe_hits cancelled)
md_check "cancelled probe counted the truncate ($x0 -> $x1)" test "$x1" -ge $((x0 + 1024))
for p in dirtied cleaned_io cancelled; do
	md_eq "no missed hits on $p" 0 "$(awk -v p=$p '$1 == p { print $6 }' "$MD/probes")"
done
rm -rf "$MD_WORK"
sync
md_rmcg md_probes
md_finish
