// SPDX-License-Identifier: GPL-2.0
/*
 * Resynchronisation: an entry's starting point (its base) from a scan
 * during which its memcg was still, for memcgs that existed before the
 * load or whose events the probes could not follow; retried with backoff
 * while any entry is unsynced.  Where the kernel reparents, a unit's
 * kernel offset too, and its members based together (md_resync_members()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "inject_hooks.h"
#include "ledger.h"
#include "memcg.h"
#include "resync.h"
#include "scan.h"
#include "shadow.h"
#include "unit.h"

/*
 * @offset (per node), of counter @c: the unit of @memcg (@e's; live where
 * the kernel reparents) scanned (@scan) less its kernel count, which
 * md_resync_apart() judges.  Where the kernel reparents, a memcg released
 * while the module was not loaded left its live ancestor's own counter
 * off by what it held: the updates of its folios went on in the ancestor,
 * while its own counter, which held their increments, went with it.
 * Nothing can tell that from a bug before the load, so a sync takes the
 * kernel's counters as they are, as it takes the ledger's base: the unit
 * carries @offset.
 * Caller holds md_mutex and a reference on @memcg.  Read again if a carry
 * moved values inside the unit meanwhile, at most MD_CARRY_TRIES times:
 * false if the last read still had one run through it.
 */
static bool md_resync_kernel_offset(struct md_entry *e, struct mem_cgroup *memcg,
				    long *offset, long *scan)
{
	struct md_unit_walk w;
	struct mem_cgroup *pos;
	struct md_entry *m;
	enum md_counter c;
	int nid, i;

	md_unit_walk_begin(&w, memcg, MD_UNIT_MEMBERS);
	do {
		for (c = 0; c < MD_NR_COUNTERS; c++) {
			for_each_node(nid) {
				i = md_cn(c, nid);
				scan[i] = e->scan.pages[i];
				offset[i] = scan[i] - md_kernel_node(memcg, c, nid) -
					    md_entry_carried_kernel(e, c, nid);
			}
		}
		rcu_read_lock();
		while ((pos = md_unit_walk_next(&w))) {
			m = md_entry_lookup(pos);
			for (c = 0; c < MD_NR_COUNTERS; c++) {
				for_each_node(nid) {
					i = md_cn(c, nid);
					offset[i] -= md_kernel_node(pos, c, nid);
					if (!m)
						continue;
					scan[i] += m->scan.pages[i];
					offset[i] += m->scan.pages[i] -
						     md_entry_carried_kernel(m, c, nid);
				}
			}
		}
		rcu_read_unlock();
	} while (md_unit_walk_again(&w));
	return w.settled;
}

/*
 * Judged passes in a row, each finding kernel and scan apart and by
 * another offset than the one before, that make a drift: a kernel count
 * that keeps moving against the pages.  Three: one pass caught in a
 * dirtier's gap (below) changes the offset twice, there and back.
 */
#define MD_DRIFT_CHANGES	3

/* A drift of @e's kernel count against its scan, found in this pass. */
static void md_resync_drift(struct md_entry *e, const long *offset, const long *scan,
			    long prev_kernel, long prev_scan)
{
	struct md_entry_apart *a = &e->scan.apart;
	long worst = -1;
	int nid;

	a->drifted = true;
	a->kernel_moved = a->kernel != prev_kernel;
	a->scan_moved = a->scan != prev_scan;
	for_each_node(nid) {
		if (abs(offset[nid]) <= worst)
			continue;
		worst = abs(offset[nid]);
		a->drift_nid = nid;
		a->drift_node_scan = scan[nid];
		a->drift_node_kernel = scan[nid] - offset[nid];
	}
}

/*
 * Whether @e may not be based on this pass, in which its unit was still:
 * its scan and kernel count are @offset apart (per node), and that is
 * too brief to be believed, or not what was there when the module first
 * saw the memcg.  The scan counts a folio from its dirty tag, set with
 * the kernel's count; but folio_clear_dirty_for_io() leaves the tag until
 * the writeback starts, and a dirtier that sets PG_dirty in between and
 * is preempted in its gap past that start (see md_scan_tagged()) leaves
 * the folio dirty, tagged and not yet counted, with no event of ours: a
 * base taken then would count it twice, once the dirtier counts it.  So
 * the views must agree, or have stood the same distance apart for
 * uncounted_ms in judged passes in a row (no dirtier's gap is taken to
 * last that long; a pass that could not judge starts the wait again): a
 * kernel count off since before the load (a bug the audit then reports,
 * or where the kernel reparents, the released memcgs' leftovers, which
 * the unit carries).  A base takes only that first offset: one that moves
 * on after it stood, or keeps moving pass after pass, came after the
 * module saw the memcg, and is a drift for the audit to report
 * (md_resync_drift()), never a base.  Caller holds md_mutex.
 */
