/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page scan, the third view of the count, and the resync of ledger
 * entries whose starting point is unknown, which needs a scan.
 */
#ifndef MEMCG_DIRTY_SCAN_H
#define MEMCG_DIRTY_SCAN_H

#include <linux/types.h>

struct md_entry;

/* The last page scan, system-wide figures (md_mutex). */
struct md_scan_info {
	u64 count;			/* scans so far */
	u64 when_ns;			/* ktime_get_ns() at the end */
	u64 duration_ns;
	long dirty;			/* dirty accounted pages seen */
	long busy;			/* dirty folios locked by someone: skipped */
	long uncharged;			/* dirty pages charged to no memcg */
	long unattributed;		/* memcg had no entry and the pool was empty */
	long untagged;			/* dirty, not counted yet by the kernel: skipped */
	long never_counted;		/* of them, so for uncounted_ms */
};

extern struct md_scan_info md_last_scan;

void md_scan(void);
u64 md_scan_domains(void);
u64 md_scan_age_ms(void);
void md_scan_ref(struct md_entry *e, long seq);

#endif /* MEMCG_DIRTY_SCAN_H */
