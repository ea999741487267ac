// SPDX-License-Identifier: GPL-2.0
/*
 * The dirty ledger: per memcg and node, pages dirtied minus pages cleaned,
 * as seen by the probes.  Probe handlers run in atomic context and must not
 * allocate, so entries for memcgs the ledger has not seen yet come from a
 * pool that process context keeps filled (pool.c).  A probe that takes an
 * entry, or finds the pool low, or hears of a memcg being created or freed,
 * kicks the change work that debugfs registered.  Its upkeep is the
 * ledger's walk (md_ledger_walk_*()): it refills the pool, lists new
 * entries, takes dead ones and settles lost events, while debugfs gives
 * each entry its directory and removes the dead ones'.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "inject_hooks.h"
#include "ledger.h"
#include "memcg.h"
#include "pool.h"
#include "unit.h"

const char * const md_event_names[MD_NR_EVENTS] = {
	[MD_DIRTIED]		= "dirtied",
	[MD_CLEANED_IO]		= "cleaned_io",
	[MD_CANCELLED]		= "cancelled",
	[MD_REMOVED_DIRTY]	= "removed_dirty",
	[MD_MIGRATED]		= "migrated",
	[MD_MOVED_IN]		= "moved_in",
	[MD_MOVED_OUT]		= "moved_out",
	[MD_WB_STARTED]		= "wb_started",
	[MD_WB_ENDED]		= "wb_ended",
	[MD_WB_MOVED_IN]	= "wb_moved_in",
	[MD_WB_MOVED_OUT]	= "wb_moved_out",
	[MD_WB_ENDED_IRQ]	= "wb_ended_irq",
};

struct hlist_head md_hash[1 << MD_HASH_BITS];
/* Protects md_hash and md_pool changes and entry->dead; taken in probes. */
DEFINE_RAW_SPINLOCK(md_hash_lock);
static LLIST_HEAD(md_fresh);
static LLIST_HEAD(md_dead);	/* freed memcgs, in the order they died */

DEFINE_MUTEX(md_mutex);		/* md_entries, directories, freeing */
LIST_HEAD(md_entries);

/* Folios dirtied while charged to no memcg: the 4.2 migration bug's class. */
static DEFINE_PER_CPU(long, md_uncharged);
/* Events for a new memcg that found the pool empty: the ledger is short. */
static DEFINE_PER_CPU(long, md_lost);
/* Every event anywhere: a global check is strict only if this stood still. */
DEFINE_PER_CPU(long, md_seq);

/*
 * A lost event leaves only its own memcg's ledger short, but that memcg
 * has no entry to mark.  So every loss (and every failure to give an
 * existing memcg its entry at load) bumps md_lost_gen, and entries created
 * while md_lost_gen != md_lost_settled start unsynced.  Once a walk has
 * given every memcg an entry, the losses it began after are all covered
 * (md_ledger_walk_unlock()).
 */
static atomic_long_t md_lost_gen;
static long md_lost_settled;

/*
 * From md_ledger_init() until md_ledger_loaded(): the debugfs files exist
 * before every memcg has its unsynced entry and before the probes are
 * armed, so an entry made meanwhile (a reader of summary during the load)
 * cannot know its memcg's starting point either.
 */
static bool md_loading;

static void md_lost_event(void)
{
	this_cpu_inc(md_seq);
	this_cpu_add(md_lost, 1);
	atomic_long_inc(&md_lost_gen);
}

/* Queued on every change that needs process context (md_memcg_changed()). */
static struct work_struct *md_change_work;
static bool md_stopping;

static struct hlist_head *md_bucket(struct mem_cgroup *memcg)
{
	return &md_hash[hash_ptr(memcg, MD_HASH_BITS)];
}

/*
 * Take @memcg's entry from the pool, or find that another CPU just did.
 * Announced on md_fresh for process context to list it.
 */
