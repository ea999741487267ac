/* SPDX-License-Identifier: GPL-2.0 */
/* Memory cgroups: the hierarchy walk and the kernel's counters (memcg.c). */
#ifndef MEMCG_DIRTY_MEMCG_H
#define MEMCG_DIRTY_MEMCG_H

#include <linux/memcontrol.h>

struct mem_cgroup *md_root_memcg(void);
struct mem_cgroup *md_memcg_next(struct mem_cgroup *pos,
				 struct mem_cgroup *root);
struct mem_cgroup *md_memcg_walk(struct mem_cgroup *pos);
struct mem_cgroup *md_unit_root(struct mem_cgroup *memcg);
struct mem_cgroup *md_memcg_by_path(const char *want);
bool md_cgroup_v1(void);
long md_kernel_dirty_node(struct mem_cgroup *memcg, int nid);
long md_kernel_dirty_global(void);

#endif /* MEMCG_DIRTY_MEMCG_H */
