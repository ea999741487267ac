/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDPROM_H
#define MDPROM_H
#include "mdmodel.h"

/*
 * memcg-dirty --prometheus: the node_exporter textfile at @path, replaced
 * atomically, with the @max_cgroups cgroups that have the most dirty pages
 * (all when < 0).  0, or -1 after saying why.
 */
int md_textfile(const struct md_src *src, long page_size, long max_cgroups, const char *path);

#endif