static struct md_entry *md_entry_take(struct mem_cgroup *memcg, bool *low)
{
	struct md_entry *e, *taken = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&md_hash_lock, flags);
	e = md_entry_lookup(memcg);	/* lost a race with another CPU? */
	if (!e)
		taken = md_pool_take();
	if (taken) {
		e = taken;
		e->memcg = memcg;
		e->cgid = cgroup_id(memcg->css.cgroup);
		/*
		 * Born after the load, every event of the memcg is seen:
		 * synced from the start, unless some event was lost for
		 * want of an entry and may have been this memcg's.
		 */
		e->synced = !READ_ONCE(md_loading) &&
			    atomic_long_read(&md_lost_gen) == READ_ONCE(md_lost_settled);
		hlist_add_head_rcu(&e->hash, md_bucket(memcg));
		llist_add(&e->fresh, &md_fresh);
	}
	*low = md_pool_low();
	raw_spin_unlock_irqrestore(&md_hash_lock, flags);
	return e;
}

/*
 * Find or create @memcg's entry.  @memcg is pinned, or the caller is an
 * RCU reader that saw it alive.  Without __GFP_DIRECT_RECLAIM (probe
 * handlers, the scan) it never allocates: a new entry comes from the pool,
 * and the change work is kicked to list it and refill the pool.  With it
 * (process context) an empty pool is refilled first.  NULL only when no
 * entry could be had.
 */
struct md_entry *md_entry_get(struct mem_cgroup *memcg, gfp_t gfp)
{
	struct md_entry *e;
	bool low;

	rcu_read_lock();
	e = md_entry_lookup(memcg);
	rcu_read_unlock();
	if (likely(e))
		return e;
	if (md_fail_entry(memcg))
		return NULL;
	if (gfpflags_allow_blocking(gfp) && md_pool_empty())
		md_pool_refill();
	e = md_entry_take(memcg, &low);
	if (low || e)
		md_memcg_changed();
	return e;
}

/*
 * The rare half of finding an event's entry (md_entry_lookup() found
 * none): create it from the pool; without one, the event is lost.
 */
struct md_entry *md_entry_for_event_slow(struct mem_cgroup *memcg)
{
	struct md_entry *e = md_entry_get(memcg, GFP_ATOMIC);

	if (unlikely(!e))
		md_lost_event();
	return e;
}

/*
 * An event's entry: probe handlers are RCU readers already, so the common
 * case, an entry that exists, is one hash lookup.
 */
static inline struct md_entry *md_entry_for_event(struct mem_cgroup *memcg)
{
	struct md_entry *e = md_entry_lookup(memcg);

	return likely(e) ? e : md_entry_for_event_slow(memcg);
}

/* md_account()'s rare half: uncharged, or no entry yet. */
void md_account_slow(struct mem_cgroup *memcg, enum md_counter c, int nid,
		     long pages, enum md_event ev)
{
	struct md_entry *e;

	if (!memcg) {
		this_cpu_inc(md_seq);
		md_account_uncharged(pages);
		return;
	}
	e = md_entry_for_event_slow(memcg);
	if (e)
		md_account_entry(e, c, nid, pages, ev);
}

/* md_inflight_begin()'s rare half: no entry yet. */
struct md_entry *md_inflight_begin_slow(struct mem_cgroup *memcg, long pages)
{
	struct md_entry *e = md_entry_for_event_slow(memcg);

	if (e)
		md_inflight_add(e, pages);
	return e;
}

/* @e's starting point is lost: it needs a fresh resync.  Any context. */
void md_entry_unsync_entry(struct md_entry *e)
{
	this_cpu_inc(md_seq);
	atomic_long_inc(&e->unsyncs);	/* moves the entry's sequence */
	smp_mb__after_atomic();		/* pairs with the resync's recheck */
	WRITE_ONCE(e->synced, false);
}

/* A change the probes could not follow: the memcg needs a fresh resync. */
void md_entry_unsync(struct mem_cgroup *memcg)
{
	struct md_entry *e;

	if (!memcg)
		return;
	e = md_entry_for_event(memcg);
	if (e)
		md_entry_unsync_entry(e);
}

