// SPDX-License-Identifier: GPL-2.0
/*
 * The page scan: the third view of the same number.  Walks every online pfn
 * and counts, per memcg and node, the pages of dirty folios on mappings that
 * write back, large folios once as head x nr.  resync.c gives unsynced
 * ledger entries their starting point from it.
 *
 * A dirty folio counts only once the kernel has counted it: its dirtier
 * sets PG_dirty first (folio_test_set_dirty(), on a folio it need not
 * hold locked) and counts it later, in __folio_mark_dirty(), which also
 * tags it PAGECACHE_TAG_DIRTY in the same i_pages critical section.  In
 * between the dirtier may be preempted for any time: where
 * folio_memcg_lock() is empty (CONFIG_MEMCG_V1=n, every kernel from 6.13)
 * nothing there is an RCU reader, so no grace period waits for it.  The
 * scan reads the tag under the i_pages lock: a dirty folio without it is
 * not counted yet ("untagged"), by the kernel, the ledger or the scan.
 * One that stays so for uncounted_ms (shadow.c) is a page dirty and never
 * counted: listed by the shadow (track=1), counted in scan_never_counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/mmzone.h>
#include <linux/sched.h>
#include "compat.h"
#include "domains.h"
#include "inject_hooks.h"
#include "ledger.h"
#include "memcg.h"
#include "scan.h"
#include "shadow.h"
#include "unit.h"

struct md_scan_info md_last_scan;

/*
 * Dirty folios a scan could not yet call uncounted, with when the scans
 * first found each so: untagged ones, and tagged ones of synced memcgs
 * whose shadow bit is clear (the residual window of md_scan_tagged()).
 * Two tables (the last scan's, this scan's), md_mutex.  A folio is the
 * same one if its pfn, mapping and index are.  Beyond MD_UNTAGGED_MAX a
 * folio is not followed, so not reported by this scan (a later one finds it).
 */
#define MD_UNTAGGED_MAX	64

struct md_untagged {
	unsigned long pfn;
	struct address_space *mapping;	/* compared, never followed */
	pgoff_t index;
	u64 since_ns;
};

static struct md_untagged md_untagged[2][MD_UNTAGGED_MAX];
static unsigned int md_untagged_nr[2], md_untagged_cur;

/*
 * A dirty folio the scan cannot look at closely: locked by someone (a
 * writer between write_begin and write_end, writeback starting) or frozen
 * (a large folio being split).  Its state is in flux, so the scan is only a
 * lower bound for its memcg.  The memcg is read unlocked, only to find the
 * entry, never followed.  Swap-backed folios (tmpfs) are left out: they
 * would keep their memcg "busy" for good.  Neither is the mapping
 * followed: unlocked, the folio can be truncated and its inode, its
 * superblock and a bdi of the superblock's own (NFS, FUSE: freed at
 * unmount) can go while the scan looks; a folio of another mapping that
 * does not write back (ramfs), locked in passing, only makes one scan a
 * lower bound.
 */
static void md_scan_busy(struct folio *folio, struct md_scan_info *info, bool for_domains)
{
	struct address_space *mapping = READ_ONCE(folio->mapping);
	struct mem_cgroup *memcg;
	struct md_entry *e;
	long nr;

	if (folio_test_swapbacked(folio) || !mapping ||
	    ((unsigned long)mapping & MD_MAPPING_FLAGS))
		return;
	nr = folio_nr_pages(folio);
	if (for_domains) {
		md_domains_scan_busy(nr);
		return;
	}
	info->busy += nr;
	memcg = folio_memcg(folio);
	e = memcg ? md_entry_lookup(memcg) : NULL;
	if (e)
		e->scan.busy += nr;
}

/*
 * Whether the kernel has counted @folio (locked, dirty, on @mapping) dirty:
 * its dirty tag, set with the count under the i_pages lock.  Taking the
 * lock orders the count, and the probe that saw it, before what the scan
 * does next.  One residual window: the tag stays on a folio that
 * folio_clear_dirty_for_io() cleaned until its writeback starts, so a
 * folio redirtied in between, by a dirtier then preempted in its gap past
 * the writeback's start, is counted here before the kernel counts it.
 */
