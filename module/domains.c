// SPDX-License-Identifier: GPL-2.0
/*
 * The writeback domains: per bdi_writeback (one per device and memory
 * cgroup that wrote to it, with cgroup writeback; the device's own one
 * otherwise), the kernel's WB_RECLAIMABLE and WB_WRITEBACK against the
 * pages the page scan attributes to the domain.  balance_dirty_pages()
 * throttles a task by its domain's counts (wb_dirty_limits()) as well as
 * by its memcg's, so a wrong one throttles the wrong writer.
 *
 * A domain's pages are those of the inodes attached to it (inode->i_wb),
 * whoever they are charged to: an inode dirtied by several cgroups is
 * written back by one domain, and the kernel's foreign inode detection
 * switches it to the one that dirties it most, moving the counts with it.
 * So a folio's memcg and its inode's domain need not agree, and the
 * memcg's counters and its domain's are different sums of the same pages.
 * The scan counts for WB_RECLAIMABLE the dirty folios the kernel counted
 * (those it counts for file_dirty) and for WB_WRITEBACK the folios tagged
 * writeback on a device that accounts writeback, reading the inode's
 * domain under the i_pages lock, which the kernel's counting and its
 * switching of an inode's domain both hold.
 *
 * There is no ledger of the domains: a domain's kernel count and pages
 * are judged when nothing of its own moved while the scan ran: none of its
 * events (domain_events.h) began or was in flight, and its counts are the
 * same before and after; its verdict is "busy" otherwise, whatever the
 * other domains did.  The counts are summed exactly with
 * __percpu_counter_sum(): the kernel's own wb_stats reads them
 * approximately and shows a count below 0 as 0.
 *
 * The domains are found on the kernel's list of bdis (bdi_list, read under
 * RCU as the kernel's readers do; not exported, so its address is looked
 * up as data, compat.c) and each bdi's wb_list.  Each domain and its bdi
 * are held from before the scan to after it.
 *
 * md_mutex held by the callers of the scan's and the view's functions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/backing-dev.h>
#include <linux/bsearch.h>
#include <linux/bug.h>
#include <linux/cgroup.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu_counter.h>
#include <linux/rculist.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "compat.h"
#include "domain_events.h"
#include "domains.h"
#include "ledger.h"
#include "shadow.h"

#define MD_DOMAIN_PATH	96	/* a cgroup path longer than this ends in "..." */
#define MD_DOMAINS_MAX	4096	/* domains one scan judges */
#define MD_DOMAINS_TOLD	64	/* domains whose bad verdict was reported */

const char * const md_domain_item_names[MD_NR_DOMAIN_ITEMS] = {
	[MD_D_RECLAIMABLE]	= "reclaimable",
	[MD_D_WRITEBACK]	= "writeback",
};

const char * const md_domain_verdict_names[MD_NR_DOMAIN_VERDICTS] = {
	[MD_D_OK]		= "ok",
	[MD_D_BUSY]		= "busy",
	[MD_D_MISMATCH]		= "mismatch",
	[MD_D_UNDERFLOW]	= "underflow",
};

static const enum wb_stat_item md_domain_stat[MD_NR_DOMAIN_ITEMS] = {
	[MD_D_RECLAIMABLE]	= WB_RECLAIMABLE,
	[MD_D_WRITEBACK]	= WB_WRITEBACK,
};

struct md_domain {
	struct bdi_writeback *wb;	/* held by the scan; compared after */
	s64 kernel[MD_NR_DOMAIN_ITEMS];	/* before the scan */
	long scan[MD_NR_DOMAIN_ITEMS];
	bool writeback_accounted;	/* else the file system counts (fuse): not judged */
	bool root;			/* the device's own domain */
	unsigned int buckets;		/* of its events (md_domain_buckets()) */
	enum md_domain_verdict verdict;
	u64 cgid;
	char bdi[32];
	char path[MD_DOMAIN_PATH];
};

