// SPDX-License-Identifier: GPL-2.0
/*
 * The continuous audit, for test fleets that read none of our files but
 * scan the console: with audit_ms set, a work item audits every memcg each
 * period.  The comparison is the cheap one (check.c's md_check_quick():
 * the kernel's counter against the ledger within the bound, no page
 * scan).  A memcg whose two views are apart in two audits in a row is
 * escalated to a page scan and a full verdict, and only a bad verdict that
 * the next escalation finds again is reported (a scan can catch a folio in
 * passing, in a dirtier's gap; a bug's offset stays), once per memcg and
 * verdict: one console line, and with audit_warn=1 one WARN, which
 * harnesses flag like any kernel warning.
 * A memcg still apart by the same number of pages is not escalated again
 * (a scan would tell nothing new) unless audit_warn was turned on since.
 * With audit_watch (the default), the first memcg of a pass found bad is
 * then watched (watch.c) unless a watch is armed already: a bug that
 * strikes again is then named at its call site with nobody reading.  The
 * debug registers are the machine's (debuggers, perf mem:), so that watch
 * is bounded: only the node found apart, and it stops by itself once it
 * has named the code (and is not armed on that memcg again), after
 * audit_watch_s, or when the cgroup is removed.
 *
 * Process context only (a work item); md_mutex held over a pass.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/numa.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "attach.h"
#include "audit.h"
#include "check.h"
#include "compat.h"
#include "domains.h"
#include "inject_hooks.h"
#include "ledger.h"
#include "memcg.h"
#include "points.h"
#include "probes.h"
#include "scan.h"
#include "watch.h"

#define MD_AUDIT_MIN_MS		100
/* audits in a row that find kernel and ledger apart before a scan */
#define MD_AUDIT_STRIKES	2

static unsigned int audit_ms;
static bool audit_warn;
module_param(audit_warn, bool, 0600);
MODULE_PARM_DESC(audit_warn, "a bad verdict of the audit also raises one WARN per memcg and verdict");
static bool audit_watch = true;
module_param(audit_watch, bool, 0600);
MODULE_PARM_DESC(audit_watch, "a bad verdict of the audit arms the watch on its memcg, if nothing is watched (default: on)");
static unsigned int audit_watch_s = 600;
module_param(audit_watch_s, uint, 0600);
MODULE_PARM_DESC(audit_watch_s, "a watch the audit armed stops after this many seconds if it named nothing (default 600; 0: when it names the code or its cgroup goes)");
static unsigned int audit_unsynced_s = 120;
module_param(audit_unsynced_s, uint, 0600);
MODULE_PARM_DESC(audit_unsynced_s, "a memcg the audit finds unsynced this many seconds is reported, once (default 120; 0: never)");

static void md_audit_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(md_audit_work, md_audit_fn);

/* Whether the work may be queued: from md_audit_start() to md_audit_stop(). */
static DEFINE_MUTEX(md_audit_lock);
static bool md_audit_live;

static DEFINE_SPINLOCK(md_audit_stats_lock);
static struct md_audit_stats md_audit_totals;

/* Console lines of bad verdicts: at most 10 per 5 s; a held one comes later. */
static DEFINE_RATELIMIT_STATE(md_audit_rs, 5 * HZ, 10);

/* (Re)arm or stop the work for the period now set.  md_audit_lock held. */
static void md_audit_arm(void)
{
	unsigned int ms = READ_ONCE(audit_ms);

	lockdep_assert_held(&md_audit_lock);
	if (!md_audit_live)
		return;
	if (ms)
		mod_delayed_work(md_wq, &md_audit_work, msecs_to_jiffies(ms));
	else
		cancel_delayed_work(&md_audit_work);
}

/* 0 turns the audit off; a period under 100 ms is refused. */
static int md_audit_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (ms && ms < MD_AUDIT_MIN_MS)
		return -EINVAL;
	mutex_lock(&md_audit_lock);
	WRITE_ONCE(audit_ms, ms);
	md_audit_arm();
	mutex_unlock(&md_audit_lock);
	return 0;
}

static const struct kernel_param_ops md_audit_ms_ops = {
	.set	= md_audit_ms_set,
	.get	= param_get_uint,
};
module_param_cb(audit_ms, &md_audit_ms_ops, &audit_ms, 0600);
MODULE_PARM_DESC(audit_ms, "audit every memcg every this many ms (0: off, the default; at least 100)");

unsigned int md_audit_period_ms(void)
{
	return READ_ONCE(audit_ms);
}

