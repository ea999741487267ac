#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probe misses: both vCPUs writing, timers and disk interrupts landing.
# nmissed is reported per probe; if any probe missed, every verdict says
# untrusted rather than a wrong ok or mismatch.
. ./lib.sh
md_require_writers
md_require_module
W=$MD_WORK
md_mkcg md_ms md_ms/a md_ms/b
for c in a b; do md_wait_dir md_ms/$c; done
pids=
cpu=0
for c in a b; do
	md_in_cg md_ms/$c taskset -c $((cpu % $(nproc))) sh -c \
		"i=0; while [ \$i -lt 40 ]; do mdfile fsync $W/$c\$((i % 5)) 256; i=\$((i + 1)); done" &
	pids="$pids $!"
	cpu=$((cpu + 1))
done
wait
awk 'NR > 1 { printf "# %s missed %s of %s hits\n", $1, $6, $5 }' "$MD/probes"
missed=$(awk 'NR > 1 { m += $6 } END { print m + 0 }' "$MD/probes")
v=$(md_chk md_ms/a verdict)
if [ "$missed" -gt 0 ]; then
	md_eq "probes missed $missed hits: verdicts say untrusted" untrusted "$v"
else
	md_eq "no probe missed a hit: verdict not untrusted" ok "$v"
fi
rm -rf "$W"
sync
md_rmcg md_ms/a md_ms/b md_ms
md_finish
