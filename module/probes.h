/* SPDX-License-Identifier: GPL-2.0 */
/* The probe points on the kernel's dirty accounting: attach, detach, show. */
#ifndef MEMCG_DIRTY_PROBES_H
#define MEMCG_DIRTY_PROBES_H

#include <linux/types.h>
#include "points.h"

struct seq_file;

int md_probes_register_free(void);
int md_probes_register_events(void);
void md_probes_unregister_events(void);
void md_probes_unregister(void);
void md_probes_show(struct seq_file *m);
unsigned long md_probes_missed(void);
void md_probes_log_missed(void);
bool md_probes_blind(void);
bool md_probes_untrusted(void);

#endif /* MEMCG_DIRTY_PROBES_H */
