#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: every reconcile (the change work, a summary open, the load) took
# its dead entries under md_mutex and removed their directories after
# unlocking, and nothing ordered the removals.  rmdir a/b; rmdir a: the
# work takes {b} and is held; a summary open takes {a}, whose recursive
# removal frees b's dentry; the work then removes freed memory.  The
# "remove" delay point holds the work (only) between the two, 2 s.
# Without the fix: a use-after-free (an oops, or a slub_debug report when
# the kernel is booted with slub_debug=FZPU); with it, the summary waits
# for the work to finish its removals.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_cgroup2_memory
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_uptime_cs() { awk '{ sub(/\./, "", $1); print $1 + 0 }' /proc/uptime; }
md_mkcg md_rrm md_rrm/kid
md_check "cgroups/ mirrors the parent and the child" md_wait_dir md_rrm/kid
idp=$(stat -c %i "$CG/md_rrm")
idk=$(stat -c %i "$CG/md_rrm/kid")
md_inject delay remove 2000000
hits0=$(md_delay_hits remove)
rmdir "$CG/md_rrm/kid"
# the child's memcg is freed: the work takes its entry and is held
md_check "the work was held with the child's entry taken" \
	md_poll 100 sh -c "[ \$(awk '\$1 == \"delay\" && \$2 == \"remove\" { print \$5 }' $MD/inject) -gt $hits0 ]"
t0=$(md_uptime_cs)
rmdir "$CG/md_rrm"
# each summary open reconciles: the first after the parent's memcg is
# freed takes the parent's entry and removes its directory, recursively
md_check "the parent's memcg is freed" md_wait_gone "$idp"
cat "$MD/summary" > /dev/null
t1=$(md_uptime_cs)
md_diag "the parent was gone $(((t1 - t0) * 10)) ms after its rmdir, the work held 2000 ms"
md_inject delay remove 0
md_check "the child's memcg is freed" md_unlisted "$idk"
md_check "cgroups/ has no directory of either" test ! -e "$MD/cgroups/md_rrm"
ls "$MD/cgroups" > /dev/null
for i in 1 2 3; do
	md_mkcg md_rrm md_rrm/kid
	md_wait_dir md_rrm/kid
	rmdir "$CG/md_rrm/kid" "$CG/md_rrm"
	cat "$MD/summary" > /dev/null
done
md_check "rmmod" md_unload
md_check "no kernel warning or oops" md_dmesg_clean
md_check "no slub_debug report (poison, redzone, double free)" \
	sh -c "! dmesg | grep -Eq 'Poison overwritten|Redzone overwritten|Object already free|Freepointer corrupt|Padding overwritten'"
md_finish