/* One scan's view of every domain (md_mutex) */
struct md_domain_view {
	struct md_domain *rows;		/* sorted by wb while the scan runs */
	struct backing_dev_info **bdis;	/* held while the scan runs */
	int nr, nr_bdis;
	long unseen;			/* pages not attributed: busy, or a domain not held */
	bool overflow;			/* more domains than MD_DOMAINS_MAX */
	bool judged;			/* every domain judged, none left out */
	enum md_domain_verdict worst;
	struct md_domain_events_sum events;	/* before the scan */
};

static struct list_head *md_bdi_list;	/* NULL: the view is unavailable */
static struct md_domain_view md_view, md_last;

/*
 * Bad verdicts found: a pending one, by domain and counts, waits for the
 * next judged scan to find the same counts again (a scan can catch a
 * count in passing; a bug's offset stays); a told one, by domain and
 * verdict, is not told again.  md_mutex.
 */
struct md_domain_told {
	struct bdi_writeback *wb;
	u64 cgid;
	s64 kernel[MD_NR_DOMAIN_ITEMS];
	enum md_domain_verdict verdict;
	u64 found_ns;			/* pending: when first found */
	bool below;			/* pending: the kernel below the pages */
};

static struct md_domain_told md_pending[MD_DOMAINS_TOLD];
static int md_nr_pending;
static struct md_domain_told md_told[MD_DOMAINS_TOLD];
static int md_nr_told;

static DEFINE_RATELIMIT_STATE(md_domains_rs, 5 * HZ, 10);

/*
 * bdi_list is a list_head whose entries' root domains point back at them:
 * checked before it is used, so a symbol of another kind is refused.
 */
int md_domains_init(void)
{
	struct list_head *head = md_symbol_data("bdi_list");
	struct backing_dev_info *bdi;
	int n = 0, ret = 0;

	if (!head) {
		pr_warn("cannot find bdi_list (needs CONFIG_KALLSYMS_ALL): the writeback domains are not audited\n");
		return 0;
	}
	rcu_read_lock();
	if (READ_ONCE(head->next)->prev != head)
		ret = -EINVAL;
	list_for_each_entry_rcu(bdi, head, bdi_list) {
		if (ret || ++n > MD_DOMAINS_MAX || bdi->wb.bdi != bdi) {
			ret = -EINVAL;
			break;
		}
	}
	rcu_read_unlock();
	if (ret) {
		pr_warn("bdi_list is not the list of bdis this module reads: the writeback domains are not audited\n");
		return 0;
	}
	md_bdi_list = head;
	return 0;
}

static void md_view_free(struct md_domain_view *v)
{
	kvfree(v->rows);
	kvfree(v->bdis);
	memset(v, 0, sizeof(*v));
}

void md_domains_exit(void)
{
	md_view_free(&md_view);
	md_view_free(&md_last);
}

static int md_domain_cmp(const void *a, const void *b)
{
	const struct md_domain *x = a, *y = b;

	return x->wb < y->wb ? -1 : x->wb > y->wb;
}

static void md_domain_read(struct md_domain *d, s64 *kernel)
{
	int i;

	for (i = 0; i < MD_NR_DOMAIN_ITEMS; i++)
		kernel[i] = percpu_counter_sum(&d->wb->stat[md_domain_stat[i]]);
}

