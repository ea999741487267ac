#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: a fault-injection skew of a cgroup removed later stayed in the
# kernel's counters for good: its memcg's stats are flushed into the
# parent's when it is released, skew included, and that value feeds dirty
# throttling.  A skew of a child is undone when the child goes offline: the
# parent's memory.stat file_dirty returns to what it was.
. ./lib.sh
md_require_writers
md_require_ko
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_mkcg md_iu md_iu/kid
md_wait_dir md_iu/kid
sync
base=$(md_memstat md_iu file_dirty)
id=$(stat -c %i "$CG/md_iu/kid")
md_inject skew /md_iu/kid 100
md_eq "the skew shows in the parent's memory.stat" $((base + 409600)) "$(md_memstat_settled md_iu $((base + 409600)))"
rmdir "$CG/md_iu/kid"
md_check "the child's memcg is freed" md_wait_gone "$id"
md_eq "the parent's file_dirty is back where it was" "$base" "$(md_memstat_settled md_iu "$base")"
md_rmcg md_iu
md_check "rmmod" md_unload
md_finish
