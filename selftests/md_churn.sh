#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cgroup churn: cgroups created and removed in waves (MD_CHURN_WAVES of
# MD_CHURN_PER: 500 by default, make check-audit 1,000) while writers
# dirty pages in some of them; some are removed still holding dirty pages
# (dying).  Dying ones keep exact counts until freed, then vanish; at the
# end no stale directory is left, the module's memory (entries it has
# allocated, from "version", beyond one per memcg listed: the spare pool) is
# back to its baseline, and the global check
# is ok after sync.
. ./lib.sh
md_require_writers
md_require_module
WAVES=${MD_CHURN_WAVES:-2}
PER=${MD_CHURN_PER:-250}
W=$MD_WORK

ver() { awk -v k="$1" '$1 == k { print $2 }' "$MD/version"; }
ndirs() { ls -d "$MD"/cgroups/md_churn/*/ 2>/dev/null | wc -l; }
# entries beyond one per memcg in the summary: others' cgroups (systemd's on
# a full system) may come and go meanwhile; retried while one does
extra() {
	for i in 1 2 3 4 5; do
		a=$(($(ver entries) - $(tail -n +2 "$MD/summary" | wc -l)))
		b=$(($(ver entries) - $(tail -n +2 "$MD/summary" | wc -l)))
		[ "$a" != "$b" ] || break
	done
	echo "$b"
}

# dying_in DIR: the memcgs removed below DIR that the kernel has not freed
dying_in() { awk '$1 == "nr_dying_descendants" { print $2 }' "$1/cgroup.stat"; }
# until none is dying below DIR (pages of theirs dropped), at most 30 s
wait_freed() {
	i=0
	while [ "$(dying_in "$1")" != 0 ] && [ $i -lt 60 ]; do
		echo 3 > /proc/sys/vm/drop_caches
		sleep 0.5
		i=$((i + 1))
	done
}

md_mkcg md_churn
echo +memory > "$CG/md_churn/cgroup.subtree_control"
md_wait_dir md_churn
sync
# the baseline without an earlier test's memcgs on their way out: one
# released but not yet freed has an entry and no line in summary
wait_freed "$CG"
cat "$MD/summary" > /dev/null
base=$(extra)
md_diag "baseline: $(ver entries) entries of $(ver entry_bytes) bytes, $base beyond one per memcg"
bad=0
w=1
while [ $w -le "$WAVES" ]; do
	i=1
	while [ $i -le "$PER" ]; do
		mkdir "$CG/md_churn/w${w}c$i"
		i=$((i + 1))
	done
	# writers in every 25th cgroup; half of them stay dirty at rmdir
	i=1
	while [ $i -le "$PER" ]; do
		md_in_cg "md_churn/w${w}c$i" mdfile write "$W/w${w}c$i" 64 &
		i=$((i + 25))
	done
	wait
	cat "$MD/summary" > /dev/null
	i=1
	while [ $i -le "$PER" ]; do
		[ $((i % 50)) = 1 ] && [ -e "$W/w${w}c$i" ] && sync -f "$W/w${w}c$i" 2>/dev/null
		md_rmcg "md_churn/w${w}c$i"
		i=$((i + 1))
	done
	# dying memcgs: each one's check is ok (the flusher may be writing
	# their pages back meanwhile: check bounds that, a bare compare cannot)
	for d in "$MD"/cgroups/md_churn/*@*/; do
		[ -d "$d" ] || continue		# none: the pattern itself
		n=${d#"$MD/cgroups/"}
		v=$(md_chk "${n%/}" verdict 2>/dev/null)
		[ -z "$v" ] || [ "$v" = ok ] || { bad=$((bad + 1)); md_diag "${n%/}: $(tr '\n' ' ' < "$d/check")"; }
	done
	w=$((w + 1))
done
md_eq "dying memcgs check ok in every wave" 0 $bad
md_diag "after the waves: $(ndirs) directories, $(ver entries) entries"

rm -rf "$W"
sync
wait_freed "$CG/md_churn"
dying=$(dying_in "$CG/md_churn")
i=0
while [ "$(ndirs)" != 0 ] && [ $i -lt 40 ]; do
	cat "$MD/summary" > /dev/null
	sleep 0.25
	i=$((i + 1))
done
if [ "$dying" = 0 ]; then
	md_eq "no stale directories once the memcgs are freed" 0 "$(ndirs)"
	md_eq "module memory back to its baseline ($base entries beyond one per memcg)" "$base" "$(extra)"
else
	md_skip "no stale directories" "the kernel still holds $dying dying memcgs"
	md_skip "module memory back to its baseline" "the kernel still holds $dying dying memcgs"
fi
md_check "root synced" md_wait_synced ""
md_eq "global check ok after sync" ok "$(awk '$1 == "verdict" { print $2 }' "$MD/check")"
md_rmcg md_churn
md_finish
