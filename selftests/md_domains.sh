#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The writeback domains (debugfs domains): each bdi_writeback's
# WB_RECLAIMABLE and WB_WRITEBACK, summed exactly, against the pages the
# scan attributes to it through their inode, judged when nothing moved.
# With audit_ms=200 audit_warn=1:
# - 300 pages written in md_da: its domain holds them in both views, ok;
#   after sync, 0 in both, ok;
# - cgroup v2, on xfs (large folios on every kernel) where
#   MEMCG_DIRTY_XFS is set, else on the suite's disk: a file written by
#   md_da, then dirtied again and again by md_db until the kernel's foreign
#   inode detection switches it to md_db's domain (inode_switch_wbs_work_fn(),
#   which moves the counts of its dirty folios): md_db's domain then holds
#   the dirty pages, in both views; every judged read is ok, and so is
#   every domain after sync;
# - the zoo: a domain's WB_RECLAIMABLE raised by a page with no page dirty
#   (22b3c8d6612e's residue) is reported by the audit, "mismatch", and
#   taken below 0 is "underflow": one line and one WARN each, naming the
#   cgroup and the bdi; undone, ok again.
. ./lib.sh
md_require_writers
md_require_ko
md_zoo_ready
md_load audit_ms=200 audit_warn=1 || md_skip_all "cannot load memcg_dirty with audit_ms=200 audit_warn=1"
D=$MD/domains
md_mkcg md_da md_db md_dc
md_wait_dir md_da

# dom_read: the domains file into $MD_WORK/dom, until a read is judged
# (nothing moved while it scanned); false if none of 50 was
dom_read() {
	md_tries=50
	while [ $md_tries -gt 0 ]; do
		cat "$D" > "$MD_WORK/dom"
		grep -q '^judged yes$' "$MD_WORK/dom" && return 0
		md_tries=$((md_tries - 1))
		sleep 0.2
	done
	return 1
}
# dom CGROUP: "reclaimable-kernel reclaimable-scan writeback-kernel
# writeback-scan verdict" of the cgroup's domains in the last read, summed
# over its bdis (the worst verdict)
dom() {
	awk -v c="/$1" '$1 == "bdi" && $4 == c {
			rk += $9; rs += $11; wk += $14; ws += ($16 == "-" ? 0 : $16); n++
			if (v == "" || v == "ok") v = $18 }
		END { if (n) print rk, rs, wk, ws, v; else print "none" }' "$MD_WORK/dom"
}
# dom_all_ok: every domain of the last read ok
dom_all_ok() {
	grep -q '^verdict ok$' "$MD_WORK/dom"
}

md_check "the domains file is there and judged" dom_read
md_diag "$(head -n 5 "$MD_WORK/dom" | tr '\n' ' ')"
md_check "domains: ok before anything" dom_all_ok

f=$MD_WORK/md_da.$$
md_in_cg md_da mdfile write "$f" 300
md_check "300 pages dirty: a judged read" dom_read
# shellcheck disable=SC2046 # the fields, split on purpose
set -- $(dom md_da)
md_diag "md_da's domain: $*"
if [ "$MD_CGV" = 2 ]; then
	md_check "md_da's domain holds the 300 pages in the kernel's view" test "${1:-0}" -ge 300
	md_eq "md_da's domain: kernel and scan agree" "$1" "${2:-}"
	md_eq "md_da's domain: ok" ok "${5:-}"
fi
md_check "every domain ok with 300 pages dirty" dom_all_ok
sync
md_check "after sync: a judged read" dom_read
md_check "after sync: every domain ok" dom_all_ok
[ "$MD_CGV" != 2 ] || md_eq "md_da's domain after sync" "0 0 0 0 ok" "$(dom md_da)"
rm -f "$f"

