/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The anomaly log behind debugfs "events": what went wrong, when, where.
 * Below everything but compat: probe handlers and checks both log.
 */
#ifndef MEMCG_DIRTY_ANOMALY_H
#define MEMCG_DIRTY_ANOMALY_H

#include <linux/types.h>
#include "compat.h"

#define MD_EVENTS_MAX	256

enum md_anomaly_kind {
	MD_A_LEDGER_UNDERFLOW,
	MD_A_KERNEL_NEGATIVE,
	MD_A_DIRTIED_UNCHARGED,
	MD_A_PROBE_MISSED,
	MD_A_MISMATCH,
	MD_A_CLEANED_UNCOUNTED,
	MD_NR_ANOMALIES,
};

extern const char * const md_anomaly_names[MD_NR_ANOMALIES];

struct md_anomaly {
	u64 ns;
	u64 cgid;
	int nid;
	enum md_anomaly_kind kind;
	const char *probe;
	unsigned long pfn;
	long kernel, ledger, scan;
	unsigned long missed;
	enum md_counter counter;	/* whose kernel, ledger and scan above */
};

/* A copy of the log: anomaly i at ring[i % MD_EVENTS_MAX], the last ones below next. */
struct md_anomaly_log {
	unsigned long next;		/* total ever added */
	struct md_anomaly ring[MD_EVENTS_MAX];
};

void md_events_init(void);
void md_anomaly_of(enum md_anomaly_kind kind, enum md_counter c, u64 cgid, int nid,
		   const char *probe, unsigned long pfn, long kernel, long ledger,
		   long scan, unsigned long missed);
void md_anomaly_record(enum md_anomaly_kind kind, enum md_counter c, u64 cgid, int nid,
		       const char *probe, unsigned long pfn, long kernel, long ledger,
		       long scan, unsigned long missed);

/* An anomaly of the dirty counter, or of none (a probe's). */
static inline void md_anomaly(enum md_anomaly_kind kind, u64 cgid, int nid, const char *probe,
			      unsigned long pfn, long kernel, long ledger, long scan,
			      unsigned long missed)
{
	md_anomaly_of(kind, MD_C_DIRTY, cgid, nid, probe, pfn, kernel, ledger, scan, missed);
}

unsigned long md_anomaly_count(void);
void md_anomaly_log_read(struct md_anomaly_log *log);
bool md_anomaly_cgroup_path(u64 cgid, char *buf);

#endif /* MEMCG_DIRTY_ANOMALY_H */
