/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/debug/memcg_dirty/: every file and directory, and their upkeep. */
#ifndef MEMCG_DIRTY_DEBUGFS_H
#define MEMCG_DIRTY_DEBUGFS_H

int md_debugfs_init(void);
void md_debugfs_stop(void);
void md_debugfs_exit(void);

#endif /* MEMCG_DIRTY_DEBUGFS_H */
