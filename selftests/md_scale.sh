#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 1,000 cgroups: 1,000 directories, 1,000 summary lines, and how long it
# takes to read summary (printed; the benchmarks set the bar).
. ./lib.sh
md_require_root
md_require_debugfs
md_require_cgroup2_memory
md_require_module
COUNT=${MD_SCALE_COUNT:-1000}

centis() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

md_mkcg md_scale
echo +memory > "$CG/md_scale/cgroup.subtree_control"
i=1
while [ $i -le "$COUNT" ]; do
	mkdir "$CG/md_scale/c$i" || break
	i=$((i + 1))
done
md_eq "created $COUNT cgroups" "$COUNT" "$((i - 1))"
t0=$(centis)
cat "$MD/summary" > /tmp/md_scale.summary
t1=$(centis)
cat "$MD/summary" > /tmp/md_scale.summary
t2=$(centis)
md_diag "summary with $COUNT more cgroups: first read (builds the directories) $((t1 - t0))0 ms, second read $((t2 - t1))0 ms"
md_eq "summary has a line per cgroup" "$COUNT" "$(grep -c ' /md_scale/c[0-9]* online' /tmp/md_scale.summary)"
md_eq "cgroups/md_scale has a directory per cgroup" "$COUNT" "$(ls -d "$MD"/cgroups/md_scale/c*/ | wc -l)"
md_eq "each has a stat file" "$COUNT" "$(ls "$MD"/cgroups/md_scale/c*/stat | wc -l)"
i=1
while [ $i -le "$COUNT" ]; do
	rmdir "$CG/md_scale/c$i"
	i=$((i + 1))
done
i=0
while [ "$(ls -d "$MD"/cgroups/md_scale/c*/ 2>/dev/null | wc -l)" != 0 ] && [ $i -lt 120 ]; do
	cat "$MD/summary" > /dev/null
	sleep 0.5
	i=$((i + 1))
done
md_eq "after rmdir the directories go once the memcgs are freed" 0 \
	"$(ls -d "$MD"/cgroups/md_scale/c*/ 2>/dev/null | wc -l)"
md_rmcg md_scale
md_finish
