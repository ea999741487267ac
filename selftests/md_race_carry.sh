#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect (7.1 on, where the kernel reparents): the kernel unlinks a
# released memcg from its parent's children, where the module finds a
# unit's members, an RCU grace period before it frees it; the module
# carried the memcg's counters into its parent's entry only at the free.
# Whatever summed the parent's subtree in between missed them: after a
# sync, where the parent cleaned the removed child's pages, its own
# counter is -N and the child's +N, so the parent's dirty_hier and
# kernel_dirty_hier (and its unit's check) read -N though nothing is
# dirty.  The carry now runs at the release, before the unlink.  The
# "free" delay point holds the memcg_free probe 1.5 s inside that window
# (the window is: the kernel's cgroup.stat counts no dying memory css
# under the parent any more, and the child's directory is still there),
# and the parent's stat is read meanwhile.  (A check cannot be read
# there: it waits for an RCU grace period, which the held probe delays.)
. ./lib.sh
md_require_writers
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
[ "$(md_probe_status memcg_release)" != unused:no_reparenting ] ||
	md_skip_all "this kernel does not reparent: a removed memcg keeps its pages and counters"
md_diag "memcg_release: $(md_probe_status memcg_release)"
W=$MD_WORK
P=md_rc
md_mkcg $P
echo +memory > "$CG/$P/cgroup.subtree_control"
md_wait_dir $P
sync

# dying: memory csses under the parent not yet released (cgroup.stat)
dying() {
	awk '$1 == "nr_dying_subsys_memory" { print $2 }' "$CG/$P/cgroup.stat"
}
[ -n "$(dying)" ] || md_skip_all "cgroup.stat has no nr_dying_subsys_memory: the window cannot be seen"

# removed_child ROUND: a child with dirty pages, removed and synced, so
# that the parent cleaned them (its own counter -N, the child's +N); the
# child still unreleased, held by its page cache.  False if it was not.
removed_child() {
	md_hold_writeback
	mkdir "$CG/$P/c"
	md_wait_dir $P/c
	i=0
	while [ $i -lt 5 ] && [ "$(md_stat $P/c dirty)" -lt 1024 ]; do
		md_in_cg $P/c mdfile write "$W/c.$1.$i" 4096
		i=$((i + 1))
	done
	id=$(md_cgid $P/c)
	md_diag "round $1: c (id $id) has $(md_stat $P/c dirty) dirty pages"
	rmdir "$CG/$P/c"
	md_poll 100 test -d "$MD/cgroups/$P/c@$id" || md_diag "round $1: no directory c@$id"
	md_release_writeback
	sync
	md_diag "round $1: after sync $P: $(md_stat $P dirty) own, $(md_stat $P dirty_hier) hier"
	[ "$(dying)" = 1 ] && return 0
	md_diag "round $1: c was released before its pages were dropped ($(dying) dying)"
	return 1
}

# 1) between release and free: the child's page cache dropped, which
# releases it, while the free probe is held; the parent's stat read
inside=0 bad=0 round=0
while [ $round -lt 3 ] && [ $inside -eq 0 ]; do
	round=$((round + 1))
	removed_child $round || continue
	md_inject delay free 1500000
	echo 3 > /proc/sys/vm/drop_caches
	n=0
	while [ $n -lt 600 ] && [ -d "$MD/cgroups/$P/c@$id" ]; do
		if [ "$(dying)" = 0 ]; then
			v="$(md_stat $P dirty_hier) $(md_stat $P kernel_dirty_hier)"
			if [ -d "$MD/cgroups/$P/c@$id" ]; then
				inside=$((inside + 1))
				[ "$v" = "0 0" ] || {
					bad=$((bad + 1))
					md_diag "in the window: $P's dirty_hier and kernel_dirty_hier: $v"
				}
			fi
		fi
		n=$((n + 1))
		sleep 0.05
	done
	md_inject delay free 0
	md_diag "round $round: $inside reads inside the window, $bad of them not 0 0"
done
md_check "the parent was read between the child's release and free ($inside times)" \
	test $inside -ge 1
md_eq "its subtree read 0 0 every time" 0 $bad
md_check "the free probe was held ($(md_delay_hits free))" test "$(md_delay_hits free)" -ge 1

# 2) a carry while a check sums the parent's unit: the "sum" delay point
# holds the check (2 s) inside its sum, and the child is released then
held() { [ "$(md_delay_hits sum)" -gt "$sum0" ]; }
released() { [ "$(dying)" = 0 ]; }
T=$(mktemp -d)
during=0 round=0
while [ $round -lt 3 ] && [ $during -eq 0 ]; do
	round=$((round + 1))
	removed_child "2.$round" || continue
	sum0=$(md_delay_hits sum)
	md_inject delay sum 2000000
	cat "$MD/cgroups/$P/check" > "$T/check" &
	reader=$!
	md_poll 100 held || md_diag "round 2.$round: the check never reached its sum"
	echo 3 > /proc/sys/vm/drop_caches
	md_poll 50 released
	kill -0 $reader 2> /dev/null && released && during=1
	wait $reader
	md_inject delay sum 0
	md_diag "round 2.$round: released while the check summed: $during; $(tr '\n' ' ' < "$T/check")"
done
md_check "the child was released while a check of $P summed its unit" test $during = 1
md_eq "that check: ok" ok "$(awk '$1 == "verdict" { print $2 }' "$T/check")"
rm -rf "$T"

md_eq "$P afterwards: ok 0 0 0" "ok 0 0 0" \
	"$(md_views "$P")"
md_diag "$P: carried $(md_stat $P carried) kernel_carried $(md_stat $P kernel_carried)"
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
rm -rf "$W"
md_rmcg $P
md_check "rmmod" md_unload
md_finish
