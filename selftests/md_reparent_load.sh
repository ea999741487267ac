#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 7.x: a cgroup removed with dirty pages, whose pages are then cleaned and
# whose memcg is released, all while the module is not loaded, leaves its
# parent's own counter short by those pages for good (the cleanings went
# on in the parent, the increments went with the child).  No check can
# tell that from a kernel bug before the load, so the load takes the
# kernel's counters as they are, as it takes the ledger's starting point:
# the parent's verdict is ok, and stays ok with the audit running.  Before
# the fix the root's check reported underflow, kernel -64, suspect kernel.
. ./lib.sh
md_require_writers
md_require_ko
case $(uname -r) in
[1-6].*|7.0.*) md_skip_all "the kernel reparents a removed memcg's folios from 7.1 on" ;;
esac
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
md_load || exit 1
md_mkcg md_rl md_rl/kid
md_wait_dir md_rl/kid
md_hold_writeback
md_in_cg md_rl/kid mdfile write "$MD_WORK/kid" 64
md_eq "the child holds 64 dirty pages" 64 "$(md_stat md_rl/kid kernel_dirty)"
rmdir "$CG/md_rl/kid"
md_check "rmmod" md_unload
rm -f "$MD_WORK/kid"
dying() { awk '$1 == "nr_dying_descendants" { print $2 }' "$CG/md_rl/cgroup.stat"; }
md_poll 100 sh -c "[ \$(awk '\$1 == \"nr_dying_descendants\" { print \$2 }' $CG/md_rl/cgroup.stat) = 0 ]"
[ "$(dying)" = 0 ] || md_skip_all "the kernel still holds the removed child ($(dying) dying)"
md_load audit_ms=100 || exit 1
md_check "md_rl synced after the load" md_wait_synced md_rl
md_diag "md_rl: $(tr '\n' ' ' < "$MD/cgroups/md_rl/check")"
md_diag "md_rl stat: kernel_dirty $(md_stat md_rl kernel_dirty) kernel_carried $(md_stat md_rl kernel_carried)"
md_eq "md_rl's verdict is ok" ok "$(md_chk md_rl verdict)"
md_eq "its own counter is short by the child's pages" -64 "$(md_stat md_rl kernel_dirty)"
md_eq "which the load carries" 64 "$(md_stat md_rl kernel_carried)"
# it stays ok while pages come and go, and the audit says nothing (a
# cgroup with the memory controller on for children takes no task)
echo -memory > "$CG/md_rl/cgroup.subtree_control"
md_in_cg md_rl mdfile write "$MD_WORK/rl" 32
md_eq "md_rl wrote 32 pages" 32 "$(md_stat md_rl dirty)"
md_eq "after a write: ok" ok "$(md_chk md_rl verdict)"
md_release_writeback
sync
md_eq "after sync: ok" ok "$(md_chk md_rl verdict)"
a=$(awk '$1 == "audits" { print $2 }' "$MD/audit")
md_poll 100 sh -c "[ \$(awk '\$1 == \"audits\" { print \$2 }' $MD/audit) -ge $((a + 3)) ]"
md_eq "the audit printed nothing" 0 "$(awk '$1 == "printed" { print $2 }' "$MD/audit")"
rm -f "$MD_WORK/rl"
md_rmcg md_rl
md_check "rmmod" md_unload
md_finish
