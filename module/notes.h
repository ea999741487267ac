/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state change under way, for the watch: the probe handlers note each
 * dirty-state change as it begins (the write side, inline below so that an
 * unarmed watch costs a handler a patched-out branch), the watch's handler
 * reads the note of the task whose counter write it trapped.
 */
#ifndef MEMCG_DIRTY_NOTES_H
#define MEMCG_DIRTY_NOTES_H

#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/types.h>
#include "points.h"

struct task_struct;

#define MD_NOTE_NODES	4	/* nodes a reparenting's note keeps: the watch's */

/*
 * A reparenting's note (MD_P_REPARENT) also keeps the child whose counts
 * go to its parent and, for each node the watch watches, what the child's
 * counter held at the call's entry: the watch's handler tells from it
 * whether the child gave up what its parent was given.  @child is alive
 * while the note is live, and only the note's own task may read it.
 */
struct md_note_held {
	struct mem_cgroup *child;
	unsigned int nr;
	int nid[MD_NOTE_NODES];
	long pages[MD_NOTE_NODES];
};

/*
 * A dirty-state change a probe saw begin, noted for the watch while it is
 * armed (md_notes_pair()): the task making it (its pid and start time
 * tell a reused task_struct), the memcg the folio is charged to (and a v1
 * charge move's destination, else 0), its pages; of a reparenting, the
 * child and its parent, and what the child held.  Notes are ordered by
 * @order, global; a retired one (!@live) is of a change done.
 */
struct md_change_note {
	unsigned int seq;		/* odd while written */
	bool live;
	struct task_struct *task;
	pid_t pid;
	u64 start_time;
	u64 order;
	enum md_point point;
	u64 cgid, cgid2;
	long pages;
	struct md_note_held held;	/* a reparenting's, else nr 0 */
	/*
	 * Where the kernel reparents: whether the memcg is a descendant of
	 * the watched one, and dying when noted (md_notes_reparent_raced()).
	 */
	bool under_watched, dying;
};

/* The watch's side. */
void md_notes_pair(struct mem_cgroup *watched, const nodemask_t *nodes, enum md_counter c);
bool md_notes_change_of(struct task_struct *task, struct md_change_note *note);
bool md_notes_reparent_held(const struct md_change_note *note, int nid, long *held,
			    long *now);
/* Why a change of a descendant's folio may count in the watched memcg. */
enum md_reparent_race {
	MD_RACE_NONE,		/* it may not */
	MD_RACE_DYING,		/* the descendant was dying when noted */
	MD_RACE_OFFLINED,	/* its offlining began since the note */
	MD_RACE_KILLED,		/* the descendant was killed since, not offlined */
};

enum md_reparent_race md_notes_reparent_raced(const struct md_change_note *note);

/*
 * The handlers' side: called from the probe handlers only.  md_pairing
 * says whether notes are wanted (the watch is armed); md_pairing_key gates
 * its load, so that an unarmed watch costs the handlers a patched-out
 * branch.  The key is on whenever md_pairing is true: enabled before it is
 * set, disabled after it is cleared (md_notes_pair()).
 */
extern bool md_pairing;
extern enum md_counter md_pair_counter;
DECLARE_STATIC_KEY_FALSE(md_pairing_key);

static __always_inline bool md_notes_wanted(void)
{
	return static_branch_unlikely(&md_pairing_key) && READ_ONCE(md_pairing);
}

/*
 * Whether notes of counter @c's changes alone are wanted: the watch
 * follows @c.  For the points that change no other counter and may run
 * in an interrupt (a writeback end), whose note would replace the
 * interrupted task's note of its own change, in vain unless @c is watched.
 */
static __always_inline bool md_notes_wanted_for(enum md_counter c)
{
	return md_notes_wanted() && READ_ONCE(md_pair_counter) == c;
}

u64 md_note_write(enum md_point point, struct mem_cgroup *memcg,
		  struct mem_cgroup *memcg2, long pages,
		  const struct md_note_held *held);
void __md_note_retire(u64 order);
void md_note_offline(struct mem_cgroup *memcg);
u64 __md_note_reparent(struct mem_cgroup *child, struct mem_cgroup *parent);

/*
 * The watch unarmed costs a probe a patched-out branch: what a note needs
 * is read from the folio (flags are volatile reads, which the compiler
 * cannot sink into the branch) only once that is taken.  Both return the
 * note's order (0: none made).
 */
static __always_inline u64 md_note_change(enum md_point point, struct mem_cgroup *memcg,
					  struct mem_cgroup *memcg2, long pages)
{
	if (md_notes_wanted())
		return md_note_write(point, memcg, memcg2, pages, NULL);
	return 0;
}

static __always_inline void md_note_folio(enum md_point point, struct folio *folio)
{
	if (md_notes_wanted())
		md_note_write(point, folio_memcg(folio), NULL, folio_nr_pages(folio), NULL);
}

/*
 * The change whose note was @order is done (its return handler runs): the
 * note pairs no later write.  0: no note was made.
 */
static inline void md_note_retire(u64 order)
{
	if (order)
		__md_note_retire(order);
}

/*
 * Note @child's counts going to @parent, with what the child's counter
 * holds on the watch's nodes; its order (0: none made).
 */
static inline u64 md_note_reparent(struct mem_cgroup *child, struct mem_cgroup *parent)
{
	/* the nodes after pairing: md_notes_pair() */
	if (!static_branch_unlikely(&md_pairing_key) || !smp_load_acquire(&md_pairing))
		return 0;
	return __md_note_reparent(child, parent);
}

#endif /* MEMCG_DIRTY_NOTES_H */
