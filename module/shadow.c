// SPDX-License-Identifier: GPL-2.0
/*
 * The per-page shadow of the ledger's belief (module parameter track=1):
 * one bit per page frame, set while the ledger counts the page's folio
 * dirty.  The probes set a folio's bits where the ledger counts it
 * dirtied, clear them where it counts it cleaned, and move them with a
 * migration; the page scan sets those of memcgs whose ledger is not synced
 * yet (their pages were dirtied before the module saw them).
 *
 * A cleaning of a folio whose bit is clear, in a synced memcg, is the
 * cleaning of a page nobody counted dirty: the kernel decrements what it
 * never incremented (the 4.2 bug's class).  It is reported with the page's
 * file and index unless a dirtier racing the cleaning sets the bit first:
 * a dirtier sets PG_dirty, and counts it later (__folio_mark_dirty()),
 * and a cleaning in between takes a count not yet given.  No grace period
 * bounds that gap: where folio_memcg_lock() is empty (CONFIG_MEMCG_V1=n,
 * every kernel from 6.13) it is outside any RCU section, and a dirtier
 * preempted there (PREEMPT_RT, preempt=full) stays in it as long as it is
 * kept off its CPU.  So a suspect waits uncounted_ms, and a grace period
 * (the probes' own sections), before it is reported; a dirtier kept off its
 * CPU longer than that is reported as a bug (the trade-off: a real one is reported
 * uncounted_ms late).  A raced cleaning leaves the page clean and counted
 * by the dirtier: its bit, which that count set, is cleared again.
 *
 * Each page scan also lists both sides of a disagreement by page (debugfs
 * "folios"): dirty folios of synced memcgs whose bit is clear (dirty, never
 * counted: listed once a scan found them so uncounted_ms after the first,
 * see scan.c) and clean ones whose bit is set (counted, never cleaned).
 *
 * Memory: one bit per page frame from the first node's start to the last
 * node's end, allocated at load: 32 KiB per GiB of memory where the
 * physical map has no large holes.  Where it has (pfns spread far beyond
 * the memory present), one bit per frame of the span would cost mostly
 * holes: track=1 is refused then (md_shadow_init()).  Bits: any context,
 * atomic operations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kdev_t.h>
#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "anomaly.h"
#include "shadow.h"

static bool track;
module_param(track, bool, 0400);
MODULE_PARM_DESC(track, "keep one bit per page of what the ledger counts dirty, to name the page of a cleaning never counted");

static unsigned int uncounted_ms = 10000;
module_param(uncounted_ms, uint, 0600);
MODULE_PARM_DESC(uncounted_ms, "a page dirty and uncounted this long (ms) is a bug, not a dirtier between setting PG_dirty and counting it");

#define MD_SHADOW_PENDING	16	/* cleanings awaiting their judgement */

/*
 * The bitmap may cost this many times what the memory present needs
 * (holes in the physical map), and at least this much, before track=1 is
 * refused.
 */
#define MD_SHADOW_SPARSE	4
#define MD_SHADOW_SLACK		(32UL << 20)

static unsigned long *md_shadow;
static unsigned long md_shadow_base, md_shadow_pfns;	/* the pfns covered */

static DEFINE_RAW_SPINLOCK(md_shadow_lock);	/* the pending cleanings */
static struct md_shadow_suspect md_shadow_pending[MD_SHADOW_PENDING];
static unsigned int md_shadow_nr_pending;
static atomic_long_t md_shadow_suspects, md_shadow_reported, md_shadow_raced, md_shadow_dropped;
static DEFINE_RATELIMIT_STATE(md_shadow_rs, 5 * HZ, 10);

static void md_shadow_report_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(md_shadow_work, md_shadow_report_fn);

static void md_shadow_kick(struct irq_work *work)
{
	queue_delayed_work(md_wq, &md_shadow_work, HZ / 10);
}

static struct irq_work md_shadow_irq_work = IRQ_WORK_INIT(md_shadow_kick);

DEFINE_STATIC_KEY_FALSE(md_shadow_key);

u64 md_uncounted_ns(void)
{
	return (u64)READ_ONCE(uncounted_ms) * NSEC_PER_MSEC;
}

/*
 * One bit per pfn from the first node's start to the last node's end.
 * The bitmap is refused where holes would make most of it: a sparse
 * physical map (nodes far apart) would otherwise take gigabytes for a few
 * pages of use.  A per-section bitmap would fit any map, at the cost of a
 * lookup on each bit the probes touch; refusing keeps the probes' cost.
 */
