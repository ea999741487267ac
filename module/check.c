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
#include "anomaly.h"
#include "inject_hooks.h"
#include "ledger.h"
#include "memcg.h"
#include "resync.h"
#include "scan.h"
#include "unit.h"

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
 * Before checks that do not scan (md_check_memcg() without MD_CHECK_SCAN):
 * every entry's reference sequence, then the grace period.
 */
void md_check_ref_all(void)
{
	struct md_entry *e;

	lockdep_assert_held(&md_mutex);
	md_ledger_list_fresh();
	list_for_each_entry(e, &md_entries, node)
		md_scan_ref(e, md_entry_seq(e));
	synchronize_rcu();
}

/*
 * Where the kernel reparents (MD_KERNEL_REPARENTS), a dying memcg's folios,
 * and the updates they bring, belong to its nearest live ancestor while
 * its own counters keep what they had: memcg by memcg the views may
 * disagree for good, and the ancestor's own counter may go below 0.  What
 * holds is the sum over a unit: a live memcg, its dying descendants, and
 * what freed ones left behind (carried).  Elsewhere a unit is one memcg.
 */
struct md_unit {
	struct mem_cgroup *root;	/* the live memcg */
	struct md_entry *e;		/* its entry */
	bool members;			/* dying descendants beyond the root */
	/* summed or joined over the unit's entries (md_unit_meta()) */
	long seq, seq0, seq_ref, inflight, scan_busy;
	bool scan_valid, synced;
	unsigned long rows_unsynced;	/* the entries' rows_unsynced, joined */
};

/*
 * The unit of @memcg, whose entry is @e; false if its live ancestor has no
 * entry.  Caller holds @memcg, which holds its ancestors.
 */
static bool md_unit_init(struct md_unit *u, struct md_entry *e, struct mem_cgroup *memcg)
{
	memset(u, 0, sizeof(*u));
	rcu_read_lock();
	u->root = md_unit_root(memcg);
	u->e = u->root == memcg ? e : md_entry_lookup(u->root);
	u->members = !!md_unit_member_next(u->root, NULL);
	rcu_read_unlock();
	return u->e;
}

/*
 * The windows before the sequence, as md_entry_quiet() reads them.  After
 * a check's views (@after_views), fault injection's "quiet" delay holds
 * the two reads of the unit root's apart.
 */
static void md_unit_add(struct md_unit *u, struct md_entry *e, bool after_views)
{
	u->inflight += md_entry_inflight(e);
	smp_rmb();		/* pairs with md_inflight_end() */
	if (after_views && e == u->e)
		md_delay(MD_D_QUIET);	/* not an RCU reader here: may sleep */
	u->seq += md_entry_seq(e);
	u->seq0 += e->scan.seq0;
	u->seq_ref += e->scan.seq_ref;
	u->scan_busy += e->scan.busy;
	u->scan_valid &= e->scan.valid;
	u->synced &= READ_ONCE(e->synced);
	u->rows_unsynced |= READ_ONCE(e->rows_unsynced);
}

/*
 * Sequences, windows and scan state, summed over the unit's entries;
 * @after_views: a check's, after it read the views.  The members are
 * found anew each time: a child killed while a check scans joins the unit
 * there, its changes counted by the kernel in the root from the kill on.
 */
static void md_unit_meta(struct md_unit *u, bool after_views)
{
	struct mem_cgroup *pos = NULL;
	struct md_entry *e;

	lockdep_assert_held(&md_mutex);
	u->seq = 0;
	u->seq0 = 0;
	u->seq_ref = 0;
	u->inflight = 0;
	u->scan_busy = 0;
	u->scan_valid = true;
	u->synced = true;
	u->rows_unsynced = 0;
	u->members = false;
	md_unit_add(u, u->e, after_views);
	rcu_read_lock();
	while ((pos = md_unit_member_next(u->root, pos))) {
		u->members = true;
		e = md_entry_lookup(pos);
		if (e)
			md_unit_add(u, e, after_views);
		else		/* nothing to compare its counters with */
			u->synced = false;
	}
	rcu_read_unlock();
}

/*
 * The unit's three views of counter @ctr on @nid: the root's, read where it may sleep, and
 * its members'.  Read again if a carry moved values between the unit's
 * entries meanwhile, at most MD_CARRY_TRIES times: false if the last read
 * still had one run through it, and its sums cannot be compared.
 */
