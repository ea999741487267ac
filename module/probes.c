// SPDX-License-Identifier: GPL-2.0
/*
 * The probe handlers on the kernel's dirty accounting, and each point's
 * candidate attachments in order of preference (attach.c uses the first
 * whose symbol the running kernel has).  Handlers run in atomic context:
 * no sleeping, no allocation, per-CPU counters only.
 */
#include <linux/kprobes.h>
#include <linux/migrate.h>
#include <linux/ptrace.h>
#include "compat.h"
#include "anomaly.h"
#include "domain_events.h"
#include "inject_hooks.h"
#include "inject.h"
#include "ledger.h"
#include "memcg.h"
#include "notes.h"
#include "shadow.h"
#include "points.h"
#include "probes.h"

static DEFINE_PER_CPU(unsigned long, md_hits[MD_NR_POINTS]);

static inline void md_hit(enum md_point p)
{
	this_cpu_inc(md_hits[p]);
}

static inline void *md_arg(struct pt_regs *regs, unsigned int n)
{
	return (void *)regs_get_kernel_argument(regs, n);
}

/* A bool return value: only the low byte of the register is defined. */
static inline bool md_ret_bool(struct pt_regs *regs)
{
	return (u8)regs_return_value(regs);
}

/* --- cgroup v1 charge moves in flight ------------------------------------ */

/*
 * mem_cgroup_move_account() moves a dirty folio's count under locks the
 * return handler no longer holds: by then the folio may have been cleaned,
 * or dirtied for the new memcg.  Every dirty-state change of a folio goes
 * through one of our probes, so a move is certain only if none touched its
 * folio between the move's entry and return handlers.  Moves are rare and
 * few at a time; with no free slot a move is simply uncertain.
 */
#define MD_MOVES_MAX	8

static struct md_move_slot {
	struct folio *folio;
	bool disturbed;
} md_moves[MD_MOVES_MAX];
static DEFINE_RAW_SPINLOCK(md_moves_lock);
static atomic_t md_moves_active;

static int md_move_track(struct folio *folio)
{
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&md_moves_lock, flags);
	for (i = 0; i < MD_MOVES_MAX; i++) {
		if (!md_moves[i].folio) {
			md_moves[i].folio = folio;
			md_moves[i].disturbed = false;
			atomic_inc(&md_moves_active);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&md_moves_lock, flags);
	return i < MD_MOVES_MAX ? i : -1;
}

/* True if nothing touched the folio's dirty state while it was tracked. */
static bool md_move_untrack(int slot)
{
	unsigned long flags;
	bool certain;

	if (slot < 0)
		return false;
	raw_spin_lock_irqsave(&md_moves_lock, flags);
	certain = !md_moves[slot].disturbed;
	md_moves[slot].folio = NULL;
	atomic_dec(&md_moves_active);
	raw_spin_unlock_irqrestore(&md_moves_lock, flags);
	return certain;
}

/* Called by every probe that sees a folio's dirty state change. */
static inline void md_move_touch(struct folio *folio)
{
	unsigned long flags;
	int i;

	if (likely(!atomic_read(&md_moves_active)))
		return;
	raw_spin_lock_irqsave(&md_moves_lock, flags);
	for (i = 0; i < MD_MOVES_MAX; i++)
		if (md_moves[i].folio == folio)
			md_moves[i].disturbed = true;
	raw_spin_unlock_irqrestore(&md_moves_lock, flags);
}

/*
 * A cleaning the ledger counts: clear the folio's shadow bits (track=1); a
 * clear bit in a synced memcg means nobody counted this page dirty.
 */
static noinline void __md_shadow_cleaned(struct folio *folio, const char *probe)
{
	struct mem_cgroup *memcg = folio_memcg(folio);
	struct md_entry *e;

	if (md_shadow_clear(folio) || !memcg)
		return;
	rcu_read_lock();
	e = md_entry_lookup(memcg);
	if (e && READ_ONCE(e->synced))
		md_shadow_suspect(folio, folio_mapping(folio), e->cgid, probe);
	rcu_read_unlock();
}