/* Hold every domain and read its counts: before the scan's first grace period. */
void md_domains_scan_begin(void)
{
	struct md_domain_view *v = &md_view;
	struct backing_dev_info *bdi;
	struct bdi_writeback *wb;
	int bdis = 0, wbs = 0, i;

	lockdep_assert_held(&md_mutex);
	md_view_free(v);
	if (!md_bdi_list)
		return;
	/* before the counts: an event between the two is the scan's */
	md_domain_events_read(&v->events);
	rcu_read_lock();
	list_for_each_entry_rcu(bdi, md_bdi_list, bdi_list) {
		bdis++;
		list_for_each_entry_rcu(wb, &bdi->wb_list, bdi_node)
			wbs++;
	}
	rcu_read_unlock();
	/* room for a few made meanwhile; more make this scan's view partial */
	bdis = min(bdis + 8, MD_DOMAINS_MAX);
	wbs = min(wbs + 32, MD_DOMAINS_MAX);
	v->rows = kvcalloc(wbs, sizeof(*v->rows), GFP_KERNEL);
	v->bdis = kvcalloc(bdis, sizeof(*v->bdis), GFP_KERNEL);
	if (!v->rows || !v->bdis) {
		md_view_free(v);
		return;
	}
	rcu_read_lock();
	list_for_each_entry_rcu(bdi, md_bdi_list, bdi_list) {
		if (v->nr_bdis == bdis) {
			v->overflow = true;
			break;
		}
		/* on the list until its last reference's release takes it off */
		if (!kref_get_unless_zero(&bdi->refcnt))
			continue;
		v->bdis[v->nr_bdis++] = bdi;
		list_for_each_entry_rcu(wb, &bdi->wb_list, bdi_node) {
			if (v->nr == wbs) {
				v->overflow = true;
				break;
			}
			if (!wb_tryget(wb))
				continue;	/* released: its counts go with it */
			v->rows[v->nr].wb = wb;
			v->rows[v->nr].buckets = md_domain_buckets(wb);
			v->rows[v->nr].root = wb == &bdi->wb;
			v->rows[v->nr].writeback_accounted = md_bdi_accounts_writeback(bdi);
			v->nr++;
		}
	}
	rcu_read_unlock();
	for (i = 0; i < v->nr; i++)
		md_domain_read(&v->rows[i], v->rows[i].kernel);
	sort(v->rows, v->nr, sizeof(*v->rows), md_domain_cmp, NULL);
}

/*
 * The scan's folio (referenced and locked by the scan, so its mapping and
 * inode stay): add its pages to its inode's domain, under the i_pages lock
 * under which the kernel counts them and switches the inode's domain.
 */
void md_domains_scan_folio(struct folio *folio, struct address_space *mapping, long nr)
{
	struct md_domain_view *v = &md_view;
	struct md_domain key, *d;
	bool reclaimable, writeback;
	unsigned long flags;
	struct inode *host;

	if (!v->rows || !mapping || ((unsigned long)mapping & MD_MAPPING_FLAGS))
		return;
	host = mapping->host;
	if (!host)
		return;
	xa_lock_irqsave(&mapping->i_pages, flags);
	reclaimable = folio_test_dirty(folio) && md_mapping_accounts_dirty(mapping) &&
		      xa_get_mark(&mapping->i_pages, folio->index, PAGECACHE_TAG_DIRTY);
	writeback = folio_test_writeback(folio) && mapping_use_writeback_tags(mapping) &&
		    xa_get_mark(&mapping->i_pages, folio->index, PAGECACHE_TAG_WRITEBACK);
	key.wb = reclaimable || writeback ? inode_to_wb(host) : NULL;
	xa_unlock_irqrestore(&mapping->i_pages, flags);
	if (!key.wb)
		return;
	d = bsearch(&key, v->rows, v->nr, sizeof(*v->rows), md_domain_cmp);
	if (!d) {
		v->unseen += nr;	/* a domain made after the scan began */
		return;
	}
	if (reclaimable)
		d->scan[MD_D_RECLAIMABLE] += nr;
	if (writeback && d->writeback_accounted)
		d->scan[MD_D_WRITEBACK] += nr;
}

/* A folio the scan could not lock: its domain's count is not judged. */
void md_domains_scan_busy(long nr)
{
	md_view.unseen += nr;
}

/*
 * A domain that stood still.  The folios the scan could not lock (@unseen
 * pages, of any domain) only take from its pages: a kernel count above
 * them by no more than that is not judged; one below them, or below 0, is
 * wrong whatever they were.
 */
