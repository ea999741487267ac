// SPDX-License-Identifier: GPL-2.0
/*
 * The state change under way, for the watch.
 *
 * While the watch is armed, each probe that sees a folio's dirty state
 * begin to change notes which task makes the change, for which memcg and
 * how many pages.  Every such probe runs before the kernel moves the
 * counter (at an accounting function's entry, or the tracepoint before its
 * increment), so the watch's handler, trapping on the counter's write,
 * pairs the change with the note of the task that made it.
 *
 * A task makes one change at a time, and may sleep (folio_mkclean()) or be
 * preempted (PREEMPT_RT, preempt=full) and wake on another CPU before its
 * counter write: so the notes are kept by task, not by CPU, one note per
 * task, in a table hashed by the task; a task's new note replaces its
 * last.  The return handlers retire the note their entry made; a note
 * made before the current arming is ignored (md_note_floor), and so is
 * one of an exited task whose task_struct was reused (pid and start time).
 * A full bucket loses its oldest note, a short-lived one (dirtied,
 * cancelled: no sleep before their write) first: its task's change then
 * goes unpaired, never paired with another change's note.  Writers take
 * their bucket's raw lock with interrupts off; the watch's handler reads
 * without it (a debug exception, like an NMI): each note is published by
 * a sequence count, a torn read is no pairing.
 *
 * Writers run in probe handlers (atomic context: no sleeping, no
 * allocation); the hot-path tests are inline in notes.h.
 */
#include <linux/cpu.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include "compat.h"
#include "ledger.h"
#include "memcg.h"
#include "notes.h"

#define MD_NOTE_BITS	6		/* buckets */
#define MD_NOTE_WAYS	8		/* notes per bucket */

static struct md_note_bucket {
	raw_spinlock_t lock;
	struct md_change_note note[MD_NOTE_WAYS];
} md_notes[1 << MD_NOTE_BITS] = {
	[0 ... (1 << MD_NOTE_BITS) - 1] = {
		.lock = __RAW_SPIN_LOCK_UNLOCKED(md_notes.lock),
	},
};

static atomic64_t md_note_order;	/* the last note's order */
static u64 md_note_floor;		/* notes up to it predate the arming */
bool md_pairing;			/* armed: read inline by the handlers */
DEFINE_STATIC_KEY_FALSE(md_pairing_key);	/* on while md_pairing may be true */
static nodemask_t md_pair_nodes;	/* the watch's nodes, set before md_pairing */
static struct mem_cgroup *md_pair_watched;	/* the watch's memcg, likewise */
enum md_counter md_pair_counter;	/* the watch's counter, likewise */

/*
 * Pair for the watch of @watched's counter @c on @nodes from now on (@watched is held
 * while pairing, and a probe that read it is an RCU reader); NULL: no
 * more.  Sleeps, in
 * the CPU hotplug lock (the watch's arming and disarming hold it): the
 * key is flipped with the _cpuslocked calls.  On before md_pairing is set,
 * off after it is cleared, so md_pairing decides exactly as it did
 * without the key; static_branch_enable() returns once every CPU runs the
 * patched code, before the watch arms its breakpoints.
 */
void md_notes_pair(struct mem_cgroup *watched, const nodemask_t *nodes, enum md_counter c)
{
	if (!watched) {
		WRITE_ONCE(md_pairing, false);
		static_branch_disable_cpuslocked(&md_pairing_key);
		WRITE_ONCE(md_pair_watched, NULL);
		return;
	}
	static_branch_enable_cpuslocked(&md_pairing_key);
	md_pair_nodes = *nodes;
	WRITE_ONCE(md_pair_counter, c);
	WRITE_ONCE(md_pair_watched, watched);
	WRITE_ONCE(md_note_floor, atomic64_read(&md_note_order));
	/* the nodes before pairing: md_note_reparent() */
	smp_store_release(&md_pairing, true);
}

static struct md_note_bucket *md_note_bucket(struct task_struct *task)
{
	return &md_notes[hash_ptr(task, MD_NOTE_BITS)];
}

/* Which note of a full bucket to give up: the lower, the sooner. */
static u64 md_note_keep(const struct md_change_note *n)
{
	if (!n->live)
		return 0;
	if (n->point == MD_P_DIRTIED || n->point == MD_P_CANCELLED)
		return n->order;
	return n->order + (1ULL << 62);
}

