/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dirty ledger: one entry per memcg, per node, kept from the probes.
 * Each entry carries a sub-struct for each higher layer that keeps state
 * per memcg (the scan, the checks, the audit, fault injection, debugfs):
 * the ledger allocates and frees them with the entry but never reads them.
 * Those layers ask it for entries (md_entry_get(), md_ledger_walk_*()).
 */
#ifndef MEMCG_DIRTY_LEDGER_H
#define MEMCG_DIRTY_LEDGER_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "compat.h"

struct dentry;
struct mem_cgroup;
struct work_struct;

/* Where counter @c's value for node @nid is in a per-counter array. */
static __always_inline unsigned int md_cn(enum md_counter c, int nid)
{
	return c * nr_node_ids + nid;
}

/*
 * Event totals kept per memcg; values are pages.  Each is of one counter:
 * the writeback counter's are MD_WB_*.
 */
enum md_event {
	MD_DIRTIED,
	MD_CLEANED_IO,
	MD_CANCELLED,
	MD_REMOVED_DIRTY,
	MD_MIGRATED,
	MD_MOVED_IN,
	MD_MOVED_OUT,
	MD_WB_STARTED,
	MD_WB_ENDED,
	MD_WB_MOVED_IN,
	MD_WB_MOVED_OUT,
	MD_WB_ENDED_IRQ,	/* of MD_WB_ENDED: those ended in hard interrupt context */
	MD_NR_EVENTS,
};

extern const char * const md_event_names[MD_NR_EVENTS];

/* A per-CPU counter's value: the sum of every CPU's share. */
static inline long md_sum_cpus(long __percpu *p)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(p, cpu);
	return sum;
}

/* Per-CPU half of a ledger entry: only ever added to, summed on read. */
struct md_pcpu {
	long events[MD_NR_EVENTS];
	long count[];		/* pages, per counter and node (md_cn()) */
};

/*
 * resync.c's, under md_mutex: an unsynced entry's kernel count against its
 * scan (the offset, scan - kernel, per node) in the resync's passes that
 * could judge it (its memcg still through the scan, no page locked), pass
 * by pass; cleared when it is based.
 */
struct md_entry_apart {
	long pages;			/* the last judged offset: sum of |node's| */
	long net;			/* and its sum */
	u64 since_ns;			/* since when judged passes in a row saw it; 0: none */
	unsigned int changes;		/* judged passes in a row, each apart and not as the last */
	bool first;			/* an offset stood: two judged passes in a row saw it */
	/*
	 * that offset, what was there at first sight, and the offsets of the
	 * members that joined since (first_pages -1: their nodes' sum unknown)
	 */
	long first_pages, first_net;
	long first_kernel, first_scan;	/* the views then, as kernel and scan below */
	/*
	 * a synced unit root made to wait for a dying member: first_* are not
	 * seen but known, the offset it had (none) plus the member's
	 * (md_resync_join()); no other is taken
	 */
	bool expected;
	/* or a member's offset was never seen: the one taken is said so */
	bool unseen;
	bool joined;			/* a dying member: its offset went to its root's */
	bool judged;			/* a pass was judged: kernel and scan below hold */
	long kernel, scan;		/* the last judged pass's totals */
	/* kernel and scan drifted apart after the first sight: the audit reports it */
	bool drifted;
	bool kernel_moved, scan_moved;	/* which of the two moved in the pass that found it */
	int drift_nid;			/* the node most apart then, and its two views */
	long drift_node_kernel, drift_node_scan;
};

/* scan.c's, under md_mutex: the last page scan and the resync's waiting */
struct md_entry_scan {
	long *pages;			/* per counter and node: what the last scan found */
	bool valid;			/* no event of ours during the last scan */
	long busy;			/* pages the scan found locked: not counted */
	long seq0;			/* event sequence before the last scan */
	/*
	 * a sequence read before an RCU grace period, the checks' reference:
	 * set by md_scan() and md_scan_ref() only
	 */
	long seq_ref;
	struct md_entry_apart apart;	/* resync.c's (md_resync_apart()) */
	/* kernel offset a unit root took from members never seen at rest */
	long kernel_carried_unseen;
};

/* check.c's, under md_mutex */
struct md_entry_check {
	int last_verdict[MD_NR_COUNTERS];	/* enum md_verdict, to log changes once */
};

/* audit.c's, under md_mutex */
struct md_entry_audit {
	u64 unsynced_ns;		/* since the first pass that found it unsynced; 0: synced */
	bool unsynced_told;		/* its long unsynced spell was reported */
	unsigned int strikes;		/* audits in a row that found kernel, ledger apart */
	long gap;			/* kernel - ledger at the last escalation */
	unsigned int pending;		/* its bad verdict (bit), to be found again */
	unsigned int printed;		/* verdicts (bits) printed on the console */
	unsigned int warned;		/* verdicts (bits) raised as a WARN */
};

/* inject.c's, atomic, changed under its md_skew_lock */
struct md_entry_inject {
	atomic_long_t *skew;		/* per node: the kernel counter's skew */
};