static bool md_unit_node(struct md_unit *u, enum md_counter ctr, int nid,
			 long *k, long *l, long *s)
{
	struct md_unit_walk w;
	struct mem_cgroup *pos;
	struct md_entry *e;

	md_unit_walk_begin(&w, u->root, MD_UNIT_MEMBERS);
	do {
		md_delay(MD_D_CARRY_READ);
		*k = md_kernel_node(u->root, ctr, nid) + md_entry_carried_kernel(u->e, ctr, nid);
		*l = md_entry_ledger_may_sleep(u->e, ctr, nid) +
		     md_entry_carried_ledger(u->e, ctr, nid);
		*s = u->e->scan.pages[md_cn(ctr, nid)];
		rcu_read_lock();	/* the members as they are now: md_unit_meta() */
		while ((pos = md_unit_walk_next(&w))) {
			*k += md_kernel_node(pos, ctr, nid);
			e = md_entry_lookup(pos);
			if (!e)
				continue;
			*k += md_entry_carried_kernel(e, ctr, nid);
			*l += md_entry_ledger(e, ctr, nid) + md_entry_carried_ledger(e, ctr, nid);
			*s += e->scan.pages[md_cn(ctr, nid)];
		}
		rcu_read_unlock();
	} while (md_unit_walk_again(&w));
	return w.settled;
}

static void md_check_set_node(struct md_check *c, int nid, long k, long l, long s)
{
	c->nid = nid;
	c->node_kernel = k;
	c->node_ledger = l;
	c->node_scan = s;
}

/* What md_check_compute() read besides the views in struct md_check, per counter. */
struct md_check_views {
	struct md_unit u;	/* its sequences read again after the views */
	bool unsettled[MD_NR_COUNTERS];	/* a carry kept running through some node's sums */
	long low[MD_NR_COUNTERS];	/* the lowest kernel or ledger value on a node, or 0 */
	int low_nid[MD_NR_COUNTERS];	/* the node of @low */
};

/*
 * Counter @ctr's views of the unit into @c: the kernel's counter, the
 * ledger and the page scan, summed over nodes, and the first node where
 * they differ.
 */
static void md_check_read(struct md_check_views *v, enum md_counter ctr, struct md_check *c)
{
	struct md_unit *u = &v->u;
	long k, l, s;
	int nid;

	c->scan_busy = u->scan_busy;
	for_each_node(nid) {
		/* sums a carry kept running through: no verdict from them */
		v->unsettled[ctr] |= !md_unit_node(u, ctr, nid, &k, &l, &s);
		/* an unsynced ledger holds only the events since load */
		c->negative |= k < 0 || (u->synced && l < 0);
		if (min(k, l) < v->low[ctr]) {
			v->low[ctr] = min(k, l);
			v->low_nid[ctr] = nid;
		}
		c->kernel += k;
		c->ledger += l;
		c->scan += s;
		if (c->node_differs)
			continue;
		/*
		 * exactly, or as ranges: busy pages may sit on any node, and
		 * be of any counter
		 */
		if ((!c->scan_busy && (k != l || l != s)) ||
		    (c->scan_busy && (k != l || s > k || k > s + c->scan_busy))) {
			c->node_differs = true;
			md_check_set_node(c, nid, k, l, s);
		}
	}
}

/*
 * The views of @memcg's unit into @rows, one per counter (md_check_read()),
 * from one scan and between two reads of the unit's sequences, which all
 * counters share.  False if its live ancestor has no entry: nothing to
 * compare.
 */
static bool md_check_compute(struct md_check_views *v, struct md_entry *e,
			     struct mem_cgroup *memcg, struct md_check *rows,
			     unsigned int flags)
{
	struct md_unit *u = &v->u;
	enum md_counter ctr;
	u64 unit = 0, age;

	memset(v, 0, sizeof(*v));
	if (!md_unit_init(u, e, memcg))
		return false;
	if (u->root != memcg)
		unit = cgroup_id(u->root->css.cgroup);
	md_unit_meta(u, false);
	if (flags & MD_CHECK_SCAN) {
		if (!u->synced || u->rows_unsynced) {
			/*
			 * a memcg gone still gets its base (or a counter's),
			 * and a verdict, now
			 */
			md_scan();
			md_resync_scanned();
		} else if (u->members || md_scan_age_ms() > scan_cache_ms || !u->scan_valid ||
			   u->seq0 != u->seq) {
			md_scan();
		} else {
			md_scan_ref(u->e, u->seq);
			synchronize_rcu();
		}
		md_unit_meta(u, false);
	}

	md_delay(MD_D_VIEWS);
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++) {
		rows[ctr].unit = unit;
		md_check_read(v, ctr, &rows[ctr]);
	}
	smp_rmb();		/* the values before the sequence: md_entry_quiet() */
	md_unit_meta(u, true);
	age = md_scan_age_ms();
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++)
		rows[ctr].scan_age_ms = age;
	return true;
}

