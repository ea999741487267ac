// SPDX-License-Identifier: GPL-2.0
/*
 * Units, in the ledger's layer.  Where the kernel reparents, a released
 * memcg's values are carried on to its parent's entry (md_carry()), so a
 * sum over several entries is whole only if no carry ran through it: its
 * readers take md_carry_seq, and read again.  The one walk of those sums,
 * over a unit's members (check.c, scan.c) or a subtree (debugfs's _hier
 * values), is md_unit_walk_*().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include "compat.h"
#include "ledger.h"
#include "memcg.h"
#include "unit.h"

/*
 * Bumped around each md_carry(), which moves values from one entry to
 * another: a reader summing both could see them on neither or on both.
 */
static seqcount_raw_spinlock_t md_carry_seq =
	SEQCNT_RAW_SPINLOCK_ZERO(md_carry_seq, &md_hash_lock);

long md_entry_carried_kernel(struct md_entry *e, enum md_counter c, int nid)
{
	return atomic_long_read(&e->carried_kernel[md_cn(c, nid)]);
}

long md_entry_carried_ledger(struct md_entry *e, enum md_counter c, int nid)
{
	return atomic_long_read(&e->carried_ledger[md_cn(c, nid)]);
}

/*
 * Where the kernel reparents, a dying memcg's folios already count in its
 * parent's stats, and its own counters vanish when it is freed (the
 * kernel folds them into the parent's hierarchical stats only).  So what
 * @e holds, the kernel's and the ledger's values of @memcg and what was
 * carried into @e, goes on in its parent's entry, and leaves @e: the
 * views keep summing to the same.  The release moves it all, right
 * before the kernel unlinks @memcg from its parent's children (where the
 * checks find a unit's members); the free moves whatever came after,
 * from updates that were in flight (normally nothing).  An unsynced @e
 * has no starting point: its ledger holds its events only, so the parent's
 * is not whole either once it takes them, and goes unsynced (its next
 * resync bases it with them, unsynced_in says why); a parent without an
 * entry starts unsynced when it gets one.  Under md_hash_lock:
 * md_memcg_released(), md_memcg_freed().
 */
void md_carry(struct md_entry *e, struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);
	struct md_entry *pe = parent ? md_entry_lookup(parent) : NULL;
	enum md_counter c;
	long kernel, ledger;
	unsigned int i;
	int nid;

	lockdep_assert_held(&md_hash_lock);
	if (!pe) {
		if (parent)
			md_ledger_unsettle();
		return;
	}
	if (!READ_ONCE(e->synced) && READ_ONCE(pe->synced)) {
		atomic_inc(&pe->unsynced_in);
		md_entry_unsync_entry(pe);
	}
	/*
	 * An event of both: their views change with no probe's event, and a
	 * check that compares with a scan it did not make (summary) must see
	 * them moved
	 */
	atomic_long_inc(&e->carries);
	atomic_long_inc(&pe->carries);
	write_seqcount_begin(&md_carry_seq);
	for (c = 0; c < MD_NR_COUNTERS; c++) {
		for_each_node(nid) {
			i = md_cn(c, nid);
			kernel = md_kernel_node(memcg, c, nid) + md_entry_carried_kernel(e, c, nid);
			ledger = md_entry_ledger(e, c, nid) + md_entry_carried_ledger(e, c, nid);
			atomic_long_add(kernel, &pe->carried_kernel[i]);
			atomic_long_sub(kernel, &e->carried_kernel[i]);
			atomic_long_add(ledger, &pe->carried_ledger[i]);
			atomic_long_sub(ledger, &e->carried_ledger[i]);
		}
	}
	write_seqcount_end(&md_carry_seq);
}

/*
 * Add @pages (per node) to what @e carries of counter @c on the kernel's side: the
 * offset a resync finds in the kernel's counters (scan.c).  Readers of
 * carried values retry as for a carry.
 */
void md_entry_carry_offset(struct md_entry *e, enum md_counter c, const long *pages)
{
	unsigned long flags;
	int nid;

	raw_spin_lock_irqsave(&md_hash_lock, flags);
	write_seqcount_begin(&md_carry_seq);
	for_each_node(nid)
		atomic_long_add(pages[nid], &e->carried_kernel[md_cn(c, nid)]);
	write_seqcount_end(&md_carry_seq);
	raw_spin_unlock_irqrestore(&md_hash_lock, flags);
}

/* For readers that sum entries a carry moves between: retry if one ran. */
unsigned int md_carry_begin(void)
{
	return read_seqcount_begin(&md_carry_seq);
}

bool md_carry_retry(unsigned int seq)
{
	return read_seqcount_retry(&md_carry_seq, seq);
}

/*
 * The member of @root's unit after @pos (NULL: the first), or NULL: its
 * dying descendants whose nearest live ancestor it is, where the kernel
 * reparents (see check.c); elsewhere a unit has no members.  Under RCU.
 */
struct mem_cgroup *md_unit_member_next(struct mem_cgroup *root,
				       struct mem_cgroup *pos)
{
	if (!MD_KERNEL_REPARENTS)
		return NULL;
	while ((pos = md_memcg_next(pos, root)))
		if (pos != root && css_is_dying(&pos->css) && md_unit_root(pos) == root)
			return pos;
	return NULL;
}

/* Start a sum over @root's @span: the first pass of md_unit_walk_next(). */
void md_unit_walk_begin(struct md_unit_walk *w, struct mem_cgroup *root,
			enum md_unit_span span)
{
	w->root = root;
	w->pos = NULL;
	w->span = span;
	w->tries = 0;
	w->settled = false;
	w->carry_seq = md_carry_begin();
}

/* The next memcg of this pass, or NULL at its end.  Under RCU. */
struct mem_cgroup *md_unit_walk_next(struct md_unit_walk *w)
{
	if (w->span == MD_UNIT_SUBTREE)
		w->pos = md_memcg_next(w->pos, w->root);
	else
		w->pos = md_unit_member_next(w->root, w->pos);
	return w->pos;
}

/*
 * After a pass: true if a carry ran through it and the caller is to sum
 * again (another pass begins), false once the sum is whole
 * (w->settled) or the MD_CARRY_TRIES-th still had a carry run through
 * it (!w->settled).
 */
bool md_unit_walk_again(struct md_unit_walk *w)
{
	if (!md_carry_retry(w->carry_seq)) {
		w->settled = true;
		return false;
	}
	if (++w->tries >= MD_CARRY_TRIES)
		return false;
	cond_resched();
	w->pos = NULL;
	w->carry_seq = md_carry_begin();
	return true;
}