static bool md_resync_apart(struct md_entry *e, const long *offset, const long *scan)
{
	struct md_entry_apart *a = &e->scan.apart;
	long pages = 0, net = 0, total = 0, prev_kernel = a->kernel, prev_scan = a->scan;
	bool had = a->judged, same, in_a_row = a->since_ns;
	u64 now = ktime_get_ns();
	int nid;

	for_each_node(nid) {
		pages += abs(offset[nid]);
		net += offset[nid];
		total += scan[nid];
	}
	a->judged = true;
	a->scan = total;
	a->kernel = total - net;
	if (!pages && !(a->expected && a->first_net)) {
		a->since_ns = 0;
		a->pages = 0;
		a->net = 0;
		a->changes = 0;
		return false;
	}
	same = pages == a->pages && net == a->net;
	if (!same || !in_a_row) {
		/* another offset than the last judged pass's, or a new wait */
		if (!same && a->pages && ++a->changes >= MD_DRIFT_CHANGES && had)
			md_resync_drift(e, offset, scan, prev_kernel, prev_scan);
		a->pages = pages;
		a->net = net;
		a->since_ns = now;
		return true;
	}
	a->changes = 0;
	if (!a->first) {
		a->first = true;
		a->first_pages = pages;
		a->first_net = net;
		a->first_kernel = a->kernel;
		a->first_scan = a->scan;
	} else if ((a->first_pages >= 0 && pages != a->first_pages) || net != a->first_net) {
		/* the view that moved is the one that moved since then */
		if (had)
			md_resync_drift(e, offset, scan, a->first_kernel, a->first_scan);
		return true;
	}
	if (a->expected) {
		/* known, not first seen: no wait; a drift undone is over */
		a->drifted = false;
		return false;
	}
	return a->drifted || now - a->since_ns < md_uncounted_ns();
}

/* Whether any live entry is unsynced.  Caller holds md_mutex. */
static bool md_resync_wanted(void)
{
	struct md_entry *e;

	list_for_each_entry(e, &md_entries, node) {
		if (!READ_ONCE(e->dead) &&
		    (!READ_ONCE(e->synced) || READ_ONCE(e->rows_unsynced)))
			return true;
	}
	return false;
}

/* A pass that could not judge @e: the views' wait starts again. */
static void md_resync_unjudged(struct md_entry *e)
{
	e->scan.apart.since_ns = 0;
}

/* Into @events, @e's events of every counter and node (md_cn()), read now. */
static void md_resync_events(struct md_entry *e, long *events)
{
	enum md_counter c;
	int nid;

	for (c = 0; c < MD_NR_COUNTERS; c++)
		for_each_node(nid)
			events[md_cn(c, nid)] = md_entry_ledger_events(e, c, nid);
}

/*
 * @e's base of counter @c from this pass's scan: what the scan found that
 * its events (@events, per counter and node, read after the scan) and what
 * was carried here do not hold already.
 */
static void md_resync_base_counter(struct md_entry *e, enum md_counter c, const long *events)
{
	int nid, i;

	for_each_node(nid) {
		i = md_cn(c, nid);
		WRITE_ONCE(e->base[i], e->scan.pages[i] - events[i] -
			   md_entry_carried_ledger(e, c, nid));
	}
}

/* @e's base, every counter's (md_resync_base_counter()). */
static void md_resync_base(struct md_entry *e, const long *events)
{
	enum md_counter c;

	for (c = 0; c < MD_NR_COUNTERS; c++)
		md_resync_base_counter(e, c, events);
	memset(&e->scan.apart, 0, sizeof(e->scan.apart));
	WRITE_ONCE(e->rows_unsynced, 0);	/* every row based */
}

/*
 * Where the kernel reparents, a unit's members take their bases together,
 * from one scan.  The offlining of a dying member moves its folios to the
 * unit's root, with no event: a member based on an earlier scan, while it
 * still held them, and a root based on a later one, which finds them at
 * the root, count them twice (make check-audit on 7.3: /md_soak/churn's
 * ledger above kernel and scan by 64 pages for each such child, after the
 * reload).  So a dying member is not synced alone: it waits for its root,
 * which is made to resync if it is synced already
 * (md_resync_member_wait()); and a root is synced only in a pass where
 * each member with an entry is still too (its scan valid, no event since
 * the scan began), and then every member is based again on this scan
 * (@commit; @events is scratch), still after it too.  Caller holds
 * md_mutex and a reference on @root; false: not this pass.
 */