static bool md_scan_tagged(struct folio *folio, struct address_space *mapping)
{
	unsigned long flags;
	bool tagged;

	xa_lock_irqsave(&mapping->i_pages, flags);
	tagged = xa_get_mark(&mapping->i_pages, folio->index, PAGECACHE_TAG_DIRTY);
	xa_unlock_irqrestore(&mapping->i_pages, flags);
	return tagged;
}

/*
 * Whether the scans have found @folio (locked) as it is now for
 * uncounted_ms: no dirtier's gap is taken to last that long.  Follows it
 * in this scan's table, from when the last scan's has it.
 */
static bool md_untagged_stays(struct folio *folio, struct address_space *mapping)
{
	const struct md_untagged *last = md_untagged[!md_untagged_cur];
	unsigned long pfn = folio_pfn(folio);
	u64 now = ktime_get_ns(), since = now;
	struct md_untagged *u;
	unsigned int i;

	for (i = 0; i < md_untagged_nr[!md_untagged_cur]; i++) {
		if (last[i].pfn == pfn && last[i].mapping == mapping &&
		    last[i].index == folio->index) {
			since = last[i].since_ns;
			break;
		}
	}
	if (md_untagged_nr[md_untagged_cur] == MD_UNTAGGED_MAX)
		return false;
	u = &md_untagged[md_untagged_cur][md_untagged_nr[md_untagged_cur]++];
	*u = (struct md_untagged) {
		.pfn = pfn, .mapping = mapping, .index = folio->index, .since_ns = since,
	};
	return now - since >= md_uncounted_ns();
}

/* A new scan: the last one's table is the one to look things up in. */
static void md_untagged_begin(void)
{
	md_untagged_cur = !md_untagged_cur;
	md_untagged_nr[md_untagged_cur] = 0;
}

/*
 * @folio (locked) is dirty and untagged: not counted by anyone yet, so
 * not by the scan either.  Once it stayed so, a page never counted.
 */
static void md_scan_untagged(struct folio *folio, struct address_space *mapping,
			     struct md_entry *e, struct md_scan_info *info)
{
	long nr = folio_nr_pages(folio);

	info->untagged += nr;
	if (!md_untagged_stays(folio, mapping))
		return;
	info->never_counted += nr;
	if (e && READ_ONCE(e->synced))
		md_shadow_scan_uncounted(folio, e->cgid);
}

/*
 * Count one candidate.  A reference keeps the folio from being freed and a
 * trylock keeps mapping, memcg and node still (truncation, migration and v1
 * charge moving all hold the folio lock); a folio we cannot lock is counted
 * as busy instead of guessed at.  Returns the pages to skip after @page.
 */
static unsigned long md_scan_page(struct page *page, struct md_scan_info *info,
				  bool for_domains)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping;
	unsigned long skip = 0;
	struct mem_cgroup *memcg;
	struct md_entry *e;
	long nr;

	/* unlocked pre-filter: most pages are not dirty file pages */
	if (PageTail(page) || !(folio_test_dirty(folio) || folio_test_writeback(folio)))
		return 0;
	if (!folio_try_get(folio)) {
		/* frozen for a split, or being freed: either way in flux */
		if (folio_ref_count(folio) == 0 && folio_test_large(folio) &&
		    folio_test_dirty(folio))
			md_scan_busy(folio, info, for_domains);
		return 0;
	}
	if (unlikely(page_folio(page) != folio))
		goto put;
	if (!folio_trylock(folio)) {
		md_scan_busy(folio, info, for_domains);
		goto put;
	}
	nr = folio_nr_pages(folio);
	skip = nr - 1;
	mapping = folio_mapping(folio);
	if (for_domains) {
		md_domains_scan_folio(folio, mapping, nr);
		goto unlock;
	}
	if (folio_test_writeback(folio)) {
		memcg = folio_memcg(folio);
		e = memcg ? md_entry_get(memcg, GFP_ATOMIC) : NULL;
		if (e)
			e->scan.pages[md_cn(MD_C_WRITEBACK, folio_nid(folio))] += nr;
	}
	if (folio_test_dirty(folio) && !folio_test_anon(folio) &&
	    md_mapping_accounts_dirty(mapping)) {
		memcg = folio_memcg(folio);
		e = memcg ? md_entry_get(memcg, GFP_ATOMIC) : NULL;
		if (!md_scan_tagged(folio, mapping)) {
			md_scan_untagged(folio, mapping, e, info);
			goto unlock;
		}
		/* dirtied before the ledger knew: its shadow starts here */
		if (!e || !READ_ONCE(e->synced))
			md_shadow_set(folio);
		else if (!md_shadow_test(folio) && md_untagged_stays(folio, mapping))
			md_shadow_scan_uncounted(folio, e->cgid);
		if (e)
			e->scan.pages[md_cn(MD_C_DIRTY, folio_nid(folio))] += nr;
		else if (memcg)
			info->unattributed += nr;
		else
			info->uncharged += nr;
		info->dirty += nr;
	}
