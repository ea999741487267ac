/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Units, in the ledger's layer: where the kernel reparents, what a
 * released memcg held is carried on to its parent's entry (md_carry()),
 * and a sum over several memcgs (a unit, a subtree) is read again when a
 * carry ran through it.  The one walk of such sums: md_unit_walk_*().
 */
#ifndef MEMCG_DIRTY_UNIT_H
#define MEMCG_DIRTY_UNIT_H

#include <linux/types.h>
#include "compat.h"

struct md_entry;
struct mem_cgroup;

long md_entry_carried_kernel(struct md_entry *e, enum md_counter c, int nid);
long md_entry_carried_ledger(struct md_entry *e, enum md_counter c, int nid);
void md_entry_carry_offset(struct md_entry *e, enum md_counter c, const long *pages);
unsigned int md_carry_begin(void);
bool md_carry_retry(unsigned int seq);
/*
 * How often a reader sums again because a carry ran through its sum: any
 * release anywhere moves the sequence, so under release churn a long sum
 * could retry for ever.  Past this many reads it gives up, and says so.
 */
#define MD_CARRY_TRIES	8

/* the ledger's own: under md_hash_lock, from ledger.c */
void md_carry(struct md_entry *e, struct mem_cgroup *memcg);

struct mem_cgroup *md_unit_member_next(struct mem_cgroup *root,
				       struct mem_cgroup *pos);

/* What a unit walk visits */
enum md_unit_span {
	MD_UNIT_MEMBERS,	/* the dying descendants in @root's unit, not @root */
	MD_UNIT_SUBTREE,	/* @root and every descendant */
};

/*
 * A sum over memcgs that a carry can run through, read again while one
 * did, at most MD_CARRY_TRIES times:
 *
 *	md_unit_walk_begin(&w, root, span);
 *	do {
 *		(zero the sums)
 *		rcu_read_lock();
 *		while ((pos = md_unit_walk_next(&w)))
 *			(add pos's values)
 *		rcu_read_unlock();
 *	} while (md_unit_walk_again(&w));
 *	settled = w.settled;
 *
 * An iterator, not a callback: no indirect call (scripts/ibt-check).
 */
struct md_unit_walk {
	struct mem_cgroup *root;
	struct mem_cgroup *pos;		/* the last one returned */
	enum md_unit_span span;
	unsigned int carry_seq;
	int tries;
	bool settled;			/* no carry ran through the last sum */
};

void md_unit_walk_begin(struct md_unit_walk *w, struct mem_cgroup *root,
			enum md_unit_span span);
struct mem_cgroup *md_unit_walk_next(struct md_unit_walk *w);
bool md_unit_walk_again(struct md_unit_walk *w);

#endif /* MEMCG_DIRTY_UNIT_H */
