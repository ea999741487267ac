/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection's hooks, free when it is off (a patched-out branch), and
 * its debugfs interface.  Included where the hooks are called (probes.c)
 * and where the file is served and printed (debugfs.c, show.c).
 */
#ifndef MEMCG_DIRTY_INJECT_H
#define MEMCG_DIRTY_INJECT_H

#include <linux/jump_label.h>
#include <linux/memcontrol.h>
#include <linux/types.h>
#include "faults.h"
#include "points.h"

struct mem_cgroup;

/* What debugfs "inject" lists first; then faults.c's md_faults_state. */
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
