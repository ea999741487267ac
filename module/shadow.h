/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-page shadow of the ledger's belief (track=1): one bit per page
 * frame, set while the ledger counts it dirty.
 */
#ifndef MEMCG_DIRTY_SHADOW_H
#define MEMCG_DIRTY_SHADOW_H

#include <linux/types.h>

struct address_space;
struct folio;

struct md_shadow_stats {
	unsigned long bytes;		/* the bitmap's size, 0 without track=1 */
	unsigned long suspects;		/* cleanings that found their bit clear */
	unsigned long reported;		/* of them, reported (no dirtier raced them) */
	unsigned long raced;		/* of them, a dirtier set the bit meanwhile */
	unsigned long dropped;		/* of them, no room to hold them */
};

/* A cleaning of a page whose bit was clear, to be reported after a grace period. */
struct md_shadow_suspect {
	unsigned long pfn;
	u64 cgid;
	int nid;
	const char *probe;
	dev_t dev;
	unsigned long ino;
	pgoff_t index;
	unsigned long gp;	/* get_state_synchronize_rcu() when queued */
	unsigned long queued;	/* jiffies */
	bool raced;		/* a dirtier set its bit since */
};

#define MD_SHADOW_LISTED	16

/* Folios a page scan found, as debugfs "folios" lists them. */
struct md_shadow_list {
	const char *name, *what;	/* for debugfs */
	unsigned int nr;		/* listed */
	unsigned long total;		/* found */
	struct md_shadow_suspect folios[MD_SHADOW_LISTED];
};

/* The scan's two lists: dirty and never counted, counted and never cleaned. */
enum md_shadow_listing { MD_SHADOW_UNCOUNTED, MD_SHADOW_UNCLEANED };

int md_shadow_init(void);
void md_shadow_exit(void);
bool md_shadow_enabled(void);
void md_shadow_stats(struct md_shadow_stats *st);
void md_shadow_set(struct folio *folio);
bool md_shadow_clear(struct folio *folio);
void md_shadow_move(struct folio *src, struct folio *dst);
bool md_shadow_test(struct folio *folio);
void md_shadow_range(unsigned long *start, unsigned long *end);
unsigned long md_shadow_next(unsigned long pfn, unsigned long end);
u64 md_uncounted_ns(void);
void md_shadow_suspect(struct folio *folio, struct address_space *mapping, u64 cgid,
		       const char *probe);
void md_shadow_scan_begin(void);
void md_shadow_scan_uncounted(struct folio *folio, u64 cgid);
void md_shadow_scan_uncleaned(struct folio *folio, u64 cgid);
void md_shadow_scan_settle(void);
bool md_shadow_list_read(enum md_shadow_listing which, struct md_shadow_list *copy);

#endif /* MEMCG_DIRTY_SHADOW_H */