/*
 * A memcg's values went where no entry holds them (unit.c's md_carry()
 * into a parent without one): the entry that parent gets later starts
 * unsynced, as after a lost event, without counting one.
 */
void md_ledger_unsettle(void)
{
	atomic_long_inc(&md_lost_gen);
}

/* Migration of a dirty folio: same memcg, possibly another node. */
void md_account_migrate(struct mem_cgroup *memcg, int from, int to, long pages)
{
	struct md_entry *e;

	if (!memcg) {
		this_cpu_inc(md_seq);
		return;
	}
	e = md_entry_for_event(memcg);
	if (!e)
		return;
	this_cpu_inc(md_seq);
	this_cpu_add(e->pcpu->events[MD_MIGRATED], pages);
	smp_wmb();		/* pairs with md_entry_quiet() */
	if (from != to) {
		this_cpu_sub(e->pcpu->count[md_cn(MD_C_DIRTY, from)], pages);
		this_cpu_add(e->pcpu->count[md_cn(MD_C_DIRTY, to)], pages);
	}
}

/* v1 charge moving: counter @c's pages change memcg on the same node. */
void md_account_move(struct mem_cgroup *from, struct mem_cgroup *to,
		     enum md_counter c, int nid, long pages)
{
	bool wb = c == MD_C_WRITEBACK;

	md_account(from, c, nid, -pages, wb ? MD_WB_MOVED_OUT : MD_MOVED_OUT);
	md_account(to, c, nid, pages, wb ? MD_WB_MOVED_IN : MD_MOVED_IN);
}

void md_account_uncharged(long pages)
{
	this_cpu_add(md_uncharged, pages);
}

long md_uncharged_total(void)
{
	return md_sum_cpus(&md_uncharged);
}

long md_lost_total(void)
{
	return md_sum_cpus(&md_lost);
}

long md_total_seq(void)
{
	return md_sum_cpus(&md_seq);
}

/*
 * Take a reference on the memcg behind a possibly dying entry, or fail.
 * md_memcg_freed() marks entries dead under md_hash_lock before the memcg
 * is freed, so holding the lock keeps the memory valid.  But the kernel
 * exits the css's refcount before it calls mem_cgroup_css_free(), and a
 * tryget then reads a NULL pointer (seen on 7.3-rt, under md_churn).  It
 * exits it an RCU grace period after it marked the css released, and the
 * lock (irqs off) is a read-side section: a css not yet seen released
 * keeps its refcount until we are done.
 */
struct mem_cgroup *md_entry_pin(struct md_entry *e)
{
	struct mem_cgroup *memcg = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&md_hash_lock, flags);
	if (!e->dead && !(READ_ONCE(e->memcg->css.flags) & CSS_RELEASED) &&
	    css_tryget(&e->memcg->css))
		memcg = e->memcg;
	raw_spin_unlock_irqrestore(&md_hash_lock, flags);
	return memcg;
}

/* Probe on the css release (MD_KERNEL_REPARENTS only): see md_carry(). */
void md_memcg_released(struct mem_cgroup *memcg)
{
	struct md_entry *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&md_hash_lock, flags);
	e = md_entry_lookup(memcg);
	if (e)
		md_carry(e, memcg);
	raw_spin_unlock_irqrestore(&md_hash_lock, flags);
}

/* Probe on mem_cgroup_css_free: the memcg is about to be freed. */
void md_memcg_freed(struct mem_cgroup *memcg)
{
	struct md_entry *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&md_hash_lock, flags);
	e = md_entry_lookup(memcg);
	if (e && MD_KERNEL_REPARENTS)
		md_carry(e, memcg);
	if (e) {
		hlist_del_init_rcu(&e->hash);
		e->dead = true;
		e->memcg = NULL;
		llist_add(&e->dead_link, &md_dead);
	}
	raw_spin_unlock_irqrestore(&md_hash_lock, flags);
	if (e)
		md_memcg_changed();
}

/*
 * Probes on memcg online/offline/free, a new entry: process context soon.
 * The test of md_stopping and the queueing are one RCU read-side section,
 * so that once md_ledger_stop() returns nobody queues the work again.
 */