/*
 * Where the kernel reparents, it may count a folio's change in an
 * ancestor of the memcg its probe read just before (a note of a child, the
 * watched parent's counter moving): from the moment a memcg is killed
 * (rmdir, CSS_DYING), the kernel counts its folios' changes in its nearest
 * live ancestor (7.3: get_non_dying_memcg_start()), and its offlining,
 * later, repoints the folios to the parent.  That is right only if the
 * note's memcg is a descendant of the watched one and was dying when
 * noted, or its own offlining began since, or it was killed since
 * (md_notes_reparent_raced()).  The memcg is alive (an RCU reader's).
 */
static void md_note_fill_reparent(struct md_change_note *n, struct mem_cgroup *memcg)
{
	struct mem_cgroup *watched = READ_ONCE(md_pair_watched);

	n->under_watched = MD_KERNEL_REPARENTS && memcg && watched && memcg != watched &&
			   mem_cgroup_is_descendant(memcg, watched);
	n->dying = n->under_watched && css_is_dying(&memcg->css);
}

/*
 * @n's fields, published by its sequence count; bucket locked, irqs off.
 * @held: a reparenting's, else NULL.
 */
static void md_note_fill(struct md_change_note *n, struct task_struct *task, u64 order,
			 enum md_point point, struct mem_cgroup *memcg,
			 struct mem_cgroup *memcg2, long pages,
			 const struct md_note_held *held)
{
	WRITE_ONCE(n->seq, n->seq + 1);
	smp_wmb();		/* odd before the fields */
	n->task = task;
	n->pid = task->pid;
	n->start_time = task->start_time;
	n->order = order;
	n->live = true;
	n->point = point;
	n->cgid = memcg ? cgroup_id(memcg->css.cgroup) : 0;
	n->cgid2 = memcg2 ? cgroup_id(memcg2->css.cgroup) : 0;
	n->pages = pages;
	md_note_fill_reparent(n, memcg);
	if (held)
		n->held = *held;
	else
		n->held.nr = 0;
	smp_wmb();		/* the fields before even */
	WRITE_ONCE(n->seq, n->seq + 1);
}

/* Note the change current begins; returns its order, for md_note_retire(). */
u64 md_note_write(enum md_point point, struct mem_cgroup *memcg,
		  struct mem_cgroup *memcg2, long pages,
		  const struct md_note_held *held)
{
	struct md_note_bucket *b = md_note_bucket(current);
	struct md_change_note *n, *use = NULL;
	unsigned long flags;
	u64 order;

	raw_spin_lock_irqsave(&b->lock, flags);
	order = atomic64_inc_return(&md_note_order);
	for (n = b->note; n < b->note + MD_NOTE_WAYS; n++) {
		if (n->task == current) {
			use = n;
			break;
		}
		if (!use || md_note_keep(n) < md_note_keep(use))
			use = n;
	}
	md_note_fill(use, current, order, point, memcg, memcg2, pages, held);
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return order;
}

