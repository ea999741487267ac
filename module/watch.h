/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch ("watch CGROUP [COUNTER]" in control): which code moves one
 * memcg's NR_FILE_DIRTY (or NR_WRITEBACK), caught by hardware data
 * watchpoints on its counter.
 */
#ifndef MEMCG_DIRTY_WATCH_H
#define MEMCG_DIRTY_WATCH_H

#include <linux/nodemask.h>
#include <linux/types.h>
#include "watch_report.h"

struct cpumask;

/*
 * What the watch file's first line says, filled by md_watch_read_begin();
 * the pointers hold until md_watch_read_end().
 */
struct md_watch_state {
	const char *path;
	u64 cgid;
	enum md_counter counter;
	const nodemask_t *nodes;	/* watched */
	const struct cpumask *cpus;	/* armed */
	unsigned int breakpoints;	/* armed, over all CPUs */
	bool by_audit;
	unsigned int limit_s;		/* 0, or it stops after this long */
	long stops_in_s;		/* if limit_s: what is left of it */
	struct md_watch_tally tally;
};

/* One recorded change, from the frame that made it (its site) on. */
struct md_watch_change {
	int cpu;
	u64 time_ns;
	int nid;
	long pages;
	enum md_watch_where where;
	unsigned int nr_frames;
	unsigned long frames[MD_WATCH_DEPTH];
};

/* Where md_watch_read_change() is in the rings: its CPU, record and head. */
struct md_watch_cursor {
	int cpu;
	unsigned long index, head;
};

int md_watch_start(const char *path, enum md_counter c, bool replace);
int md_watch_start_audit(const char *path, enum md_counter c, int nid, unsigned int limit_s);
void md_watch_stop(void);
void md_watch_path_get(char *buf, size_t size);
void md_watch_init(void);
void md_watch_exit(void);
bool md_watch_read_begin(struct md_watch_state *st, struct md_watch_cursor *cur);
bool md_watch_read_change(struct md_watch_cursor *cur, struct md_watch_change *c);
void md_watch_read_end(void);

#endif /* MEMCG_DIRTY_WATCH_H */
