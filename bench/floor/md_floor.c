// SPDX-License-Identifier: GPL-2.0
/*
 * md_floor: the cost floor of memcg_dirty's probe points, for the
 * benchmarks only.  It attaches to the same points the same way (the
 * writeback_dirty_folio tracepoint, an ftrace callback on
 * folio_account_cleaned, a kretprobe on folio_clear_dirty_for_io, and the
 * writeback counter's kretprobes on __folio_start_writeback and
 * __folio_end_writeback) with handlers that only count their hits, so that loaded minus unloaded is
 * what attaching costs and memcg_dirty's own handlers are what it adds on
 * top.
 *
 * With count=1 the handlers count instead what an exact count of dirty
 * pages per memcg and node cannot do without: the kernel's own test of
 * whether the mapping accounts dirty pages, the folio's memcg, a hash
 * lookup of its entry, the folio's node and size, one per-CPU add (for
 * writeback: the folio at the entry, the add at the return, in the
 * writeback pages of the entry).
 * Nothing of what memcg_dirty does on top (its hit counters, the event
 * sequence and in-flight windows its checks need, the v1 move check, the
 * memcg held over a return probe's window on 7.1 and later, the watch, the
 * shadow, fault injection), so what that costs over the bare probes is
 * the least any handler exact per memcg could cost.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include "compat.h"

static bool count;
module_param(count, bool, 0444);
MODULE_PARM_DESC(count, "count pages per memcg and node (default: only count hits)");

static DEFINE_PER_CPU(unsigned long, md_floor_hits);

/* --- count=1 ---------------------------------------------------------- */

#define MD_FLOOR_HASH_BITS	12	/* as memcg_dirty's ledger */

/*
 * An entry for each memcg that existed at load, made before the probes
 * are attached and freed after they are gone, so the handlers walk the
 * buckets without a lock.  The memcg is a key only, never dereferenced:
 * one freed meanwhile costs nothing but a wrong count.
 */
struct md_floor_entry {
	struct hlist_node hash;
	struct mem_cgroup *memcg;
	long __percpu *pages;	/* dirty, per node */
	long __percpu *wb;	/* under writeback, per node */
};

static struct hlist_head md_floor_hash[1 << MD_FLOOR_HASH_BITS];
static struct md_floor_entry *md_floor_entries;
static unsigned int md_floor_nr_entries;
/* pages of a memcg born after load, or of none */
static DEFINE_PER_CPU(long, md_floor_unknown);

static __always_inline struct md_floor_entry *md_floor_lookup(struct folio *folio)
{
	struct mem_cgroup *memcg = folio_memcg(folio);
	struct md_floor_entry *e;

	hlist_for_each_entry(e, &md_floor_hash[hash_ptr(memcg, MD_FLOOR_HASH_BITS)], hash)
		if (e->memcg == memcg)
			return e;
	return NULL;
}

static __always_inline void md_floor_count(struct folio *folio, long pages)
{
	struct md_floor_entry *e = md_floor_lookup(folio);

	if (e)
		this_cpu_add(e->pages[folio_nid(folio)], pages);
	else
		this_cpu_add(md_floor_unknown, pages);
}

static void md_floor_tp_count(void *data, struct folio *folio,
			      struct address_space *mapping)
{
	if (md_mapping_accounts_dirty(mapping))
		md_floor_count(folio, folio_nr_pages(folio));
}

static void notrace md_floor_ftrace_count(unsigned long ip, unsigned long parent_ip,
					  struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct folio *folio = (struct folio *)md_fregs_arg(fregs, 0);

	preempt_disable_notrace();
	md_floor_count(folio, -folio_nr_pages(folio));
	preempt_enable_notrace();
}

struct md_floor_clear_io {
	struct folio *folio;
	bool accounts;
};

/* The folio is locked over the call: its mapping, memcg and node stay. */
static int md_floor_entry_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_floor_clear_io *d = (void *)ri->data;

	d->folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	d->accounts = md_mapping_accounts_dirty(folio_mapping(d->folio));
	return 0;
}

static int md_floor_ret_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_floor_clear_io *d = (void *)ri->data;

	if (d->accounts && (u8)regs_return_value(regs))
		md_floor_count(d->folio, -folio_nr_pages(d->folio));
	return 0;
}

/*
 * The writeback counter's: the folio's entry at the call's entry, the
 * count after the kernel's at its return, in irq-safe per-CPU adds (an
 * end may run in an interrupt).  Both kernels' start returns whether it
 * counted before 6.8 (compat.h), the end likewise.
 */