bool md_audit_warns(void)
{
	return READ_ONCE(audit_warn);
}

bool md_audit_arms_watch(void)
{
	return READ_ONCE(audit_watch);
}

unsigned int md_audit_unsynced_s(void)
{
	return READ_ONCE(audit_unsynced_s);
}

void md_audit_read_stats(struct md_audit_stats *st)
{
	spin_lock(&md_audit_stats_lock);
	*st = md_audit_totals;
	spin_unlock(&md_audit_stats_lock);
}

/* @memcg's cgroup path into @buf (PATH_MAX), or a stand-in. */
static const char *md_audit_path(struct mem_cgroup *memcg, char *buf)
{
	int len = cgroup_path(memcg->css.cgroup, buf, PATH_MAX);

	return len < 0 || len >= PATH_MAX ? "(path too long)" : buf;
}

/*
 * Say a bad verdict of @memcg: a console line unless one was printed for
 * this memcg and verdict (one held back by the ratelimit is printed at a
 * later audit), and with audit_warn a WARN unless one was raised.
 */
static void md_audit_report(struct md_entry *e, struct mem_cgroup *memcg,
			    struct md_check *c, char *buf,
			    struct md_audit_stats *pass)
{
	unsigned int bit = BIT(c->verdict);
	const char *path = md_audit_path(memcg, buf);
	u64 cgid = cgroup_id(memcg->css.cgroup);
	char node[80] = "", ledger[32], node_ledger[32], counter[32] = "", watched[32] = "";

	/* an unsynced memcg's ledger has no starting point: no figure */
	if (c->ledger_unknown) {
		strscpy(ledger, "unknown (unsynced)", sizeof(ledger));
		strscpy(node_ledger, ledger, sizeof(node_ledger));
	} else {
		snprintf(ledger, sizeof(ledger), "%ld", c->ledger);
		snprintf(node_ledger, sizeof(node_ledger), "%ld", c->node_ledger);
	}
	/* the dirty counter's lines are as they always were */
	if (c->counter != MD_C_DIRTY) {
		snprintf(counter, sizeof(counter), ", counter %s", md_counter_names[c->counter]);
		snprintf(watched, sizeof(watched), " %s", md_counter_names[c->counter]);
	}
	if (!(e->audit.printed & bit)) {
		if (__ratelimit(&md_audit_rs)) {
			pr_warn("%s %s (id %llu) node %d: kernel %ld ledger %s scan %ld, suspect %s%s\n",
				md_verdict_names[c->verdict], path, cgid, c->nid,
				c->node_kernel, node_ledger, c->node_scan,
				md_view_names[c->suspect], counter);
			e->audit.printed |= bit;
			pass->printed++;
			pass->printed_audit = pass->audits;
		} else {
			pass->suppressed++;
		}
	}
	if (md_audit_warns() && !(e->audit.warned & bit)) {
		e->audit.warned |= bit;
		pass->warned++;
		/* totals can agree while a node's do not (a count moved between nodes) */
		if (c->node_differs)
			snprintf(node, sizeof(node), ", on node %d kernel %ld ledger %s scan %ld",
				 c->nid, c->node_kernel, node_ledger, c->node_scan);
		WARN(1, "memcg_dirty: audit found %s in memory cgroup %s (id %llu): kernel %ld ledger %s scan %ld pages in all%s, suspect %s%s; read /sys/kernel/debug/memcg_dirty/events and the cgroup's check under cgroups/; \"watch %s%s\" in its control file names the code that moves the counter next\n",
		     md_verdict_names[c->verdict], path, cgid, c->kernel, ledger,
		     c->scan, node, md_view_names[c->suspect], counter, path, watched);
	}
}

/*
 * An unsynced memcg: its ledger has no starting point, so no quick
 * comparison; but the resync holds its kernel count against its pages in
 * every pass in which it is still, and a count found drifting from them
 * (resync.c's md_resync_apart(), after MD_DRIFT_CHANGES passes: found
 * again by construction) is a bad verdict of kernel and scan alone,
 * reported as the others.  And one that stays unsynced audit_unsynced_s
 * is said once, for it is audited by nothing else.  True on a bad
 * verdict, its node in @nid, its counter in @counter.
 */
static bool md_audit_unsynced(struct md_entry *e, struct mem_cgroup *memcg,
			      char *buf, struct md_audit_stats *pass, int *nid,
			      enum md_counter *counter, unsigned int untrusted)
{
	unsigned int bound_s = md_audit_unsynced_s();
	u64 now = ktime_get_ns();
	struct md_check c;
	bool fresh;

