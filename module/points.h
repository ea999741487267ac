/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe points by name: one table, read by probes.c (their handlers),
 * attach.c (which attaches them) and inject.c (whose commands name them).
 */
#ifndef MEMCG_DIRTY_POINTS_H
#define MEMCG_DIRTY_POINTS_H

#include <linux/bits.h>
#include "compat.h"

enum md_point {
	MD_P_DIRTIED,
	MD_P_CLEANED_IO,
	MD_P_CANCELLED,
	MD_P_MIGRATED,
	MD_P_MOVED,
	MD_P_ONLINE,
	MD_P_OFFLINE,
	MD_P_RELEASE,
	MD_P_FREE,
	MD_P_REPARENT,
	MD_P_WB_STARTED,
	MD_P_WB_ENDED,
	MD_NR_POINTS,
};

static inline const char *md_point_name(enum md_point p)
{
	static const char * const names[MD_NR_POINTS] = {
		[MD_P_DIRTIED]		= "dirtied",
		[MD_P_CLEANED_IO]	= "cleaned_io",
		[MD_P_CANCELLED]	= "cancelled",
		[MD_P_MIGRATED]		= "migrated",
		[MD_P_MOVED]		= "moved",
		[MD_P_ONLINE]		= "memcg_online",
		[MD_P_OFFLINE]		= "memcg_offline",
		[MD_P_RELEASE]		= "memcg_release",
		[MD_P_FREE]		= "memcg_free",
		[MD_P_REPARENT]		= "reparent",
		[MD_P_WB_STARTED]	= "wb_started",
		[MD_P_WB_ENDED]		= "wb_ended",
	};

	return names[p];
}

/* Every counter, as a set of enum md_counter bits. */
#define MD_ALL_COUNTERS	(BIT(MD_NR_COUNTERS) - 1)

/*
 * The counters (enum md_counter bits) whose ledgers a point's hits keep:
 * a hit it missed leaves those untrusted, and only those, unless the
 * point's misses are healed by a resync (md_point_resyncs()).  The memcg
 * lifecycle's points, and v1 charge moving, keep them all.
 */
static inline unsigned int md_point_counters(enum md_point p)
{
	switch (p) {
	case MD_P_DIRTIED:
	case MD_P_CLEANED_IO:
	case MD_P_CANCELLED:
	case MD_P_MIGRATED:
		return BIT(MD_C_DIRTY);
	case MD_P_WB_STARTED:
	case MD_P_WB_ENDED:
		return BIT(MD_C_WRITEBACK);
	default:
		return MD_ALL_COUNTERS;
	}
}

/*
 * The writeback counter's points miss hits in interrupts (a disk's, ending
 * writeback inside another kprobe's handler: probes.c), whose memcg is
 * unknown.  Every memcg's writeback counter is based again instead
 * (md_probes_log_missed()): a base is the page scan's count less the
 * events since, so a missed end, in no event, is in no base.
 */
static inline bool md_point_resyncs(enum md_point p)
{
	return p == MD_P_WB_STARTED || p == MD_P_WB_ENDED;
}

#endif /* MEMCG_DIRTY_POINTS_H */
