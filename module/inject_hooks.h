/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection, its lower half: hooks that sit low enough for every
 * layer to call (delay points that hold a race window open on purpose,
 * entry creations that fail as if memory were short, the watch's deaf
 * breakpoints), the state they read, and the static key that patches out
 * every hook of both halves while fault injection is off.  The upper
 * half, inject.[ch], owns the debugfs "inject" commands that set this
 * state, its own hooks in the probe handlers (drops, misses, the 4.2
 * replay) and the skews of the kernel's counters, undone at unload.
 */
#ifndef MEMCG_DIRTY_INJECT_HOOKS_H
#define MEMCG_DIRTY_INJECT_HOOKS_H

#include <linux/jump_label.h>
#include <linux/limits.h>
#include <linux/types.h>

struct mem_cgroup;

/* Where a delay can be put, each inside the window it holds open. */
enum md_delay_point {
	MD_D_CHANGED,		/* between md_stopping's test and queue_work */
	MD_D_RECONCILE,		/* between the two halves of taking dead entries */
	MD_D_WORK,		/* the change work, before its pass begins */
	MD_D_RESYNC,		/* between a resync's scan and its bases */
	MD_D_CLEANED_IO,	/* cleaned_io's return handler, before it counts */
	MD_D_MOVED,		/* moved's return handler, before it counts */
	MD_D_SUM,		/* a check's ledger sum, after the first CPU's share */
	MD_D_LOAD,		/* load: between arming the probes and the entries */
	MD_D_UNLOAD,		/* unload: before undoing fault injection */
	MD_D_FREE,		/* memcg_free's probe, before the entry dies */
	MD_D_WATCH,		/* the watch's report, between a CPU's head and its records */
	MD_D_REMOVE,		/* the change work: dead entries taken, dirs not removed */
	MD_D_CARRY_READ,	/* a sum a carry can run through, after its sequence */
	MD_D_WATCH_ARM,		/* the watch arming a CPU, before its start value */
	MD_D_VIEWS,		/* a check, before it reads the views */
	MD_D_QUIET,		/* a check after its views: windows read, not the sequence */
	MD_D_LOAD_FILES,	/* load: the debugfs files made, no entry yet */
	MD_D_OFFLINE,		/* a memcg's offlining, before the kernel repoints its folios */
	MD_D_AUDIT_TOTALS,	/* an audit pass: its lines printed, its totals not added */
	MD_NR_DELAYS,
};

#define MD_DELAY_MAX_US	2000000

DECLARE_STATIC_KEY_FALSE(md_inject_key);

/* What is set, as debugfs "inject" lists it after inject.c's own. */
struct md_inject_hooks_state {
	struct {
		const char *name;
		unsigned long us;	/* the delay */
		long hits;		/* delays served */
	} delays[MD_NR_DELAYS];
	char fail_name[NAME_MAX + 1];	/* the memcg whose entries fail, or "" */
	long fail_left;			/* failures left to serve */
	int deaf_cpu;			/* or -1 */
};

void __md_delay(enum md_delay_point p);
bool __md_fail_entry(struct mem_cgroup *memcg);
int md_delay_set(const char *point, unsigned long usecs);
int md_fail_entry_set(const char *name, long n);
bool __md_watch_deaf(int cpu);
int md_watch_deaf_set(int cpu);
void md_inject_hooks_read(struct md_inject_hooks_state *st);

/* Spin (atomic points) or sleep (process context) for the set delay. */
static inline void md_delay(enum md_delay_point p)
{
	if (static_branch_unlikely(&md_inject_key))
		__md_delay(p);
}

/* True if creating @memcg's entry is to fail now. */
static inline bool md_fail_entry(struct mem_cgroup *memcg)
{
	return static_branch_unlikely(&md_inject_key) && __md_fail_entry(memcg);
}

/*
 * True if the watch's breakpoints on @cpu are to be installed deaf, as if
 * the host had taken the debug registers of the VM.
 */
static inline bool md_watch_deaf(int cpu)
{
	return static_branch_unlikely(&md_inject_key) && __md_watch_deaf(cpu);
}

#endif /* MEMCG_DIRTY_INJECT_HOOKS_H */