int md_shadow_init(void)
{
	unsigned long start = ULONG_MAX, end = 0, present = 0, bytes;
	int nid;

	if (!track)
		return 0;
	for_each_online_node(nid) {
		start = min(start, node_start_pfn(nid));
		end = max(end, node_end_pfn(nid));
		present += node_present_pages(nid);
	}
	if (end <= start)
		return -EINVAL;
	md_shadow_base = start;
	md_shadow_pfns = end - start;
	bytes = BITS_TO_LONGS(md_shadow_pfns) * sizeof(long);
	if (bytes > max(MD_SHADOW_SPARSE * BITS_TO_LONGS(present) * sizeof(long),
			MD_SHADOW_SLACK)) {
		pr_err("track=1: the physical map spans %lu pages for %lu present: a shadow of %lu KiB would be mostly holes\n",
		       md_shadow_pfns, present, bytes >> 10);
		return -E2BIG;
	}
	md_shadow = vzalloc(bytes);
	if (!md_shadow)
		return -ENOMEM;
	static_branch_enable(&md_shadow_key);	/* before the probes: shadow.h */
	return 0;
}

void md_shadow_exit(void)
{
	if (!md_shadow)
		return;
	static_branch_disable(&md_shadow_key);
	irq_work_sync(&md_shadow_irq_work);
	cancel_delayed_work_sync(&md_shadow_work);
	vfree(md_shadow);
	md_shadow = NULL;
}

void md_shadow_stats(struct md_shadow_stats *st)
{
	st->bytes = md_shadow ? BITS_TO_LONGS(md_shadow_pfns) * sizeof(long) : 0;
	st->suspects = atomic_long_read(&md_shadow_suspects);
	st->reported = atomic_long_read(&md_shadow_reported);
	st->raced = atomic_long_read(&md_shadow_raced);
	st->dropped = atomic_long_read(&md_shadow_dropped);
}

/* A folio's pages inside the shadow, from bit *@bit: how many. */
static unsigned long md_shadow_span(struct folio *folio, unsigned long *bit)
{
	unsigned long pfn = folio_pfn(folio);

	if (pfn < md_shadow_base || pfn - md_shadow_base >= md_shadow_pfns)
		return 0;
	*bit = pfn - md_shadow_base;
	return min(folio_nr_pages(folio), md_shadow_pfns - *bit);
}

/* @pfn's bit, or -1 outside the shadow. */
static long md_shadow_bit(unsigned long pfn)
{
	if (pfn < md_shadow_base || pfn - md_shadow_base >= md_shadow_pfns)
		return -1;
	return pfn - md_shadow_base;
}

/*
 * A dirtier set the bits of @nr pages from @pfn while cleanings wait to be
 * judged: those of these pages were raced, whatever their bit says when
 * judged (a later cleaning may have cleared it again).
 */
static void md_shadow_note_raced(unsigned long pfn, unsigned long nr)
{
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	for (i = 0; i < md_shadow_nr_pending; i++)
		if (md_shadow_pending[i].pfn - pfn < nr)
			md_shadow_pending[i].raced = true;
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
}

/*
 * Sets the folio's bits.  While no cleaning waits to be judged (nearly
 * always), that costs a probe one more load and branch.  The barrier
 * pairs with the one in md_shadow_suspect(): either a suspect queued
 * before sees the bit, or this sees the suspect.
 */
void __md_shadow_set(struct folio *folio)
{
	unsigned long bit, n, nr;

	if (!md_shadow)
		return;
	nr = md_shadow_span(folio, &bit);
	for (n = nr; n; n--)
		set_bit(bit++, md_shadow);
	smp_mb__after_atomic();	/* the bits before the count: md_shadow_suspect() */
	if (unlikely(READ_ONCE(md_shadow_nr_pending)) && nr)
		md_shadow_note_raced(folio_pfn(folio), nr);
}

/* Clears the folio's bits: whether its first one was set. */
bool md_shadow_clear(struct folio *folio)
{
	unsigned long bit, n;
	bool was;

	if (!md_shadow)
		return true;
	n = md_shadow_span(folio, &bit);
	if (!n)
		return true;
	was = test_and_clear_bit(bit, md_shadow);
	while (--n)
		clear_bit(++bit, md_shadow);
	return was;
}

void __md_shadow_move(struct folio *src, struct folio *dst)
{
	if (md_shadow && md_shadow_clear(src))
		__md_shadow_set(dst);
}

/* The pfns the shadow covers: [*@start, *@end); empty without it. */
void md_shadow_range(unsigned long *start, unsigned long *end)
{
	*start = md_shadow_base;
	*end = md_shadow ? md_shadow_base + md_shadow_pfns : md_shadow_base;
}

/*
 * The first page frame in [@pfn, @end) whose bit is set, or @end: a
 * caller bounds the walk between its reschedules with @end.
 */