/* Without track=1, a patched-out branch. */
static __always_inline void md_shadow_cleaned(struct folio *folio, const char *probe)
{
	if (md_shadow_enabled())
		__md_shadow_cleaned(folio, probe);
}

/* --- became dirty ------------------------------------------------------ */

static noinline void md_dirtied_uncharged(struct folio *folio)
{
	md_anomaly(MD_A_DIRTIED_UNCHARGED, 0, folio_nid(folio), "dirtied",
		   folio_pfn(folio), 0, 0, 0, 0);
}

/*
 * writeback_dirty_folio fires inside folio_account_dirtied(), under the
 * i_pages lock after __folio_mark_dirty() found folio->mapping set: exactly
 * where the kernel decides to count.  It fires before the writeback check.
 * Inline in both attachments, so that the tracepoint's handler is one
 * function (no partial inlining's split into a second).
 */
static __always_inline void md_dirtied(struct folio *folio, struct address_space *mapping)
{
	struct mem_cgroup *memcg;

	md_hit(MD_P_DIRTIED);
	if (!md_mapping_accounts_dirty(mapping))
		return;
	md_domain_event(md_domain_buckets_of(mapping));
	md_move_touch(folio);
	memcg = folio_memcg(folio);
	md_note_folio(MD_P_DIRTIED, folio);
	if (md_inject_drop(MD_P_DIRTIED, memcg))
		return;
	md_account(memcg, MD_C_DIRTY, folio_nid(folio), folio_nr_pages(folio), MD_DIRTIED);
	md_shadow_set(folio);
	if (unlikely(!memcg))
		md_dirtied_uncharged(folio);
}

static void md_tp_dirtied(void *data, struct folio *folio,
			  struct address_space *mapping)
{
	md_dirtied(folio, mapping);
}

/*
 * Fallback without the tracepoint: the entry of __folio_mark_dirty().  Its
 * folio->mapping test precedes the kernel's own under the lock, so a
 * truncation racing an unlocked dirtier can be miscounted.
 */
static int md_kp_mark_dirty(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = md_arg(regs, 0);
	struct address_space *mapping = md_arg(regs, 1);

	if (READ_ONCE(folio->mapping))
		md_dirtied(folio, mapping);
	else
		md_hit(MD_P_DIRTIED);
	return 0;
}

/* --- cleaned for writeback I/O ------------------------------------------- */

struct md_clear_io_data {
	struct folio *folio;
	struct mem_cgroup *memcg;	/* held over the window, or NULL */
	struct md_entry *e;	/* NULL: uncharged, or the event is lost */
	long pages;
	u64 note;		/* its order, or 0 */
	int buckets;		/* its domain's event, open; or -1 */
	bool accounts;
};

/*
 * folio_clear_dirty_for_io() returns true both when it cleared an accounted
 * folio and when it cleared one on a mapping without writeback: decide at
 * entry which case this is.  The folio is locked throughout, so its mapping
 * and node cannot change before the return handler runs; its memcg is held
 * (md_folio_memcg_hold()).  The kernel decrements before we count, and may
 * sleep in between: the window is marked in flight on the memcg's entry.
 */
static int md_clear_io_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_clear_io_data *d = (void *)ri->data;
	struct address_space *mapping;

	d->folio = md_arg(regs, 0);
	d->memcg = NULL;
	d->e = NULL;
	d->note = 0;
	d->buckets = -1;
	mapping = folio_mapping(d->folio);
	if (!md_mapping_accounts_dirty(mapping))
		return 0;
	d->buckets = md_domain_buckets_of(mapping);
	md_domain_open(d->buckets);
	d->accounts = md_folio_memcg_hold(d->folio, &d->memcg);
	if (!d->accounts)
		return 0;
	md_move_touch(d->folio);
	d->pages = folio_nr_pages(d->folio);
	d->note = md_note_change(MD_P_CLEANED_IO, d->memcg, NULL, d->pages);
	if (d->memcg)
		d->e = md_inflight_begin(d->memcg, d->pages);
	return 0;
}

