// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-version dependent access to memory cgroups: the root memcg, the
 * hierarchy walk, and the kernel's own per-memcg NR_FILE_DIRTY counter.
 * Only exported interfaces and header-visible structures are used, so the
 * module links without kallsyms tricks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/sched/task.h>
#include "compat.h"
#include "memcg_dirty.h"

/* The root memcg never goes away; init_task always lives in the root cgroup. */
struct mem_cgroup *md_root_memcg(void)
{
	struct mem_cgroup *memcg;

	rcu_read_lock();
	memcg = mem_cgroup_from_task(&init_task);
	rcu_read_unlock();
	return memcg;
}

/*
 * Pre-order walk of @root's subtree, dying (offline, not yet released)
 * memcgs included.  Caller holds rcu_read_lock(); @pos may be NULL to start.
 * Like mem_cgroup_iter(), but without its shared iterator state.
 */
struct mem_cgroup *md_memcg_next(struct mem_cgroup *pos,
				 struct mem_cgroup *root)
{
	struct cgroup_subsys_state *css;

	css = css_next_descendant_pre(pos ? &pos->css : NULL, &root->css);
	return css ? mem_cgroup_from_css(css) : NULL;
}

bool md_memcg_tryget(struct mem_cgroup *memcg)
{
	return css_tryget(&memcg->css);
}

void md_memcg_put(struct mem_cgroup *memcg)
{
	css_put(&memcg->css);
}

struct mem_cgroup *md_memcg_parent(struct mem_cgroup *memcg)
{
	return parent_mem_cgroup(memcg);
}

bool md_memcg_dying(struct mem_cgroup *memcg)
{
	return css_is_dying(&memcg->css);
}

u64 md_memcg_cgid(struct mem_cgroup *memcg)
{
	return cgroup_id(memcg->css.cgroup);
}

/* Path inside the memory hierarchy ("/" for the root); never sleeps. */
int md_memcg_path(struct mem_cgroup *memcg, char *buf, size_t len)
{
	return cgroup_path(memcg->css.cgroup, buf, len);
}

bool md_cgroup_v1(void)
{
	return md_root_memcg()->css.cgroup->root != &cgrp_dfl_root;
}

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
/*
 * The kernel's local per-node value, exact: the per-CPU lruvec counters are
 * cumulative, so their sum is the value memory.stat would show after a flush
 * (v1 "dirty"), without the clamp to 0 that the kernel's helpers apply.
 * Lockless and non-sleeping; a concurrent update is either in or out.
 */
long md_kernel_dirty_node(struct mem_cgroup *memcg, int nid)
{
	struct mem_cgroup_per_node *pn = memcg->nodeinfo[nid];
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(pn->lruvec_stats_percpu->state[NR_FILE_DIRTY], cpu);
	return sum;
}
#else
#error "memcg_dirty: from 6.6 the per-memcg counter needs an rstat flush: not implemented"
#endif

long md_kernel_dirty_global(void)
{
	return global_node_page_state(NR_FILE_DIRTY);
}