void md_memcg_changed(void)
{
	struct work_struct *work;

	rcu_read_lock();
	work = READ_ONCE(md_change_work);
	if (work && !READ_ONCE(md_stopping)) {
		md_delay(MD_D_CHANGED);
		queue_work(md_wq, work);
	}
	rcu_read_unlock();
}

/* Who is told of changes: cgroups.c's upkeep of cgroups/. */
void md_ledger_set_change_work(struct work_struct *work)
{
	WRITE_ONCE(md_change_work, work);
}

/* Put entries the probes took from the pool on md_entries. */
void md_ledger_list_fresh(void)
{
	struct llist_node *fresh = llist_del_all(&md_fresh);
	struct md_entry *e, *tmp;

	lockdep_assert_held(&md_mutex);
	llist_for_each_entry_safe(e, tmp, fresh, fresh)
		list_add_tail(&e->node, &md_entries);
}

/*
 * At load, once before the accounting probes are armed (so that they find
 * entries, not an empty pool) and once after (for memcgs created in
 * between): every memcg that exists gets an entry, unsynced, since it may
 * have had dirty pages before the probes saw them (scan.c's resync gives it
 * a starting point).  A memcg left without an entry counts as a loss, so
 * that its entry starts unsynced whenever it is made.
 */
void md_ledger_unsync_existing(void)
{
	struct mem_cgroup *pos = NULL;
	struct md_entry *e;

	mutex_lock(&md_mutex);
	while ((pos = md_memcg_walk(pos))) {
		e = md_entry_get(pos, GFP_KERNEL);
		if (e)
			WRITE_ONCE(e->synced, false);
		else
			atomic_long_inc(&md_lost_gen);
	}
	md_ledger_list_fresh();
	mutex_unlock(&md_mutex);
}

/*
 * Counter @c of every memcg to be based again from a still scan, the
 * entries otherwise as they are (rows_unsynced): its probes missed hits of
 * unknown memcgs (attach.c).  A memcg without an entry gets one unsynced.
 * The sequence moves, as at an unsync.  Caller does not hold md_mutex.
 */
void md_ledger_unsync_counter(enum md_counter c)
{
	struct mem_cgroup *pos = NULL;
	struct md_entry *e;

	mutex_lock(&md_mutex);
	while ((pos = md_memcg_walk(pos))) {
		e = md_entry_get(pos, GFP_KERNEL);
		if (!e) {
			atomic_long_inc(&md_lost_gen);
			continue;
		}
		this_cpu_inc(md_seq);
		atomic_long_inc(&e->unsyncs);	/* moves the entry's sequence */
		set_bit(c, &e->rows_unsynced);
	}
	md_ledger_list_fresh();
	mutex_unlock(&md_mutex);
}

/*
 * The load is done: every memcg that existed has its unsynced entry, and
 * the probes see every event of those made from now on.  An entry made
 * before this (md_entry_take()) started unsynced.
 */
void md_ledger_loaded(void)
{
	WRITE_ONCE(md_loading, false);
}

/*
 * The entries of freed memcgs, off md_entries, oldest first (a child memcg
 * is always freed before its parent).  The walk's caller removes what it
 * hung on them before md_ledger_free_dead() frees them.
 */
static struct llist_node *md_ledger_take_dead(void)
{
	struct llist_node *dead;
	struct md_entry *e;

	lockdep_assert_held(&md_mutex);
	/*
	 * Dead first, then fresh: an entry goes on md_fresh before it can go
	 * on md_dead, so every entry taken here is listed (and can be
	 * unlisted) before it is freed, never left on md_fresh.
	 */
	dead = llist_reverse_order(llist_del_all(&md_dead));
	md_delay(MD_D_RECONCILE);
	md_ledger_list_fresh();
	llist_for_each_entry(e, dead, dead_link)
		list_del(&e->node);
	return dead;
}