/*
 * Counted against the entry handler's memcg, held since: where the kernel
 * reparents, the folio may have gone to an ancestor meanwhile, and the
 * kernel may have counted there, but a held memcg is not yet released, so
 * it is in that ancestor's unit (check.c), which is what is compared.  The
 * folio's memcg is read again only where the entry is not enough (fault
 * injection, the shadow, no entry).
 */
static int md_clear_io_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_clear_io_data *d = (void *)ri->data;

	md_hit(MD_P_CLEANED_IO);
	if (d->buckets >= 0)
		md_domain_close(d->buckets);
	if (!d->accounts)
		return 0;
	md_note_retire(d->note);
	md_delay(MD_D_CLEANED_IO);
	if (!md_ret_bool(regs) || md_inject_drop_folio(MD_P_CLEANED_IO, d->folio))
		goto out;
	if (d->e)
		md_account_entry(d->e, MD_C_DIRTY, folio_nid(d->folio), -d->pages, MD_CLEANED_IO);
	else if (!d->memcg)
		md_account(NULL, MD_C_DIRTY, folio_nid(d->folio), -d->pages, MD_CLEANED_IO);
	md_shadow_cleaned(d->folio, "cleaned_io");
out:
	if (d->e)
		md_inflight_end(d->e, d->pages);
	md_folio_memcg_drop(d->memcg);
	return 0;
}

/* --- cancelled (truncate, invalidate) or removed from the cache dirty ---- */

/*
 * folio_account_cleaned() always decrements.  Callers that cancel clear
 * PG_dirty first; filemap_unaccount_folio() (removal while dirty, a WARN
 * in the kernel) leaves it set, which tells the two apart.
 */
static __always_inline void md_cleaned(struct folio *folio, struct bdi_writeback *wb)
{
	struct mem_cgroup *memcg;

	md_hit(MD_P_CANCELLED);
	md_domain_event(md_domain_buckets(wb));	/* the domain the kernel takes them from */
	md_move_touch(folio);
	md_note_folio(MD_P_CANCELLED, folio);
	/* the folio is locked (truncation, removal): its memcg is read once */
	memcg = folio_memcg(folio);
	if (md_inject_drop(MD_P_CANCELLED, memcg))
		return;
	md_account(memcg, MD_C_DIRTY, folio_nid(folio), -folio_nr_pages(folio),
		   folio_test_dirty(folio) ? MD_REMOVED_DIRTY : MD_CANCELLED);
	md_shadow_cleaned(folio, "cancelled");
}

/*
 * Called from ftrace's trampoline with preemption as the caller left it;
 * the handlers expect what a kprobe gives them: preemption off.
 */
static void notrace md_ft_cleaned(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	preempt_disable_notrace();
	md_cleaned((struct folio *)md_fregs_arg(fregs, 0),
		   (struct bdi_writeback *)md_fregs_arg(fregs, 1));
	preempt_enable_notrace();
}

/* Where ftrace cannot reach the symbol */
static int md_kp_cleaned(struct kprobe *p, struct pt_regs *regs)
{
	md_cleaned(md_arg(regs, 0), md_arg(regs, 1));
	return 0;
}

/* --- migration ----------------------------------------------------------- */

struct md_migrate_data {
	struct address_space *mapping;
	struct folio *dst, *src;
	struct mem_cgroup *memcg;	/* src's, held over the window, or NULL */
	struct md_entry *e;	/* the window in flight, or NULL */
	long pages;
	u64 note;		/* its order, or 0 */
	int buckets;		/* its domain's event, open; or -1 */
};

/*
 * The kernel moves a dirty folio's count between nodes before we see the
 * return: in flight meanwhile.  The source folio is locked throughout; its
 * memcg is held (md_folio_memcg_hold()).
 */