struct md_floor_wb {
	struct folio *folio;
	struct md_floor_entry *e;
};

static int md_floor_wb_entry_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_floor_wb *d = (void *)ri->data;

	d->folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	d->e = md_floor_lookup(d->folio);
	return 0;
}

static __always_inline void md_floor_wb_count(struct md_floor_wb *d, long pages)
{
	if (d->e)
		this_cpu_add(d->e->wb[folio_nid(d->folio)], pages);
	else
		this_cpu_add(md_floor_unknown, pages);
}

static int md_floor_wb_started_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_floor_wb *d = (void *)ri->data;

	if (!MD_WB_RET_SAYS_COUNTED || !(u8)regs_return_value(regs))
		md_floor_wb_count(d, folio_nr_pages(d->folio));
	return 0;
}

static int md_floor_wb_ended_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_floor_wb *d = (void *)ri->data;

	if (!MD_WB_RET_SAYS_COUNTED || (u8)regs_return_value(regs))
		md_floor_wb_count(d, -folio_nr_pages(d->folio));
	return 0;
}

/* Every memcg there is now, from the root down. */
static unsigned int md_floor_walk(struct md_floor_entry *fill, unsigned int max)
{
	struct cgroup_subsys_state *root, *css = NULL;
	unsigned int n = 0;

	rcu_read_lock();
	root = &mem_cgroup_from_task(&init_task)->css;
	while (n < max && (css = css_next_descendant_pre(css, root))) {
		if (fill)
			fill[n].memcg = mem_cgroup_from_css(css);
		n++;
	}
	rcu_read_unlock();
	return n;
}

static int md_floor_entries_make(void)
{
	unsigned int i, n = md_floor_walk(NULL, UINT_MAX) + 16;	/* and some born meanwhile */

	md_floor_entries = kcalloc(n, sizeof(*md_floor_entries), GFP_KERNEL);
	if (!md_floor_entries)
		return -ENOMEM;
	md_floor_nr_entries = md_floor_walk(md_floor_entries, n);
	for (i = 0; i < md_floor_nr_entries; i++) {
		struct md_floor_entry *e = &md_floor_entries[i];

		e->pages = __alloc_percpu(nr_node_ids * sizeof(long), __alignof__(long));
		e->wb = __alloc_percpu(nr_node_ids * sizeof(long), __alignof__(long));
		if (!e->pages || !e->wb)
			return -ENOMEM;
		hlist_add_head(&e->hash, &md_floor_hash[hash_ptr(e->memcg, MD_FLOOR_HASH_BITS)]);
	}
	return 0;
}

/*
 * What was counted, in pages: dirtied minus cleaned, and started minus
 * ended, summed over all.
 */
static long md_floor_entries_free(void)
{
	long pages = 0;
	unsigned int i;
	int cpu, nid;

	for (i = 0; i < md_floor_nr_entries; i++) {
		struct md_floor_entry *e = &md_floor_entries[i];

		if (!e->pages)
			break;
		for_each_possible_cpu(cpu)
			for_each_node(nid)
				pages += per_cpu_ptr(e->pages, cpu)[nid] +
					 (e->wb ? per_cpu_ptr(e->wb, cpu)[nid] : 0);
		free_percpu(e->pages);
		free_percpu(e->wb);
	}
	kfree(md_floor_entries);
	for_each_possible_cpu(cpu)
		pages += per_cpu(md_floor_unknown, cpu);
	return pages;
}

/* --- count=0: hits only ------------------------------------------------ */

static void md_floor_tp(void *data, struct folio *folio, struct address_space *mapping)
{
	this_cpu_inc(md_floor_hits);
}

static void notrace md_floor_ftrace(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	preempt_disable_notrace();
	this_cpu_inc(md_floor_hits);
	preempt_enable_notrace();
}

static int md_floor_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_inc(md_floor_hits);
	return 0;
}

/* ftrace_set_filter() takes a writable buffer */
static unsigned char md_floor_cleaned[] = "folio_account_cleaned";

static struct ftrace_ops md_floor_ops = {
	.func	= md_floor_ftrace,
	.flags	= FTRACE_OPS_FL_PERMANENT,
};

static struct kretprobe md_floor_krp = {
	.kp.symbol_name	= "folio_clear_dirty_for_io",
	.handler	= md_floor_ret,
	.maxactive	= 64,
};

