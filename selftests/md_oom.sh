#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory pressure and a memcg OOM kill in a cgroup full of dirty pages: no
# crash, and ledger, kernel and scan agree afterwards.
. ./lib.sh
md_require_writers
md_require_module
W=$MD_WORK
md_mkcg md_oom
md_wait_dir md_oom
echo 48M > "$CG/md_oom/memory.max"
echo 0 > "$CG/md_oom/memory.swap.max" 2>/dev/null
md_in_cg md_oom mdfile mmapnosync "$W/f" 8192		# 32 MiB dirty through a mapping
md_in_cg md_oom mdfile hog 96
rc=$?
oom=$(awk '$1 == "oom_kill" { print $2 }' "$CG/md_oom/memory.events")
md_check "the hog was OOM-killed (exit $rc, oom_kill $oom)" test "$rc" -ne 0 -a "${oom:-0}" -ge 1
md_check "after the OOM: ledger equals kernel" md_agree md_oom
md_eq "after the OOM: check ok" ok "$(md_chk md_oom verdict)"
sync
md_eq "after sync: 0" "0 0" "$(md_stat md_oom dirty) $(md_stat md_oom kernel_dirty)"
md_check "no kernel warnings" md_dmesg_clean
rm -rf "$W"
sync
md_rmcg md_oom
md_finish