static enum md_domain_verdict md_domain_judge(struct md_domain *d, long unseen)
{
	enum md_domain_verdict worst = MD_D_OK, verdict;
	int i;

	for (i = 0; i < MD_NR_DOMAIN_ITEMS; i++) {
		if (i == MD_D_WRITEBACK && !d->writeback_accounted)
			continue;	/* counted by its file system (fuse) */
		if (d->kernel[i] < 0)
			verdict = MD_D_UNDERFLOW;
		else if (d->kernel[i] == d->scan[i])
			verdict = MD_D_OK;
		else if (d->kernel[i] > d->scan[i] && d->kernel[i] - d->scan[i] <= unseen)
			verdict = MD_D_BUSY;
		else
			verdict = MD_D_MISMATCH;
		worst = max(worst, verdict);
	}
	return worst;
}

static void md_domain_name(struct md_domain *d)
{
	struct cgroup_subsys_state *css = d->wb->memcg_css;
	int len;

	strscpy(d->bdi, bdi_dev_name(d->wb->bdi), sizeof(d->bdi));
	if (!css) {		/* memory controller off */
		strscpy(d->path, "/", sizeof(d->path));
		return;
	}
	d->cgid = cgroup_id(css->cgroup);
	len = cgroup_path(css->cgroup, d->path, sizeof(d->path));
	if (len < 0)
		strscpy(d->path, "?", sizeof(d->path));
	else if (len >= sizeof(d->path))
		strcpy(d->path + sizeof(d->path) - 4, "...");
}

/*
 * After the scan's last grace period: judge, name, and let every domain go.
 * A domain is judged when it stood still: its counts the same before the
 * scan and after, and its events neither in flight at the start nor moved
 * since (an event that began before the first grace period and
 * ends after the last is in flight at both ends).
 */
void md_domains_scan_end(void)
{
	static struct md_domain_events_sum events;	/* md_mutex */
	struct md_domain_view *v = &md_view;
	s64 after[MD_NR_DOMAIN_ITEMS];
	int i;

	lockdep_assert_held(&md_mutex);
	if (!v->rows)
		return;
	v->judged = !v->overflow;
	v->worst = MD_D_OK;
	for (i = 0; i < v->nr; i++) {
		struct md_domain *d = &v->rows[i];

		md_domain_read(d, after);
		d->verdict = memcmp(after, d->kernel, sizeof(after)) ? MD_D_BUSY : MD_D_OK;
	}
	md_domain_events_read(&events);
	for (i = 0; i < v->nr; i++) {
		struct md_domain *d = &v->rows[i];

		if (d->verdict == MD_D_OK &&
		    md_domain_events_still(&v->events, &events, d->buckets))
			d->verdict = md_domain_judge(d, v->unseen);
		else
			d->verdict = MD_D_BUSY;
		v->judged &= d->verdict != MD_D_BUSY;
		v->worst = max(v->worst, d->verdict);
		md_domain_name(d);
	}
	for (i = 0; i < v->nr; i++)
		wb_put(v->rows[i].wb);
	for (i = 0; i < v->nr_bdis; i++)
		bdi_put(v->bdis[i]);
	kvfree(v->bdis);
	v->bdis = NULL;
	v->nr_bdis = 0;
	/* the pointers stay, as keys only: never followed again */
	md_view_free(&md_last);
	md_last = *v;
	memset(v, 0, sizeof(*v));
}

enum md_domain_verdict md_domains_worst(void)
{
	lockdep_assert_held(&md_mutex);
	return md_last.rows ? md_last.worst : MD_D_BUSY;
}

bool md_domains_judged(void)
{
	lockdep_assert_held(&md_mutex);
	return md_last.rows && md_last.judged;
}

/* The last scan's verdicts cannot hold (a probe missed a hit meanwhile). */
void md_domains_unjudge(void)
{
	int i;

	lockdep_assert_held(&md_mutex);
	for (i = 0; i < md_last.nr; i++)
		md_last.rows[i].verdict = MD_D_BUSY;
	md_last.judged = false;
	md_last.worst = md_last.nr ? MD_D_BUSY : MD_D_OK;
}