/*
 * From counter @ctr's views in @c and @v, the verdict, the suspect view
 * and its delta, and the bound the kernel and the ledger may differ by.
 * Reads nothing but the views.
 */
static void md_check_decide(struct md_check *c, const struct md_check_views *v,
			    enum md_counter ctr, unsigned int flags)
{
	const struct md_unit *u = &v->u;

	if (c->node_differs && !c->scan_busy)
		c->suspect = md_odd_one_exact(c->node_kernel, c->node_ledger,
					      c->node_scan, &c->delta);
	else if (c->node_differs)
		c->suspect = md_odd_one(c->node_kernel, c->node_ledger, c->node_scan,
					c->scan_busy, &c->delta);
	c->bound = u->seq - u->seq_ref + u->inflight;
	c->quiescent = u->scan_valid && u->seq0 == u->seq && !u->inflight;

	if ((flags >> MD_CHECK_UNTRUSTED_SHIFT) & BIT(ctr) || v->unsettled[ctr]) {
		c->verdict = MD_UNTRUSTED;
	} else if (!u->synced || test_bit(ctr, &u->rows_unsynced)) {
		c->verdict = MD_UNSYNCED;
	} else if (c->quiescent ? c->negative : v->low[ctr] < -c->bound) {
		/*
		 * A busy memcg near 0 can be summed below it (a page dirtied
		 * on one CPU and cleaned on another while the per-CPU
		 * counters are added up): an underflow only past the bound.
		 */
		c->verdict = MD_UNDERFLOW;
		if (!c->node_differs) {	/* all three negative alike */
			c->suspect = MD_VIEW_NONE;
		} else if (c->suspect == MD_VIEW_SCAN && c->node_kernel < 0) {
			/*
			 * The ledger follows the kernel's own accounting
			 * sites, so both below 0 alike means those sites
			 * cleaned pages they never counted dirty (the 4.2
			 * bug): no page scan counts below 0.
			 */
			c->suspect = MD_VIEW_KERNEL;
			c->delta = c->node_kernel - c->node_scan;
		}
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
}

/*
 * An unsynced memcg whose kernel count the resync found drifting from its
 * pages, pass after pass (@a, resync.c's md_resync_apart()): kernel and
 * scan, compared without the ledger, which has no starting point.  The
 * suspect is the view that moved in the pass that found it, or a kernel
 * count below 0; the node's figures are that pass's.
 */
static void md_check_drifted(struct md_check *c, const struct md_entry_apart *a)
{
	c->ledger_unknown = true;
	c->node_differs = true;
	md_check_set_node(c, a->drift_nid, a->drift_node_kernel, 0, a->drift_node_scan);
	c->verdict = a->kernel < 0 || a->drift_node_kernel < 0 ? MD_UNDERFLOW : MD_MISMATCH;
	if (a->kernel_moved != a->scan_moved)
		c->suspect = a->kernel_moved ? MD_VIEW_KERNEL : MD_VIEW_SCAN;
	else
		c->suspect = c->verdict == MD_UNDERFLOW ? MD_VIEW_KERNEL : MD_VIEW_NONE;
	c->delta = c->suspect == MD_VIEW_SCAN ? a->scan - a->kernel : a->kernel - a->scan;
}

/*
 * The views on the node of the lowest value, where an underflow that no
 * node's views disagree on is reported: for the report only, read settled
 * moments ago.
 */
static void md_check_compute_low(struct md_check_views *v, enum md_counter ctr,
				 struct md_check *c)
{
	long k, l, s;

