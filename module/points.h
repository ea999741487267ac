/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe points by name: one table, read by probes.c (their handlers),
 * attach.c (which attaches them) and inject.c (whose commands name them).
 */
#ifndef MEMCG_DIRTY_POINTS_H
#define MEMCG_DIRTY_POINTS_H

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
	};

	return names[p];
}

#endif /* MEMCG_DIRTY_POINTS_H */
