/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zoo's one kernel-version difference: how a folio names its memcg.
 * The same stand-in as memcg_dirty's compat layer (module/compat.c,
 * md_kernel_skew()), but the node's counter moves too, as it does when the
 * kernel itself gets the accounting wrong.
 */
#ifndef MD_ZOO_COMPAT_H
#define MD_ZOO_COMPAT_H

#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/version.h>
#include <linux/vmstat.h>

/*
 * Change @memcg's counter @item (NR_FILE_DIRTY, NR_WRITEBACK) on node @nid
 * by @pages, and the node's.
 * The only exported function that does this takes a folio charged to the
 * memcg (lruvec_stat_mod_folio()), so it gets a stand-in that lives on
 * this stack and holds only a memcg and a node; from 7.1 a folio names an
 * obj_cgroup, which gets a stand-in too.  Any context.  The kernel's
 * update takes an int: a change past 2^31 pages goes in int-sized steps
 * (at most INT_MAX either way: the kernel takes abs() of it).
 */
static __always_inline void md_zoo_stat_mod(struct mem_cgroup *memcg, enum node_stat_item item,
					    int nid, long pages)
{
	struct folio stand_in;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
	struct obj_cgroup objcg;

	memset(&objcg, 0, sizeof(objcg));
	objcg.memcg = memcg;
	memset(&stand_in, 0, sizeof(stand_in));
	stand_in.memcg_data = (unsigned long)&objcg;
#else
	memset(&stand_in, 0, sizeof(stand_in));
	stand_in.memcg_data = (unsigned long)memcg;
#endif
	set_page_node(&stand_in.page, nid);
	while (pages) {
		long step = clamp(pages, -(long)INT_MAX, (long)INT_MAX);

		lruvec_stat_mod_folio(&stand_in, item, step);
		pages -= step;
	}
}

#endif /* MD_ZOO_COMPAT_H */