/* md_note_retire()'s, of a note made (@order not 0). */
void __md_note_retire(u64 order)
{
	struct md_note_bucket *b = md_note_bucket(current);
	struct md_change_note *n;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	for (n = b->note; n < b->note + MD_NOTE_WAYS; n++) {
		if (n->task != current || n->order != order)
			continue;
		WRITE_ONCE(n->seq, n->seq + 1);
		smp_wmb();	/* odd before the field */
		n->live = false;
		smp_wmb();	/* the field before even */
		WRITE_ONCE(n->seq, n->seq + 1);
		break;
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/*
 * The probe on @memcg's offlining, at its entry: before the kernel
 * repoints its folios, its entry says so, for md_notes_reparent_raced().
 */
void md_note_offline(struct mem_cgroup *memcg)
{
	struct md_entry *e = md_entry_lookup(memcg);

	if (e)
		WRITE_ONCE(e->offlining, true);
	smp_mb();		/* before the kernel repoints any folio */
}

/* md_note_reparent()'s, once the watch is armed. */
u64 __md_note_reparent(struct mem_cgroup *child, struct mem_cgroup *parent)
{
	struct md_note_held held = { .child = child };
	int nid;

	for_each_node_mask(nid, md_pair_nodes) {
		if (held.nr == MD_NOTE_NODES)
			break;
		held.nid[held.nr] = nid;
		held.pages[held.nr++] = md_kernel_node(child, md_pair_counter, nid);
	}
	return md_note_write(MD_P_REPARENT, child, parent, 0, &held);
}

/* @n, into @note, if it is @task's live note of this arming, read whole. */
static bool md_note_read(const struct md_change_note *n, struct task_struct *task,
			 struct md_change_note *note)
{
	unsigned int seq = READ_ONCE(n->seq);

	if (seq & 1 || READ_ONCE(n->task) != task)
		return false;
	smp_rmb();		/* the sequence before the fields: md_note_fill() */
	*note = *n;
	smp_rmb();		/* the fields before the sequence again */
	return READ_ONCE(n->seq) == seq && note->task == task && note->live &&
	       note->pid == task->pid && note->start_time == task->start_time &&
	       note->order > READ_ONCE(md_note_floor);
}

/*
 * The state change @task began under a probe and has not finished, if its
 * note is there.  Any context, the watch's debug exception included.
 */
bool md_notes_change_of(struct task_struct *task, struct md_change_note *note)
{
	struct md_note_bucket *b = md_note_bucket(task);
	const struct md_change_note *n;

	for (n = b->note; n < b->note + MD_NOTE_WAYS; n++)
		if (md_note_read(n, task, note))
			return true;
	return false;
}

/*
 * Of a reparenting's @note, read by the note's own task (the watch's
 * handler, trapping on the parent's counter): in *@held what the child's
 * counter held on @nid at the call's entry, in *@now what it holds now.
 * False if @note is no reparenting's, or kept nothing of @nid.
 */
bool md_notes_reparent_held(const struct md_change_note *note, int nid, long *held,
			    long *now)
{
	unsigned int i;

	if (note->point != MD_P_REPARENT)
		return false;
	for (i = 0; i < min_t(unsigned int, note->held.nr, MD_NOTE_NODES); i++) {
		if (note->held.nid[i] != nid)
			continue;
		*held = note->held.pages[i];
		*now = md_kernel_node(note->held.child, md_pair_counter, nid);
		return true;
	}
	return false;
}

/*
 * What became of the memcg of cgroup id @cgid, a live descendant of the
 * watched one when noted: its offlining began (its entry says so), or it
 * is no longer in the watched one's subtree (released, so offlined long
 * before); or it was killed, dying now and not offlined (a kill of an
 * ancestor kills it too); or nothing.  Its own, not any memcg's: an
 * offlining elsewhere excuses nothing.  The subtree is walked under RCU
 * (the watch's debug exception included; the watched memcg is held while
 * pairing): only for a change that the kernel counted in the watched memcg
 * for a live descendant's note, which a kill makes right, so rare.
 */
static enum md_reparent_race md_notes_fate(u64 cgid)
{
	struct mem_cgroup *watched = READ_ONCE(md_pair_watched), *pos = NULL;
	enum md_reparent_race fate = MD_RACE_OFFLINED;
	struct md_entry *e;

	if (!watched)
		return MD_RACE_NONE;
	smp_rmb();		/* the folio's memcg, read before: md_note_offline() */
	rcu_read_lock();
	while ((pos = md_memcg_next(pos, watched))) {
		if (cgroup_id(pos->css.cgroup) != cgid)
			continue;
		e = md_entry_lookup(pos);
		if (e && READ_ONCE(e->offlining))
			fate = MD_RACE_OFFLINED;
		else
			fate = css_is_dying(&pos->css) ? MD_RACE_KILLED : MD_RACE_NONE;
		break;
	}
	rcu_read_unlock();
	return fate;
}

/*
 * Whether the change @note's task is making may have been counted, rightly,
 * in an ancestor of the note's memcg, the watched one, and why: the memcg
 * was dying when noted, or reparented or killed since
 * (md_note_fill_reparent()).  Any context, the watch's debug exception
 * included, after the kernel's counter write: which it read the folio's
 * memcg and its dying state for after any kill or offlining that moved it.
 */
enum md_reparent_race md_notes_reparent_raced(const struct md_change_note *note)
{
	if (!note->under_watched)
		return MD_RACE_NONE;
	if (note->dying)
		return MD_RACE_DYING;
	return md_notes_fate(note->cgid);
}
