/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch ("watch CGROUP" in control): which code moves one memcg's
 * NR_FILE_DIRTY, caught by hardware data watchpoints on its counter.
 */
#ifndef MEMCG_DIRTY_WATCH_H
#define MEMCG_DIRTY_WATCH_H

#include <linux/types.h>

struct seq_file;

int md_watch_start(const char *path, bool replace);
int md_watch_start_audit(const char *path, int nid, unsigned int limit_s);
void md_watch_stop(void);
void md_watch_path_get(char *buf, size_t size);
void md_watch_init(void);
void md_watch_exit(void);
void md_watch_show(struct seq_file *m);

#endif /* MEMCG_DIRTY_WATCH_H */
