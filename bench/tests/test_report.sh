#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/report on a fixture with known answers: pair ratios, the interval
# of the median, the verdicts, the floor, the scan and memory figures.
# Run by make unit; prints "bench-report: N passed, N failed".
cd "$(dirname "$0")/../.." || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
has() {
	if grep -qF -- "$2" "$out/results.md"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "not ok - $1: no line with '$2'"; fi
}
bench/report --out "$out" --date 2026-01-01 bench/tests/fixture.raw > /dev/null 2>&1 ||
	{ echo "not ok - bench/report failed"; exit 1; }
# dd100: ratios 1.05 1.04 1.03 1.06 1.02 1.015, median 1.035; with 6 pairs the
# interval of the median is min..max (order statistics 1 and 6)
has "dd100 row" "| dd write 100 MiB | 1.000 s (+-0.00% 6 samples) | 1.035 s (+-1.68% 6 samples) | 1.035 (1.015..1.060) |"
has "dd100 is missed: the whole interval is over 1.01" "dd write 100 MiB: loaded/baseline 1.035, target <= 1.01: **MISSED**"
has "write faults met: all under 1.03" "write fault cycles: loaded/baseline 1.003, target <= 1.03: met"
has "dd200 with 2 pairs: not resolved" "dd write 200 MiB: loaded/baseline 1.025, target <= 1.01: **not resolved**: the 95 % interval 0.950..1.100 spans the target"
has "floor row" "| write fault cycles | 100 cycles | 102 cycles | 110 cycles | 1.020 (1.020..1.020) | 1.100 (1.100..1.100) | 1.078 (1.078..1.078) |"
# watch: pair ratios 1.30 and 1.10, median 1.20; medians 105 and 125.5
has "watch row" "| write fault cycles | 105 cycles | 126 cycles | 1.200 (1.100..1.300) |"
has "4.3 unloaded" "| 1) baseline | 50.0 MB/s, kernel 0 | not run | not run |"
has "4.3 replayed" "20.0 MB/s, kernel -100, ledger 0, scan 0, underflow/kernel |"
has "scan medians and disagreement" "| 3 | 0.020 s | 19 ms | 0.600 s | 30.0x | 64, 63, 64, 64 (**DISAGREE**) |"
has "scan verdict" "scan: 30.0x faster than page-types, target >= 10x: met; counts **DISAGREE**"
has "memory per cgroup between sizes" "Per cgroup (from 100 to 1000 cgroups): 2048 bytes of slab, of which 512 in inodes and dentries"
has "summary verdict" "1,000 cgroups: summary read in 20.0 ms, target well under 1 s: met"
has "slab growth of the largest size" "Slab growth at 1000 cgroups by cache (20 KiB or more): dentry 500 KiB, kmalloc-192 200 KiB."
has "scale row with rmmod's median" "| 1000 | 20.0 ms | 20.0 ms | 300 ms | 1130 | 224 |"
# audit at 1000: passes 1100 1000 900 us, waits 90 100 110, work 1010 900 790
# (median 900) over 1005 memcgs; scan 19 ms for 2905 MiB
has "audit row" "| 1000 | 1005 | 1000 us | 100 us | 896 us | 0.090 % |"
has "audit scan per GiB" "19 ms here for 2.8 GiB, 7 ms per GiB."
# steps: medians 6532 (off), 6560 (floor), 6623 (on); handlers 3 and 76
has "steps unloaded" "| unloaded | 3 | 6532 (6500..6550) | - | 1 |"
has "steps module" "| memcg_dirty | 3 | 6623 (6600..6700) | 76 | 0 |"
has "steps ratios" "memcg_dirty/unloaded 1.0139, bare/unloaded 1.0043, memcg_dirty/bare 1.0096 (ratios of the medians;"
has "steps handler share" "instructions per dirtying event, 1.16 % of the unloaded median."
has "steps verdict" "write fault instructions (single-stepped, not cycles): memcg_dirty/unloaded 1.014, target <= 1.03: met"
grep -q '^6.1.0-test,table,dd100,on,1,1.05,s$' "$out/samples.csv" && pass=$((pass + 1)) ||
	{ fail=$((fail + 1)); echo "not ok - samples.csv row"; }
