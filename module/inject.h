/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection, its upper half: the debugfs "inject" commands, the
 * probe handlers' hooks (drops, misses, the 4.2 replay) and the skews of
 * the kernel's counters, undone when a memcg goes offline and at unload.
 * The lower half, inject_hooks.[ch], has the hooks every layer may call
 * (delays, failing entries, deaf breakpoints), the state the commands set
 * for them, and the static key that both halves' hooks test.  Included
 * where the hooks are called (probes.c) and where the file is served and
 * printed (debugfs.c, show.c).
 */
#ifndef MEMCG_DIRTY_INJECT_H
#define MEMCG_DIRTY_INJECT_H

#include <linux/jump_label.h>
#include <linux/memcontrol.h>
#include <linux/types.h>
#include "inject_hooks.h"
#include "points.h"

struct mem_cgroup;

/* What debugfs "inject" lists first; then inject_hooks.c's md_inject_hooks_state. */
struct md_inject_state {
	bool replay42;
	long replayed_pages;
	int holding;			/* folios "hold" keeps locked */
	struct {
		int drop;		/* hits still to drop */
		long miss;		/* misses added to its count */
	} points[MD_NR_POINTS];
};

bool md_inject_enabled(void);
unsigned int md_inject_slot_shift(void);
void md_inject_init(void);
void md_inject_exit(void);
bool __md_inject_drop(enum md_point p, struct mem_cgroup *memcg);
void __md_inject_migrated(struct mem_cgroup *memcg, int nid, long pages);
void __md_inject_memcg_offline(struct mem_cgroup *memcg);
unsigned long md_inject_missed(enum md_point p);
int md_inject_command(char *cmd);
void md_inject_read(struct md_inject_state *st);

static inline bool md_inject_drop(enum md_point p, struct mem_cgroup *memcg)
{
	return static_branch_unlikely(&md_inject_key) && __md_inject_drop(p, memcg);
}

/* The same, reading @folio's memcg only when fault injection is on. */
static __always_inline bool md_inject_drop_folio(enum md_point p, struct folio *folio)
{
	return static_branch_unlikely(&md_inject_key) &&
	       __md_inject_drop(p, folio_memcg(folio));
}

static inline void md_inject_migrated(struct mem_cgroup *memcg, int nid,
				      long pages)
{
	if (static_branch_unlikely(&md_inject_key))
		__md_inject_migrated(memcg, nid, pages);
}

/* A memcg going offline: its skew is undone while its stats still flush. */
static inline void md_inject_memcg_offline(struct mem_cgroup *memcg)
{
	if (static_branch_unlikely(&md_inject_key))
		__md_inject_memcg_offline(memcg);
}

#endif /* MEMCG_DIRTY_INJECT_H */