unsigned long md_shadow_next(unsigned long pfn, unsigned long end)
{
	unsigned long bit;

	if (!md_shadow || pfn >= end)
		return end;
	pfn = max(pfn, md_shadow_base);
	end = min(end, md_shadow_base + md_shadow_pfns);
	if (pfn >= end)
		return end;
	bit = find_next_bit(md_shadow, end - md_shadow_base, pfn - md_shadow_base);
	return md_shadow_base + bit;
}

/* Whether the ledger counts @folio dirty (its first page's bit). */
bool md_shadow_test(struct folio *folio)
{
	unsigned long bit;

	if (!md_shadow || !md_shadow_span(folio, &bit))
		return true;
	return test_bit(bit, md_shadow);
}

/*
 * The folios the last page scan found dirty with their bit clear, in synced
 * memcgs: dirty pages nobody counted.  Filled by the scan (md_scan_page()),
 * settled after its last grace period, printed by debugfs "folios"
 * (md_shadow_list_read(), show.c).  And those it found clean with their
 * bit set: counted dirty, never cleaned.
 */
static struct md_shadow_list md_uncounted = {
	.name = "uncounted",
	.what = "dirty folios of synced memcgs the ledger never counted",
};

static struct md_shadow_list md_uncleaned = {
	.name = "uncleaned",
	.what = "clean folios of synced memcgs the ledger counts dirty",
};

static void md_shadow_describe(struct md_shadow_suspect *s, struct folio *folio,
			       struct address_space *mapping, u64 cgid, const char *probe)
{
	struct inode *host = mapping ? mapping->host : NULL;

	*s = (struct md_shadow_suspect) {
		.pfn = folio_pfn(folio), .cgid = cgid, .nid = folio_nid(folio),
		.probe = probe, .index = folio->index,
		.dev = host ? host->i_sb->s_dev : 0, .ino = host ? host->i_ino : 0,
		.gp = get_state_synchronize_rcu(), .queued = jiffies,
	};
}

void md_shadow_scan_begin(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	md_uncounted.nr = 0;
	md_uncounted.total = 0;
	md_uncleaned.nr = 0;
	md_uncleaned.total = 0;
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
}

static void md_shadow_list_add(struct md_shadow_list *list, struct folio *folio, u64 cgid)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	list->total++;
	if (list->nr < MD_SHADOW_LISTED)
		md_shadow_describe(&list->folios[list->nr++], folio, folio_mapping(folio),
				   cgid, "scan");
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
}

/* The scan found @folio (locked) dirty in a synced memcg, with its bit clear. */
void md_shadow_scan_uncounted(struct folio *folio, u64 cgid)
{
	md_shadow_list_add(&md_uncounted, folio, cgid);
}

/*
 * The scan found @folio (locked) clean in a synced memcg, with its bit
 * set.  Not listed while a cleaning of it waits to be judged: a dirtier
 * that raced that cleaning set the bit, which the judgement clears.
 */
void md_shadow_scan_uncleaned(struct folio *folio, u64 cgid)
{
	unsigned long pfn = folio_pfn(folio), flags;
	bool judged = true;
	unsigned int i;

	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	for (i = 0; i < md_shadow_nr_pending; i++)
		if (md_shadow_pending[i].pfn == pfn)
			judged = false;
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
	if (judged)
		md_shadow_list_add(&md_uncleaned, folio, cgid);
}

/*
 * After the scan's last grace period: a folio whose bit was set meanwhile
 * was counted after all (the scan lists only folios found so for
 * uncounted_ms, so this is rare).
 */
void md_shadow_scan_settle(void)
{
	unsigned long flags;
	unsigned int i, kept = 0;
	long bit;

	if (!md_shadow)
		return;
	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	for (i = 0; i < md_uncounted.nr; i++) {
		bit = md_shadow_bit(md_uncounted.folios[i].pfn);
		if (bit >= 0 && test_bit(bit, md_shadow)) {
			md_uncounted.total--;
			continue;
		}
		md_uncounted.folios[kept++] = md_uncounted.folios[i];
	}
	md_uncounted.nr = kept;
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
}

/*
 * Into @copy, the last scan's list @which, copied under the lock; false
 * without the shadow (track=0), nothing copied.
 */
bool md_shadow_list_read(enum md_shadow_listing which, struct md_shadow_list *copy)
{
	const struct md_shadow_list *list =
		which == MD_SHADOW_UNCOUNTED ? &md_uncounted : &md_uncleaned;
	unsigned long flags;

	if (!md_shadow)
		return false;
	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	*copy = *list;
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
	return true;
}

