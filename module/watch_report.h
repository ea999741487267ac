/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch's records of its changes, a ring of them per CPU, and their
 * report: which code made each change (accounted, mismatched, outside,
 * unknown, reparented), counted, and the wrong ones reported on the console.
 */
#ifndef MEMCG_DIRTY_WATCH_REPORT_H
#define MEMCG_DIRTY_WATCH_REPORT_H

#include <linux/compiler.h>
#include <asm/barrier.h>
#include <linux/types.h>
#include "notes.h"

#define MD_WATCH_RECORDS	32	/* changes kept per CPU */
#define MD_WATCH_DEPTH		8	/* frames kept per change */

struct md_watch_record {
	unsigned int seq;		/* odd while being written */
	unsigned long index;		/* its CPU's head when written */
	int nid;
	long pages;
	u64 time_ns;
	bool paired;			/* the writer's state change is in note */
	/* of a paired note: why its folio may count in the watched memcg */
	enum md_reparent_race reparent_raced;
	struct md_change_note note;
	/* of a reparenting's note: what its child held at entry, and at the hit */
	bool judged;
	long child_held, child_now;
	unsigned int depth;
	unsigned long chain[MD_WATCH_DEPTH];	/* [0]: where the slot was written */
};

/* One CPU's changes: written by its debug exception only, read by anyone. */
struct md_watch_ring {
	unsigned long head;		/* records written */
	unsigned long sorted;		/* of them, sorted by the report */
	struct md_watch_record records[MD_WATCH_RECORDS];
};

/*
 * Where a change came from: the watch file's words.  Unknown: the chain
 * ends (the unwinder lost its way, or MD_WATCH_DEPTH) before any frame
 * past the stat functions, so nothing says where.  Reparented: a dead
 * cgroup's count given to its parent (md_watch_reparenting[]).
 */
enum md_watch_where {
	MD_W_ACCOUNTED, MD_W_MISMATCHED, MD_W_OUTSIDE, MD_W_UNKNOWN, MD_W_REPARENTED,
};

extern const char * const md_watch_where_names[];

/* What one arming saw, sorted. */
struct md_watch_tally {
	unsigned long changes, outside, mismatched, unpaired, lost, unknown, reparented,
		      killed;
};

/* The watched memcg and counter, as the report names them. */
struct md_watch_target {
	const char *path;
	u64 cgid;
	enum md_counter counter;
};

/*
 * The record @ring's next change goes to, its sequence made odd: the
 * writer fills it, then md_watch_ring_publish().  In the debug exception.
 */
static inline struct md_watch_record *md_watch_ring_claim(struct md_watch_ring *ring)
{
	struct md_watch_record *r = &ring->records[ring->head % MD_WATCH_RECORDS];

	WRITE_ONCE(r->seq, r->seq + 1);
	smp_wmb();		/* odd before the fields */
	r->index = ring->head;
	return r;
}

static inline void md_watch_ring_publish(struct md_watch_ring *ring,
					 struct md_watch_record *r)
{
	smp_wmb();		/* the fields before even */
	WRITE_ONCE(r->seq, r->seq + 1);
	WRITE_ONCE(ring->head, ring->head + 1);
}

bool md_watch_ring_read(const struct md_watch_ring *ring, unsigned long index,
			struct md_watch_record *copy);
enum md_watch_where md_watch_where(const struct md_watch_record *r,
				   const struct md_watch_target *target, unsigned int *site);
void md_watch_report_reset(void);
void md_watch_report_ring(struct md_watch_ring *ring,
			  const struct md_watch_target *target,
			  struct md_watch_tally *tally);

#endif /* MEMCG_DIRTY_WATCH_REPORT_H */
