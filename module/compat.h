/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel versions differ.  Probe handlers see folios
 * through these helpers; which kernel functions are probed is decided at
 * load time from symbol availability (probes.c lists the candidates).
 */
#ifndef MEMCG_DIRTY_COMPAT_H
#define MEMCG_DIRTY_COMPAT_H

#include <linux/mm.h>
#include <linux/backing-dev.h>
#include <linux/memcontrol.h>
#include <linux/pagemap.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "memcg_dirty needs the folio-based dirty accounting of Linux 6.1 or later"
#endif

/* A file folio counts as dirty-accounted only on a mapping that writes back. */
static inline bool md_mapping_accounts_dirty(struct address_space *mapping)
{
	return mapping && mapping_can_writeback(mapping);
}

static inline struct mem_cgroup *md_folio_memcg(struct folio *folio)
{
	return folio_memcg(folio);
}

static inline long md_folio_pages(struct folio *folio)
{
	return folio_nr_pages(folio);
}

static inline int md_folio_nid(struct folio *folio)
{
	return folio_nid(folio);
}

/*
 * Whether a pfn is online, and has a valid memmap, is decided per memory
 * subsection (SPARSEMEM) or for the whole node (FLATMEM): the scan looks
 * it up once per run of this many pfns.
 */
#ifdef PAGES_PER_SUBSECTION
#define MD_PFN_RUN	PAGES_PER_SUBSECTION
#else
#define MD_PFN_RUN	1UL
#endif

#endif /* MEMCG_DIRTY_COMPAT_H */