/* A device's own domain with nothing in it is not shown: there is one per disk. */
static bool md_domain_shown(struct md_domain *d)
{
	int i;

	if (!d->root || d->verdict != MD_D_OK)
		return true;
	for (i = 0; i < MD_NR_DOMAIN_ITEMS; i++)
		if (d->kernel[i] || d->scan[i])
			return true;
	return false;
}

static void md_domain_print(struct seq_file *m, struct md_domain *d)
{
	int i;

	/* escaped as summary's paths are: a name may hold a space */
	seq_puts(m, "bdi ");
	seq_escape(m, d->bdi, " \t\n\\");
	seq_puts(m, " cgroup ");
	seq_escape(m, d->path, " \t\n\\");
	seq_printf(m, " id %llu", d->cgid);
	for (i = 0; i < MD_NR_DOMAIN_ITEMS; i++) {
		if (i == MD_D_WRITEBACK && !d->writeback_accounted)
			seq_printf(m, " %s kernel %lld scan -", md_domain_item_names[i],
				   d->kernel[i]);
		else
			seq_printf(m, " %s kernel %lld scan %ld", md_domain_item_names[i],
				   d->kernel[i], d->scan[i]);
	}
	seq_printf(m, " verdict %s\n", md_domain_verdict_names[d->verdict]);
}

void md_domains_show(struct seq_file *m)
{
	struct md_domain_view *v = &md_last;
	int i, shown = 0;

	lockdep_assert_held(&md_mutex);
	if (!md_bdi_list) {
		seq_puts(m, "verdict unavailable\nreason bdi_list_not_found\n");
		return;
	}
	if (!v->rows) {
		seq_puts(m, "verdict unavailable\nreason no_memory\n");
		return;
	}
	for (i = 0; i < v->nr; i++)
		shown += md_domain_shown(&v->rows[i]);
	seq_printf(m, "verdict %s\njudged %s\ndomains %d\nshown %d\nunseen %ld\n",
		   md_domain_verdict_names[v->worst], v->judged ? "yes" : "no",
		   v->nr, shown, v->unseen);
	for (i = 0; i < v->nr; i++)
		if (md_domain_shown(&v->rows[i]))
			md_domain_print(m, &v->rows[i]);
}

/*
 * Pages the scan finds and the kernel has not counted: the shape of a
 * dirtier in its gap.  folio_clear_dirty_for_io() leaves the dirty tag
 * until the writeback starts, and a dirtier that sets PG_dirty meanwhile
 * and is kept off its CPU past that start leaves a folio dirty, tagged and
 * not counted yet, with nothing moving (scan.c, md_scan_tagged()).  No
 * such gap is taken to last uncounted_ms (shadow.c): a count below the
 * pages must stand that long before it is told.
 */
static bool md_domain_below_pages(struct md_domain *d)
{
	int i;

	for (i = 0; i < MD_NR_DOMAIN_ITEMS; i++)
		if (d->kernel[i] >= 0 && d->kernel[i] < d->scan[i])
			return true;
	return false;
}

static void md_told_set(struct md_domain_told *t, struct md_domain *d, u64 found_ns)
{
	t->wb = d->wb;
	t->cgid = d->cgid;
	memcpy(t->kernel, d->kernel, sizeof(d->kernel));
	t->verdict = d->verdict;
	t->found_ns = found_ns;
	t->below = md_domain_below_pages(d);
}

/* @d in @list: the same domain with the same counts, or (@by_verdict) verdict */
static struct md_domain_told *md_told_find(struct md_domain_told *list, int nr,
					   struct md_domain *d, bool by_verdict)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (list[i].wb != d->wb || list[i].cgid != d->cgid)
			continue;
		if (by_verdict ? list[i].verdict == d->verdict :
		    !memcmp(list[i].kernel, d->kernel, sizeof(d->kernel)))
			return &list[i];
	}
	return NULL;
}