static int md_migrate_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_migrate_data *d = (void *)ri->data;

	d->mapping = md_arg(regs, 0);
	d->dst = md_arg(regs, 1);
	d->src = md_arg(regs, 2);
	d->memcg = NULL;
	d->e = NULL;
	d->note = 0;
	d->buckets = -1;
	if (!md_mapping_accounts_dirty(d->mapping)) {
		d->mapping = NULL;
		return 0;
	}
	/* no count moves, but a scan meanwhile may see both folios or neither */
	d->buckets = md_domain_buckets_of(d->mapping);
	md_domain_open(d->buckets);
	if (!md_folio_memcg_hold(d->src, &d->memcg)) {
		d->mapping = NULL;	/* unloading: the return leaves it */
		return 0;
	}
	if (d->memcg) {
		d->pages = folio_nr_pages(d->src);
		d->note = md_note_change(MD_P_MIGRATED, d->memcg, NULL, d->pages);
		d->e = md_inflight_begin(d->memcg, d->pages);
	}
	return 0;
}

/*
 * On success PG_dirty has moved from src to dst under the i_pages lock and
 * the kernel moved the count between the nodes' lruvecs of src's memcg
 * (dst is charged later, by mem_cgroup_migrate()).  Both folios stay locked
 * until after we return.
 */
static int md_migrate_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_migrate_data *d = (void *)ri->data;

	md_hit(MD_P_MIGRATED);
	if (d->buckets >= 0)
		md_domain_close(d->buckets);
	md_note_retire(d->note);
	if (regs_return_value(regs) != MD_MIGRATE_SUCCESS ||
	    !md_mapping_accounts_dirty(d->mapping) || !folio_test_dirty(d->dst))
		goto out;
	if (md_inject_drop(MD_P_MIGRATED, folio_memcg(d->src)))
		goto out;
	md_account_migrate(folio_memcg(d->src), folio_nid(d->src),
			   folio_nid(d->dst), folio_nr_pages(d->src));
	md_inject_migrated(folio_memcg(d->src), folio_nid(d->dst),
			   folio_nr_pages(d->src));
	md_shadow_move(d->src, d->dst);
out:
	if (d->e)
		md_inflight_end(d->e, d->pages);
	md_folio_memcg_drop(d->memcg);
	return 0;
}

/* --- cgroup v1 charge moving ----------------------------------------------- */

struct md_move_data {
	struct page *page;
	bool compound;
	struct mem_cgroup *from, *to;
	struct md_entry *from_e, *to_e;	/* windows in flight, or NULL */
	long pages;
	u64 note;			/* its order, or 0 */
	int slot;			/* md_moves[], or -1 */
};

/*
 * Both memcgs are pinned by the caller (mem_cgroup_move_charge()) for the
 * whole call, so their entries outlive the window.  The kernel moves a
 * file folio's dirty count and any folio's writeback count, anonymous
 * ones (swap) included.
 */
static int md_move_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_move_data *d = (void *)ri->data;
	struct folio *folio;

	d->page = md_arg(regs, 0);
	d->compound = (unsigned long)md_arg(regs, 1) & 1;
	d->from = md_arg(regs, 2);
	d->to = md_arg(regs, 3);
	folio = page_folio(d->page);
	d->pages = d->compound ? folio_nr_pages(folio) : 1;
	d->note = 0;
	if (!folio_test_anon(folio))
		d->note = md_note_change(MD_P_MOVED, d->from, d->to, d->pages);
	d->slot = md_move_track(folio);
	d->from_e = md_inflight_begin(d->from, d->pages);
	d->to_e = md_inflight_begin(d->to, d->pages);
	return 0;
}

