// SPDX-License-Identifier: GPL-2.0
/*
 * How each layer's state reads in debugfs (the debugfs layer, beside
 * debugfs.c, which owns the files): the watch, the anomaly log, the
 * shadow's lists and fault injection fill structs or hand out their
 * records, and are printed here, as mm/vmstat.c fills with
 * fill_contig_page_info() and prints apart.  Process context, a debugfs
 * reader's.  No kernel addresses: call chains are symbolized (%pS).
 */
#include <linux/cpumask.h>
#include <linux/kdev_t.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "anomaly.h"
#include "inject_hooks.h"
#include "inject.h"
#include "points.h"
#include "shadow.h"
#include "show.h"
#include "watch.h"

/* The first line of the watch file: what is watched, and what was seen. */
static void md_show_watch_header(struct seq_file *m, const struct md_watch_state *st)
{
	const struct md_watch_tally *t = &st->tally;

	seq_printf(m, "watching %s (id %llu) nodes %*pbl of %*pbl cpus %*pbl of %*pbl breakpoints %u armed_by %s",
		   st->path, st->cgid, nodemask_pr_args(st->nodes),
		   nodemask_pr_args(&node_states[N_MEMORY]), cpumask_pr_args(st->cpus),
		   cpumask_pr_args(cpu_online_mask), st->breakpoints,
		   st->by_audit ? "audit" : "control");
	if (st->limit_s)
		seq_printf(m, " stops_in_s %ld", st->stops_in_s);
	/* the counter last: the keys before it are older than it */
	seq_printf(m, " changes %lu outside %lu mismatched %lu unpaired %lu lost %lu unknown %lu reparented %lu killed %lu counter %s\n",
		   t->changes, t->outside, t->mismatched, t->unpaired, t->lost, t->unknown,
		   t->reparented, t->killed, md_counter_names[st->counter]);
}

/* "watch": the header, then each CPU's last changes, from the code that made each. */
void md_show_watch(struct seq_file *m)
{
	struct md_watch_cursor cur;
	struct md_watch_change c;
	struct md_watch_state st;
	unsigned int f;

	if (!md_watch_read_begin(&st, &cur)) {
		seq_puts(m, "watching nothing (control: watch CGROUP)\n");
		goto out;
	}
	md_show_watch_header(m, &st);
	seq_puts(m, "cpu time_us node pages where chain\n");
	while (md_watch_read_change(&cur, &c)) {
		seq_printf(m, "%d %llu %d %ld %s", c.cpu, div_u64(c.time_ns, NSEC_PER_USEC),
			   c.nid, c.pages, md_watch_where_names[c.where]);
		for (f = 0; f < c.nr_frames; f++)
			seq_printf(m, "%s%pS", f ? " <- " : " ", (void *)c.frames[f]);
		seq_putc(m, '\n');
	}
out:
	md_watch_read_end();
}

/* "events": the anomaly log, oldest first, after how many fell off its end. */
void md_show_events(struct seq_file *m)
{
	struct md_anomaly_log *log;
	unsigned long first, i;
	char *path;
	u64 sec;
	u32 ns;
	int n;

	log = kmalloc(sizeof(*log), GFP_KERNEL);
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!log || !path)
		goto out;
	md_anomaly_log_read(log);

	first = log->next > MD_EVENTS_MAX ? log->next - MD_EVENTS_MAX : 0;
	seq_printf(m, "dropped %lu\n", first);
	seq_puts(m, "time id path node kind probe pfn kernel ledger scan missed counter\n");
	for (i = first; i < log->next; i++) {
		struct md_anomaly *a = &log->ring[i % MD_EVENTS_MAX];

		n = a->nid;
		/* no u64 '%': 32-bit kernels have no __umoddi3 */
		sec = div_u64_rem(a->ns, NSEC_PER_SEC, &ns);
		seq_printf(m, "%llu.%06u %llu ", sec, ns / (u32)NSEC_PER_USEC, a->cgid);
		if (a->cgid && md_anomaly_cgroup_path(a->cgid, path))
			seq_escape(m, path, " \t\n\\");
		else
			seq_putc(m, '-');
		if (n >= 0)
			seq_printf(m, " %d", n);
		else
			seq_puts(m, " -");
		seq_printf(m, " %s %s ", md_anomaly_names[a->kind], a->probe ?: "-");
		if (a->pfn)
			seq_printf(m, "%lu", a->pfn);
		else
			seq_putc(m, '-');
		seq_printf(m, " %ld %ld %ld %lu %s\n", a->kernel, a->ledger, a->scan, a->missed,
			   a->counter < MD_NR_COUNTERS ? md_counter_names[a->counter] : "-");
	}
out:
	kfree(path);
	kfree(log);
}

/* One list of the shadow's, as the last scan left it. */
static void md_show_shadow_list(struct seq_file *m, const struct md_shadow_list *list)
{
	const struct md_shadow_suspect *f = list->folios;
	unsigned int i;

	seq_printf(m, "%s %lu (%s, last scan)\n", list->name, list->total, list->what);
	seq_puts(m, "id node pfn dev ino index\n");
	for (i = 0; i < list->nr; i++)
		seq_printf(m, "%llu %d %lu %u:%u %lu %lu\n", f[i].cgid, f[i].nid, f[i].pfn,
			   MAJOR(f[i].dev), MINOR(f[i].dev), f[i].ino, (unsigned long)f[i].index);
}

/* "folios": the shadow's two lists, uncounted then uncleaned. */
int md_show_folios(struct seq_file *m)
{
	struct md_shadow_list *copy;	/* too large for the stack */

	if (!md_shadow_enabled()) {
		seq_puts(m, "no shadow (load with track=1)\n");
		return 0;
	}
	copy = kmalloc(sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	if (md_shadow_list_read(MD_SHADOW_UNCOUNTED, copy))
		md_show_shadow_list(m, copy);
	if (md_shadow_list_read(MD_SHADOW_UNCLEANED, copy))
		md_show_shadow_list(m, copy);
	kfree(copy);
	return 0;
}

/* inject_hooks.c's half of "inject": delays, failing entries, a deaf CPU. */
static void md_show_inject_hooks(struct seq_file *m)
{
	struct md_inject_hooks_state st;
	int p;

	md_inject_hooks_read(&st);
	for (p = 0; p < MD_NR_DELAYS; p++)
		seq_printf(m, "delay %s %lu hits %ld\n", st.delays[p].name, st.delays[p].us,
			   st.delays[p].hits);
	seq_printf(m, "nomem %s %ld\n", st.fail_name[0] ? st.fail_name : "-", st.fail_left);
	seq_printf(m, "deaf %d\n", st.deaf_cpu);
}

/* "inject": what inject.c's commands set and did, then inject_hooks.c's state. */
void md_show_inject(struct seq_file *m)
{
	struct md_inject_state st;
	int p;

	md_inject_read(&st);
	seq_printf(m, "replay42 %s\n", st.replay42 ? "on" : "off");
	seq_printf(m, "replayed_pages %ld\n", st.replayed_pages);
	seq_printf(m, "holding %d\n", st.holding);
	for (p = 0; p < MD_NR_POINTS; p++)
		seq_printf(m, "point %s drop %d miss %ld\n", md_point_name(p),
			   st.points[p].drop, st.points[p].miss);
	md_show_inject_hooks(m);
}
