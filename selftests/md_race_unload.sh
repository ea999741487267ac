#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the change work queued after unload cancelled it.  A freed memcg's
# probe tests md_stopping, then queues the work; a delay point holds that
# window open (300 ms per free) while a dozen removed cgroups are freed one
# by one and rmmod runs.  Without the fix the work runs after its module's
# debugfs tree, or the module, is gone: a crash (or, on the debug kernel, a
# KASAN report).  With it rmmod waits for the one handler in the window.
. ./lib.sh
md_require_writers
md_require_ko
N=12
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
cgs=
for i in $(seq $N); do cgs="$cgs md_ru$i"; done
md_mkcg $cgs
for c in $cgs; do md_wait_dir "$c" || md_not_ok "cgroups/$c appeared"; done
md_inject delay changed 300000
for c in $cgs; do rmdir "$CG/$c"; done
sleep 0.4
md_check "a freed memcg's probe is inside the window (hits $(md_delay_hits changed))" \
	test "$(md_delay_hits changed)" -ge 1
md_check "rmmod while the frees go on" md_unload
sleep $((N * 3 / 10 + 1))
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
md_finish