unlock:
	folio_unlock(folio);
put:
	folio_put(folio);
	return skip;
}

/* A long walk under rcu_read_lock() lets others run now and then. */
static void md_scan_resched(void)
{
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
}

/*
 * Scan one node's pfns.  Online-ness is looked up once per run of
 * MD_PFN_RUN pfns (it is the same for the whole run).  PG_dirty is a head
 * page flag, so one load of each page's own flags rejects clean pages and
 * tail pages alike; only dirty candidates get the careful look.  A pfn of
 * another node inside this node's span is left to that node's pass.
 */
static void md_scan_node(int nid, struct md_scan_info *info, bool for_domains)
{
	unsigned long pfn = node_start_pfn(nid), end = node_end_pfn(nid);
	unsigned long next;
	struct page *page;

	while (pfn < end) {
		next = min(round_down(pfn, MD_PFN_RUN) + MD_PFN_RUN, end);
		if (!pfn_to_online_page(pfn)) {
			pfn = next;
			continue;
		}
		while (pfn < next) {
			page = pfn_to_page(pfn++);
			if (likely(!(*md_page_flags(page) &
				     (BIT(PG_dirty) | BIT(PG_writeback)))) ||
			    page_to_nid(page) != nid)
				continue;
			pfn += md_scan_page(page, info, for_domains);
		}
		if (!(pfn & 1023))
			md_scan_resched();
	}
}

/*
 * With the shadow (track=1): the folio at @pfn, whose bit is set, is clean
 * in a synced memcg?  Then the ledger counts dirty a page whose cleaning
 * nobody counted.  Cleaning, truncation and migration all hold the folio
 * lock until the probes have cleared or moved its bit, so a folio locked
 * here is in no such window.  A folio out of the page cache with its bit
 * set was freed clean without a counted cleaning: nothing can count it any
 * more (a folio enters the page cache locked), and its bits are cleared.
 * Returns the next pfn to look at.
 */
static unsigned long md_scan_counted(unsigned long pfn)
{
	struct address_space *mapping;
	struct page *page = pfn_to_online_page(pfn);
	struct mem_cgroup *memcg;
	struct folio *folio;
	struct md_entry *e;
	unsigned long next = pfn + 1;

	if (!page)
		return next;
	folio = page_folio(page);
	if (folio_test_dirty(folio) || !folio_try_get(folio))
		return next;
	if (unlikely(page_folio(page) != folio) || !folio_trylock(folio))
		goto put;
	next = folio_pfn(folio) + folio_nr_pages(folio);
	mapping = folio_mapping(folio);
	if (folio_test_dirty(folio) || folio_test_anon(folio)) {
		/* dirty again, or an anonymous folio: not ours to judge */
	} else if (!mapping) {
		md_shadow_clear(folio);
	} else if (md_mapping_accounts_dirty(mapping) && md_shadow_test(folio)) {
		memcg = folio_memcg(folio);
		e = memcg ? md_entry_lookup(memcg) : NULL;
		if (e && READ_ONCE(e->synced))
			md_shadow_scan_uncleaned(folio, e->cgid);
	}
	folio_unlock(folio);
put:
	folio_put(folio);
	return next;
}

/*
 * The shadow's set bits, in runs of MD_SHADOW_RUN pfns: between two
 * reschedules at most one run is walked (holes of a sparse map included)
 * and at most 1024 folios looked at.
 */
#define MD_SHADOW_RUN	BIT(18)

