// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroups as the kernel keeps them: the root memcg, the hierarchy
 * walk (dying memcgs included), a unit's live root, a memcg by path, and
 * the kernel's own counters (compat.h's md_counter) read exactly.  What differs
 * between kernels (where a memcg's counter sits) is compat.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mmzone.h>
#include <linux/percpu.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "compat.h"
#include "memcg.h"

DEFINE_PER_CPU(long, md_memcg_holds);
bool md_memcg_holds_closed;

/* The longest unloading waits for a window to end (a task inside it). */
#define MD_HOLDS_DRAIN_MS	10000

static long md_memcg_holds_sum(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(md_memcg_holds, cpu);
	return sum;
}

/*
 * Before the return probes go (unloading): a window's reference is put by
 * its return handler, which no longer runs once its probe is unregistered:
 * the memcg would never be freed.  So no window opens from now on, and
 * those open are waited for while their handlers can still run.  After
 * the closing, the counters only fall (a window may end on another CPU
 * than it began): a sum read as zero is zero.  A task that stays inside
 * longer (stopped by a debugger, say) keeps its memcg: said, not waited
 * for.
 */
void md_memcg_holds_drain(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(MD_HOLDS_DRAIN_MS);
	long held;

	if (!MD_KERNEL_REPARENTS)
		return;
	WRITE_ONCE(md_memcg_holds_closed, true);
	/* entry handlers run with preemption off: each saw the closing, or counted */
	synchronize_rcu();
	while ((held = md_memcg_holds_sum()) > 0) {
		if (time_after(jiffies, deadline)) {
			pr_warn("unloading while %ld task(s) stay inside folio cleaning or migration after %d ms: their memcgs stay referenced, never freed\n",
				held, MD_HOLDS_DRAIN_MS);
			return;
		}
		msleep(20);
	}
}

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

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "walking memcgs needs rcu_read_lock()");
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
	} while (next && !css_tryget(&next->css));
	rcu_read_unlock();
	if (pos)
		css_put(&pos->css);
	return next;
}

/*
 * The live memcg whose cgroup path (in its hierarchy, "/" for the root) is
 * @want, with a reference; NULL if there is none.  Process context.
 */
struct mem_cgroup *md_memcg_by_path(const char *want)
{
	struct mem_cgroup *root = md_root_memcg(), *pos = NULL, *found = NULL;
	char *path = kmalloc(PATH_MAX, GFP_KERNEL);

	if (!path)
		return NULL;
	rcu_read_lock();
	while ((pos = md_memcg_next(pos, root))) {
		if (cgroup_path(pos->css.cgroup, path, PATH_MAX) < PATH_MAX &&
		    !strcmp(path, want) && !css_is_dying(&pos->css) &&
		    css_tryget(&pos->css)) {
			found = pos;
			break;
		}
	}
	rcu_read_unlock();
	kfree(path);
	return found;
}

/*
 * The live memcg whose unit @memcg is in (see check.c): where the kernel
 * reparents, a dying memcg's folios count in its nearest live ancestor.
 * Caller holds rcu_read_lock() or a reference on @memcg.
 */
struct mem_cgroup *md_unit_root(struct mem_cgroup *memcg)
{
	while (MD_KERNEL_REPARENTS && css_is_dying(&memcg->css) && parent_mem_cgroup(memcg))
		memcg = parent_mem_cgroup(memcg);
	return memcg;
}

bool md_cgroup_v1(void)
{
	return md_root_memcg()->css.cgroup->root != &cgrp_dfl_root;
}

/*
 * The kernel's local per-node counter @c of a memcg, exact: the per-CPU
 * lruvec counters are cumulative (an rstat flush only advances its own
 * state_prev copy), so their sum is the value memory.stat would show after
 * a flush (v1 "dirty"), without the clamp to 0 the kernel's helpers apply.
 * Lockless and non-sleeping; a concurrent update is either in or out.
 */
long md_kernel_node(struct mem_cgroup *memcg, enum md_counter c, int nid)
{
	long __percpu *slot = md_kernel_slot(memcg, c, nid);
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(slot, cpu);
	return sum;
}

/*
 * Exact global counter @c: the nodes' atomic counters plus the per-CPU
 * deltas not yet folded in (global_node_page_state() leaves those out).
 */
long md_kernel_global(enum md_counter c)
{
	enum node_stat_item item = md_counter_items[c];
	long sum = 0;
	int nid, cpu;

	for_each_online_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		struct per_cpu_nodestat *pcp;

		sum += atomic_long_read(&pgdat->vm_stat[item]);
		for_each_online_cpu(cpu) {
			pcp = per_cpu_ptr(pgdat->per_cpu_nodestats, cpu);
			sum += pcp->vm_node_stat_diff[item];
		}
	}
	return sum;
}
