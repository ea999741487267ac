/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events per writeback domain: every change of a folio's dirty or
 * writeback state that the probes see, counted in a bucket of the domain
 * (bdi_writeback) of the folio's inode.  The domains' scan judges a domain
 * whose events stood still while it ran, whatever the others did
 * (domains.c); without it, one writer anywhere leaves every domain
 * unjudged.  Buckets, not domains: the probes know a domain only by its
 * address.  Each domain has two, and moves both: one that stood still
 * proves it stood still, so another domain makes it busy only by sharing
 * both (about 1 in 8,000 for two domains).
 *
 * A return probe opens an event at its entry and closes it at its return,
 * around the kernel's change; a probe with no return (the kernel's change
 * follows it under a lock that a grace period waits for) opens and closes
 * at once.  Per CPU, no atomics: two increments on the probes' path.
 */
#ifndef MEMCG_DIRTY_DOMAIN_EVENTS_H
#define MEMCG_DIRTY_DOMAIN_EVENTS_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include "compat.h"

#define MD_DOMAIN_BUCKET_BITS	7
#define MD_DOMAIN_BUCKETS	BIT(MD_DOMAIN_BUCKET_BITS)

struct md_domain_events {
	unsigned long opened;
	unsigned long closed;
};

DECLARE_PER_CPU(struct md_domain_events, md_domain_events[MD_DOMAIN_BUCKETS]);

/* One end of a scan: the buckets summed over every CPU */
struct md_domain_events_sum {
	unsigned long seq[MD_DOMAIN_BUCKETS];	/* opened + closed: moves with any event */
	long open[MD_DOMAIN_BUCKETS];		/* opened - closed: events in flight */
};

/*
 * A domain's two buckets, from the two top fields of one multiplicative
 * hash (hash_ptr()'s), packed in an int, the second above
 * MD_DOMAIN_SECOND_SHIFT: a domain with no event has a bucket that stood
 * still unless other domains moved both of its.
 */
#define MD_DOMAIN_SECOND_SHIFT	8
static_assert(BIT(MD_DOMAIN_SECOND_SHIFT) >= MD_DOMAIN_BUCKETS);

static __always_inline unsigned int md_domain_buckets(const void *wb)
{
	u64 h = (unsigned long)wb * GOLDEN_RATIO_64;

	return h >> (64 - MD_DOMAIN_BUCKET_BITS) |
	       ((h >> (64 - 2 * MD_DOMAIN_BUCKET_BITS)) & (MD_DOMAIN_BUCKETS - 1)) <<
	       MD_DOMAIN_SECOND_SHIFT;
}

static __always_inline unsigned int md_domain_first(unsigned int buckets)
{
	return buckets & (MD_DOMAIN_BUCKETS - 1);
}

static __always_inline unsigned int md_domain_second(unsigned int buckets)
{
	return buckets >> MD_DOMAIN_SECOND_SHIFT;
}

/* @mapping's domain's buckets (a mapping without a host: NULL's) */
static __always_inline unsigned int md_domain_buckets_of(struct address_space *mapping)
{
	struct inode *host = mapping ? READ_ONCE(mapping->host) : NULL;

	return md_domain_buckets(host ? md_inode_wb_key(host) : NULL);
}

static __always_inline void md_domain_open(unsigned int buckets)
{
	this_cpu_inc(md_domain_events[md_domain_first(buckets)].opened);
	this_cpu_inc(md_domain_events[md_domain_second(buckets)].opened);
}

static __always_inline void md_domain_close(unsigned int buckets)
{
	this_cpu_inc(md_domain_events[md_domain_first(buckets)].closed);
	this_cpu_inc(md_domain_events[md_domain_second(buckets)].closed);
}

static __always_inline void md_domain_event(unsigned int buckets)
{
	md_domain_open(buckets);
	md_domain_close(buckets);
}

void md_domain_events_read(struct md_domain_events_sum *sum);
bool md_domain_events_still(const struct md_domain_events_sum *begin,
			    const struct md_domain_events_sum *end, unsigned int buckets);

#endif /* MEMCG_DIRTY_DOMAIN_EVENTS_H */