/* an end may run in an interrupt, on top of a start: more instances */
static struct kretprobe md_floor_wb_krps[] = {
	{ .kp.symbol_name = "__folio_start_writeback", .handler = md_floor_ret,
	  .maxactive = 256 },
	{ .kp.symbol_name = "__folio_end_writeback", .handler = md_floor_ret,
	  .maxactive = 256 },
};

static struct kretprobe *md_floor_wb_krp_ptrs[] = {
	&md_floor_wb_krps[0], &md_floor_wb_krps[1],
};

static struct tracepoint *md_floor_tp_point;

static void md_floor_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "writeback_dirty_folio"))
		md_floor_tp_point = tp;
}

static void *md_floor_tp_probe;

static int __init md_floor_init(void)
{
	int ret;

	for_each_kernel_tracepoint(md_floor_find, NULL);
	if (!md_floor_tp_point) {
		pr_err("no writeback_dirty_folio tracepoint\n");
		return -ENOENT;
	}
	md_floor_tp_probe = md_floor_tp;
	if (count) {
		ret = md_floor_entries_make();
		if (ret) {
			pr_err("entries: %d\n", ret);
			goto out_entries;
		}
		md_floor_tp_probe = md_floor_tp_count;
		md_floor_ops.func = md_floor_ftrace_count;
		md_floor_krp.entry_handler = md_floor_entry_count;
		md_floor_krp.handler = md_floor_ret_count;
		md_floor_krp.data_size = sizeof(struct md_floor_clear_io);
		md_floor_wb_krps[0].entry_handler = md_floor_wb_entry_count;
		md_floor_wb_krps[0].handler = md_floor_wb_started_count;
		md_floor_wb_krps[1].entry_handler = md_floor_wb_entry_count;
		md_floor_wb_krps[1].handler = md_floor_wb_ended_count;
		md_floor_wb_krps[0].data_size = sizeof(struct md_floor_wb);
		md_floor_wb_krps[1].data_size = sizeof(struct md_floor_wb);
	}
	ret = tracepoint_probe_register(md_floor_tp_point, md_floor_tp_probe, NULL);
	if (ret) {
		pr_err("tracepoint: %d\n", ret);
		goto out_entries;
	}
	ret = ftrace_set_filter(&md_floor_ops, md_floor_cleaned, strlen(md_floor_cleaned), 1);
	if (!ret)
		ret = register_ftrace_function(&md_floor_ops);
	if (ret) {
		pr_err("ftrace on %s: %d\n", md_floor_cleaned, ret);
		ftrace_free_filter(&md_floor_ops);
		goto out_tp;
	}
	ret = register_kretprobe(&md_floor_krp);
	if (ret) {
		pr_err("kretprobe %s: %d\n", md_floor_krp.kp.symbol_name, ret);
		goto out_kp;
	}
	ret = register_kretprobes(md_floor_wb_krp_ptrs, ARRAY_SIZE(md_floor_wb_krp_ptrs));
	if (ret) {
		pr_err("kretprobes on the writeback start and end: %d\n", ret);
		goto out_krp;
	}
	return 0;
out_krp:
	unregister_kretprobe(&md_floor_krp);
out_kp:
	unregister_ftrace_function(&md_floor_ops);
	ftrace_free_filter(&md_floor_ops);
out_tp:
	tracepoint_probe_unregister(md_floor_tp_point, md_floor_tp_probe, NULL);
	tracepoint_synchronize_unregister();
out_entries:
	if (count)
		md_floor_entries_free();
	return ret;
}

static void __exit md_floor_exit(void)
{
	unsigned long hits = 0;
	int cpu;

	unregister_kretprobes(md_floor_wb_krp_ptrs, ARRAY_SIZE(md_floor_wb_krp_ptrs));
	unregister_kretprobe(&md_floor_krp);
	unregister_ftrace_function(&md_floor_ops);
	ftrace_free_filter(&md_floor_ops);
	tracepoint_probe_unregister(md_floor_tp_point, md_floor_tp_probe, NULL);
	tracepoint_synchronize_unregister();
	if (count) {
		pr_info("%ld pages dirty\n", md_floor_entries_free());
		return;
	}
	for_each_possible_cpu(cpu)
		hits += per_cpu(md_floor_hits, cpu);
	pr_info("%lu hits\n", hits);
}

module_init(md_floor_init);
module_exit(md_floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memcg_dirty benchmarks: its probe points with empty or counting-only handlers");