static void md_ledger_free_dead(struct llist_node *dead)
{
	struct md_entry *e, *tmp;

	if (!dead)
		return;
	synchronize_rcu();	/* probe handlers that looked the entries up */
	llist_for_each_entry_safe(e, tmp, dead, dead_link)
		md_entry_free(e);
}

/*
 * One walk at a time, from taking the dead entries to freeing them.  Dead
 * entries are taken child before parent (a memcg is freed before its
 * parent), and the caller handles them in that order (debugfs removes a
 * child's directory before its parent's, recursively); two walks that
 * each took some would handle them unordered.  Taken before md_mutex.
 */
static DEFINE_MUTEX(md_walk_mutex);

/*
 * The ledger's upkeep, in process context: the pool refilled, the dead
 * entries taken, every memcg given its entry (md_ledger_walk_next(), under
 * md_mutex), fresh entries listed, and, when every memcg had its entry,
 * the events lost before the walk began settled (md_lost_gen).  Then,
 * md_mutex dropped, the dead entries handed over (md_ledger_walk_dead())
 * and freed (md_ledger_walk_end()).
 */
void md_ledger_walk_begin(struct md_ledger_walk *w)
{
	md_pool_refill();
	mutex_lock(&md_walk_mutex);
	mutex_lock(&md_mutex);
	w->dead = md_ledger_take_dead();
	w->dead_next = NULL;
	w->lost_gen = atomic_long_read(&md_lost_gen);
	w->all = true;
	w->pos = NULL;
}

/* The next memcg's entry (its memcg in w->pos, held until the next call), or NULL. */
struct md_entry *md_ledger_walk_next(struct md_ledger_walk *w)
{
	struct md_entry *e;

	lockdep_assert_held(&md_mutex);
	while ((w->pos = md_memcg_walk(w->pos))) {
		e = md_entry_get(w->pos, GFP_KERNEL);
		if (e)
			return e;
		w->all = false;
	}
	return NULL;
}

/* After the last md_ledger_walk_next(): md_mutex dropped. */
void md_ledger_walk_unlock(struct md_ledger_walk *w)
{
	if (w->all)	/* every loss before the walk is covered */
		WRITE_ONCE(md_lost_settled, w->lost_gen);
	md_ledger_list_fresh();
	mutex_unlock(&md_mutex);
	w->dead_next = w->dead;
}

/* After md_ledger_walk_unlock(): the dead entries taken, oldest first, or NULL. */
struct md_entry *md_ledger_walk_dead(struct md_ledger_walk *w)
{
	struct md_entry *e;

	if (!w->dead_next)
		return NULL;
	e = llist_entry(w->dead_next, struct md_entry, dead_link);
	w->dead_next = w->dead_next->next;
	return e;
}

/* The walk's end: the next may begin; the dead entries are freed. */
void md_ledger_walk_end(struct md_ledger_walk *w)
{
	mutex_unlock(&md_walk_mutex);
	md_ledger_free_dead(w->dead);
}

int md_ledger_init(void)
{
	int ret;

	md_stopping = false;
	md_loading = true;
	ret = md_pool_init();
	if (ret)
		return ret;
	md_pool_refill();
	if (md_pool_empty()) {
		md_pool_exit();
		return -ENOMEM;
	}
	return 0;
}

/* No more change work from here: md_memcg_changed() is done queueing. */
void md_ledger_stop(void)
{
	WRITE_ONCE(md_stopping, true);
	synchronize_rcu();
}

/* After debugfs is gone: nothing can reach an entry any more. */
void md_ledger_exit(void)
{
	struct md_entry *e, *tmp;
	unsigned int i;

	mutex_lock(&md_mutex);
	md_ledger_list_fresh();
	llist_del_all(&md_dead);	/* still on md_entries */
	for (i = 0; i < ARRAY_SIZE(md_hash); i++)
		INIT_HLIST_HEAD(&md_hash[i]);
	md_pool_drain(&md_entries);
	synchronize_rcu();
	list_for_each_entry_safe(e, tmp, &md_entries, node) {
		list_del(&e->node);
		md_entry_free(e);
	}
	mutex_unlock(&md_mutex);
	md_pool_exit();
}
