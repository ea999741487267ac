#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: a parent without a ledger entry was taken for the root memcg, so
# its child's directory became cgroups/ itself; freeing the child then
# removed the whole tree.  Fault injection fails the parent's entry (as an
# allocation failure would): the child must wait for its parent's
# directory, cgroups/ must survive the child's removal, and once the
# parent's entry can be made both directories appear where they belong.
. ./lib.sh
md_require_writers
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_inject nomem md_pn 1000000
md_mkcg md_pn md_pn/kid
cat "$MD/summary" > /dev/null
md_check "the parent has no directory while its entry fails" test ! -e "$MD/cgroups/md_pn"
md_check "cgroups/ is still the root's directory" test -e "$MD/cgroups/stat"
md_check "the child is not put in cgroups/ itself" test ! -e "$MD/cgroups/kid"
md_rmcg md_pn/kid
sleep 1
cat "$MD/summary" > /dev/null
md_check "cgroups/ survives the child's removal" test -e "$MD/cgroups/stat"
md_mkcg md_pn/kid2
md_inject nomem md_pn 0
md_check "the parent's directory appears once its entry can be made" md_wait_dir md_pn
md_check "the child's appears inside it" md_wait_dir md_pn/kid2
md_check "root stat readable" test -n "$(md_stat "" dirty)"
md_rmcg md_pn/kid2 md_pn
md_check "rmmod" md_unload
md_check "no kernel warning" md_dmesg_clean
md_finish
