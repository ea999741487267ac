// SPDX-License-Identifier: GPL-2.0
/*
 * The anomaly log behind debugfs "events": a fixed ring of the last
 * MD_EVENTS_MAX anomalies, with a count of those that fell off the end,
 * and a ratelimited pr_warn per kind; copied out for debugfs to print
 * (md_anomaly_log_read(), show.c).  Adding is allowed in probe handlers:
 * a raw spinlock, no allocation.  Paths are resolved when read, since a
 * handler cannot take the locks that naming a cgroup needs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "compat.h"
#include "anomaly.h"
#include "memcg.h"

const char * const md_anomaly_names[MD_NR_ANOMALIES] = {
	[MD_A_LEDGER_UNDERFLOW]		= "ledger_underflow",
	[MD_A_KERNEL_NEGATIVE]		= "kernel_negative",
	[MD_A_DIRTIED_UNCHARGED]	= "dirtied_uncharged",
	[MD_A_PROBE_MISSED]		= "probe_missed",
	[MD_A_MISMATCH]			= "mismatch",
	[MD_A_CLEANED_UNCOUNTED]	= "cleaned_uncounted",
};

static struct md_anomaly md_ring[MD_EVENTS_MAX];
static unsigned long md_ring_next;	/* total ever added */
static DEFINE_RAW_SPINLOCK(md_ring_lock);
static struct ratelimit_state md_warn_rs[MD_NR_ANOMALIES];

void md_events_init(void)
{
	int i;

	for (i = 0; i < MD_NR_ANOMALIES; i++)
		ratelimit_state_init(&md_warn_rs[i], 5 * HZ, 5);
}

/*
 * @nid < 0: no node applies; @probe NULL, @pfn 0: none applies; @c: the
 * counter that @kernel, @ledger and @scan are of (MD_NR_COUNTERS: none).
 */
void md_anomaly_of(enum md_anomaly_kind kind, enum md_counter c, u64 cgid, int nid,
		   const char *probe, unsigned long pfn, long kernel, long ledger,
		   long scan, unsigned long missed)
{
	md_anomaly_record(kind, c, cgid, nid, probe, pfn, kernel, ledger, scan, missed);
	if (__ratelimit(&md_warn_rs[kind]))
		pr_warn("%s: cgroup %llu node %d kernel %ld ledger %ld scan %ld missed %lu%s%s%s%s\n",
			md_anomaly_names[kind], cgid, nid, kernel, ledger, scan, missed,
			probe ? " probe " : "", probe ?: "",
			c == MD_C_WRITEBACK ? " counter " : "",
			c == MD_C_WRITEBACK ? md_counter_names[c] : "");
}

/*
 * The same, in the log only: an anomaly the module puts right by itself
 * (a missed hit of the writeback counter's points, attach.c), which is no
 * finding to warn of.
 */
void md_anomaly_record(enum md_anomaly_kind kind, enum md_counter c, u64 cgid, int nid,
		       const char *probe, unsigned long pfn, long kernel, long ledger,
		       long scan, unsigned long missed)
{
	struct md_anomaly *a;
	unsigned long flags;

	raw_spin_lock_irqsave(&md_ring_lock, flags);
	a = &md_ring[md_ring_next++ % MD_EVENTS_MAX];
	*a = (struct md_anomaly) {
		.ns = ktime_get_ns(), .cgid = cgid, .nid = nid, .kind = kind,
		.probe = probe, .pfn = pfn,
		.kernel = kernel, .ledger = ledger, .scan = scan, .missed = missed,
		.counter = c,
	};
	raw_spin_unlock_irqrestore(&md_ring_lock, flags);
}

unsigned long md_anomaly_count(void)
{
	return READ_ONCE(md_ring_next);
}

/* Into @log, the log as it is now. */
void md_anomaly_log_read(struct md_anomaly_log *log)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&md_ring_lock, flags);
	log->next = md_ring_next;
	memcpy(log->ring, md_ring, sizeof(md_ring));
	raw_spin_unlock_irqrestore(&md_ring_lock, flags);
}

/*
 * Into @buf (PATH_MAX), the path of the memcg with cgroup id @cgid; false
 * once it is gone.  Resolved when the log is read: a handler that logs
 * cannot take the locks that naming a cgroup needs.
 */
bool md_anomaly_cgroup_path(u64 cgid, char *buf)
{
	struct mem_cgroup *root = md_root_memcg(), *pos = NULL;
	bool found = false;

	rcu_read_lock();
	while ((pos = md_memcg_next(pos, root))) {
		if (cgroup_id(pos->css.cgroup) == cgid) {
			found = cgroup_path(pos->css.cgroup, buf, PATH_MAX) < PATH_MAX;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
