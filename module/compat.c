// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-version dependent access to memory cgroups: the root memcg, the
 * hierarchy walk, and the kernel's own NR_FILE_DIRTY counters, read exactly
 * from their per-CPU parts.  Only exported functions are called, and only
 * directly: with IBT (Debian's 6.12) an unexported function's ENDBR is
 * sealed at boot, so calling one through a looked-up pointer traps.  One
 * symbol is looked up, as data: from 6.11 the slot of NR_FILE_DIRTY in the
 * memcg stat arrays (see md_compat_init()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/kernfs.h>
#include <linux/kprobes.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "compat.h"

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

/*
 * Whether the last component of @memcg's cgroup path is @name, read
 * without a lock (the kernel's cgroup_name() takes a lock that sleeps on
 * PREEMPT_RT): for fault injection's matches, in any context.  From 6.15 a
 * rename publishes the kernfs name with RCU.  Caller keeps @memcg alive.
 */
bool md_memcg_name_is(struct mem_cgroup *memcg, const char *name)
{
	struct kernfs_node *kn = memcg->css.cgroup->kn;
	bool same;

	rcu_read_lock();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
	same = !strcmp(rcu_dereference(kn->name), name);
#else
	same = !strcmp(kn->name, name);
#endif
	rcu_read_unlock();
	return same;
}

/* Rename @dentry in its directory: 0 or -errno. */
int md_debugfs_rename(struct dentry *dentry, const char *name)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
	return debugfs_change_name(dentry, "%s", name);
#else
	struct dentry *dir = dentry->d_parent;

	return PTR_ERR_OR_ZERO(debugfs_rename(dir, dentry, dir, name));
#endif
}

bool md_cgroup_v1(void)
{
	return md_root_memcg()->css.cgroup->root != &cgrp_dfl_root;
}

/*
 * The kernel's local per-node NR_FILE_DIRTY of a memcg, exact: the per-CPU
 * lruvec counters are cumulative (an rstat flush only advances its own
 * state_prev copy), so their sum is the value memory.stat would show after
 * a flush (v1 "dirty"), without the clamp to 0 the kernel's helpers apply.
 * Lockless and non-sleeping; a concurrent update is either in or out.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
/* struct lruvec_stats_percpu is in memcontrol.h, indexed by the stat item */
long __percpu *md_kernel_dirty_slot(struct mem_cgroup *memcg, int nid)
{
	return &memcg->nodeinfo[nid]->lruvec_stats_percpu->state[NR_FILE_DIRTY];
}

int md_compat_init(void)
{
	return 0;
}
#else
/*
 * From 6.11 struct lruvec_stats_percpu is private to mm/memcontrol.c and
 * holds only the items memcgs track, in the order of memcg_node_stat_items[];
 * mem_cgroup_stats_index[] (u8, U8_MAX for untracked items) maps a stat item
 * to its slot.  state[] is the struct's first member.  The table is data, so
 * it is read, never called: its address comes from a kprobe registration
 * that must fail (a kprobe cannot sit on data) but resolves the symbol into
 * kp.addr first (kernel/kprobes.c, register_kprobe()).  Needs
 * CONFIG_KALLSYMS_ALL, which Debian's kernels have.
 */
static unsigned int md_dirty_slot;

long __percpu *md_kernel_dirty_slot(struct mem_cgroup *memcg, int nid)
{
	long __percpu *state = (long __percpu *)memcg->nodeinfo[nid]->lruvec_stats_percpu;

	return &state[md_dirty_slot];
}

int md_compat_init(void)
{
	struct kprobe kp = { .symbol_name = "mem_cgroup_stats_index" };
	const u8 *index;
	int ret;

	ret = register_kprobe(&kp);
	if (!ret) {		/* text?  then it is not the table we know */
		unregister_kprobe(&kp);
		ret = -EINVAL;
		goto unknown;
	}
	if (!kp.addr)
		goto unknown;
	index = (const u8 *)kp.addr;
	if (index[NR_FILE_DIRTY] == U8_MAX)
		goto unknown;
	md_dirty_slot = index[NR_FILE_DIRTY];
	return 0;
unknown:
	pr_err("cannot find mem_cgroup_stats_index (%d; needs CONFIG_KALLSYMS_ALL): the kernel's per-memcg counter cannot be read\n",
	       ret);
	return -ENOENT;
}
#endif

long md_kernel_dirty_node(struct mem_cgroup *memcg, int nid)
{
	long __percpu *slot = md_kernel_dirty_slot(memcg, nid);
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(slot, cpu);
	return sum;
}

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
 * Fault injection's "skew": change @memcg's own NR_FILE_DIRTY on @nid and
 * leave the node's (global) counter alone, the shape of a memcg accounting
 * bug.  The only exported function that updates a memcg's stats takes a
 * folio charged to it (lruvec_stat_mod_folio(); before 6.19 an inline
 * wrapper of an exported one) and updates the node's counter too.  So it
 * is handed a stand-in folio that lives on this stack, whose only state is
 * its memcg and node, and the node's share is taken back with
 * __mod_node_page_state().  From 7.1 a folio is charged to an obj_cgroup
 * that names its memcg (rmdir repoints it to the parent), so the stand-in
 * gets a stand-in obj_cgroup too.  Both calls are direct calls of exported
 * functions: nothing unexported is called (IBT seals those).  Any context.
 * lruvec_stat_mod_folio() takes an int, and an undo of many skews can be
 * past 2^31 pages: it goes in int-sized steps (at most INT_MAX either way:
 * the kernel takes abs() of it), so that the memcg's counter comes back
 * exactly, as the node's (a long) does; a clamp would leave the rest in.
 */
void md_kernel_skew(struct mem_cgroup *memcg, int nid, long pages)
{
	struct folio stand_in;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
	struct obj_cgroup objcg;
#endif
	unsigned long flags;
	long step;

	memset(&stand_in, 0, sizeof(stand_in));
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
	memset(&objcg, 0, sizeof(objcg));
	objcg.memcg = memcg;
	stand_in.memcg_data = (unsigned long)&objcg;
#else
	stand_in.memcg_data = (unsigned long)memcg;
#endif
	set_page_node(&stand_in.page, nid);
	local_irq_save(flags);
	__mod_node_page_state(NODE_DATA(nid), NR_FILE_DIRTY, -pages);
	for (; pages; pages -= step) {
		step = clamp(pages, -(long)INT_MAX, (long)INT_MAX);
		lruvec_stat_mod_folio(&stand_in, NR_FILE_DIRTY, step);
	}
	local_irq_restore(flags);
}