grep -q '^6.1.0-test,steps,dirtied_handler,on,3,75,instructions$' "$out/samples.csv" && pass=$((pass + 1)) ||
	{ fail=$((fail + 1)); echo "not ok - samples.csv steps row"; }
grep -q '^6.1.0-test,floor,write_fault,floor,1,102,cycles$' "$out/samples.csv" && pass=$((pass + 1)) ||
	{ fail=$((fail + 1)); echo "not ok - samples.csv floor row"; }
# an incomplete record file is refused
head -n 5 bench/tests/fixture.raw > "$out/cut.raw"
if bench/report --out "$out/cut" "$out/cut.raw" > /dev/null 2>&1; then
	fail=$((fail + 1)); echo "not ok - an incomplete record file was accepted"
else
	pass=$((pass + 1))
fi
# variant_has NAME LINE DESCRIPTION: bench/report on $out/NAME.raw (the
# fixture with a change) writes LINE in its results.md
variant_has() {
	if bench/report --out "$out/$1" "$out/$1.raw" > /dev/null 2>&1 &&
	   grep -qF -- "$2" "$out/$1/results.md"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "not ok - $3"
	fi
}
# 10,000 cgroups: each of the three targets on its own
sed '/^BENCH done/i BENCH scale 10000 0.080 0.120 10130 224 20000 0\nBENCH rmmod 10000 0.9' \
	bench/tests/fixture.raw > "$out/10k.raw"
variant_has 10k "10,000 cgroups: summary read in 80.0 ms, target <= 100 ms: met; global check in 120.0 ms, target <= 100 ms: **MISSED**; rmmod in 900 ms, target <= 1 s: met" \
	"the 10,000 cgroups targets"
# the floor with counting-only probes (md_floor.ko count=1): a fourth column
sed '/^BENCH floor write_fault on 1/i BENCH floor write_fault count 1 105 cycles' \
	bench/tests/fixture.raw > "$out/count.raw"
variant_has count "| write fault cycles | 100 cycles | 102 cycles | 105 cycles | 110 cycles | 1.020 (1.020..1.020) | 1.050 (1.050..1.050) | 1.100 (1.100..1.100) | 1.078 (1.078..1.078) |" \
	"the floor's counting-only column"
# a run of some sections only: the others are left out, not shown as empty
sed '/^BENCH info kernel /a BENCH info sections floor' bench/tests/fixture.raw |
	grep -v '^BENCH \(sample\|fix43\|scan\|scale\|slab\|steps\|rmmod\) ' > "$out/floor.raw"
if bench/report --out "$out/floor" "$out/floor.raw" > /dev/null 2>&1 &&
   grep -q '^### Where the cost is' "$out/floor/results.md" &&
   ! grep -q "^### \(The 4\|Scan\|Scale\)" "$out/floor/results.md" &&
   grep -q '^None measured' "$out/floor/results.md"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "not ok - sections not run are left out of the report"
fi
# ... but a boot that ran them all, for the same kernel, still shows them
if bench/report --out "$out/both" bench/tests/fixture.raw "$out/floor.raw" > /dev/null 2>&1 &&
   grep -q "^### The 4.2 commit's table" "$out/both/results.md"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "not ok - sections of another boot are kept"
fi
# bench/series, the README's tables, from the same samples: write faults'
# pair ratios median 1.0035, medians 1003.5 - 1000; the floor's 102/100
if bench/series "$out/samples.csv" > "$out/series.md"; then
	for want in "| write fault | +4 (+0.35 %), attaching +2.00 % | - | <= +0.3 % |" \
		"| dd 100 MiB + sync | +3.50 % | - | <= +0.5 % |"; do
		if grep -qF -- "$want" "$out/series.md"; then pass=$((pass + 1)); else
			fail=$((fail + 1)); echo "not ok - bench/series: no line with '$want'"; fi
	done
else
	fail=$((fail + 1)); echo "not ok - bench/series failed"
fi
echo "bench-report: $pass passed, $fail failed"
[ "$fail" = 0 ]
