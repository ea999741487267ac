#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: md_reconcile listed fresh entries, then took dead ones.  An entry
# made and freed in between was freed while still on md_fresh, and the next
# listing walked freed memory.  A delay point holds the gap open (2 s) while
# a cgroup is made, dirties a page (its entry comes from the pool by a
# probe), loses it and is freed.  Then every path that lists entries runs.
# Without the fix: list corruption or a KASAN use-after-free on the debug
# kernel; with it, the entry is listed first and freed by the next pass.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_inject delay reconcile 2000000
cat "$MD/summary" > /dev/null &	# a reconcile, held inside the gap
reader=$!
sleep 0.3
md_mkcg md_rr
md_in_cg md_rr mdfile write "$W/f" 4
id=$(stat -c %i "$CG/md_rr")	# the cgroup id (no summary now: it would wait)
rm -f "$W/f"
rmdir "$CG/md_rr"
wait $reader
md_inject delay reconcile 0
md_check "the reconcile was held in the gap ($(md_delay_hits reconcile) holds)" \
	test "$(md_delay_hits reconcile)" -ge 1
sync
md_check "the removed cgroup's memcg is freed" md_wait_gone "${id:-0}"
for i in 1 2 3; do
	cat "$MD/summary" "$MD/check" > /dev/null
	echo scan > "$MD/control"
done
md_check "rmmod" md_unload
md_check "no kernel warning, oops or KASAN report" md_dmesg_clean
md_finish
