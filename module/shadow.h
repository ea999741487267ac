/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-page shadow of the ledger's belief (track=1): one bit per page
 * frame, set while the ledger counts it dirty.
 */
#ifndef MEMCG_DIRTY_SHADOW_H
#define MEMCG_DIRTY_SHADOW_H

#include <linux/jump_label.h>
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

/*
 * On while the shadow exists: enabled once it is allocated, before the
 * probes are registered (so every folio they see dirtied sets its bits),
 * disabled after they are gone, before it is freed.  Without track=1 the
 * probes' hooks below are a patched-out branch.
 */
DECLARE_STATIC_KEY_FALSE(md_shadow_key);

int md_shadow_init(void);
void md_shadow_exit(void);
void md_shadow_stats(struct md_shadow_stats *st);
void __md_shadow_set(struct folio *folio);
bool md_shadow_clear(struct folio *folio);
void __md_shadow_move(struct folio *src, struct folio *dst);
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

static inline bool md_shadow_enabled(void)
{
	return static_branch_unlikely(&md_shadow_key);
}

/* The ledger counts @folio dirtied: set its bits. */
static inline void md_shadow_set(struct folio *folio)
{
	if (md_shadow_enabled())
		__md_shadow_set(folio);
}

/* A dirty folio migrated: its bits move from @src to @dst. */
static inline void md_shadow_move(struct folio *src, struct folio *dst)
{
	if (md_shadow_enabled())
		__md_shadow_move(src, dst);
}

#endif /* MEMCG_DIRTY_SHADOW_H */
