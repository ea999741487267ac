/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe points attached: registration at load, unregistration, and
 * each point's status for the probes file, computed into a struct that
 * debugfs.c prints; whether verdicts can be trusted.
 */
#ifndef MEMCG_DIRTY_ATTACH_H
#define MEMCG_DIRTY_ATTACH_H

#include <linux/types.h>
#include "points.h"

/* What a point attached, or why not. */
enum md_attach_status {
	MD_ATTACHED,
	MD_UNUSED_NO_REPARENTING,	/* the kernel does not reparent */
	MD_ATTACH_ERROR,		/* the registration's error, printed after it */
	MD_ABSENT_NO_CGROUP_V1,		/* no candidate symbol: no cgroup v1 */
	MD_ABSENT,			/* no candidate symbol */
	MD_NR_ATTACH_STATUSES,
};

extern const char * const md_attach_status_names[MD_NR_ATTACH_STATUSES];

/* A point's line of the probes file. */
struct md_probe_status {
	const char *symbol;		/* the candidate attached, else the first */
	const char *kind;		/* kprobe, kretprobe or tracepoint */
	enum md_attach_status status;
	int err;			/* of MD_ATTACH_ERROR */
	unsigned long hits, missed;
};

int md_probes_register_free(void);
int md_probes_register_events(void);
void md_probes_unregister_events(void);
void md_probes_unregister(void);
void md_probes_status(enum md_point point, struct md_probe_status *s);
unsigned long md_probes_missed(void);
void md_probes_log_missed(void);
bool md_probes_blind(void);
unsigned int md_probes_untrusted(void);

#endif /* MEMCG_DIRTY_ATTACH_H */