	md_unit_node(&v->u, ctr, v->low_nid[ctr], &k, &l, &s);
	md_check_set_node(c, v->low_nid[ctr], k, l, s);
}

/* Log a verdict of counter @ctr that is new for this memcg, once, not on every read. */
static void md_check_log(struct md_entry *e, enum md_counter ctr, struct md_check *c)
{
	enum md_anomaly_kind kind;

	if (c->verdict == e->check.last_verdict[ctr])
		return;
	e->check.last_verdict[ctr] = c->verdict;
	if (c->verdict == MD_UNDERFLOW)
		kind = c->suspect == MD_VIEW_LEDGER || (c->ledger < 0 && c->kernel >= 0) ?
			MD_A_LEDGER_UNDERFLOW : MD_A_KERNEL_NEGATIVE;
	else if (c->verdict == MD_MISMATCH)
		kind = MD_A_MISMATCH;
	else
		return;
	md_anomaly_of(kind, ctr, e->cgid, c->nid, NULL, 0, c->kernel, c->ledger, c->scan, 0);
}

/*
 * Check one memcg: its unit (above).  Caller holds md_mutex and a
 * reference on @memcg.  With MD_CHECK_SCAN, runs a page scan unless the
 * cached one is young and still valid for this memcg, and takes its own
 * reference sequence; without, the caller took it (md_check_ref_all(),
 * md_scan()) and a stale scan just makes the check bounded.
 * MD_CHECK_UNTRUSTED(counters): some probe missed hits of those counters,
 * or cannot follow a change, so no verdict of theirs can be trusted.  A
 * verdict that is new for this unit is logged (events), once, unless
 * MD_CHECK_UNLOGGED.  Three steps: the views
 * computed, the verdict decided from them alone, a changed verdict logged;
 * an underflow all nodes agree on is then read on its lowest node, for the
 * report and the log.
 */
void md_check_memcg(struct md_entry *e, struct mem_cgroup *memcg,
		    struct md_check *c, unsigned int flags)
{
	struct md_check rows[MD_NR_COUNTERS] = {};
	struct md_check_views v;
	enum md_counter ctr, worst = MD_C_DIRTY;
	struct md_check *r;

	lockdep_assert_held(&md_mutex);
	if (!md_check_compute(&v, e, memcg, rows, flags)) {
		memset(c, 0, sizeof(*c));
		c->verdict = MD_UNSYNCED;	/* no entry for its live ancestor */
		for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++)
			c->rows[ctr].verdict = MD_UNSYNCED;
		return;
	}
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++) {
		r = &rows[ctr];
		md_check_decide(r, &v, ctr, flags);
		/* the resync's drift is of the counter it judges by */
		if (r->verdict == MD_UNSYNCED && ctr == MD_C_DIRTY &&
		    v.u.e->scan.apart.drifted)
			md_check_drifted(r, &v.u.e->scan.apart);
		else if (r->verdict == MD_UNDERFLOW && !r->node_differs)
			md_check_compute_low(&v, ctr, r);
		if (!(flags & MD_CHECK_UNLOGGED))
			md_check_log(v.u.e, ctr, r);
		if (r->verdict > rows[worst].verdict)
			worst = ctr;
	}
	*c = rows[worst];
	c->counter = worst;
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++)
		c->rows[ctr] = (struct md_check_row) {
			.verdict = rows[ctr].verdict, .suspect = rows[ctr].suspect,
			.kernel = rows[ctr].kernel, .ledger = rows[ctr].ledger,
			.scan = rows[ctr].scan, .delta = rows[ctr].delta,
			.negative = rows[ctr].negative,
		};
	/* a memcg negative in any counter is counted as such (md_check_global()) */
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++)
		c->negative |= rows[ctr].negative;
}

/*
 * The audit's comparison of one memcg's unit, cheap enough to run on every
 * memcg each period: the kernel's counter against the ledger, per node and
 * summed over nodes, within the bound of a check that cannot use the scan.
 * No scan, no verdict, nothing logged.  Caller holds md_mutex and a reference on
 * @memcg, and took the reference sequences (md_check_ref_all()).  A dying
 * memcg inside a unit is compared as part of its live root's.
 */
void md_check_quick(struct md_entry *e, struct mem_cgroup *memcg,
		    struct md_quick_check *q, unsigned int untrusted)
{
	long k, l, s, low, node_gap, kernel, ledger, bound;
	enum md_counter ctr;
	struct md_unit u;
	bool differ;
	int nid;