static int md_move_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_move_data *d = (void *)ri->data;
	struct folio *folio = page_folio(d->page);
	struct address_space *mapping;
	bool certain, dirty;

	md_hit(MD_P_MOVED);
	md_note_retire(d->note);
	md_delay(MD_D_MOVED);
	certain = md_move_untrack(d->slot);
	if (regs_return_value(regs) || md_inject_drop(MD_P_MOVED, d->from))
		goto out;
	if (!certain) {
		/* its dirty or writeback state changed around the move: do not guess */
		md_entry_unsync(d->from);
		md_entry_unsync(d->to);
		goto out;
	}
	/*
	 * No mapping: truncated since the move.  Whether its dirty state was
	 * touched decides before that: had it been dirty, truncation touched
	 * it, and the move the kernel made must not go unseen.
	 */
	mapping = folio_mapping(folio);
	dirty = !folio_test_anon(folio) && mapping && md_mapping_accounts_dirty(mapping) &&
		folio_test_dirty(folio);
	if (dirty)
		md_account_move(d->from, d->to, MD_C_DIRTY, folio_nid(folio), d->pages);
	if (folio_test_writeback(folio))
		md_account_move(d->from, d->to, MD_C_WRITEBACK, folio_nid(folio), d->pages);
out:
	if (d->from_e)
		md_inflight_end(d->from_e, d->pages);
	if (d->to_e)
		md_inflight_end(d->to_e, d->pages);
	return 0;
}

/* --- writeback begun and ended (the writeback counter) ------------------- */

struct md_wb_data {
	struct folio *folio;
	struct mem_cgroup *memcg;	/* held over the window, or NULL */
	struct md_entry *e;		/* the window in flight, or NULL */
	long pages;
	u64 note;			/* for the watch of NR_WRITEBACK, or 0 */
	unsigned int buckets;		/* its domain's event, open */
	bool held;
};

/*
 * The kernel counts NR_WRITEBACK between our entry and return handlers:
 * the window is in flight on the memcg's entry.  A start runs with the
 * folio locked; an end may run in interrupt context, the folio unlocked
 * and referenced by its caller (folio_end_writeback()).  Both change a
 * folio's writeback state, which a v1 charge move in flight must hear of.
 */
static __always_inline void md_wb_entry(struct kretprobe_instance *ri, struct pt_regs *regs,
					enum md_point p)
{
	struct md_wb_data *d = (void *)ri->data;

	d->folio = md_arg(regs, 0);
	d->memcg = NULL;
	d->e = NULL;
	d->note = 0;
	d->pages = folio_nr_pages(d->folio);
	/* an end's folio is referenced, and under writeback it keeps its inode */
	d->buckets = md_domain_buckets_of(folio_mapping(d->folio));
	md_domain_open(d->buckets);
	md_move_touch(d->folio);
	d->held = md_folio_memcg_hold(d->folio, &d->memcg);
	if (d->held && d->memcg)
		d->e = md_inflight_begin(d->memcg, d->pages);
	/* only for the watch of this counter: an end may be an interrupt's */
	if (d->held && md_notes_wanted_for(MD_C_WRITEBACK))
		d->note = md_note_write(p, d->memcg, NULL, d->pages, NULL);
}

static int md_wb_started_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	md_wb_entry(ri, regs, MD_P_WB_STARTED);
	return 0;
}

static int md_wb_ended_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	md_wb_entry(ri, regs, MD_P_WB_ENDED);
	return 0;
}

/*
 * The end, unlike the start, does not hold the folio lock, which v1
 * charge moving takes: a move between our two handlers leaves it unknown
 * which memcg the kernel counted in, the one of the entry or the one of
 * now.  Both are unsynced (the move's own handler sees the end as a touch
 * of its folio).  Where the kernel reparents, the folio's memcg changes
 * at a reparenting too, but a held memcg is in its new one's unit, which
 * is what the checks compare.
 */
static bool md_wb_memcg_moved(struct md_wb_data *d)
{
	struct mem_cgroup *now;

	if (MD_KERNEL_REPARENTS)
		return false;
	md_move_touch(d->folio);
	now = folio_memcg(d->folio);
	if (likely(now == d->memcg))
		return false;
	/*
	 * Uncharged: not moved, but freed under the end, which holds a
	 * reference that should have prevented it (739f79fc9db1's bug).  The
	 * end belongs to the memcg of the entry: the ledger counts it there,
	 * and the kernel, which found no memcg, is seen apart.
	 */
	if (!now)
		return false;
	md_entry_unsync(d->memcg);
	md_entry_unsync(now);
	return true;
}

