/* SPDX-License-Identifier: GPL-2.0 */
/* The probe points on the kernel's dirty accounting: attach, detach, show. */
#ifndef MEMCG_DIRTY_PROBES_H
#define MEMCG_DIRTY_PROBES_H

#include <linux/nodemask.h>
#include <linux/types.h>
#include "points.h"

struct mem_cgroup;
struct seq_file;
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
 * armed (md_probes_pair()): the task making it (its pid and start time
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
};

int md_probes_register_free(void);
int md_probes_register_events(void);
void md_probes_unregister_events(void);
void md_probes_unregister(void);
void md_probes_show(struct seq_file *m);
unsigned long md_probes_missed(void);
void md_probes_log_missed(void);
bool md_probes_blind(void);
bool md_probes_untrusted(void);
void md_probes_pair(const nodemask_t *nodes);
bool md_probes_change_of(struct task_struct *task, struct md_change_note *note);
bool md_probes_reparent_held(const struct md_change_note *note, int nid, long *held,
			     long *now);

#endif /* MEMCG_DIRTY_PROBES_H */