	pass->last_unsynced++;
	if (!e->audit.unsynced_ns)
		e->audit.unsynced_ns = now;
	if (e->scan.apart.drifted) {
		md_check_memcg(e, memcg, &c, MD_CHECK_UNLOGGED | MD_CHECK_UNTRUSTED(untrusted));
		if (c.verdict != MD_MISMATCH && c.verdict != MD_UNDERFLOW)
			return false;
		fresh = !(e->audit.printed & BIT(c.verdict));
		md_audit_report(e, memcg, &c, buf, pass);
		if (!fresh)
			return false;	/* reported already */
		pass->bad_verdicts++;
		*nid = c.nid;
		*counter = c.counter;
		return true;
	}
	if (!bound_s || e->audit.unsynced_told ||
	    now - e->audit.unsynced_ns < (u64)bound_s * NSEC_PER_SEC)
		return false;
	e->audit.unsynced_told = true;
	pass->unsynced_long++;
	pr_warn("unsynced %s (id %llu) for %u s: never still with its kernel count and pages in agreement, it has no ledger to compare; kernel and scan are held against each other while it stays so\n",
		md_audit_path(memcg, buf), cgroup_id(memcg->css.cgroup), bound_s);
	return false;
}

/* The escalation of @e found no bad verdict, or none the last one found. */
static void md_audit_clear(struct md_entry *e, struct md_audit_stats *pass)
{
	if (e->audit.pending)
		pass->unconfirmed++;
	e->audit.pending = 0;
}

/*
 * One memcg's audit: the cheap comparison, escalated on its second strike.
 * True if that found a bad verdict that the escalation before found too:
 * one for the watch to follow, of counter *@counter on node *@nid.
 * @untrusted: the counters whose probes missed hits, not judged.
 */
static bool md_audit_memcg(struct md_entry *e, struct mem_cgroup *memcg,
			   char *buf, struct md_audit_stats *pass, int *nid,
			   enum md_counter *counter, unsigned int untrusted)
{
	struct md_quick_check q;
	struct md_check c;
	long gap, last_gap;

	if (!READ_ONCE(e->synced))
		return md_audit_unsynced(e, memcg, buf, pass, nid, counter, untrusted);
	e->audit.unsynced_ns = 0;
	e->audit.unsynced_told = false;
	md_check_quick(e, memcg, &q, untrusted);
	if (q.result == MD_QUICK_NONE)
		return false;
	pass->last_memcgs++;
	if (q.result == MD_QUICK_AGREE) {
		e->audit.strikes = 0;
		e->audit.gap = 0;
		md_audit_clear(e, pass);
		return false;
	}
	pass->differed++;
	gap = q.kernel - q.ledger;
	if (++e->audit.strikes < MD_AUDIT_STRIKES)
		return false;
	e->audit.strikes = MD_AUDIT_STRIKES;
	if (!e->audit.pending && e->audit.printed && gap == e->audit.gap &&
	    (!md_audit_warns() || e->audit.warned))
		return false;	/* reported already, and nothing moved */
	last_gap = e->audit.gap;
	e->audit.gap = gap;
	pass->escalations++;
	/* the first finding is not logged either: it may not last */
	md_check_memcg(e, memcg, &c, MD_CHECK_SCAN | MD_CHECK_UNTRUSTED(untrusted) |
		       (e->audit.pending ? 0 : MD_CHECK_UNLOGGED));
	if (c.verdict != MD_MISMATCH && c.verdict != MD_UNDERFLOW) {
		e->audit.strikes = 0;	/* apart only in passing */
		md_audit_clear(e, pass);
		return false;
	}
	/*
	 * Confirmed by the same bad verdict again, or by any bad verdict
	 * with the same gap: a constant offset of the kernel's in a memcg
	 * whose count swings around it reads underflow below it, mismatch
	 * above, and may never read the same twice in a row.
	 */
	if (!(e->audit.pending & BIT(c.verdict)) &&
	    !(e->audit.pending && gap == last_gap)) {
		md_audit_clear(e, pass);
		e->audit.pending = BIT(c.verdict);	/* the next pass escalates */
		return false;
	}
	e->audit.pending = 0;		/* confirmed */
	pass->bad_verdicts++;
	md_audit_report(e, memcg, &c, buf, pass);
	*nid = c.node_differs ? c.nid : NUMA_NO_NODE;
	*counter = c.counter;
	return true;
}