static bool md_resync_members(struct mem_cgroup *root, bool commit, long *events)
{
	struct mem_cgroup *pos;
	struct md_entry *m;
	bool still = true;

	rcu_read_lock();
	for (pos = NULL; (pos = md_unit_member_next(root, pos));) {
		m = md_entry_lookup(pos);
		if (!m)
			continue;	/* the offset holds its kernel count */
		if (!commit) {
			still = m->scan.valid && !m->scan.busy &&
				md_entry_quiet(m, m->scan.seq0);
			if (!still)
				break;
			continue;
		}
		md_resync_events(m, events);
		md_resync_base(m, events);
		WRITE_ONCE(m->synced, true);
		smp_mb();	/* pairs with md_entry_unsync() */
		still = still && md_entry_quiet(m, m->scan.seq0);
	}
	rcu_read_unlock();
	return still;
}

/* @e's counters @rows based from this pass's scan, as md_resync_base() does. */
static void md_resync_base_rows(struct md_entry *e, unsigned long rows, const long *events)
{
	unsigned int c;

	for_each_set_bit(c, &rows, MD_NR_COUNTERS)
		md_resync_base_counter(e, c, events);
}

/*
 * A synced entry's counters to be based again (rows_unsynced: their
 * probes missed hits), each from this pass's scan as md_resync_base()
 * does, if @e was still through it (@events: scratch).  Where the kernel
 * reparents, a unit's rows are based together, from one scan, as
 * md_resync_members() bases its members: a dying member's ledger, which
 * may be off too, is summed with its root's, and a dying memcg need not
 * ever be freed and carried (a unit that waited for that stayed unsynced
 * for good: md_audit_preload.sh on 7.3).  So a dying member hands its rows
 * on to its root and waits; a root's rows are based only in a pass in
 * which each member with an entry is still too, and those rows of every
 * member with them.  No kernel offset is taken again: the probes missed
 * the ledger's events, not the kernel's counts, and what the unit carried
 * when it synced stands (what was seen is never absorbed again).  True
 * once based.  Caller holds md_mutex.
 */
static noinline bool md_resync_rows(struct md_entry *e, long *events)
{
	unsigned long rows = READ_ONCE(e->rows_unsynced);
	struct mem_cgroup *memcg, *pos;
	struct md_entry *m;
	bool based = false;

	memcg = md_entry_pin(e);
	if (!memcg)
		return false;
	if (MD_KERNEL_REPARENTS && css_is_dying(&memcg->css)) {
		/* its root is based with it, even a root whose rows were */
		rcu_read_lock();
		m = md_entry_lookup(md_unit_root(memcg));
		if (m)
			set_mask_bits(&m->rows_unsynced, 0, rows);
		rcu_read_unlock();
		goto out;
	}
	if (!e->scan.valid || e->scan.busy ||
	    (MD_KERNEL_REPARENTS && !md_resync_members(memcg, false, NULL)))
		goto out;
	md_resync_events(e, events);
	if (!md_entry_quiet(e, e->scan.seq0))
		goto out;
	md_resync_base_rows(e, rows, events);
	/*
	 * the members' with them, done: if the unit was not still after all,
	 * its root's rows are based again with theirs in another pass
	 */
	rcu_read_lock();
	for (pos = NULL; (pos = md_unit_member_next(memcg, pos));) {
		m = md_entry_lookup(pos);
		if (!m)
			continue;
		md_resync_events(m, events);
		md_resync_base_rows(m, rows, events);
		set_mask_bits(&m->rows_unsynced, rows, 0);
	}
	rcu_read_unlock();
	smp_mb();	/* the bases before the sequences read again */
	if (md_entry_quiet(e, e->scan.seq0) &&
	    (!MD_KERNEL_REPARENTS || md_resync_members(memcg, false, NULL))) {
		set_mask_bits(&e->rows_unsynced, rows, 0);
		based = true;
	}
out:
	css_put(&memcg->css);
	return based;
}

/* What the last scan found in @re's unit (of @root).  Under RCU. */
static long md_resync_unit_scan(struct md_entry *re, struct mem_cgroup *root)
{
	struct mem_cgroup *pos;
	struct md_entry *m;
	long pages = 0;
	int nid;

	for_each_node(nid)
		pages += re->scan.pages[md_cn(MD_C_DIRTY, nid)];
	for (pos = NULL; (pos = md_unit_member_next(root, pos));) {
		m = md_entry_lookup(pos);
		if (m)
			for_each_node(nid)
				pages += m->scan.pages[md_cn(MD_C_DIRTY, nid)];
	}
	return pages;
}

