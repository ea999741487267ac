// SPDX-License-Identifier: GPL-2.0
/*
 * Events per writeback domain (domain_events.h): the probes count, the
 * domains' scan reads.
 */
#include <linux/cpumask.h>
#include <linux/string.h>
#include "domain_events.h"

DEFINE_PER_CPU(struct md_domain_events, md_domain_events[MD_DOMAIN_BUCKETS]);

/*
 * Every bucket over every possible CPU, unordered against the probes: an
 * event caught between its two increments reads as in flight, or moves the
 * sequence, and either leaves its domain unjudged, never judged wrongly.
 * What orders the events that matter is the scan's grace periods: it reads
 * before its first one and after its last.  Closed is read first, so that
 * an event that ends meanwhile reads as in flight, not as a negative one.
 */
void md_domain_events_read(struct md_domain_events_sum *sum)
{
	int cpu, b;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		for (b = 0; b < MD_DOMAIN_BUCKETS; b++) {
			struct md_domain_events *ev = per_cpu_ptr(&md_domain_events[b], cpu);
			unsigned long closed = READ_ONCE(ev->closed);
			unsigned long opened = READ_ONCE(ev->opened);

			sum->seq[b] += opened + closed;
			sum->open[b] += opened - closed;
		}
	}
}

static bool md_domain_bucket_still(const struct md_domain_events_sum *begin,
				   const struct md_domain_events_sum *end, unsigned int b)
{
	return !begin->open[b] && begin->seq[b] == end->seq[b];
}

/*
 * Whether the domain of @buckets had no event between @begin and @end and
 * none in flight at @begin: either of its buckets standing still says so.
 */
bool md_domain_events_still(const struct md_domain_events_sum *begin,
			    const struct md_domain_events_sum *end, unsigned int buckets)
{
	return md_domain_bucket_still(begin, end, md_domain_first(buckets)) ||
	       md_domain_bucket_still(begin, end, md_domain_second(buckets));
}
