/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDPROM_H
#define MDPROM_H
#include "mdmodel.h"

/* --max-cgroups by default: about 600 series per machine (memcg-dirty.8) */
#define MD_PROM_MAX_CGROUPS	50

/*
 * memcg-dirty --prometheus: the node_exporter textfile at @path, replaced
 * atomically, with @max_cgroups cgroups (all when < 0): those found wrong
 * first, then those not sure, then ok, each furthest apart first, then
 * most dirty (md_sort()'s MD_BY_DIFFER); the others are only counted.
 * 0, or -1 after saying why.
 */
int md_textfile(const struct md_src *src, long page_size, long max_cgroups, const char *path);

/* The textfile of a machine where memcg_dirty is not loaded: memcg_dirty_module_loaded 0. */
int md_textfile_unloaded(const struct md_src *src, const char *path);

#endif
