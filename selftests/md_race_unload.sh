#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the change work queued after unload cancelled it.  A freed memcg's
# probe tests md_stopping, then queues the work; a delay point holds that
# window open (1.5 s per free) while six removed cgroups are freed one
# by one and rmmod runs; the work sleeps 1.5 s before each pass, so a work
# item queued late outlives the unload's steps.  Without the fix it runs after
# its module's debugfs tree, or the module, is gone: a crash (or, on the
# debug kernel, a KASAN report).  With it rmmod waits for the one handler
# in the window, then for the work.  Against the old code this test has
# not yet failed (stock or debug kernel): the window opens, but the late
# work has always run before the module's memory went.  It guards the fix.
. ./lib.sh
md_require_writers
md_require_ko
N=6
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
cgs=
for i in $(seq $N); do cgs="$cgs md_ru$i"; done
md_mkcg $cgs
for c in $cgs; do md_wait_dir "$c" || md_not_ok "cgroups/$c appeared"; done
md_inject delay changed 1500000
# a late work item then outlives the unload's steps: it sleeps first
md_inject delay work 1500000
for c in $cgs; do rmdir "$CG/$c"; done
sleep 0.4
md_check "a freed memcg's probe is inside the window (hits $(md_delay_hits changed))" \
	test "$(md_delay_hits changed)" -ge 1
md_check "rmmod while the frees go on" md_unload
sleep $((N * 2 + 3))
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
md_finish
