/* SPDX-License-Identifier: GPL-2.0 */
/* The probe points on the kernel's dirty accounting: attach, detach, show. */
#ifndef MEMCG_DIRTY_PROBES_H
#define MEMCG_DIRTY_PROBES_H

#include <linux/types.h>
#include "points.h"

struct seq_file;
struct task_struct;

/*
 * A dirty-state change a probe saw begin, noted for the watch while it is
 * armed (md_probes_pair()): the task making it (its pid and start time
 * tell a reused task_struct), the memcg the folio is charged to (and a v1
 * charge move's destination, else 0), its pages.  Notes are ordered by
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
void md_probes_pair(bool on);
bool md_probes_change_of(struct task_struct *task, struct md_change_note *note);

#endif /* MEMCG_DIRTY_PROBES_H */
