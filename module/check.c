// SPDX-License-Identifier: GPL-2.0
/*
 * Verdicts: three views of a memcg's dirty pages (the kernel's counter, the
 * ledger, the page scan) compared.  Strict equality, per node, when the
 * memcg had no event from the start of the scan to the end of the reads
 * (its event sequence did not move, no return probe's window was open);
 * otherwise the kernel and the ledger may differ by at most the pages of
 * the events since a reference sequence taken before an RCU grace period
 * (which ends every update begun before it, see md_scan()), plus the pages
 * in return probes' windows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include "check.h"
#include "compat.h"
#include "events.h"
#include "ledger.h"
#include "scan.h"

static unsigned int scan_cache_ms = 1000;
module_param(scan_cache_ms, uint, 0600);
MODULE_PARM_DESC(scan_cache_ms, "a check reuses a page scan at most this old (ms) if the memcg was still since");

const char * const md_verdict_names[MD_NR_VERDICTS] = {
	[MD_OK]		= "ok",
	[MD_UNSYNCED]	= "unsynced",
	[MD_UNTRUSTED]	= "untrusted",
	[MD_MISMATCH]	= "mismatch",
	[MD_UNDERFLOW]	= "underflow",
};

const char * const md_view_names[] = { "none", "kernel", "ledger", "scan" };

static void md_check_log(struct md_entry *e, struct md_check *c);

/*
 * The view that disagrees with the other two, if exactly one does.  The
 * scan agrees with a value v when s <= v <= s + busy (locked folios).
 */
static enum md_view md_odd_one(long k, long l, long s, long busy, long *delta)
{
	bool sk = s <= k && k <= s + busy, sl = s <= l && l <= s + busy;

	if (k == l && !sk) {
		*delta = s - k;
		return MD_VIEW_SCAN;
	}
	if (k != l && sk && !sl) {
		*delta = l - k;
		return MD_VIEW_LEDGER;
	}
	if (k != l && sl && !sk) {
		*delta = k - l;
		return MD_VIEW_KERNEL;
	}
	*delta = k - l;
	return MD_VIEW_NONE;
}

static enum md_view md_odd_one_exact(long k, long l, long s, long *delta)
{
	if (k == l && l != s) {
		*delta = s - k;
		return MD_VIEW_SCAN;
	}
	if (k == s && s != l) {
		*delta = l - k;
		return MD_VIEW_LEDGER;
	}
	if (l == s && s != k) {
		*delta = k - l;
		return MD_VIEW_KERNEL;
	}
	*delta = k - l;
	return MD_VIEW_NONE;
}

/*
 * Before checks that do not scan (md_check_memcg() without @may_scan):
 * every entry's reference sequence, then the grace period.
 */
void md_check_ref_all(void)
{
	struct md_entry *e;

	lockdep_assert_held(&md_mutex);
	md_ledger_list_fresh();
	list_for_each_entry(e, &md_entries, node)
		e->seq_ref = md_entry_seq(e);
	synchronize_rcu();
}

/*
 * Check one memcg.  Caller holds md_mutex and a reference on @memcg.  With
 * @may_scan, runs a page scan unless the cached one is young and still
 * valid for this memcg, and takes its own reference sequence; without,
 * the caller took it (md_check_ref_all(), md_scan()) and a stale scan just
 * makes the check bounded.  @untrusted: some probe missed hits or cannot
 * follow a change, so no verdict can be trusted.
 * A verdict that is new for this memcg is logged (events), once.
 */
void md_check_memcg(struct md_entry *e, struct mem_cgroup *memcg,
		    struct md_check *c, bool may_scan, bool untrusted)
{
	long seq, inflight, k, l, s, low = 0;
	bool negative = false;
	int nid;

	lockdep_assert_held(&md_mutex);
	memset(c, 0, sizeof(*c));
	seq = md_entry_seq(e);
	if (may_scan) {
		if (md_scan_age_ms() > scan_cache_ms || !e->scan_valid || e->seq0 != seq) {
			md_scan();
		} else {
			e->seq_ref = seq;
			synchronize_rcu();
		}
	}