static void md_domain_tell(struct md_domain *d, bool warn)
{
	if (__ratelimit(&md_domains_rs))
		pr_warn("%s writeback domain of %s (id %llu) on bdi %s: reclaimable kernel %lld scan %ld, writeback kernel %lld scan %ld, suspect kernel\n",
			md_domain_verdict_names[d->verdict], d->path, d->cgid, d->bdi,
			d->kernel[MD_D_RECLAIMABLE], d->scan[MD_D_RECLAIMABLE],
			d->kernel[MD_D_WRITEBACK], d->scan[MD_D_WRITEBACK]);
	WARN(warn, "memcg_dirty: audit found %s in the writeback domain of memory cgroup %s (id %llu) on bdi %s: WB_RECLAIMABLE kernel %lld pages scan %ld, WB_WRITEBACK kernel %lld scan %ld, suspect kernel; read /sys/kernel/debug/memcg_dirty/domains\n",
	     md_domain_verdict_names[d->verdict], d->path, d->cgid, d->bdi,
	     d->kernel[MD_D_RECLAIMABLE], d->scan[MD_D_RECLAIMABLE],
	     d->kernel[MD_D_WRITEBACK], d->scan[MD_D_WRITEBACK]);
}

/* A bad verdict waits for a judged scan that may confirm it now. */
bool md_domains_pending(void)
{
	u64 now = ktime_get_ns();
	int i;

	lockdep_assert_held(&md_mutex);
	for (i = 0; i < md_nr_pending; i++)
		if (!md_pending[i].below || now - md_pending[i].found_ns >= md_uncounted_ns())
			return true;
	return false;
}

/* A pending verdict whose domain the last scan found busy: it waits on. */
static bool md_pending_waits(struct md_domain_view *v, struct md_domain_told *p)
{
	struct md_domain key = { .wb = p->wb }, *d;

	d = bsearch(&key, v->rows, v->nr, sizeof(*v->rows), md_domain_cmp);
	return d && d->cgid == p->cgid && d->verdict == MD_D_BUSY;
}

/*
 * After a scan of the audit's: a domain's bad verdict is held until a
 * later scan judges the domain again and finds it with the same counts (a
 * bug's offset stays), uncounted_ms later at least where the kernel counts
 * fewer pages than there are (md_domain_below_pages()), then told once per
 * domain and verdict: a console line, and with @warn a WARN.  Scans that
 * find the domain busy leave it pending.
 * Returns the domains told now.
 */
unsigned int md_domains_report(bool warn)
{
	static struct md_domain_told next[MD_DOMAINS_TOLD];
	struct md_domain_view *v = &md_last;
	struct md_domain_told *seen;
	u64 now = ktime_get_ns();
	int i, nr_next = 0;
	unsigned int told = 0;

	lockdep_assert_held(&md_mutex);
	if (!v->rows)
		return 0;
	for (i = 0; i < md_nr_pending; i++)
		if (md_pending_waits(v, &md_pending[i]))
			next[nr_next++] = md_pending[i];
	for (i = 0; i < v->nr; i++) {
		struct md_domain *d = &v->rows[i];

		if (d->verdict < MD_D_MISMATCH || md_told_find(md_told, md_nr_told, d, true))
			continue;
		seen = md_told_find(md_pending, md_nr_pending, d, false);
		if (!seen || (md_domain_below_pages(d) &&
			      now - seen->found_ns < md_uncounted_ns())) {
			if (nr_next < MD_DOMAINS_TOLD)
				md_told_set(&next[nr_next++], d, seen ? seen->found_ns : now);
			continue;
		}
		md_domain_tell(d, warn);
		told++;
		if (md_nr_told < MD_DOMAINS_TOLD)
			md_told_set(&md_told[md_nr_told++], d, now);
	}
	memcpy(md_pending, next, nr_next * sizeof(*next));
	md_nr_pending = nr_next;
	return told;
}