static void md_scan_shadow(void)
{
	unsigned long pfn, end, stop, looked = 0;

	md_shadow_range(&pfn, &end);
	while (pfn < end) {
		stop = min(end, pfn + MD_SHADOW_RUN);
		while ((pfn = md_shadow_next(pfn, stop)) < stop) {
			pfn = md_scan_counted(pfn);
			if (!(++looked & 1023))
				md_scan_resched();
		}
		pfn = max(pfn, stop);
		md_scan_resched();
	}
}

/*
 * Fills entry->scan.pages[] for every listed entry, and tells for which the scan
 * is exact (scan_valid): no event of theirs completed while it ran, and no
 * return probe's window was open at either end.
 *
 * The dirtied and cancelled probes fire inside the RCU read-side section
 * (i_pages lock, unlocked_inode_to_wb_begin()) in which the kernel updates
 * its own counter.  A grace period after taking each entry's sequence ends
 * every such update begun before; one after the pass ends every update
 * the pass saw half done.  A dirtier's PG_dirty is no such update: it may
 * be set long before the count, outside any RCU section (see the top of
 * this file), so the pass counts a dirty folio only once it is tagged,
 * which it reads under the lock that counted it.  So an update half done
 * at either end shows as a moved sequence, never as a page counted by one
 * view only.  Each sequence taken here also serves check.c as a reference
 * taken before a grace period (scan.seq_ref).
 */
void md_scan(void)
{
	struct md_scan_info info = { };
	struct md_entry *e;
	u64 start;
	int nid;

	lockdep_assert_held(&md_mutex);
	md_ledger_list_fresh();
	list_for_each_entry(e, &md_entries, node) {
		memset(e->scan.pages, 0, MD_NR_COUNTERS * nr_node_ids * sizeof(*e->scan.pages));
		e->scan.busy = 0;
		e->scan.seq0 = md_entry_seq(e);
		e->scan.seq_ref = e->scan.seq0;
		e->scan.valid = !md_entry_inflight(e);
	}
	synchronize_rcu();

	md_shadow_scan_begin();
	md_untagged_begin();
	start = ktime_get_ns();
	rcu_read_lock();
	for_each_online_node(nid)
		md_scan_node(nid, &info, false);
	md_scan_shadow();
	rcu_read_unlock();
	info.duration_ns = ktime_get_ns() - start;
	synchronize_rcu();
	md_shadow_scan_settle();
	info.when_ns = ktime_get_ns();
	info.count = md_last_scan.count + 1;
	md_ledger_list_fresh();	/* entries the scan took from the pool */
	list_for_each_entry(e, &md_entries, node)
		e->scan.valid = e->scan.valid && md_entry_quiet(e, e->scan.seq0);
	md_last_scan = info;
}

/*
 * The scan of the writeback domains (domains.c), the audit's and the
 * domains file's: the same walk, apart from md_scan() so that neither
 * pays for the other's work per folio (the domains' costs an i_pages
 * lock), and so that no memcg's scan figures, shadow or untagged folios
 * are touched: the memcgs' checks and resyncs go on from their own scans,
 * whatever the audit's cadence.  Each domain is judged by its own events
 * and counts, read before the first grace period and after the last.
 * Returns its duration.
 */
u64 md_scan_domains(void)
{
	struct md_scan_info info = { };
	u64 start;
	int nid;

	lockdep_assert_held(&md_mutex);
	md_domains_scan_begin();
	synchronize_rcu();
	start = ktime_get_ns();
	rcu_read_lock();
	for_each_online_node(nid)
		md_scan_node(nid, &info, true);
	rcu_read_unlock();
	start = ktime_get_ns() - start;
	synchronize_rcu();
	md_domains_scan_end();
	return start;
}

/*
 * @e's reference sequence for the checks (scan.seq_ref), @seq, read before
 * the grace period the caller waits for next: md_scan() takes it with each
 * scan, and a check that reuses a scan, or does not scan, takes it here.
 */
void md_scan_ref(struct md_entry *e, long seq)
{
	lockdep_assert_held(&md_mutex);
	e->scan.seq_ref = seq;
}

u64 md_scan_age_ms(void)
{
	if (!md_last_scan.count)
		return U64_MAX;
	return div_u64(ktime_get_ns() - md_last_scan.when_ns, NSEC_PER_MSEC);
}