static void md_wb_ret(struct md_wb_data *d, enum md_point p, bool counted, long sign,
		      enum md_event ev)
{
	md_domain_close(d->buckets);
	if (!d->held)
		return;
	if (!counted || md_wb_memcg_moved(d) || md_inject_drop(p, d->memcg))
		goto out;
	if (d->e) {
		md_account_entry(d->e, MD_C_WRITEBACK, folio_nid(d->folio), sign * d->pages, ev);
		/* said apart: where ends run decides what they may race with */
		if (ev == MD_WB_ENDED && in_hardirq())
			md_account_detail(d->e, d->pages, MD_WB_ENDED_IRQ);
	} else if (!d->memcg) {
		md_account(NULL, MD_C_WRITEBACK, folio_nid(d->folio), sign * d->pages, ev);
	}
out:
	md_note_retire(d->note);
	if (d->e)
		md_inflight_end(d->e, d->pages);
	md_folio_memcg_drop(d->memcg);
}

/* Before 6.8 the return value says whether the kernel counted (compat.h). */
static int md_wb_started_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	md_hit(MD_P_WB_STARTED);
	md_wb_ret((void *)ri->data, MD_P_WB_STARTED,
		  !MD_WB_RET_SAYS_COUNTED || !md_ret_bool(regs), 1, MD_WB_STARTED);
	return 0;
}

static int md_wb_ended_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	md_hit(MD_P_WB_ENDED);
	md_wb_ret((void *)ri->data, MD_P_WB_ENDED,
		  !MD_WB_RET_SAYS_COUNTED || md_ret_bool(regs), -1, MD_WB_ENDED);
	return 0;
}

/* --- memcg lifecycle ----------------------------------------------------- */

static int md_kp_online(struct kprobe *p, struct pt_regs *regs)
{
	md_hit(MD_P_ONLINE);
	md_memcg_changed();
	return 0;
}

static int md_kp_offline(struct kprobe *p, struct pt_regs *regs)
{
	struct cgroup_subsys_state *css = md_arg(regs, 0);

	md_hit(MD_P_OFFLINE);
	md_note_offline(mem_cgroup_from_css(css));
	md_inject_memcg_offline(mem_cgroup_from_css(css));
	md_delay(MD_D_OFFLINE);	/* killed, its folios not yet repointed */
	md_memcg_changed();
	return 0;
}

/*
 * The release work of a css: at its entry the kernel has not yet unlinked
 * the css from its parent's children, and every css of every controller
 * comes through here.  Only where the kernel reparents (see md_carry()).
 */
static int md_kp_release(struct kprobe *p, struct pt_regs *regs)
{
	struct work_struct *work = md_arg(regs, 0);
	struct cgroup_subsys_state *css = container_of(work, struct cgroup_subsys_state,
						       destroy_work);

	if (!css->ss || css->ss->id != memory_cgrp_id)
		return 0;
	md_hit(MD_P_RELEASE);
	md_memcg_released(mem_cgroup_from_css(css));
	return 0;
}

static int md_kp_free(struct kprobe *p, struct pt_regs *regs)
{
	struct cgroup_subsys_state *css = md_arg(regs, 0);

	md_hit(MD_P_FREE);
	md_delay(MD_D_FREE);	/* the css's refcount is already gone */
	md_memcg_freed(mem_cgroup_from_css(css));
	return 0;
}

/* --- a removed memcg's counts given to its parent (7.1 on) --------------- */

struct md_reparent_data {
	u64 note;		/* its order, or 0 */
};

/*
 * reparent_memcg_lruvec_state_local(memcg, parent, idx), at the offlining
 * of a removed memcg: on each node, the kernel takes the child's local
 * count of idx from it and gives it to the parent.  No page changes state
 * and the ledger has no event for it; but where it moves NR_FILE_DIRTY
 * (hits count those calls) while the watch is armed, the note says which
 * child to which parent, and what the child's counter holds at entry on
 * each watched node, for the watch to hold the parent's change against
 * what the child gave up (md_notes_reparent_held()).  The offlining pins
 * both memcgs over the call.
 */
