#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defects at load.  (1) The probes were armed before any memcg had an
# entry, and the pool holds 128: with more memcgs writing during the load,
# events were lost and every verdict reported untrusted for the module's
# lifetime.  (2) memcg_free was armed last, so a memcg freed during the load
# could keep a hashed entry for a new memcg at its address to inherit.  A
# delay point holds the load's window open (2 s) while 160 cgroups each
# create small files, and one cgroup is made, written, emptied and freed.
# No event may be lost, every verdict must come out ok, and unload with
# fault injection (which pins every entry's memcg) must be clean.
. ./lib.sh
md_require_writers
md_require_ko
N=${MD_LOAD_BUSY_CGROUPS:-160}
W=$MD_WORK
md_unload
cgs=
for i in $(seq $N); do cgs="$cgs md_lb$i"; done
md_mkcg $cgs
# one shell visits every cgroup in turn and creates a file in each
(n=0
while [ ! -e "$W/stop" ]; do
	for c in $cgs; do
		echo $$ > "$CG/$c/cgroup.procs" 2> /dev/null
		echo x > "$W/$c.$n"
	done
	n=$((n + 1))
done) &
sleep 1
md_load fault_inject=1 delay=load:2000000 &
loader=$!
sleep 0.5
md_mkcg md_lbf
md_in_cg md_lbf mdfile write "$W/gone" 4
rm -f "$W/gone"
rmdir "$CG/md_lbf"
wait $loader || md_not_ok "load"
touch "$W/stop"
wait
md_check "the load held its window ($(md_delay_hits load))" test "$(md_delay_hits load)" = 1
md_eq "no event lost during the load" 0 "$(awk '$1 == "lost_events" { print $2 }' "$MD/version")"
sync
echo resync > "$MD/control"
md_check "md_lb1 synced" md_wait_synced md_lb1
md_check "md_lb$N synced" md_wait_synced md_lb$N
v=$(awk 'NR > 1 { n[$6]++ } END { for (k in n) printf "%s=%d ", k, n[k] }' "$MD/summary")
md_diag "verdicts: $v"
md_eq "no memcg untrusted" 0 "$(awk 'NR > 1 && $6 == "untrusted" { n++ } END { print n + 0 }' "$MD/summary")"
md_check "every memcg synced" md_all_synced
md_eq "global check ok" ok "$(awk '$1 == "verdict" { print $2 }' "$MD/check")"
rm -rf "$W"
sync
md_rmcg $cgs
md_check "rmmod (fault injection undoes every entry's skew)" md_unload
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
md_finish
