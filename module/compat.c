// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-version dependent access to memory cgroups: where a memcg's
 * NR_FILE_DIRTY sits among its per-CPU counters (memcg.c reads them), a
 * cgroup's name, debugfs renames, and fault injection's change of the
 * kernel's counter.  Only exported functions are called, and only
 * directly: with IBT (Debian's 6.12) an unexported function's ENDBR is
 * sealed at boot, so calling one through a looked-up pointer traps.  Data
 * symbols are looked up and read (md_symbol_data()): from 6.11 the table
 * of a counter's slot in the memcg stat arrays, and bdi_list (domains.c).
 * On every kernel the slot is checked at load against the kernel's own
 * update of the counter (md_compat_init()).  And a probe point's entry
 * address, handed to ftrace as data (md_symbol_entry()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/kernfs.h>
#include <linux/kprobes.h>
#include "compat.h"
#include "memcg.h"

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

const enum node_stat_item md_counter_items[MD_NR_COUNTERS] = {
	[MD_C_DIRTY]	= NR_FILE_DIRTY,
	[MD_C_WRITEBACK] = NR_WRITEBACK,
};

const char * const md_counter_names[MD_NR_COUNTERS] = {
	[MD_C_DIRTY]	= "dirty",
	[MD_C_WRITEBACK] = "writeback",
};

/*
 * md_slots[c] is counter @c's slot in a memcg's per-node, per-CPU array,
 * found by md_slot_find() and checked by md_compat_init(); md_kernel_slot()
 * is where it is, on this kernel (memcg.c sums it).
 */
static unsigned int md_slots[MD_NR_COUNTERS];

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
/* struct lruvec_stats_percpu is in memcontrol.h, indexed by the stat item */
long __percpu *md_kernel_slot(struct mem_cgroup *memcg, enum md_counter c, int nid)
{
	return &memcg->nodeinfo[nid]->lruvec_stats_percpu->state[md_slots[c]];
}

static int md_slot_find(enum md_counter c, unsigned int shift)
{
	if (md_counter_items[c] + shift >= NR_VM_NODE_STAT_ITEMS)
		return -EINVAL;
	md_slots[c] = md_counter_items[c] + shift;
	return 0;
}
#else
/*
 * From 6.11 struct lruvec_stats_percpu is private to mm/memcontrol.c and
 * holds only the items memcgs track, in the order of memcg_node_stat_items[];
 * mem_cgroup_stats_index[] (u8, U8_MAX for untracked items) maps a stat item
 * to its slot.  state[] is the struct's first member.  The table is data, so
 * it is read, never called (md_symbol_data()).
 */
long __percpu *md_kernel_slot(struct mem_cgroup *memcg, enum md_counter c, int nid)
{
	long __percpu *state = (long __percpu *)memcg->nodeinfo[nid]->lruvec_stats_percpu;

	return &state[md_slots[c]];
}

/*
 * The table as 6.11 released it: the tracked items numbered 0..n-1, node
 * items first (their slots are the per-node array's), U8_MAX for the
 * rest.  6.11-rc numbered them from 1 with 0 for untracked (int8_t), and
 * a table read at a wrong address is no permutation either.  Returns how
 * many node items are tracked (the per-node array's length), or -EINVAL.
 */
static int md_stats_index_check(const u8 *index)
{
	DECLARE_BITMAP(seen, U8_MAX);
	unsigned int i, tracked = 0, node = 0;

	bitmap_zero(seen, U8_MAX);
	for (i = 0; i < MEMCG_NR_STAT; i++) {
		if (index[i] == U8_MAX)
			continue;
		if (index[i] >= MEMCG_NR_STAT || __test_and_set_bit(index[i], seen))
			return -EINVAL;
		tracked++;
		node += i < NR_VM_NODE_STAT_ITEMS;
	}
	if (!node || find_first_zero_bit(seen, U8_MAX) != tracked)
		return -EINVAL;		/* not 0..tracked-1 */
	for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
		if (index[i] != U8_MAX && index[i] >= node)
			return -EINVAL;	/* a node item past the node slots */
	return node;
}

static int md_slot_find(enum md_counter c, unsigned int shift)
{
	const u8 *index = md_symbol_data("mem_cgroup_stats_index");
	enum node_stat_item item = md_counter_items[c];
	int node;

	if (!index) {
		pr_err("cannot find mem_cgroup_stats_index (needs CONFIG_KALLSYMS_ALL): the kernel's per-memcg counter cannot be read\n");
		return -ENOENT;
	}
	node = md_stats_index_check(index);
	if (node < 0) {
		pr_err("mem_cgroup_stats_index is not the table this module reads (u8, slots 0..n-1, node items first, U8_MAX untracked): refusing to load\n");
		return -EINVAL;
	}
	if (index[item] == U8_MAX || index[item] + shift >= node) {
		pr_err("mem_cgroup_stats_index: the %s counter (item %d) has no slot among the %d per-node ones: refusing to load\n",
		       md_counter_names[c], item, node);
		return -EINVAL;
	}
	md_slots[c] = index[item] + shift;
	return 0;
}
#endif

/*
 * Fault injection's "skew": change @memcg's own counter @c on @nid and
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
 * The load's check of each counter's slot uses it too (md_compat_init()).
 * lruvec_stat_mod_folio() takes an int, and an undo of many skews can be
 * past 2^31 pages: it goes in int-sized steps (at most INT_MAX either way:
 * the kernel takes abs() of it), so that the memcg's counter comes back
 * exactly, as the node's (a long) does; a clamp would leave the rest in.
 */
void md_kernel_skew(struct mem_cgroup *memcg, enum md_counter c, int nid, long pages)
{
	enum node_stat_item item = md_counter_items[c];
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
	__mod_node_page_state(NODE_DATA(nid), item, -pages);
	for (; pages; pages -= step) {
		step = clamp(pages, -(long)INT_MAX, (long)INT_MAX);
		lruvec_stat_mod_folio(&stand_in, item, step);
	}
	local_irq_restore(flags);
}

/*
 * The slot read as counter @c must be the one the kernel's own update of
 * its item writes: md_kernel_skew() moves the root memcg's counter by
 * one page and back, through lruvec_stat_mod_folio(), on this CPU with
 * irqs off, where no other update of that per-CPU counter can come in
 * between, and the slot must have moved by exactly that page.  Whatever
 * the table's encoding, layout or address, a slot that is not the
 * kernel's fails here, before any value is read from it.
 */
static int md_slot_verify(enum md_counter c)
{
	struct mem_cgroup *root = md_root_memcg();
	int nid = first_online_node;
	unsigned long flags;
	long before, after;
	long *slot;

	local_irq_save(flags);
	slot = this_cpu_ptr(md_kernel_slot(root, c, nid));
	before = READ_ONCE(*slot);
	md_kernel_skew(root, c, nid, 1);
	after = READ_ONCE(*slot);
	md_kernel_skew(root, c, nid, -1);
	local_irq_restore(flags);
	if (after - before == 1)
		return 0;
	pr_err("the kernel's %s counter is not at slot %u of a memcg's per-node stats (an update of 1 page moved it by %ld): refusing to load\n",
	       md_counter_names[c], md_slots[c], after - before);
	return -EINVAL;
}

/*
 * Find each counter's slot and check it against the kernel's own update.
 * @shift (fault injection's slot_shift, else 0) reads a slot that far off,
 * which the check must refuse.
 */
int md_compat_init(unsigned int shift)
{
	enum md_counter c;
	int ret;

	for (c = 0; c < MD_NR_COUNTERS; c++) {
		ret = md_slot_find(c, shift);
		if (!ret)
			ret = md_slot_verify(c);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The address of the kernel's data @symbol, or NULL: a kprobe registration
 * that must fail (a kprobe cannot sit on data) resolves the symbol into
 * kp.addr first (kernel/kprobes.c, register_kprobe()).  One that succeeds
 * found text: not the data asked for.  Needs CONFIG_KALLSYMS_ALL, which
 * Debian's kernels have.  The caller checks what it finds there.
 */
void *md_symbol_data(const char *symbol)
{
	struct kprobe kp = { .symbol_name = symbol, .flags = KPROBE_FLAG_DISABLED };

	if (!register_kprobe(&kp)) {
		unregister_kprobe(&kp);
		return NULL;
	}
	return kp.addr;
}

/*
 * The address of @symbol, for ftrace_set_filter_ip(): ftrace_set_filter()
 * by name looks up the name of every traceable function (54,000 on 7.3:
 * 2.3 s of a load under TCG).  Resolved by a kprobe registered disabled,
 * so never armed, and read as data; 0 if the kernel has no such symbol.
 */
unsigned long md_symbol_entry(const char *symbol)
{
	struct kprobe kp = { .symbol_name = symbol, .flags = KPROBE_FLAG_DISABLED };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}
