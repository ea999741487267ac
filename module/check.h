/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdicts: the kernel's counter, the ledger and the page scan compared,
 * for one memcg or for all.  Computed into structs; debugfs.c and cgroups.c
 * print them.
 */
#ifndef MEMCG_DIRTY_CHECK_H
#define MEMCG_DIRTY_CHECK_H

#include <linux/bits.h>
#include <linux/types.h>
#include "compat.h"

struct md_entry;
struct mem_cgroup;

enum md_verdict {		/* in rising order of severity */
	MD_OK,
	MD_UNSYNCED,
	MD_UNTRUSTED,
	MD_MISMATCH,
	MD_UNDERFLOW,
	MD_NR_VERDICTS,
};

enum md_view { MD_VIEW_NONE, MD_VIEW_KERNEL, MD_VIEW_LEDGER, MD_VIEW_SCAN };

extern const char * const md_verdict_names[MD_NR_VERDICTS];
extern const char * const md_view_names[];

/* One counter's part of a check: its verdict, suspect and views. */
struct md_check_row {
	enum md_verdict verdict;
	enum md_view suspect;
	long kernel, ledger, scan;	/* pages, summed over nodes */
	long delta;
	bool negative;			/* a view below 0 on some node */
};

/*
 * A memcg's check.  Each counter (enum md_counter) is judged on its own,
 * from one scan; the fields below are those of the counter with the worst
 * verdict (@counter: the first such), which is the memcg's, and @rows has
 * every counter's.
 */
struct md_check {
	enum md_counter counter;
	struct md_check_row rows[MD_NR_COUNTERS];
	enum md_verdict verdict;
	enum md_view suspect;
	long kernel, ledger, scan;	/* pages, summed over nodes */
	long delta;			/* suspect - the other two (or kernel - ledger) */
	long bound;			/* pages kernel and ledger may differ by */
	long scan_busy;			/* scan is a lower bound by this much */
	bool quiescent;			/* strict comparison was possible */
	bool node_differs;
	int nid;			/* first node where the views differ */
	long node_kernel, node_ledger, node_scan;	/* the three on @nid */
	u64 scan_age_ms;
	bool negative;			/* a view of any counter below 0 on some node */
	/*
	 * unsynced, its kernel count found drifting from its pages
	 * (md_check_drifted()): the verdict holds kernel and scan alone,
	 * the node's figures are the resync's, and the ledger is unknown
	 */
	bool ledger_unknown;
	/* the cgroup id of the live memcg whose unit this dying one is in */
	u64 unit;
};

/* The global check: every memcg, and the kernel's counters among themselves. */
struct md_global_check {
	enum md_verdict worst;
	enum md_verdict row_worst[MD_NR_COUNTERS];	/* each counter's worst */
	long counts[MD_NR_VERDICTS];	/* memcgs per verdict */
	long kernel_global;		/* exact global NR_FILE_DIRTY */
	long kernel_sum;		/* sum of every memcg's local counter */
	bool sum_settled;		/* nothing moved while summing */
	/* memcgs (units where it reparents) with a kernel or ledger value < 0 */
	long negative;
};

/*
 * The kernel's rstat-flushed hierarchical counter (memory.stat's file_dirty)
 * is not checked: no kernel exports a flush to make it exact on demand, and
 * calling the unexported one through a looked-up pointer traps under IBT.
 */
#define MD_HIER_UNAVAILABLE	"no_exported_rstat_flush"

/* md_check_memcg()'s flags */
#define MD_CHECK_SCAN		BIT(0)	/* a page scan, unless the cached one will do */
/*
 * the counters (enum md_counter bits) a probe missed hits of: none of
 * their verdicts is trusted
 */
#define MD_CHECK_UNTRUSTED_SHIFT	8
#define MD_CHECK_UNTRUSTED(counters)	((counters) << MD_CHECK_UNTRUSTED_SHIFT)
#define MD_CHECK_UNLOGGED	BIT(2)	/* a new verdict is not logged (events) */

void md_check_memcg(struct md_entry *e, struct mem_cgroup *memcg,
		    struct md_check *c, unsigned int flags);

/* The cheap comparison of the audit: kernel against ledger, no scan. */
enum md_quick {
	MD_QUICK_AGREE,		/* within the bound */
	MD_QUICK_DIFFER,	/* apart by more than the bound */
	MD_QUICK_NONE,		/* nothing to compare: unsynced, or in a unit */
};

struct md_quick_check {
	enum md_quick result;
	enum md_counter counter;	/* the first that differs, else dirty */
	long kernel, ledger;	/* @counter's pages, summed over the unit and nodes */
	long bound;		/* every counter's: the unit's events are shared */
	struct {
		long kernel, ledger;
		long low;	/* the lowest value on a node, or 0 */
		long node_gap;	/* the widest kernel - ledger on a node */
	} rows[MD_NR_COUNTERS];
};

void md_check_quick(struct md_entry *e, struct mem_cgroup *memcg,
		    struct md_quick_check *q, unsigned int untrusted);
void md_check_global(struct md_global_check *g, unsigned int untrusted);
void md_check_ref_all(void);

#endif /* MEMCG_DIRTY_CHECK_H */
