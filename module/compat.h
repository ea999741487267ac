/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel versions differ: every LINUX_VERSION_CODE test
 * of the module is here or in compat.c.  Which kernel functions are probed
 * is decided at load time from symbol availability (probes.c lists the
 * candidates), not here.
 */
#ifndef MEMCG_DIRTY_COMPAT_H
#define MEMCG_DIRTY_COMPAT_H

#include <linux/mm.h>
#include <linux/backing-dev.h>
#include <linux/ftrace.h>
#include <linux/memcontrol.h>
#include <linux/pagemap.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "memcg_dirty needs the folio-based dirty accounting of Linux 6.1 or later"
#endif

/*
 * A file folio counts as dirty-accounted only on a mapping that writes back:
 * mapping_can_writeback(), whose inode_to_bdi() is out of line (mm/
 * backing-dev.c, the same from 6.1 to 7.3).  Its common case inline: an
 * inode of a file system's own; a block device's inode (its bdi is the
 * disk's) and a mapping without a host go through the kernel's.
 */
static inline bool md_mapping_accounts_dirty(struct address_space *mapping)
{
	struct inode *host;

	if (!mapping)
		return false;
	host = mapping->host;
	if (likely(host && !sb_is_blkdev_sb(host->i_sb)))
		return host->i_sb->s_bdi->capabilities & BDI_CAP_WRITEBACK;
	return mapping_can_writeback(mapping);
}

/*
 * Whether the kernel counts @bdi's pages under writeback in its writeback
 * domains (WB_WRITEBACK): fuse, while it wrote back through temporary
 * pages, counted its own and turned BDI_CAP_WRITEBACK_ACCT off; kernels
 * without the flag (7.3) count every bdi's in the page cache.
 */
static inline bool md_bdi_accounts_writeback(struct backing_dev_info *bdi)
{
#ifdef BDI_CAP_WRITEBACK_ACCT
	return bdi->capabilities & BDI_CAP_WRITEBACK_ACCT;
#else
	return true;
#endif
}

/*
 * The writeback domain @inode's pages are counted in, as a key only, never
 * followed: with cgroup writeback its i_wb (NULL until its first
 * dirtying attaches it), which inode_to_wb() returns but asserts a lock
 * for that a probe's handler may not hold; else its device's own.
 */
static inline const void *md_inode_wb_key(struct inode *inode)
{
#ifdef CONFIG_CGROUP_WRITEBACK
	return READ_ONCE(inode->i_wb);
#else
	return &inode_to_bdi(inode)->wb;
#endif
}

/*
 * Whether the kernel can have cgroup v1 charge moving at all: from 6.11 the
 * v1 code is built only with CONFIG_MEMCG_V1 (Debian's 6.12 leaves it off).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define MD_KERNEL_HAS_MEMCG_V1	IS_ENABLED(CONFIG_MEMCG_V1)
#else
#define MD_KERNEL_HAS_MEMCG_V1	1
#endif

/*
 * From 7.1 a folio is charged through an obj_cgroup, and rmdir repoints a
 * memcg's obj_cgroups to its parent when the memcg goes offline: its
 * folios, and the stat updates they bring, move to the parent, while its
 * own counters keep what they had, until it is freed: the ledger carries
 * them on to the parent's entry then, and the checks compare units.
 */
/*
 * Before 6.8 (folio_xor_flags_has_waiters()) __folio_start_writeback()
 * counts only if PG_writeback was clear, and says so by returning false;
 * __folio_end_writeback() counts only if it was set, returning true.
 * From then on both always count (start returns nothing, end whether it
 * had waiters).
 */
#define MD_WB_RET_SAYS_COUNTED	(LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0))

#define MD_KERNEL_REPARENTS	(LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0))

/* migrate_folio()'s and folio_migrate_mapping()'s success: 0 from 6.18 */
#ifdef MIGRATEPAGE_SUCCESS
#define MD_MIGRATE_SUCCESS	MIGRATEPAGE_SUCCESS
#else
#define MD_MIGRATE_SUCCESS	0
#endif

/* The low bits of folio->mapping that mark anon and KSM folios */
#ifdef FOLIO_MAPPING_FLAGS
#define MD_MAPPING_FLAGS	FOLIO_MAPPING_FLAGS
#else
#define MD_MAPPING_FLAGS	PAGE_MAPPING_FLAGS
#endif

/* The word of page flags, for test_bit(): a memdesc_flags_t from 6.18 */
static inline const unsigned long *md_page_flags(const struct page *page)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
	return &page->flags.f;
#else
	return &page->flags;
#endif
}

/*
 * The kernel's per-memcg, per-node counters the module audits, one row
 * each: the kernel's stat item (md_counter_items[]) and the name users see
 * (md_counter_names[]).  docs/hacking.md says how a counter is added.
 */
enum md_counter {
	MD_C_DIRTY,		/* NR_FILE_DIRTY: memory.stat's file_dirty */
	MD_C_WRITEBACK,		/* NR_WRITEBACK: memory.stat's file_writeback */
	MD_NR_COUNTERS,
};

extern const enum node_stat_item md_counter_items[MD_NR_COUNTERS];
extern const char * const md_counter_names[MD_NR_COUNTERS];

int md_compat_init(unsigned int shift);
long __percpu *md_kernel_slot(struct mem_cgroup *memcg, enum md_counter c, int nid);
void md_kernel_skew(struct mem_cgroup *memcg, enum md_counter c, int nid, long pages);
bool md_memcg_name_is(struct mem_cgroup *memcg, const char *name);
int md_debugfs_rename(struct dentry *dentry, const char *name);
unsigned long md_symbol_entry(const char *symbol);
void *md_symbol_data(const char *symbol);

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

/*
 * Argument @n of the function an ftrace callback was called at.  6.1's
 * ftrace_regs is a pt_regs whose argument registers ftrace_caller saved
 * (x86's DYNAMIC_FTRACE_WITH_ARGS); from 6.12 it is opaque, read through
 * ftrace_regs_get_argument().
 */
static inline unsigned long md_fregs_arg(struct ftrace_regs *fregs, unsigned int n)
{
#ifdef ftrace_regs_get_argument
	return ftrace_regs_get_argument(fregs, n);
#else
	return regs_get_kernel_argument(&fregs->regs, n);
#endif
}

/*
 * The unbound system workqueue the module's work items go on: 6.17 added
 * system_dfl_wq, and from 7.2 queueing on system_unbound_wq prints "work
 * func ... enqueued on deprecated workqueue" on the console, which a
 * harness that reads the console takes for a problem of ours.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define md_wq	system_dfl_wq
#else
#define md_wq	system_unbound_wq
#endif

#endif /* MEMCG_DIRTY_COMPAT_H */
