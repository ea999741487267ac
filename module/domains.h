/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writeback domains' counts (WB_RECLAIMABLE, WB_WRITEBACK of each
 * bdi_writeback) against the pages the page scan attributes to them.
 */
#ifndef MEMCG_DIRTY_DOMAINS_H
#define MEMCG_DIRTY_DOMAINS_H

#include <linux/types.h>

struct address_space;
struct folio;
struct seq_file;

enum md_domain_item {
	MD_D_RECLAIMABLE,	/* WB_RECLAIMABLE: dirty pages the kernel counted */
	MD_D_WRITEBACK,		/* WB_WRITEBACK: pages under writeback */
	MD_NR_DOMAIN_ITEMS,
};

enum md_domain_verdict {	/* in rising order of severity */
	MD_D_OK,
	MD_D_BUSY,		/* its count or pages moved while the scan ran: not judged */
	MD_D_MISMATCH,
	MD_D_UNDERFLOW,
	MD_NR_DOMAIN_VERDICTS,
};

extern const char * const md_domain_item_names[MD_NR_DOMAIN_ITEMS];
extern const char * const md_domain_verdict_names[MD_NR_DOMAIN_VERDICTS];

int md_domains_init(void);
void md_domains_exit(void);

/* scan.c's, under md_mutex: around and inside each page scan */
void md_domains_scan_begin(void);
void md_domains_scan_folio(struct folio *folio, struct address_space *mapping, long nr);
void md_domains_scan_busy(long nr);
void md_domains_scan_end(void);

/* under md_mutex: the last scan's view */
enum md_domain_verdict md_domains_worst(void);
bool md_domains_judged(void);
void md_domains_unjudge(void);
void md_domains_show(struct seq_file *m);

/* the audit's part (audit.c decides when to scan) */
bool md_domains_pending(void);
unsigned int md_domains_report(bool warn);

#endif /* MEMCG_DIRTY_DOMAINS_H */