static int md_reparent_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_reparent_data *d = (void *)ri->data;

	d->note = 0;
	if ((int)(long)md_arg(regs, 2) != NR_FILE_DIRTY)
		return 0;
	md_hit(MD_P_REPARENT);
	d->note = md_note_reparent(md_arg(regs, 0), md_arg(regs, 1));
	return 0;
}

static int md_reparent_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_reparent_data *d = (void *)ri->data;

	md_note_retire(d->note);
	return 0;
}

/* --- interrupts off in the kprobes' handlers ------------------------------ */

/*
 * A kprobe at a function's entry (and a kretprobe's entry) runs from
 * ftrace, and a kretprobe's return from its trampoline, both with
 * interrupts on; while such a handler runs, every kprobe hit on its CPU is
 * counted missed instead (kprobe_running()).  An interrupt that ends
 * writeback there, a bio's folios at once, would lose as many wb_ended
 * hits: 1,024 in one go under make check's soak.  So our kprobes' handlers
 * run with interrupts off, and only the kprobe code's own few instructions
 * around them stay open (a kprobe of someone else's may still be there:
 * the writeback counter's misses have its ledgers based again).  Not with
 * fault injection: its delay points hold a handler open for seconds while
 * the other CPUs go on, and with interrupts off here they would stall on
 * their first IPI to this one (md_race_carry.sh saw no read in its window).
 */
/* Interrupts off for a handler, unless fault injection is on (above). */
static __always_inline bool md_handler_irqs_off(unsigned long *flags)
{
	if (static_branch_unlikely(&md_inject_key))
		return false;
	local_irq_save(*flags);
	return true;
}

#define MD_IRQS_OFF_KP(fn)						\
static int fn##_irqs_off(struct kprobe *p, struct pt_regs *regs)	\
{									\
	unsigned long flags = 0;					\
	bool off = md_handler_irqs_off(&flags);				\
	int ret = fn(p, regs);						\
									\
	if (off)							\
		local_irq_restore(flags);				\
	return ret;							\
}

#define MD_IRQS_OFF_KRP(fn)							\
static int fn##_irqs_off(struct kretprobe_instance *ri, struct pt_regs *regs)	\
{										\
	unsigned long flags = 0;						\
	bool off = md_handler_irqs_off(&flags);					\
	int ret = fn(ri, regs);							\
										\
	if (off)								\
		local_irq_restore(flags);					\
	return ret;								\
}

MD_IRQS_OFF_KP(md_kp_mark_dirty)
MD_IRQS_OFF_KP(md_kp_cleaned)
MD_IRQS_OFF_KP(md_kp_online)
MD_IRQS_OFF_KP(md_kp_offline)
MD_IRQS_OFF_KP(md_kp_release)
MD_IRQS_OFF_KP(md_kp_free)
MD_IRQS_OFF_KRP(md_clear_io_entry)
MD_IRQS_OFF_KRP(md_clear_io_ret)
MD_IRQS_OFF_KRP(md_migrate_entry)
MD_IRQS_OFF_KRP(md_migrate_ret)
MD_IRQS_OFF_KRP(md_move_entry)
MD_IRQS_OFF_KRP(md_move_ret)
MD_IRQS_OFF_KRP(md_reparent_entry)
MD_IRQS_OFF_KRP(md_reparent_ret)
MD_IRQS_OFF_KRP(md_wb_started_entry)
MD_IRQS_OFF_KRP(md_wb_ended_entry)
MD_IRQS_OFF_KRP(md_wb_started_ret)
MD_IRQS_OFF_KRP(md_wb_ended_ret)

/* --- each point's candidates ------------------------------------------- */

#define MD_KP(sym, fn)		{ .symbol = sym, .kind = MD_KPROBE, .pre = fn##_irqs_off }
#define MD_KRP(sym, e, r, t)	{ .symbol = sym, .kind = MD_KRETPROBE, .entry = e##_irqs_off, \
				  .ret = r##_irqs_off, .data_size = sizeof(t) }