/*
 * A dying member @m, unsynced, joins the unit of its live ancestor @re's
 * memcg (@root): the offset it brings was seen, or not, by this module
 * while it was a live unit root itself, and stood then (principle 1,
 * docs/verdicts.md: what was seen is never absorbed again).  A synced
 * root is made to resync with it (md_resync_members()) and may take just
 * that: its own offset was carried when it synced, so none, plus the
 * member's (@re's first offset, expected: held to it by
 * md_resync_apart(), so that a kernel that moves the counts at the
 * offlining, or anywhere in the unit until the root is based again, is a
 * drift the audit reports).  A root that is unsynced and has an offset
 * that stood already holds the member's on top of it from now on.  A
 * member whose offset was never seen (busy from before the load to its
 * removal) leaves nothing to hold the root to: the root takes what it
 * finds, said in its stat (kernel_carried_unseen).  Each member joins
 * once: one that joined a member of a unit that it now shares with that
 * member's root is in that member's offset already.  Caller holds
 * md_mutex and the RCU read lock.
 */
static void md_resync_join(struct md_entry *m, struct md_entry *re, struct mem_cgroup *root)
{
	struct md_entry_apart *ma = &m->scan.apart, *ra = &re->scan.apart;
	/* an offset that stood, or none: views that agreed in its last pass */
	bool seen = !ma->drifted && (ma->first || (ma->judged && !ma->pages));

	if (ma->joined)
		return;
	ma->joined = true;
	if (READ_ONCE(re->synced)) {
		memset(ra, 0, sizeof(*ra));
		if (seen) {
			ra->expected = true;
			ra->first = true;
			ra->first_pages = ma->first ? ma->first_pages : 0;
			ra->first_net = ma->first ? ma->first_net : 0;
			ra->first_scan = md_resync_unit_scan(re, root);
			ra->first_kernel = ra->first_scan - ra->first_net;
		} else {
			ra->unseen = true;
		}
		md_entry_unsync(root);
		return;
	}
	if (!ra->first)
		return;		/* its first sight, to come, takes the member in */
	if (seen && !ma->first) {
		return;		/* none */
	} else if (seen) {
		/* net only: per node, the two offsets may cancel */
		ra->first_pages = -1;
		ra->first_net += ma->first_net;
		ra->first_kernel -= ma->first_net;
	} else {
		ra->first = false;
		ra->expected = false;
		ra->unseen = true;
		ra->since_ns = 0;
	}
}

/* A dying member found unsynced: its root resyncs with it (above). */
static void md_resync_member_wait(struct md_entry *m, struct mem_cgroup *memcg)
{
	struct mem_cgroup *root;
	struct md_entry *re;

	rcu_read_lock();
	root = md_unit_root(memcg);
	re = md_entry_lookup(root);
	if (re)
		md_resync_join(m, re, root);
	rcu_read_unlock();
}

/*
 * Give unsynced entries a starting point: scan, and where the memcg had no
 * event at all from the start of the scan until its events are read (its
 * event sequence did not move, no return probe's window open), its pages
 * were still and the scan is its true dirty count, so
 * base = scan - events, if the kernel's count agrees (md_resync_apart()).
 * Where the kernel reparents, a live memcg's unit also takes the kernel's
 * offset then (md_resync_kernel_offset()).  Caller holds md_mutex and
 * has just scanned (md_scan()): a check that scans resyncs too, so that a
 * memcg gone still gets its verdict there and then.  Returns how many
 * entries remain unsynced.
 */
