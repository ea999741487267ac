/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How each layer's state reads in debugfs: the layers fill structs (or
 * offer an iterator of records), these print them into a seq_file.
 */
#ifndef MEMCG_DIRTY_SHOW_H
#define MEMCG_DIRTY_SHOW_H

struct seq_file;

void md_show_watch(struct seq_file *m);
void md_show_events(struct seq_file *m);
int md_show_folios(struct seq_file *m);
void md_show_inject(struct seq_file *m);

#endif /* MEMCG_DIRTY_SHOW_H */
