/* SPDX-License-Identifier: GPL-2.0 */
/* Memory cgroups: the hierarchy walk and the kernel's counters (memcg.c). */
#ifndef MEMCG_DIRTY_MEMCG_H
#define MEMCG_DIRTY_MEMCG_H

#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include "compat.h"

struct mem_cgroup *md_root_memcg(void);
struct mem_cgroup *md_memcg_next(struct mem_cgroup *pos,
				 struct mem_cgroup *root);
struct mem_cgroup *md_memcg_walk(struct mem_cgroup *pos);
struct mem_cgroup *md_unit_root(struct mem_cgroup *memcg);
struct mem_cgroup *md_memcg_by_path(const char *want);
bool md_cgroup_v1(void);
long md_kernel_node(struct mem_cgroup *memcg, enum md_counter c, int nid);
long md_kernel_global(enum md_counter c);

/*
 * How many memcgs the return probes' windows hold (7.1 on), and whether
 * they may still take one: see md_memcg_holds_drain().
 */
DECLARE_PER_CPU(long, md_memcg_holds);
extern bool md_memcg_holds_closed;
void md_memcg_holds_drain(void);

/*
 * The memcg of a locked @folio, held from a return probe's entry handler
 * to its return handler (md_folio_memcg_drop()), or NULL if uncharged.
 * Before 7.1 the lock is enough: a charged folio holds a reference on its
 * memcg.  From 7.1 it holds one on an obj_cgroup instead, which the
 * offlining of a removed memcg repoints to the parent at any moment: the
 * memcg read at entry can then be released and freed, and its ledger
 * entry with it, while the task sleeps or is preempted inside the call.
 * There it is pinned.  A memcg with no reference left was offlined, which
 * repointed the folio first: read again, as get_mem_cgroup_from_folio()
 * does.  Once unloading began (md_memcg_holds_closed) no window opens:
 * false, and the caller leaves the call alone.  Probe handlers (RCU
 * readers, preemption off).
 */
static __always_inline bool md_folio_memcg_hold(struct folio *folio,
						struct mem_cgroup **memcg)
{
	if (!MD_KERNEL_REPARENTS) {
		*memcg = folio_memcg(folio);
		return true;
	}
	if (unlikely(READ_ONCE(md_memcg_holds_closed))) {
		*memcg = NULL;
		return false;
	}
	do {
		*memcg = folio_memcg(folio);
	} while (*memcg && unlikely(!css_tryget(&(*memcg)->css)));
	if (*memcg)
		this_cpu_inc(md_memcg_holds);
	return true;
}

/* The end of the window md_folio_memcg_hold() opened (@memcg may be NULL). */
static __always_inline void md_folio_memcg_drop(struct mem_cgroup *memcg)
{
	if (MD_KERNEL_REPARENTS && memcg) {
		css_put(&memcg->css);
		this_cpu_dec(md_memcg_holds);
	}
}

#endif /* MEMCG_DIRTY_MEMCG_H */
