/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe points attached: registration at load, unregistration, each
 * point's status (the probes file); whether verdicts can be trusted.
 */
#ifndef MEMCG_DIRTY_ATTACH_H
#define MEMCG_DIRTY_ATTACH_H

#include <linux/types.h>

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

#endif /* MEMCG_DIRTY_ATTACH_H */