/*
 * debugfs's (cgroups.c), under md_mutex; a dead entry's, once the ledger's
 * walk took it, under that walk until it frees the entry
 */
struct md_entry_fs {
	struct dentry *dir;		/* cgroups/... directory, or NULL */
	bool renamed;			/* dir renamed to NAME@ID once dying */
};

/*
 * One ledger entry per memcg the module has seen.  Keyed by the memcg
 * pointer, which cannot be reused before the kernel frees the memcg, and we
 * hear of that (mem_cgroup_css_free probe) before it happens.  The 64-bit
 * cgroup id names it to users: unlike mem_cgroup_id() it is never recycled.
 */
struct md_entry {
	struct hlist_node hash;		/* md_hash bucket, RCU */
	struct list_head node;		/* md_entries, under md_mutex */
	struct llist_node fresh;	/* created by a probe, not yet listed */
	struct llist_node dead_link;	/* on md_dead once the memcg is freed */
	struct mem_cgroup *memcg;	/* only while !dead */
	u64 cgid;
	bool dead;			/* memcg freed: unhashed, going */
	bool offlining;			/* the kernel began offlining it (notes.c) */
	/*
	 * False while the ledger's starting point is unknown: the memcg
	 * existed when the module loaded and may have had dirty pages then.
	 * md_resync() sets base[] from a quiescent scan.
	 */
	bool synced;
	/*
	 * Counters (enum md_counter bits) of a synced entry to be based again
	 * from a still scan (md_resync_scanned()): their probes missed hits of
	 * unknown memcgs (md_ledger_unsync_counter()).  Their verdicts are
	 * unsynced meanwhile; the others' go on.
	 */
	unsigned long rows_unsynced;
	/* pages in return probes' windows (md_inflight_begin()) */
	atomic_long_t inflight;
	atomic_long_t unsyncs;		/* md_entry_unsync() calls */
	atomic_long_t carries;		/* md_carry()s into or out of it (unit.c) */
	atomic_t unsynced_in;		/* of them, unsynced ones into it synced */
	struct md_pcpu __percpu *pcpu;
	long *base;			/* per counter and node: pages before the events */
	/*
	 * Per counter and node, where the kernel reparents (MD_KERNEL_REPARENTS): what
	 * was carried in from released descendants (their folios count here
	 * now), less what this memcg handed on to its parent once released
	 * itself; md_carry() (unit.c).
	 */
	atomic_long_t *carried_kernel;
	atomic_long_t *carried_ledger;
	/* the higher layers' state (above): the ledger never reads it */
	struct md_entry_scan scan;
	struct md_entry_check check;
	struct md_entry_audit audit;
	struct md_entry_inject inject;
	struct md_entry_fs fs;
	long arrays[];			/* base, scan.pages, carried_*, inject.skew */
};

/*
 * The ledger layer's own (ledger.c, pool.c, unit.c): md_hash, the pool,
 * entries' dead flag and the carries; taken in probes.
 */
extern raw_spinlock_t md_hash_lock;

/* md_entries, and every entry's fields marked md_mutex */
extern struct mutex md_mutex;
extern struct list_head md_entries;

int md_ledger_init(void);
void md_ledger_set_change_work(struct work_struct *work);
void md_ledger_unsync_existing(void);
void md_ledger_unsync_counter(enum md_counter c);
void md_ledger_loaded(void);
void md_ledger_stop(void);
void md_ledger_exit(void);

/*
 * md_hash, keyed by the memcg pointer: changed under md_hash_lock, read
 * under RCU.  md_seq: every event anywhere, per CPU (md_total_seq()).
 * Both here for the probes' inline common path below.
 */
#define MD_HASH_BITS	12
extern struct hlist_head md_hash[1 << MD_HASH_BITS];
DECLARE_PER_CPU(long, md_seq);

/* @memcg's entry or NULL.  Any context; caller is an RCU reader (probe handlers are). */
static __always_inline struct md_entry *md_entry_lookup(struct mem_cgroup *memcg)
{
	struct md_entry *e;

	hlist_for_each_entry_rcu(e, &md_hash[hash_ptr(memcg, MD_HASH_BITS)], hash) {
		if (e->memcg == memcg)
			return e;
	}
	return NULL;
}

/*
 * Probe handlers: any context.  The common case, an entry that exists, is
 * inline (a hash lookup and per-CPU adds, no call); the rare ones (an
 * uncharged folio, an entry to create, a lost event) are the *_slow()
 * functions, out of line.
 */
void md_account_slow(struct mem_cgroup *memcg, enum md_counter c, int nid,
		     long pages, enum md_event ev);
struct md_entry *md_entry_for_event_slow(struct mem_cgroup *memcg);
struct md_entry *md_inflight_begin_slow(struct mem_cgroup *memcg, long pages);

/*
 * The event is counted before the pages: a reader that sees the pages
 * (md_entry_ledger_events()) and then an unchanged sequence
 * (md_entry_seq()) knows no event was half done.
 */
