// SPDX-License-Identifier: GPL-2.0
/*
 * How each layer's state reads in debugfs (the debugfs layer, beside
 * debugfs.c, which owns the files): the watch fills a struct and hands
 * out its records, and they are printed here, as mm/vmstat.c fills with
 * fill_contig_page_info() and prints apart.  Process context,
 * a debugfs reader's.  No kernel addresses: call chains are symbolized
 * (%pS).
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
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
	seq_printf(m, " changes %lu outside %lu mismatched %lu unpaired %lu lost %lu unknown %lu reparented %lu\n",
		   t->changes, t->outside, t->mismatched, t->unpaired, t->lost, t->unknown,
		   t->reparented);
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
