#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmdir of cgroups that hold dirty pages.  From 7.1 the kernel reparents:
# once the memcg is offline its folios, and the stat updates they bring,
# belong to its parent, while its own counter keeps its pages until it is
# freed; the parent's own counter goes below 0 as they are cleaned.  The
# module compares units (a live memcg with its dying descendants, and what
# freed ones left), so none of that may read as mismatch or underflow: not
# after an rmdir, not with a writer still dirtying the pages, not for a
# nested pair, not after sync.  On older kernels a dying memcg keeps its
# pages and the same checks hold.  A real fault is still caught: events
# dropped after the rmdir make the parent's unit a mismatch.
. ./lib.sh
md_require_writers
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
W=$MD_WORK
P=md_rp
md_mkcg $P
echo +memory > "$CG/$P/cgroup.subtree_control"
md_wait_dir $P
pid=$(md_cgid $P)
sync
md_hold_writeback

# child DIR: a new cgroup DIR with at least 1024 of 4096 pages still dirty
# (ext4 sometimes writes a fresh file back at once: write until they stay)
child() {
	mkdir -p "$CG/$1"
	md_wait_dir "$1"
	i=0
	while [ $i -lt 5 ]; do
		md_in_cg "$1" mdfile write "$W/${1##*/}.$i" 4096
		i=$((i + 1))
		[ "$(md_stat "$1" dirty)" -ge 1024 ] && break
	done
	md_check "$1: dirty pages ($(md_stat "$1" dirty))" test "$(md_stat "$1" dirty)" -ge 1024
}

# rmdir_child DIR: rmdir it and wait for its directory to say NAME@ID
rmdir_child() {
	id=$(md_cgid "$1")
	rmdir "$CG/$1"
	md_check "$1: rmdir, its directory renamed ${1##*/}@$id" md_poll 100 test -d "$MD/cgroups/$1@$id"
}

# sound LABEL: a few checks over 2 s (offline comes after an RCU grace
# period and a work item): the parent's verdict ok every time, and nothing
# anywhere mismatch or underflow
sound() {
	bad=0 n=0
	while [ $n -lt 5 ]; do
		v=$(md_chk $P verdict)
		[ "$v" = ok ] || { bad=$((bad + 1)); md_diag "$1: $P: $(md_verdict $P)"; }
		n=$((n + 1))
		sleep 0.4
	done
	md_eq "$1: $P's check ok throughout" 0 $bad
	md_eq "$1: no mismatch or underflow anywhere" 0 \
		"$(awk '$6 == "mismatch" || $6 == "underflow"' "$MD/summary" | tee /dev/stderr | wc -l)"
}

# 1) one child, no writer
child $P/c
rmdir_child $P/c
cid=$id
sound "rmdir"
u=$(md_chk "$P/c@$cid" unit)
md_check "the dying child's check is ok (its unit: ${u:-itself})" test "$(md_chk "$P/c@$cid" verdict)" = ok
[ -z "$u" ] || md_eq "its unit is $P's" "$pid" "$u"
md_eq "$P's unit: kernel = ledger = scan" "1 1" \
	"$(awk '{ v[$1] = $2 } END { print v["kernel"] == v["ledger"], v["ledger"] == v["scan"] }' "$MD/cgroups/$P/check")"

# 2) a writer keeps dirtying a removed child's pages (their charge stays)
child $P/w
rmdir_child $P/w
( i=0; while [ $i -lt 20 ]; do mdfile write "$W/w.0" 4096; i=$((i + 1)); done ) &
writer=$!
sound "rmdir with a writer"
wait $writer

# 3) nested: a/b, dirty pages in b, then rmdir b and a
mkdir -p "$CG/$P/a"
echo +memory > "$CG/$P/a/cgroup.subtree_control"
md_wait_dir $P/a
child $P/a/b
rmdir_child $P/a/b
rmdir_child $P/a
sound "nested rmdir"

# 4) sync: everything written back, every unit at 0
md_release_writeback
sync
sound "after sync"
md_eq "$P's unit after sync: 0 0 0" "0 0 0" \
	"$(awk '{ v[$1] = $2 } END { print v["kernel"], v["ledger"], v["scan"] }' "$MD/cgroups/$P/check")"
# once freed, a removed memcg's counters are gone: what they held is
# carried into its parent's entry, and the unit still sums to the same
echo 3 > /proc/sys/vm/drop_caches
if md_poll 100 md_unlisted "$cid"; then
	md_eq "c freed: $P's unit still ok, 0 0 0" "ok 0 0 0" \
		"$(md_views "$P")"
	md_diag "$P: carried $(md_stat $P carried) kernel_carried $(md_stat $P kernel_carried)"
else
	md_diag "c@$cid not freed within 10 s: the carry is not exercised"
fi
md_check "every memcg synced" md_all_synced
md_eq "the global check: no negative counter" 0 "$(awk '$1 == "negative" { print $2 }' "$MD/check")"
md_eq "the global check: ok" ok "$(awk '$1 == "verdict" { print $2 }' "$MD/check")"

# 5) a real fault: one cleaning of a removed child's pages dropped, so
# the ledger keeps pages the kernel and the scan no longer have
sync
md_hold_writeback
# (the drop aimed at the memcg the cleaning will be charged to: where the
# kernel reparents the parent, once the child is offline; else the child)
child $P/f
if [ -n "$u" ]; then
	rmdir_child $P/f
	sleep 1
	md_inject drop cleaned_io 1 /$P
	where=$P
else
	md_inject drop cleaned_io 1 /$P/f
	rmdir_child $P/f
	where=$P/f@$id
fi
sync
v=$(md_verdict $where)
md_check "a dropped cleaning after the rmdir: $where mismatch, ledger suspect ($v)" \
	test "${v% *}" = "mismatch ledger"
md_release_writeback
rm -rf "$W"
md_rmcg $P
md_check "rmmod" md_unload
md_finish
