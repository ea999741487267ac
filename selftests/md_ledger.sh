#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The ledger against the kernel's counter: writers in three sibling cgroups
# and one nested cgroup.  During the writes the two agree within a bound of
# in-flight updates; once the writes stop they agree exactly, per cgroup and
# per node; hierarchical values add up; after sync everything is 0.
. ./lib.sh
md_require_writers
md_require_module

PAGES=${MD_LEDGER_PAGES:-8192}
# Reading one stat file takes well under a millisecond of guest time, in
# which four writers at 15-30 us per page dirty at most ~256 pages.
BOUND=512
leaves="a b c d/n"
md_mkcg md_t md_t/a md_t/b md_t/c md_t/d md_t/d/n
for c in "" /a /b /c /d /d/n; do
	md_wait_dir "md_t$c" || md_not_ok "cgroups/md_t$c appeared"
done
sync
md_hold_writeback

pids=
for c in $leaves; do
	f=$MD_WORK/$(echo "$c" | tr / _)
	md_in_cg "md_t/$c" mdfile write "$f" "$PAGES" &
	pids="$pids $!"
done
max=0 samples=0
while md_running $pids; do
	for c in $leaves; do
		d=$(md_delta "md_t/$c")
		[ "$d" -gt "$max" ] && max=$d
		samples=$((samples + 1))
	done
done
wait
md_diag "largest |ledger - kernel| during the writes: $max pages over $samples samples"
md_check "during the writes the ledger stays within $BOUND pages of the kernel" test "$max" -le $BOUND

for c in $leaves; do
	md_check "md_t/$c: ledger equals kernel, total and per node" md_agree "md_t/$c"
	# ext4 may dirty a few metadata pages charged to the writer too
	n=$(md_stat "md_t/$c" dirtied)
	md_check "md_t/$c: $PAGES pages written, $n dirtied" test "$n" -ge "$PAGES" -a "$n" -le $((PAGES + 64))
	md_eq "md_t/$c: dirty is dirtied - cleaned_io - cancelled - removed_dirty" \
		"$((n - $(md_stat "md_t/$c" cleaned_io) - $(md_stat "md_t/$c" cancelled) - $(md_stat "md_t/$c" removed_dirty)))" \
		"$(md_stat "md_t/$c" dirty)"
done
md_check "md_t: ledger equals kernel" md_agree md_t
sum=0
for c in "" /a /b /c /d /d/n; do
	sum=$((sum + $(md_stat "md_t$c" dirty)))
done
md_eq "md_t: dirty_hier is the sum of the subtree" "$sum" "$(md_stat md_t dirty_hier)"
md_eq "md_t: kernel_dirty_hier equals dirty_hier" "$(md_stat md_t dirty_hier)" "$(md_stat md_t kernel_dirty_hier)"
md_eq "md_t/d: dirty_hier is d + d/n" \
	"$(($(md_stat md_t/d dirty) + $(md_stat md_t/d/n dirty)))" "$(md_stat md_t/d dirty_hier)"

md_release_writeback
sync
md_check "root: ledger synced since the load" md_wait_synced ""
md_check "root: ledger equals kernel once the system settles" md_agree_settled ""
for c in "" /a /b /c /d /d/n; do
	v="$(md_stat "md_t$c" dirty) $(md_stat "md_t$c" kernel_dirty) $(md_stat "md_t$c" dirty_hier) $(md_stat "md_t$c" kernel_dirty_hier)"
	md_eq "md_t$c: all zero after sync" "0 0 0 0" "$v"
done
a_dirtied=$(md_stat md_t/a dirtied)
a_cleaned=$(md_stat md_t/a cleaned_io)
md_check "md_t/a: dirtied and cleaned_io events counted ($a_dirtied, $a_cleaned)" \
	test "$a_dirtied" -ge "$PAGES" -a "$a_cleaned" -ge "$PAGES"
summ=$(awk '$2 == "/md_t/a" { print $3 }' "$MD/summary")
md_eq "summary lists md_t/a as online" online "$summ"

rm -rf "$MD_WORK"
sync
md_rmcg md_t/d/n md_t/d md_t/c md_t/b md_t/a md_t
md_finish
