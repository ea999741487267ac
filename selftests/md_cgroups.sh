#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroups/ follows the hierarchy: new cgroups appear without a reload, a
# removed cgroup that still holds dirty pages stays (dying, renamed NAME@ID)
# with correct counts, a new cgroup of the same name takes the plain name,
# the dying one's directory goes when its memcg is freed, and names that
# collide with the module's own files are escaped.
. ./lib.sh
md_require_writers
md_require_module

N=1024
W=$MD_WORK
md_mkcg md_life md_life/gone
md_check "a new cgroup appears in cgroups/" md_wait_dir md_life/gone
sync
md_hold_writeback
md_in_cg md_life/gone mdfile write "$W/g" $N
id=$(awk '$2 == "/md_life/gone" { print $1 }' "$MD/summary")
md_rmcg md_life/gone
md_eq "the removed cgroup is listed as dying" dying "$(awk -v id="$id" '$1 == id { print $3 }' "$MD/summary")"
md_check "its directory is now gone@$id" md_wait_dir "md_life/gone@$id"
md_check "the dying memcg: ledger equals kernel" md_agree "md_life/gone@$id"
md_check "the dying memcg still holds its dirty pages ($(md_stat "md_life/gone@$id" dirty))" \
	test "$(md_stat "md_life/gone@$id" dirty)" -ge $((N / 2))
md_mkcg md_life/gone
md_check "a new cgroup of the same name takes the plain name" md_wait_dir md_life/gone
newid=$(awk '$2 == "/md_life/gone" && $3 == "online" { print $1 }' "$MD/summary")
md_check "the new cgroup has a new id ($id -> $newid)" test -n "$newid" -a "$newid" != "$id"
md_eq "the parent's dirty_hier counts the dying child" \
	"$(md_stat "md_life/gone@$id" dirty)" "$(md_stat md_life dirty_hier)"
md_eq "the parent's kernel_dirty_hier agrees" \
	"$(md_stat md_life dirty_hier)" "$(md_stat md_life kernel_dirty_hier)"

md_release_writeback
rm -f "$W/g"
sync
echo 3 > /proc/sys/vm/drop_caches
i=0
while [ "$(awk '$1 == "nr_dying_descendants" { print $2 }' "$CG/md_life/cgroup.stat")" != 0 ] && [ $i -lt 60 ]; do
	sleep 0.5
	echo 3 > /proc/sys/vm/drop_caches
	i=$((i + 1))
done
if [ "$(awk '$1 == "nr_dying_descendants" { print $2 }' "$CG/md_life/cgroup.stat")" = 0 ]; then
	i=0
	while [ -e "$MD/cgroups/md_life/gone@$id" ] && [ $i -lt 40 ]; do
		cat "$MD/summary" > /dev/null
		sleep 0.25
		i=$((i + 1))
	done
	md_check "the freed memcg's directory is gone" test ! -e "$MD/cgroups/md_life/gone@$id"
	md_check "the freed memcg is no longer in summary" sh -c "! awk '\$1 == \"$id\"' $MD/summary | grep -q ."
else
	md_skip "the freed memcg's directory is gone" "the kernel still holds the dying memcg after 30 s"
fi

md_mkcg md_life/stat md_life/check md_life/%pct
md_check "a cgroup named stat is escaped as %stat" md_wait_dir "md_life/%stat"
md_check "a cgroup named check is escaped as %check" md_wait_dir "md_life/%check"
md_check "a cgroup named %pct is escaped as %%pct" md_wait_dir "md_life/%%pct"
md_check "md_life/stat is still the parent's stat file" test -f "$MD/cgroups/md_life/stat"
md_check "summary shows the real names" sh -c "grep -q ' /md_life/stat online' $MD/summary"
rm -rf "$W"
md_rmcg md_life/stat md_life/check md_life/%pct md_life/gone md_life
md_finish