int md_resync_scanned(void)
{
	struct mem_cgroup *memcg;
	long *events, *offset, *scan;
	struct md_entry *e;
	unsigned int carry_seq;
	int left = 0;
	struct md_entry_apart apart;
	bool own_count, members_still;
	unsigned int n = MD_NR_COUNTERS * nr_node_ids;
	enum md_counter c;

	lockdep_assert_held(&md_mutex);
	if (!md_resync_wanted())
		return 0;	/* no allocation for nothing */
	events = kmalloc_array(n, sizeof(*events), GFP_KERNEL);
	offset = kmalloc_array(n, sizeof(*offset), GFP_KERNEL);
	scan = kmalloc_array(n, sizeof(*scan), GFP_KERNEL);
	if (!events || !offset || !scan) {
		kfree(scan);
		kfree(offset);
		kfree(events);
		return -ENOMEM;
	}
	md_delay(MD_D_RESYNC);
	list_for_each_entry(e, &md_entries, node) {
		if (READ_ONCE(e->dead))
			continue;
		if (READ_ONCE(e->synced)) {
			if (READ_ONCE(e->rows_unsynced) && !md_resync_rows(e, events))
				left++;
			continue;
		}
		if (!e->scan.valid || e->scan.busy) {
			md_resync_unjudged(e);
			left++;
			continue;
		}
		/*
		 * A kernel count to hold the scan against: not a released
		 * memcg's, nor, where the kernel reparents, a dying one's (its
		 * unit root's offset covers it)
		 */
		memcg = md_entry_pin(e);
		own_count = memcg && !(MD_KERNEL_REPARENTS && css_is_dying(&memcg->css));
		if (MD_KERNEL_REPARENTS && memcg && !own_count) {
			md_resync_member_wait(e, memcg);	/* synced with its root */
			left++;
			goto next;
		}
		/*
		 * an unsynced child carried in: the offset it brought was
		 * never seen in this unit, unless a member's wait expects it
		 */
		if (atomic_xchg(&e->unsynced_in, 0) && !e->scan.apart.expected)
			e->scan.apart.unseen = true;
		carry_seq = md_carry_begin();
		if (own_count && !md_resync_kernel_offset(e, memcg, offset, scan)) {
			md_resync_unjudged(e);
			left++;		/* carries kept running: next time */
			goto next;
		}
		md_resync_events(e, events);
		/* an event since the scan began would be in events, not scan */
		if (!md_entry_quiet(e, e->scan.seq0)) {
			md_resync_unjudged(e);
			left++;
			goto next;
		}
		/* the dirty counter's views judge whether a base may be taken */
		if ((own_count && md_resync_apart(e, offset + md_cn(MD_C_DIRTY, 0),
						  scan + md_cn(MD_C_DIRTY, 0))) ||
		    (MD_KERNEL_REPARENTS && own_count && !md_resync_members(memcg, false, NULL))) {
			left++;
			goto next;
		}
		apart = e->scan.apart;
		md_resync_base(e, events);
		members_still = !(MD_KERNEL_REPARENTS && own_count) ||
				md_resync_members(memcg, true, events);
		WRITE_ONCE(e->synced, true);
		smp_mb();	/* pairs with md_entry_unsync() */
		if (!md_entry_quiet(e, e->scan.seq0) || !members_still ||
		    (MD_KERNEL_REPARENTS && md_carry_retry(carry_seq))) {
			/* an event, or a carry through the unit: next time */
			WRITE_ONCE(e->synced, false);
			e->scan.apart = apart;	/* what was seen still holds */
			left++;
		} else if (MD_KERNEL_REPARENTS && own_count) {
			for (c = 0; c < MD_NR_COUNTERS; c++)
				md_entry_carry_offset(e, c, offset + md_cn(c, 0));
			/* taken with a member never seen at rest: said in the stat */
			if (apart.unseen)
				WRITE_ONCE(e->scan.kernel_carried_unseen,
					   e->scan.kernel_carried_unseen + apart.net);
		}
next:
		if (memcg)
			css_put(&memcg->css);
	}
	kfree(scan);
	kfree(offset);
	kfree(events);
	return left;
}

/* A scan, and the resync above. */
int md_resync(void)
{
	int left;

	mutex_lock(&md_mutex);
	md_scan();
	left = md_resync_scanned();
	mutex_unlock(&md_mutex);
	return left;
}

/*
 * Retry resynchronisation with backoff, 1 s to MD_RESYNC_MAX_S, while any
 * entry is unsynced: each try is a scan of every page, and a memcg that
 * is never still keeps its entry unsynced; but one that has gone still is
 * based, and one whose kernel count drifts from its pages is found, within
 * a few tries of that (docs/verdicts.md), so the wait stays short.
 */
#define MD_RESYNC_MAX_S		8U

static void md_resync_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(md_resync_work, md_resync_fn);
static unsigned int md_resync_delay = 1;
static bool md_resync_stopping;

static void md_resync_fn(struct work_struct *work)
{
	if (md_resync() == 0) {
		md_resync_delay = 1;
		return;
	}
	md_resync_delay = min(md_resync_delay * 2, MD_RESYNC_MAX_S);
	if (!READ_ONCE(md_resync_stopping))
		queue_delayed_work(md_wq, &md_resync_work,
				   md_resync_delay * HZ);
}

void md_resync_kick(void)
{
	if (!READ_ONCE(md_resync_stopping))
		mod_delayed_work(md_wq, &md_resync_work, 0);
}

void md_resync_stop(void)
{
	WRITE_ONCE(md_resync_stopping, true);
	cancel_delayed_work_sync(&md_resync_work);
}