	c->scan_busy = e->scan_busy;
	for_each_node(nid) {
		k = md_kernel_dirty_node(memcg, nid);
		l = md_entry_dirty_may_sleep(e, nid);
		s = e->scan[nid];
		negative |= k < 0 || l < 0;
		low = min3(low, k, l);
		c->kernel += k;
		c->ledger += l;
		c->scan += s;
		if (c->node_differs)
			continue;
		if (!e->scan_busy && (k != l || l != s)) {
			c->node_differs = true;
			c->suspect = md_odd_one_exact(k, l, s, &c->delta);
		} else if (e->scan_busy && (k != l || s > k || k > s + e->scan_busy)) {
			/* busy pages may sit on any node: compare ranges */
			c->node_differs = true;
			c->suspect = md_odd_one(k, l, s, e->scan_busy, &c->delta);
		}
		if (c->node_differs)
			c->nid = nid;
	}
	smp_rmb();		/* the values before the sequence: md_entry_quiet() */
	seq = md_entry_seq(e);
	inflight = md_entry_inflight(e);
	c->bound = seq - e->seq_ref + inflight;
	c->quiescent = e->scan_valid && e->seq0 == seq && !inflight;
	c->scan_age_ms = md_scan_age_ms();

	if (untrusted) {
		c->verdict = MD_UNTRUSTED;
	} else if (!READ_ONCE(e->synced)) {
		c->verdict = MD_UNSYNCED;
	} else if (c->quiescent ? negative : low < -c->bound) {
		/*
		 * A busy memcg near 0 can be summed below it (a page dirtied
		 * on one CPU and cleaned on another while the per-CPU
		 * counters are added up): an underflow only past the bound.
		 */
		c->verdict = MD_UNDERFLOW;
		if (!c->node_differs)	/* all three negative alike */
			c->suspect = MD_VIEW_NONE;
	} else if (c->quiescent) {
		c->verdict = c->node_differs ? MD_MISMATCH : MD_OK;
	} else {
		/*
		 * The scan is stale for a busy memcg: kernel against ledger
		 * only, allowing the events since the reference and the
		 * pages in open windows.
		 */
		c->suspect = MD_VIEW_NONE;
		c->delta = c->kernel - c->ledger;
		c->verdict = abs(c->delta) <= c->bound ? MD_OK : MD_MISMATCH;
	}
	if (c->verdict == MD_OK) {
		c->suspect = MD_VIEW_NONE;
		c->delta = c->kernel - c->ledger;
	}
	md_check_log(e, c);
}

/* Log a verdict that is new for this memcg, once, not on every read. */
static void md_check_log(struct md_entry *e, struct md_check *c)
{
	enum md_anomaly_kind kind;

	if (c->verdict == e->last_verdict)
		return;
	e->last_verdict = c->verdict;
	if (c->verdict == MD_UNDERFLOW)
		kind = c->suspect == MD_VIEW_LEDGER || (c->ledger < 0 && c->kernel >= 0) ?
			MD_A_LEDGER_UNDERFLOW : MD_A_KERNEL_NEGATIVE;
	else if (c->verdict == MD_MISMATCH)
		kind = MD_A_MISMATCH;
	else
		return;
	md_anomaly(kind, e->cgid, c->nid, NULL, 0, c->kernel, c->ledger, c->scan, 0);
}

/*
 * The global check: every memcg's verdict, the sum of the local kernel
 * counters against the global NR_FILE_DIRTY, and a count of negative
 * counters anywhere.
 */
void md_check_global(struct md_global_check *g, bool untrusted)
{
	long global0, seq0;
	struct mem_cgroup *pos = NULL;
	struct md_check c;
	struct md_entry *e;
	long kernel;
	int nid;

	lockdep_assert_held(&md_mutex);
	memset(g, 0, sizeof(*g));
	seq0 = md_total_seq();
	global0 = md_kernel_dirty_global();
	md_scan();		/* and the reference sequences */
	while ((pos = md_memcg_walk(pos))) {
		/* the sum needs every memcg, with an entry or not */
		for_each_node(nid) {
			kernel = md_kernel_dirty_node(pos, nid);
			g->negative += kernel < 0;
			g->kernel_sum += kernel;
		}
		e = md_entry_get(pos, GFP_ATOMIC);
		if (!e) {	/* no room for an entry: nothing to compare */
			c.verdict = MD_UNTRUSTED;
		} else {
			md_check_memcg(e, pos, &c, false, untrusted);
			for_each_node(nid)
				g->negative += md_entry_dirty(e, nid) < 0;
		}
		g->counts[c.verdict]++;
		if (c.verdict > g->worst)
			g->worst = c.verdict;
	}
	g->kernel_global = md_kernel_dirty_global();
	/* strict only if nothing moved anywhere while we summed */
	g->sum_settled = seq0 == md_total_seq() && global0 == g->kernel_global;
}
