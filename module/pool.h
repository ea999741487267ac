/* SPDX-License-Identifier: GPL-2.0 */
/* The ledger's entries and their pool, for the probe handlers (pool.c). */
#ifndef MEMCG_DIRTY_POOL_H
#define MEMCG_DIRTY_POOL_H

#include <linux/types.h>

struct list_head;
struct md_entry;

int md_pool_init(void);
void md_pool_exit(void);
void md_entry_free(struct md_entry *e);
void md_pool_refill(void);
struct md_entry *md_pool_take(void);
bool md_pool_low(void);
bool md_pool_empty(void);
void md_pool_drain(struct list_head *to);

#endif /* MEMCG_DIRTY_POOL_H */