#define MD_TP(name, fn)		{ .symbol = name, .kind = MD_TRACEPOINT, .tp_probe = fn }
#define MD_FT(sym, fn)		{ .symbol = sym, .kind = MD_FTRACE, .ftrace = fn }

static const struct md_variant md_v_dirtied[] = {
	MD_TP("writeback_dirty_folio", md_tp_dirtied),
	MD_KP("__folio_mark_dirty", md_kp_mark_dirty),
	{ }
};

static const struct md_variant md_v_cleaned_io[] = {
	MD_KRP("folio_clear_dirty_for_io", md_clear_io_entry, md_clear_io_ret,
	       struct md_clear_io_data),
	{ }
};

static const struct md_variant md_v_cancelled[] = {
	MD_FT("folio_account_cleaned", md_ft_cleaned),
	MD_KP("folio_account_cleaned", md_kp_cleaned),
	{ }
};

static const struct md_variant md_v_migrated[] = {
	/* 6.12: the static worker that both migration paths call */
	MD_KRP("__folio_migrate_mapping", md_migrate_entry, md_migrate_ret,
	       struct md_migrate_data),
	MD_KRP("folio_migrate_mapping", md_migrate_entry, md_migrate_ret,
	       struct md_migrate_data),
	{ }
};

static const struct md_variant md_v_moved[] = {
	/* cgroup v1 charge moving: absent without v1 ("absent:no_cgroup_v1") */
	MD_KRP("mem_cgroup_move_account", md_move_entry, md_move_ret,
	       struct md_move_data),
	{ }
};

static const struct md_variant md_v_online[] = {
	MD_KP("mem_cgroup_css_online", md_kp_online), { }
};

static const struct md_variant md_v_offline[] = {
	MD_KP("mem_cgroup_css_offline", md_kp_offline), { }
};

static const struct md_variant md_v_release[] = {
	MD_KP("css_release_work_fn", md_kp_release), { }
};

static const struct md_variant md_v_free[] = {
	MD_KP("mem_cgroup_css_free", md_kp_free), { }
};

static const struct md_variant md_v_reparent[] = {
	MD_KRP("reparent_memcg_lruvec_state_local", md_reparent_entry, md_reparent_ret,
	       struct md_reparent_data),
	{ }
};

static const struct md_variant md_v_wb_started[] = {
	MD_KRP("__folio_start_writeback", md_wb_started_entry, md_wb_started_ret,
	       struct md_wb_data),
	{ }
};

static const struct md_variant md_v_wb_ended[] = {
	MD_KRP("__folio_end_writeback", md_wb_ended_entry, md_wb_ended_ret,
	       struct md_wb_data),
	{ }
};

const struct md_candidates md_candidates[MD_NR_POINTS] = {
	[MD_P_DIRTIED]	  = { true, md_v_dirtied },
	[MD_P_CLEANED_IO] = { true, md_v_cleaned_io },
	[MD_P_CANCELLED]  = { true, md_v_cancelled },
	[MD_P_MIGRATED]	  = { true, md_v_migrated },
	[MD_P_MOVED]	  = { false, md_v_moved },
	[MD_P_ONLINE]	  = { false, md_v_online },
	[MD_P_OFFLINE]	  = { false, md_v_offline },
	/* without it a check may miss a memcg between its release and free */
	[MD_P_RELEASE]	  = { false, md_v_release },
	/* without it a freed memcg's address could alias a new one's entry */
	[MD_P_FREE]	  = { true, md_v_free },
	/* without it the watch cannot judge a reparenting of its counter */
	[MD_P_REPARENT]	  = { false, md_v_reparent },
	/* the writeback counter's ledger: without them it has none */
	[MD_P_WB_STARTED] = { true, md_v_wb_started },
	[MD_P_WB_ENDED]	  = { true, md_v_wb_ended },
};

/* A point's hits, over every CPU. */
unsigned long md_probes_hits(enum md_point p)
{
	unsigned long hits = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		hits += per_cpu(md_hits[p], cpu);
	return hits;
}