/*
 * The cleaning of @folio (locked, in the page cache of @mapping) found its
 * bit clear, in memcg @cgid: remember it, to be reported after uncounted_ms
 * and a grace period unless a racing dirtier sets the bit meanwhile.  Any
 * context: no grace period is started here (start_poll_synchronize_rcu()
 * wants interrupts on), the report's work starts it.
 */
void md_shadow_suspect(struct folio *folio, struct address_space *mapping, u64 cgid,
		       const char *probe)
{
	struct md_shadow_suspect *s;
	unsigned long flags;

	atomic_long_inc(&md_shadow_suspects);
	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	if (md_shadow_nr_pending == MD_SHADOW_PENDING) {
		raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
		atomic_long_inc(&md_shadow_dropped);
		return;
	}
	s = &md_shadow_pending[md_shadow_nr_pending];
	md_shadow_describe(s, folio, mapping, cgid, probe);
	WRITE_ONCE(md_shadow_nr_pending, md_shadow_nr_pending + 1);
	smp_mb();	/* pairs with md_shadow_set(): the count before the bit */
	s->raced = md_shadow_test(folio);
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
	irq_work_queue(&md_shadow_irq_work);
}

/*
 * A suspect's cleaning was raced: a dirtier in its gap counted the page
 * after the cleaning took its count, and set its bit.  If the folio is the
 * same page and clean now, nobody counts it dirty: its bits are cleared
 * (else the scan would list it as counted, never cleaned).  A dirtier that
 * sets PG_dirty after this look counts the page, and sets them again.
 */
static void md_shadow_settle_raced(const struct md_shadow_suspect *s)
{
	struct page *page = pfn_to_online_page(s->pfn);
	struct address_space *mapping;
	struct folio *folio;

	if (!page)
		return;
	folio = page_folio(page);
	if (!folio_try_get(folio))
		return;
	if (page_folio(page) == folio && folio_trylock(folio)) {
		mapping = folio_mapping(folio);
		if (!folio_test_dirty(folio) && mapping && mapping->host &&
		    mapping->host->i_ino == s->ino && mapping->host->i_sb->s_dev == s->dev &&
		    folio->index == s->index && folio_pfn(folio) == s->pfn)
			md_shadow_clear(folio);
		folio_unlock(folio);
	}
	folio_put(folio);
}

/*
 * Say the suspects that waited long enough and whose bit is still clear;
 * keep the younger ones for a later run.  get_state_synchronize_rcu()
 * starts no grace period, so on an idle machine none may come: while a
 * suspect waits for one, one is asked for (start_poll_synchronize_rcu()),
 * at most one request in flight.
 */
static void md_shadow_report_fn(struct work_struct *work)
{
	static unsigned long gp_asked;
	static bool gp_asking;
	struct md_shadow_suspect batch[MD_SHADOW_PENDING], *s;
	unsigned long wait = msecs_to_jiffies(READ_ONCE(uncounted_ms));
	unsigned int i, n = 0, kept = 0;
	bool need_gp = false;
	unsigned long flags;
	long bit;

	raw_spin_lock_irqsave(&md_shadow_lock, flags);
	for (i = 0; i < md_shadow_nr_pending; i++) {
		s = &md_shadow_pending[i];
		if (!poll_state_synchronize_rcu(s->gp)) {
			need_gp = true;
		} else if (time_after_eq(jiffies, s->queued + wait)) {
			batch[n++] = *s;
			continue;
		}
		md_shadow_pending[kept++] = *s;
	}
	WRITE_ONCE(md_shadow_nr_pending, kept);
	raw_spin_unlock_irqrestore(&md_shadow_lock, flags);
	if (need_gp && (!gp_asking || poll_state_synchronize_rcu(gp_asked))) {
		gp_asked = start_poll_synchronize_rcu();
		gp_asking = true;
	}
	if (kept)
		queue_delayed_work(md_wq, &md_shadow_work, HZ / 10);

	for (i = 0; i < n; i++) {
		s = &batch[i];
		bit = md_shadow_bit(s->pfn);
		if (s->raced || bit < 0 || test_bit(bit, md_shadow)) {	/* a dirtier raced it */
			md_shadow_settle_raced(s);
			atomic_long_inc(&md_shadow_raced);
			continue;
		}
		atomic_long_inc(&md_shadow_reported);
		md_anomaly(MD_A_CLEANED_UNCOUNTED, s->cgid, s->nid, s->probe, s->pfn, 0, 0, 0, 0);
		if (__ratelimit(&md_shadow_rs))
			pr_warn("cleaned a page never counted dirty: cgroup %llu node %d, file %u:%u inode %lu index %lu (%s)\n",
				s->cgid, s->nid, MAJOR(s->dev), MINOR(s->dev), s->ino,
				(unsigned long)s->index, s->probe);
	}
}