# switch DIR: a file of DIR written by md_da (its inode joins md_da's
# domain), made again by md_db in large folios where the file system
# makes them, then dirtied from md_db and its first 64 pages written back,
# until the kernel moves the inode to md_db's domain with the rest of its
# pages dirty (at most 40 rounds of a write, a writeback and a read)
switch() {
	g=$1/md_dsw.$$
	fs=$(awk -v d="$1" 'd == $2 || index(d, $2 "/") == 1 { if (length($2) >= l) { l = length($2); t = $3 } }
		END { print t }' /proc/mounts)
	md_in_cg md_da mdfile write "$g" 1024
	sync
	md_in_cg md_db mdfile largedirty "$g" 1024
	md_diag "$fs: $(mdfile folios "$g" | head -n 1)"
	moved=0 bad=0 judged=0 round=0
	while [ $round -lt 40 ]; do
		round=$((round + 1))
		md_in_cg md_db mdfile write "$g" 1024
		md_in_cg md_db mdfile syncrange "$g" 0 64
		if dom_read; then
			judged=$((judged + 1))
			dom_all_ok || { bad=$((bad + 1)); md_diag "$fs round $round: $(grep -v ' verdict ok$' "$MD_WORK/dom" | tr '\n' ' ')"; }
			# shellcheck disable=SC2046 # the fields, split on purpose
			set -- $(dom md_db)
			if [ "${1:-0}" != none ] && [ "${1:-0}" -ge 512 ]; then
				md_diag "$fs: the inode moved to md_db's domain in round $round: $*"
				moved=1
				md_eq "$fs: md_db's domain: kernel and scan agree" "$1" "$2"
				break
			fi
		fi
	done
	md_eq "$fs: every judged read ok while the inode was written from two cgroups" 0 $bad
	md_diag "$fs: $judged judged reads in $round rounds"
	if [ $moved = 1 ]; then
		md_ok "$fs: the kernel switched the inode's domain (round $round)"
	else
		md_skip "$fs: the kernel switched the inode's domain" "no switch in $round rounds"
	fi
	sync
	md_check "$fs: after sync: a judged read" dom_read
	md_check "$fs: after sync: every domain ok" dom_all_ok
	md_eq "$fs: md_db's domain after sync" "0 0 0 0 ok" "$(dom md_db)"
	rm -f "$g"
}
if [ "$MD_CGV" = 2 ]; then
	switch "$(md_xfs_dir || echo "$MD_WORK")"
else
	md_skip "an inode switched between domains" "cgroup writeback needs cgroup v2"
fi

# The zoo's classes: a page's worth added to md_dc's domain, then taken
# twice, then undone
if ! md_check "md_zoo loads" insmod "$zoo_ko"; then
	md_unload
	md_finish
fi
z=$MD_WORK/md_dc.$$
md_in_cg md_dc dd if=/dev/zero of="$z" bs=4096 count=1 2> /dev/null
sync
md_check "md_dc's page written back: a judged read" dom_read
dom_line() {
	dmesg | grep -m 1 "memcg_dirty: $1 writeback domain of /md_dc "
}
[ "$MD_CGV" = 2 ] && where=/md_dc || where=/
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
echo "wbd_residue $z 0" > /sys/kernel/debug/md_zoo/trigger
md_check "wbd_residue: a judged read" dom_read
md_diag "$(grep "cgroup $where " "$MD_WORK/dom" | head -n 3 | tr '\n' ' ')"
md_check "wbd_residue: the domains file says mismatch" grep -q '^verdict mismatch$' "$MD_WORK/dom"
if [ "$MD_CGV" = 2 ]; then
	md_check "wbd_residue: the audit reports it" md_poll 300 dom_line mismatch
	line=$(dom_line mismatch)
	md_diag "$line"
	md_check "wbd_residue: the line says kernel 1 scan 0, suspect kernel" \
		sh -c "echo '$line' | grep -q 'reclaimable kernel 1 scan 0, writeback kernel 0 scan 0, suspect kernel'"
fi
echo "wbd_lost $z 0" > /sys/kernel/debug/md_zoo/trigger
echo "wbd_lost $z 0" > /sys/kernel/debug/md_zoo/trigger
md_check "wbd_lost: a judged read" dom_read
md_check "wbd_lost: the domains file says underflow" grep -q '^verdict underflow$' "$MD_WORK/dom"
if [ "$MD_CGV" = 2 ]; then
	md_check "wbd_lost: the audit reports it" md_poll 300 dom_line underflow
	md_diag "$(dom_line underflow)"
fi
echo undo > /sys/kernel/debug/md_zoo/trigger
md_check "undone: a judged read" dom_read
md_check "undone: every domain ok" dom_all_ok
md_audits_pass 5
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
if [ "$MD_CGV" = 2 ]; then
	md_eq "one WARN per bad domain" 2 "$(md_marked_warnings)"
	md_eq "the audit counted them" 2 "$(md_audit domain_bad)"
fi
md_check "the audit scanned for the domains" test "$(md_audit domain_scans)" -gt 0
rm -f "$z"
rmmod md_zoo
md_rmcg md_da md_db md_dc
md_check "rmmod" md_unload
md_check "outside the expected warnings, dmesg is clean" md_dmesg_clean
md_finish