	lockdep_assert_held(&md_mutex);
	memset(q, 0, sizeof(*q));
	q->result = MD_QUICK_NONE;
	if (!md_unit_init(&u, e, memcg) || u.root != memcg)
		return;
	md_unit_meta(&u, false);
	if (!u.synced)
		return;
	/* every counter's sums, then the sequence after them all */
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++) {
		q->rows[ctr].low = 0;
		q->rows[ctr].node_gap = 0;
		for_each_node(nid) {
			if (!md_unit_node(&u, ctr, nid, &k, &l, &s)) {
				q->result = MD_QUICK_NONE;	/* carries kept running through */
				return;
			}
			q->rows[ctr].low = min3(q->rows[ctr].low, k, l);
			/* a count moved between nodes without its pages: class 5 */
			q->rows[ctr].node_gap = max(q->rows[ctr].node_gap, abs(k - l));
			q->rows[ctr].kernel += k;
			q->rows[ctr].ledger += l;
		}
	}
	smp_rmb();		/* the values before the sequence */
	md_unit_meta(&u, false);
	bound = u.seq - u.seq_ref + u.inflight;
	q->bound = bound;
	q->result = MD_QUICK_AGREE;
	q->counter = MD_C_DIRTY;
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++) {
		kernel = q->rows[ctr].kernel;
		ledger = q->rows[ctr].ledger;
		low = q->rows[ctr].low;
		node_gap = q->rows[ctr].node_gap;
		/*
		 * a counter whose probes missed hits is not compared
		 * (@untrusted), nor one to be based again
		 */
		differ = !(untrusted & BIT(ctr)) && !test_bit(ctr, &u.rows_unsynced) &&
			 (abs(kernel - ledger) > bound || low < -bound || node_gap > bound);
		/* the first counter that differs is the one reported, else dirty */
		if (differ && q->result == MD_QUICK_AGREE) {
			q->result = MD_QUICK_DIFFER;
			q->counter = ctr;
		}
	}
	q->kernel = q->rows[q->counter].kernel;
	q->ledger = q->rows[q->counter].ledger;
}

/*
 * The global check: every memcg's verdict, the sum of the local kernel
 * counters against the global NR_FILE_DIRTY, and a count of negative
 * counters anywhere.
 */
void md_check_global(struct md_global_check *g, unsigned int untrusted)
{
	long global0, seq0;
	unsigned int carry_seq;
	struct mem_cgroup *pos = NULL;
	struct md_check c;
	bool local_negative;
	enum md_counter ctr;
	struct md_entry *e;
	long kernel;
	int nid;

	lockdep_assert_held(&md_mutex);
	memset(g, 0, sizeof(*g));
	seq0 = md_total_seq();
	carry_seq = md_carry_begin();
	global0 = md_kernel_global(MD_C_DIRTY);
	md_scan();		/* and the reference sequences */
	md_resync_scanned();	/* memcgs gone still get their verdicts now */
	while ((pos = md_memcg_walk(pos))) {
		/* the sum needs every memcg, with an entry or not */
		local_negative = false;
		for_each_node(nid) {
			kernel = md_kernel_node(pos, MD_C_DIRTY, nid);
			local_negative |= kernel < 0;
			g->kernel_sum += kernel;
			for (ctr = MD_C_DIRTY + 1; ctr < MD_NR_COUNTERS; ctr++)
				local_negative |= md_kernel_node(pos, ctr, nid) < 0;
		}
		e = md_entry_get(pos, GFP_ATOMIC);
		if (!e) {	/* no room for an entry: nothing to compare */
			c.verdict = MD_UNTRUSTED;
		} else {
			md_check_memcg(e, pos, &c, MD_CHECK_UNTRUSTED(untrusted));
			for_each_node(nid) {
				/* an unsynced ledger holds only the events since load */
				for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++)
					local_negative |= READ_ONCE(e->synced) &&
							  md_entry_ledger(e, ctr, nid) < 0;
				g->kernel_sum += md_entry_carried_kernel(e, MD_C_DIRTY, nid);
			}
		}
		/* where units fold memcgs, a local value may be below 0 */
		if (MD_KERNEL_REPARENTS)
			g->negative += e && !c.unit && c.negative;
		else
			g->negative += local_negative;
		g->counts[c.verdict]++;
		if (c.verdict > g->worst)
			g->worst = c.verdict;
		for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++)
			g->row_worst[ctr] = max(g->row_worst[ctr],
						e ? c.rows[ctr].verdict : MD_UNTRUSTED);
	}
	g->kernel_global = md_kernel_global(MD_C_DIRTY);
	/* strict only if nothing moved anywhere while we summed */
	g->sum_settled = seq0 == md_total_seq() && global0 == g->kernel_global &&
			 !md_carry_retry(carry_seq);
}
