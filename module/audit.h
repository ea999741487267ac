/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The continuous audit (module parameter audit_ms): every memcg checked
 * each period, bad verdicts reported on the console.  Its state, for debugfs.
 */
#ifndef MEMCG_DIRTY_AUDIT_H
#define MEMCG_DIRTY_AUDIT_H

#include <linux/types.h>

/* Totals since load; the last pass's figures. */
struct md_audit_stats {
	unsigned long audits;		/* passes run */
	u64 last_ns;			/* duration of the last pass */
	u64 last_wait_ns;		/* of it, waiting for an RCU grace period */
	unsigned long last_memcgs;	/* memcgs compared in the last pass */
	unsigned long differed;		/* comparisons beyond the bound */
	unsigned long escalations;	/* page scans and full verdicts */
	unsigned long bad_verdicts;	/* mismatch or underflow found twice in a row */
	unsigned long unconfirmed;	/* found once, not by the next escalation */
	unsigned long printed;		/* console lines printed */
	unsigned long printed_audit;	/* the pass (1 = first) of the last line */
	unsigned long suppressed;	/* lines held back by the ratelimit */
	unsigned long warned;		/* WARNs raised (audit_warn) */
	unsigned long watches;		/* watches armed (audit_watch) */
	unsigned long last_unsynced;	/* memcgs unsynced in the last pass */
	unsigned long unsynced_long;	/* memcgs reported unsynced for audit_unsynced_s */
	unsigned long domain_scans;	/* scans for the writeback domains */
	unsigned long domain_bad;	/* domains found bad twice (in bad_verdicts too) */
	bool untrusted_printed;
};

void md_audit_start(void);
void md_audit_stop(void);
unsigned int md_audit_period_ms(void);
bool md_audit_warns(void);
bool md_audit_arms_watch(void);
unsigned int md_audit_unsynced_s(void);
void md_audit_read_stats(struct md_audit_stats *st);
u64 md_audit_scan_domains(void);

#endif /* MEMCG_DIRTY_AUDIT_H */
