/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/debug/memcg_dirty/cgroups/: the memcg mirror, and its upkeep. */
#ifndef MEMCG_DIRTY_CGROUPS_H
#define MEMCG_DIRTY_CGROUPS_H

struct dentry;

void md_cgroups_init(void);
void md_cgroups_create(struct dentry *root);
void md_cgroups_reconcile(void);
void md_cgroups_stop(void);
void md_cgroups_exit(void);

#endif /* MEMCG_DIRTY_CGROUPS_H */