/*
 * Watch @memcg's counter @c, found bad on node @nid, unless audit_watch is
 * off or a watch is armed (an operator's, or one the audit armed before).
 * Arming sleeps: called with md_mutex released.
 */
static void md_audit_watch(struct mem_cgroup *memcg, enum md_counter c, int nid, char *buf,
			   struct md_audit_stats *pass)
{
	const char *path;
	int ret;

	if (!md_audit_arms_watch())
		return;
	path = md_audit_path(memcg, buf);
	if (path != buf)
		return;
	ret = md_watch_start_audit(path, c, nid, READ_ONCE(audit_watch_s));
	if (!ret) {
		pass->watches++;
		pr_warn("watch %s (id %llu) armed by the audit: a change of its counter outside the %s accounting, or mismatched there, is reported next (\"watch off\" in control stops it; it stops by itself once it has, or after audit_watch_s)\n",
			path, cgroup_id(memcg->css.cgroup), md_counter_names[c]);
	} else if (ret != -EBUSY && ret != -ENOENT && ret != -EALREADY) {
		pr_warn_ratelimited("watch %s: the audit cannot arm it: %d\n", path, ret);
	}
}

/* One audit of every memcg, of the counters not in @untrusted. */
static void md_audit_pass(struct md_audit_stats *pass, unsigned int untrusted)
{
	struct mem_cgroup *pos = NULL, *bad = NULL;
	enum md_counter counter, bad_counter = MD_C_DIRTY;
	int nid, bad_nid = NUMA_NO_NODE;
	struct md_entry *e;
	char *buf;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return;		/* the next period tries again */
	mutex_lock(&md_mutex);
	pass->last_wait_ns = ktime_get_ns();
	md_check_ref_all();
	pass->last_wait_ns = ktime_get_ns() - pass->last_wait_ns;
	while ((pos = md_memcg_walk(pos))) {
		e = md_entry_get(pos, GFP_ATOMIC);	/* from the pool only */
		if (e && md_audit_memcg(e, pos, buf, pass, &nid, &counter, untrusted) &&
		    !bad && css_tryget(&pos->css)) {
			bad = pos;
			bad_nid = nid;
			bad_counter = counter;
		}
	}
	mutex_unlock(&md_mutex);
	if (bad) {
		md_audit_watch(bad, bad_counter, bad_nid, buf, pass);
		css_put(&bad->css);
	}
	kfree(buf);
}

/*
 * The writeback domains have no ledger: each is judged by a scan through
 * which its own events and counts stood still (domains.c).  The audit
 * scans for them when a pass finds the machine quiet (no probe hit since
 * the pass before) and something happened since the last scan that judged
 * every domain, or MD_AUDIT_DOMAINS_S went by; when it is not quiet,
 * every MD_AUDIT_DOMAINS_S, which judges the domains that stood still
 * meanwhile, so that one writer does not silence the others' audit; and
 * to confirm a bad verdict.  The scan is the domains' own
 * (md_scan_domains()): the memcgs' checks and resyncs keep their scans.
 * It walks all memory (about 10 ms a GiB under the emulator): but for a
 * confirmation on a quiet machine, the next waits
 * MD_AUDIT_DOMAINS_SPACING times the last one's duration, so that on a
 * large machine they take at most 1 % of a CPU.
 */
#define MD_AUDIT_DOMAINS_S		10
#define MD_AUDIT_DOMAINS_SPACING	100
static unsigned long md_audit_hits, md_audit_judged_hits;
static u64 md_audit_judged_ns, md_audit_domains_ns, md_audit_domains_took_ns;

/* Every probe hit, and every miss: a sum that moves with any count's change */
static unsigned long md_audit_all_hits(void)
{
	unsigned long hits = md_probes_missed();
	enum md_point p;

	for (p = 0; p < MD_NR_POINTS; p++)
		hits += md_probes_hits(p);
	return hits;
}

/*
 * The domains' scan, md_mutex held: a probe that missed a hit meanwhile
 * counted no event of its domain, so then nothing is judged.  Returns the
 * scan's duration.
 */
u64 md_audit_scan_domains(void)
{
	unsigned long missed = md_probes_missed();
	u64 took = md_scan_domains();

	if (md_probes_missed() != missed)
		md_domains_unjudge();
	return took;
}

