// SPDX-License-Identifier: GPL-2.0
/*
 * md_floor: the cost floor of memcg_dirty's probe points, for the
 * benchmarks only.  It attaches to the same points the same way (the
 * writeback_dirty_folio tracepoint, an ftrace callback on
 * folio_account_cleaned and a kretprobe on folio_clear_dirty_for_io) with
 * handlers that only count their hits, so that loaded minus unloaded is
 * what attaching costs and memcg_dirty's own handlers are what it adds on
 * top.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>

static DEFINE_PER_CPU(unsigned long, md_floor_hits);

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

static struct tracepoint *md_floor_tp_point;

static void md_floor_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "writeback_dirty_folio"))
		md_floor_tp_point = tp;
}

static int __init md_floor_init(void)
{
	int ret;

	for_each_kernel_tracepoint(md_floor_find, NULL);
	if (!md_floor_tp_point) {
		pr_err("no writeback_dirty_folio tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(md_floor_tp_point, md_floor_tp, NULL);
	if (ret) {
		pr_err("tracepoint: %d\n", ret);
		return ret;
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
	return 0;
out_kp:
	unregister_ftrace_function(&md_floor_ops);
	ftrace_free_filter(&md_floor_ops);
out_tp:
	tracepoint_probe_unregister(md_floor_tp_point, md_floor_tp, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

static void __exit md_floor_exit(void)
{
	unsigned long hits = 0;
	int cpu;

	unregister_kretprobe(&md_floor_krp);
	unregister_ftrace_function(&md_floor_ops);
	ftrace_free_filter(&md_floor_ops);
	tracepoint_probe_unregister(md_floor_tp_point, md_floor_tp, NULL);
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu)
		hits += per_cpu(md_floor_hits, cpu);
	pr_info("%lu hits\n", hits);
}

module_init(md_floor_init);
module_exit(md_floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memcg_dirty benchmarks: its probe points with empty handlers");
