// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-version dependent access to memory cgroups: the root memcg, the
 * hierarchy walk, and the kernel's own per-memcg NR_FILE_DIRTY counter.
 * Only exported interfaces and header-visible structures are used, so the
 * module links without kallsyms tricks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/kprobes.h>
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

/*
 * Walk every memcg, dying ones included, holding a reference on the one
 * returned (dropped on the next call), so the caller may sleep in between.
 */
struct mem_cgroup *md_memcg_walk(struct mem_cgroup *pos)
{
	struct mem_cgroup *next = pos;

	rcu_read_lock();
	do {
		next = md_memcg_next(next, md_root_memcg());
	} while (next && !md_memcg_tryget(next));
	rcu_read_unlock();
	if (pos)
		md_memcg_put(pos);
	return next;
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

/*
 * Exact global NR_FILE_DIRTY: the nodes' atomic counters plus the per-CPU
 * deltas not yet folded in (global_node_page_state() leaves those out).
 */
long md_kernel_dirty_global(void)
{
	long sum = 0;
	int nid, cpu;

	for_each_online_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		struct per_cpu_nodestat *pcp;

		sum += atomic_long_read(&pgdat->vm_stat[NR_FILE_DIRTY]);
		for_each_online_cpu(cpu) {
			pcp = per_cpu_ptr(pgdat->per_cpu_nodestats, cpu);
			sum += pcp->vm_node_stat_diff[NR_FILE_DIRTY];
		}
	}
	return sum;
}

/*
 * Unexported kernel functions, for the hierarchical cross-check and fault
 * injection only: found through kallsyms_lookup_name(), itself found by
 * registering a kprobe on it.  Missing ones leave those features off.
 */
static unsigned long (*md_kallsyms_lookup_name)(const char *name);
static void (*md_rstat_flush)(struct cgroup *cgrp);
static unsigned long (*md_memcg_page_state)(struct mem_cgroup *memcg, int idx);
static void (*md_mod_memcg_lruvec)(struct lruvec *lruvec, enum node_stat_item idx,
				   int val);

static unsigned long md_lookup(const char *name)
{
	return md_kallsyms_lookup_name ? md_kallsyms_lookup_name(name) : 0;
}

void md_compat_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;

	if (register_kprobe(&kp))
		return;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* with IBT the probe sits after the ENDBR64 at the entry */
	if (!memcmp((void *)addr - 4, "\xf3\x0f\x1e\xfa", 4))
		addr -= 4;
	md_kallsyms_lookup_name = (void *)addr;
	md_rstat_flush = (void *)md_lookup("cgroup_rstat_flush");
	md_memcg_page_state = (void *)md_lookup("memcg_page_state");
	md_mod_memcg_lruvec = (void *)md_lookup("__mod_memcg_lruvec_state");
}

bool md_kernel_hier_available(void)
{
	return md_rstat_flush && md_memcg_page_state;
}

/* Flush the rstat tree (may sleep): hierarchical values become exact. */
void md_kernel_flush(void)
{
	if (md_rstat_flush)
		md_rstat_flush(md_root_memcg()->css.cgroup);
}

/* memory.stat's hierarchical file_dirty (v1 total_dirty), clamped at 0. */
long md_kernel_dirty_hier_flushed(struct mem_cgroup *memcg)
{
	return md_memcg_page_state ? md_memcg_page_state(memcg, NR_FILE_DIRTY) : -1;
}

bool md_kernel_skew_available(void)
{
	return md_mod_memcg_lruvec;
}

/*
 * Change the memcg's own NR_FILE_DIRTY on @nid through the kernel's stat
 * update function, leaving the node's (global) counter alone: the shape of
 * a memcg accounting bug.  Fault injection only.  Any context.
 */
void md_kernel_skew(struct mem_cgroup *memcg, int nid, long pages)
{
	unsigned long flags;

	if (!md_mod_memcg_lruvec)
		return;
	local_irq_save(flags);
	md_mod_memcg_lruvec(&memcg->nodeinfo[nid]->lruvec, NR_FILE_DIRTY, pages);
	local_irq_restore(flags);
}
