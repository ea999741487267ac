// SPDX-License-Identifier: GPL-2.0
/*
 * The ledger's entries and their pool.  Probe handlers run in atomic
 * context and must not allocate, so the entries they create for memcgs
 * the ledger has not seen yet come from a pool that process context keeps
 * filled (md_pool_refill(): the change work, md_entry_get() where it may
 * sleep).  The pool changes under md_hash_lock, with the hash it feeds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "ledger.h"
#include "pool.h"

#define MD_POOL_LOW	32	/* refill below this many spare entries */
#define MD_POOL_HIGH	128

static LIST_HEAD(md_pool);		/* under md_hash_lock */
static unsigned int md_pool_count;

/* Entries allocated (listed, pooled or dying): the module's memory. */
static atomic_long_t md_entries_allocated;

/*
 * An entry's arrays, in longs per node: base, scan.pages, carried_kernel
 * and carried_ledger per counter, inject.skew
 */
#define MD_ENTRY_ARRAYS	(4 * MD_NR_COUNTERS + 1)

/*
 * Entries come from a cache of their own: with its per-node arrays an
 * entry is 280 bytes on one node, 320 on two, which kmalloc rounds up to
 * 512.
 */
static struct kmem_cache *md_entry_cache;

int md_pool_init(void)
{
	md_entry_cache = kmem_cache_create("memcg_dirty_entry",
					   struct_size((struct md_entry *)NULL, arrays,
						       MD_ENTRY_ARRAYS * nr_node_ids),
					   __alignof__(struct md_entry), 0, NULL);
	return md_entry_cache ? 0 : -ENOMEM;
}

/* Every entry freed. */
void md_pool_exit(void)
{
	kmem_cache_destroy(md_entry_cache);
	md_entry_cache = NULL;
}

static struct md_entry *md_entry_alloc(void)
{
	struct md_entry *e;

	e = kmem_cache_zalloc(md_entry_cache, GFP_KERNEL);
	if (!e)
		return NULL;
	e->base = e->arrays;
	e->scan.pages = e->base + MD_NR_COUNTERS * nr_node_ids;
	e->carried_kernel = (atomic_long_t *)(e->scan.pages + MD_NR_COUNTERS * nr_node_ids);
	e->carried_ledger = e->carried_kernel + MD_NR_COUNTERS * nr_node_ids;
	e->inject.skew = e->carried_ledger + MD_NR_COUNTERS * nr_node_ids;
	e->pcpu = __alloc_percpu(struct_size(e->pcpu, count, MD_NR_COUNTERS * nr_node_ids),
				 __alignof__(long));
	if (!e->pcpu) {
		kmem_cache_free(md_entry_cache, e);
		return NULL;
	}
	INIT_LIST_HEAD(&e->node);
	atomic_long_inc(&md_entries_allocated);
	return e;
}

void md_entry_free(struct md_entry *e)
{
	atomic_long_dec(&md_entries_allocated);
	free_percpu(e->pcpu);
	kmem_cache_free(md_entry_cache, e);
}

long md_entries_count(void)
{
	return atomic_long_read(&md_entries_allocated);
}

/* What one entry costs: the entry itself and its per-CPU counters. */
size_t md_entry_bytes(void)
{
	return struct_size((struct md_entry *)NULL, arrays, MD_ENTRY_ARRAYS * nr_node_ids) +
	       num_possible_cpus() *
	       struct_size((struct md_pcpu *)NULL, count, MD_NR_COUNTERS * nr_node_ids);
}

/* Process context: top the pool up for the probe handlers. */
void md_pool_refill(void)
{
	unsigned long flags;
	struct md_entry *e;

	while (READ_ONCE(md_pool_count) < MD_POOL_HIGH) {
		e = md_entry_alloc();
		if (!e)
			break;
		raw_spin_lock_irqsave(&md_hash_lock, flags);
		list_add(&e->node, &md_pool);
		md_pool_count++;
		raw_spin_unlock_irqrestore(&md_hash_lock, flags);
	}
}

/* Under md_hash_lock: a spare entry, off the pool, or NULL if it is empty. */
struct md_entry *md_pool_take(void)
{
	struct md_entry *e;

	lockdep_assert_held(&md_hash_lock);
	if (!md_pool_count)
		return NULL;
	e = list_first_entry(&md_pool, struct md_entry, node);
	list_del_init(&e->node);
	md_pool_count--;
	return e;
}

/* Under md_hash_lock: time to refill. */
bool md_pool_low(void)
{
	lockdep_assert_held(&md_hash_lock);
	return md_pool_count < MD_POOL_LOW;
}

bool md_pool_empty(void)
{
	return !READ_ONCE(md_pool_count);
}

/* At unload, once nothing can take an entry: the spare ones onto @to. */
void md_pool_drain(struct list_head *to)
{
	list_splice_init(&md_pool, to);
	md_pool_count = 0;
}