static bool md_audit_domains_due(bool quiet, unsigned long hits, u64 now)
{
	u64 spacing = MD_AUDIT_DOMAINS_SPACING * md_audit_domains_took_ns;
	u64 period = max_t(u64, MD_AUDIT_DOMAINS_S * NSEC_PER_SEC, spacing);
	u64 since = now - md_audit_domains_ns;

	if (md_domains_pending())
		return quiet || since >= spacing;
	if (!quiet)
		return since >= period;
	return since >= spacing &&
	       (hits != md_audit_judged_hits || now - md_audit_judged_ns >= period);
}

static void md_audit_domains(struct md_audit_stats *pass)
{
	unsigned long hits = md_audit_all_hits();
	bool quiet = hits == md_audit_hits;
	u64 now = ktime_get_ns();
	unsigned int told;

	md_audit_hits = hits;
	mutex_lock(&md_mutex);
	if (!md_audit_domains_due(quiet, hits, now)) {
		mutex_unlock(&md_mutex);
		return;
	}
	md_audit_domains_ns = now;
	md_audit_domains_took_ns = md_audit_scan_domains();
	pass->domain_scans++;
	if (md_domains_judged()) {
		md_audit_judged_hits = hits;
		md_audit_judged_ns = now;
	}
	told = md_domains_report(md_audit_warns());
	mutex_unlock(&md_mutex);
	pass->domain_bad += told;
	pass->bad_verdicts += told;
	pass->printed += told;
	if (md_audit_warns())
		pass->warned += told;
}

static void md_audit_fn(struct work_struct *work)
{
	struct md_audit_stats pass = {};
	u64 start = ktime_get_ns();
	unsigned int ms, untrusted;

	spin_lock(&md_audit_stats_lock);
	pass.audits = md_audit_totals.audits + 1;	/* this pass's number */
	spin_unlock(&md_audit_stats_lock);
	md_probes_log_missed();
	untrusted = md_probes_untrusted();
	if (untrusted != MD_ALL_COUNTERS)
		md_audit_pass(&pass, untrusted);
	md_audit_domains(&pass);
	if (untrusted && !md_audit_totals.untrusted_printed) {
		/* no verdict can be had: say so once */
		pr_warn("untrusted: probes missed %lu hits or cannot follow a change; the audit gives no verdict%s until reloaded\n",
			md_probes_missed(),
			untrusted == MD_ALL_COUNTERS ? "" : " of the dirty counter");
		pass.untrusted_printed = true;
	}

	/* a reader that saw this pass's lines may read totals without them */
	md_delay(MD_D_AUDIT_TOTALS);
	spin_lock(&md_audit_stats_lock);
	md_audit_totals.audits++;
	md_audit_totals.last_ns = ktime_get_ns() - start;
	md_audit_totals.last_wait_ns = pass.last_wait_ns;
	md_audit_totals.last_memcgs = pass.last_memcgs;
	md_audit_totals.differed += pass.differed;
	md_audit_totals.escalations += pass.escalations;
	md_audit_totals.bad_verdicts += pass.bad_verdicts;
	md_audit_totals.unconfirmed += pass.unconfirmed;
	md_audit_totals.printed += pass.printed;
	if (pass.printed)
		md_audit_totals.printed_audit = pass.printed_audit;
	md_audit_totals.suppressed += pass.suppressed;
	md_audit_totals.warned += pass.warned;
	md_audit_totals.watches += pass.watches;
	md_audit_totals.last_unsynced = pass.last_unsynced;
	md_audit_totals.unsynced_long += pass.unsynced_long;
	md_audit_totals.domain_scans += pass.domain_scans;
	md_audit_totals.domain_bad += pass.domain_bad;
	md_audit_totals.untrusted_printed |= pass.untrusted_printed;
	spin_unlock(&md_audit_stats_lock);

	mutex_lock(&md_audit_lock);
	ms = READ_ONCE(audit_ms);
	if (md_audit_live && ms)
		queue_delayed_work(md_wq, &md_audit_work, msecs_to_jiffies(ms));
	mutex_unlock(&md_audit_lock);
}

/* Once the probes are armed and the entries made: a period set at load starts now. */
void md_audit_start(void)
{
	mutex_lock(&md_audit_lock);
	md_audit_live = true;
	md_audit_arm();
	mutex_unlock(&md_audit_lock);
}

/* Before the probes go: no pass runs or is queued once this returns. */
void md_audit_stop(void)
{
	mutex_lock(&md_audit_lock);
	md_audit_live = false;
	mutex_unlock(&md_audit_lock);
	cancel_delayed_work_sync(&md_audit_work);
}