static __always_inline void md_account_entry(struct md_entry *e, enum md_counter c,
					     int nid, long pages, enum md_event ev)
{
	struct md_pcpu __percpu *pc = e->pcpu;	/* loaded once, across smp_wmb() */

	this_cpu_inc(md_seq);
	this_cpu_add(pc->events[ev], abs(pages));
	smp_wmb();		/* pairs with md_entry_quiet() */
	this_cpu_add(pc->count[md_cn(c, nid)], pages);
}

/*
 * A detail of an event just counted on @e (md_account_entry()), which
 * moves no count: the event's sequence has moved already.
 */
static __always_inline void md_account_detail(struct md_entry *e, long pages,
					      enum md_event ev)
{
	this_cpu_add(e->pcpu->events[ev], pages);
}

/* An event of @pages (signed) of counter @c on node @nid of @memcg (NULL: uncharged). */
static __always_inline void md_account(struct mem_cgroup *memcg, enum md_counter c,
				       int nid, long pages, enum md_event ev)
{
	struct md_entry *e;

	if (likely(memcg)) {
		e = md_entry_lookup(memcg);
		if (likely(e)) {
			md_account_entry(e, c, nid, pages, ev);
			return;
		}
	}
	md_account_slow(memcg, c, nid, pages, ev);
}

static __always_inline void md_inflight_add(struct md_entry *e, long pages)
{
	atomic_long_add(pages, &e->inflight);
	smp_mb__after_atomic();	/* before the kernel's update is visible */
}

/*
 * The return probes count after the kernel's own update: from their entry
 * handler to then, the two differ by @pages for a reason no sequence
 * shows.  Strict comparisons and resync wait until no such window is open
 * (md_entry_inflight()).  Entry handlers hold the folio's memcg until the
 * return (md_folio_memcg_hold()), which keeps its entry alive: an entry is
 * freed only after its memcg.  NULL (and an event lost) when the memcg has
 * no entry to be had.
 */
static __always_inline struct md_entry *md_inflight_begin(struct mem_cgroup *memcg,
							  long pages)
{
	struct md_entry *e = md_entry_lookup(memcg);

	if (unlikely(!e))
		return md_inflight_begin_slow(memcg, pages);
	md_inflight_add(e, pages);
	return e;
}

static __always_inline void md_inflight_end(struct md_entry *e, long pages)
{
	smp_mb__before_atomic();	/* after our own count is visible */
	atomic_long_sub(pages, &e->inflight);
}

void md_entry_unsync(struct mem_cgroup *memcg);
void md_entry_unsync_entry(struct md_entry *e);
void md_ledger_unsettle(void);
void md_account_migrate(struct mem_cgroup *memcg, int from, int to,
			long pages);
void md_account_move(struct mem_cgroup *from, struct mem_cgroup *to,
		     enum md_counter c, int nid, long pages);
void md_account_uncharged(long pages);
void md_memcg_released(struct mem_cgroup *memcg);
void md_memcg_freed(struct mem_cgroup *memcg);
void md_memcg_changed(void);

struct md_entry *md_entry_get(struct mem_cgroup *memcg, gfp_t gfp);
struct mem_cgroup *md_entry_pin(struct md_entry *e);
void md_ledger_list_fresh(void);

/*
 * The ledger's upkeep, with what the caller hangs on entries:
 *
 *	md_ledger_walk_begin(&w);
 *	while ((e = md_ledger_walk_next(&w)))
 *		(e's memcg, w.pos, has an entry: give e what it lacks)
 *	md_ledger_walk_unlock(&w);
 *	while ((e = md_ledger_walk_dead(&w)))
 *		(remove what was hung on e, oldest first)
 *	md_ledger_walk_end(&w);
 *
 * An iterator, not a callback: no indirect call (scripts/ibt-check).
 */
struct md_ledger_walk {
	struct mem_cgroup *pos;		/* the memcg of the last entry returned */
	struct llist_node *dead;	/* entries of freed memcgs, oldest first */
	struct llist_node *dead_next;	/* md_ledger_walk_dead()'s next */
	long lost_gen;			/* md_lost_gen when the walk began */
	bool all;			/* every memcg so far had its entry */
};

void md_ledger_walk_begin(struct md_ledger_walk *w);
struct md_entry *md_ledger_walk_next(struct md_ledger_walk *w);
void md_ledger_walk_unlock(struct md_ledger_walk *w);
struct md_entry *md_ledger_walk_dead(struct md_ledger_walk *w);
void md_ledger_walk_end(struct md_ledger_walk *w);

/* an entry's counts read (sums.c) */
long md_entry_ledger(struct md_entry *e, enum md_counter c, int nid);
long md_entry_ledger_events(struct md_entry *e, enum md_counter c, int nid);
long md_entry_ledger_may_sleep(struct md_entry *e, enum md_counter c, int nid);
long md_entry_event(struct md_entry *e, enum md_event ev);
long md_entry_seq(struct md_entry *e);
long md_entry_inflight(struct md_entry *e);
bool md_entry_quiet(struct md_entry *e, long seq);
long md_uncharged_total(void);
long md_lost_total(void);
long md_total_seq(void);
/* the module's memory in entries (pool.c) */
long md_entries_count(void);
size_t md_entry_bytes(void);

#endif /* MEMCG_DIRTY_LEDGER_H */
