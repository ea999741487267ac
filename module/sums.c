// SPDX-License-Identifier: GPL-2.0
/*
 * An entry's counts, read: the ledger's value and events, each the sum of
 * its per-CPU counters (the probe handlers only ever add to their own
 * CPU's, in ledger.c), and whether the entry stood still while they were
 * read, which the checks and the resync test before they compare.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/percpu.h>
#include "inject_hooks.h"
#include "ledger.h"

/* The ledger's value: the starting point plus every event since. */
long md_entry_ledger(struct md_entry *e, enum md_counter c, int nid)
{
	return READ_ONCE(e->base[md_cn(c, nid)]) + md_entry_ledger_events(e, c, nid);
}

long md_entry_ledger_events(struct md_entry *e, enum md_counter c, int nid)
{
	return md_sum_cpus(&e->pcpu->count[md_cn(c, nid)]);
}

/*
 * md_entry_ledger() for the checks, in process context.  The sum is not one
 * atomic read: a page dirtied on one CPU and cleaned on another while it
 * runs can be summed as cleaned only.  Fault injection's "sum" delay holds
 * that window open, here, where it may sleep.
 */
long md_entry_ledger_may_sleep(struct md_entry *e, enum md_counter c, int nid)
{
	long sum = READ_ONCE(e->base[md_cn(c, nid)]);
	int cpu;

	might_sleep();
	for_each_possible_cpu(cpu) {
		sum += *per_cpu_ptr(&e->pcpu->count[md_cn(c, nid)], cpu);
		if (cpu == cpumask_first(cpu_possible_mask))
			md_delay(MD_D_SUM);
	}
	return sum;
}

/*
 * After reading pages with md_entry_ledger_events(): true if no event of
 * @e completed, and no return probe's window was open, since @seq was
 * read, so what was read is whole.  The windows before the sequence: a
 * return handler counts its event, then closes its window
 * (md_inflight_end()), so a window read closed has its event in the
 * sequence read after it.  The other way round, a handler that ends
 * between the two reads shows an old sequence and no window, and the
 * pages read before it straddle its event (md_race_quiet.sh opens that
 * window in a check, which reads them as here: check.c's md_unit_add()).
 */
bool md_entry_quiet(struct md_entry *e, long seq)
{
	long inflight;

	smp_rmb();		/* the pages before the windows */
	inflight = md_entry_inflight(e);
	smp_rmb();		/* pairs with md_inflight_end() and md_account_entry() */
	return !inflight && md_entry_seq(e) == seq;
}

/* Moves on every event of this memcg: the quiescence test of the checks. */
long md_entry_seq(struct md_entry *e)
{
	long seq = 0;
	int ev;

	for (ev = 0; ev < MD_NR_EVENTS; ev++)
		seq += md_entry_event(e, ev);
	return seq + atomic_long_read(&e->unsyncs) + atomic_long_read(&e->carries);
}

long md_entry_event(struct md_entry *e, enum md_event ev)
{
	return md_sum_cpus(&e->pcpu->events[ev]);
}

long md_entry_inflight(struct md_entry *e)
{
	return atomic_long_read(&e->inflight);
}
