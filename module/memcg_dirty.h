/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memcg_dirty: an independent ledger of dirty file pages per memory cgroup,
 * kept from probes on the kernel's dirty accounting, to audit memory.stat.
 */
#ifndef MEMCG_DIRTY_H
#define MEMCG_DIRTY_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

struct dentry;
struct folio;
struct mem_cgroup;
struct seq_file;

/* Event totals kept per memcg; values are pages. */
enum md_event {
	MD_DIRTIED,
	MD_CLEANED_IO,
	MD_CANCELLED,
	MD_REMOVED_DIRTY,
	MD_MIGRATED,
	MD_MOVED_IN,
	MD_MOVED_OUT,
	MD_NR_EVENTS,
};

extern const char * const md_event_names[MD_NR_EVENTS];

/* Per-CPU half of a ledger entry: only ever added to, summed on read. */
struct md_pcpu {
	long events[MD_NR_EVENTS];
	long dirty[];		/* pages, indexed by node id, nr_node_ids long */
};

/*
 * One ledger entry per memcg the module has seen.  Keyed by the memcg
 * pointer, which cannot be reused before the kernel frees the memcg, and we
 * hear of that (mem_cgroup_css_free probe) before it happens.  The 64-bit
 * cgroup id names it to users: unlike mem_cgroup_id() it is never recycled.
 */
struct md_entry {
	struct hlist_node hash;		/* md_hash bucket, RCU */
	struct list_head node;		/* md_entries, under md_mutex */
	struct llist_node fresh;	/* created by a probe, not yet listed */
	struct llist_node dead_link;	/* on md_dead once the memcg is freed */
	struct mem_cgroup *memcg;	/* only while !dead */
	u64 cgid;
	bool dead;			/* memcg freed: unhashed, dir going */
	bool renamed;			/* dir renamed to NAME@ID once dying */
	/*
	 * False while the ledger's starting point is unknown: the memcg
	 * existed when the module loaded and may have had dirty pages then.
	 * md_resync() sets base[] from a quiescent scan.
	 */
	bool synced;
	bool scan_valid;		/* no event of ours during the last scan */
	long scan_busy;			/* pages the scan found locked: not counted */
	long seq0;			/* event sequence before the last scan */
	int last_verdict;		/* enum md_verdict, to log changes once */
	struct md_pcpu __percpu *pcpu;
	struct dentry *dir;		/* cgroups/... directory, or NULL */
	long *base;			/* per node: dirty pages before the events */
	long *scan;			/* per node: last page scan (md_mutex) */
	atomic_long_t *injected;	/* per node: fault injection's skew */
	long arrays[];			/* base, scan, injected */
};

/* The last page scan, system-wide figures (md_mutex). */
struct md_scan_info {
	u64 count;			/* scans so far */
	u64 when_ns;			/* ktime_get_ns() at the end */
	u64 duration_ns;
	long dirty;			/* dirty accounted pages seen */
	long busy;			/* dirty folios locked by someone: skipped */
	long uncharged;			/* dirty pages charged to no memcg */
	long unattributed;		/* memcg had no entry and the pool was empty */
};

extern struct md_scan_info md_last_scan;

/* ledger.c */
int md_ledger_init(void);
void md_ledger_stop(void);
void md_ledger_exit(void);
void md_account(struct mem_cgroup *memcg, int nid, long pages,
		enum md_event ev);
void md_account_migrate(struct mem_cgroup *memcg, int from, int to,
			long pages);
void md_account_move(struct mem_cgroup *from, struct mem_cgroup *to,
		     int nid, long pages);
void md_account_uncharged(long pages);
void md_memcg_freed(struct mem_cgroup *memcg);
void md_memcg_changed(void);
struct md_entry *md_entry_lookup(struct mem_cgroup *memcg);
struct md_entry *md_entry_ensure(struct mem_cgroup *memcg);
struct mem_cgroup *md_entry_pin(struct md_entry *e);
struct md_entry *md_entry_find(struct mem_cgroup *memcg);
long md_entry_dirty(struct md_entry *e, int nid);
long md_entry_events_dirty(struct md_entry *e, int nid);
long md_entry_seq(struct md_entry *e);
void md_list_fresh(void);
long md_entry_event(struct md_entry *e, enum md_event ev);
long md_uncharged_total(void);
long md_lost_total(void);
long md_total_seq(void);
long md_inflight_bound(void);
long md_entries_count(void);
size_t md_entry_bytes(void);
void md_reconcile(bool unsync);
void md_resync_kick(void);
extern struct mutex md_mutex;
extern struct list_head md_entries;

/* compat.c: everything that differs between kernel versions */
int md_compat_init(void);
struct mem_cgroup *md_root_memcg(void);
struct mem_cgroup *md_memcg_next(struct mem_cgroup *pos,
				 struct mem_cgroup *root);
struct mem_cgroup *md_memcg_walk(struct mem_cgroup *pos);
long md_kernel_dirty_node(struct mem_cgroup *memcg, int nid);
long md_kernel_dirty_global(void);
void md_kernel_skew(struct mem_cgroup *memcg, int nid, long pages);
bool md_cgroup_v1(void);

/* events.c: the anomaly log */
enum md_anomaly_kind {
	MD_A_LEDGER_UNDERFLOW,
	MD_A_KERNEL_NEGATIVE,
	MD_A_DIRTIED_UNCHARGED,
	MD_A_PROBE_MISSED,
	MD_A_MISMATCH,
	MD_NR_ANOMALIES,
};

extern const char * const md_anomaly_names[MD_NR_ANOMALIES];
void md_events_init(void);
void md_anomaly(enum md_anomaly_kind kind, u64 cgid, int nid, const char *probe,
		unsigned long pfn, long kernel, long ledger, long scan,
		unsigned long missed);
unsigned long md_anomaly_count(void);
void md_events_show(struct seq_file *m);

/* check.c */
/*
 * The kernel's rstat-flushed hierarchical counter (memory.stat's file_dirty)
 * is not checked: no kernel exports a flush to make it exact on demand, and
 * calling the unexported one through a looked-up pointer traps under IBT.
 */
#define MD_HIER_UNAVAILABLE	"no_exported_rstat_flush"

enum md_verdict {		/* in rising order of severity */
	MD_OK,
	MD_UNSYNCED,
	MD_UNTRUSTED,
	MD_MISMATCH,
	MD_UNDERFLOW,
	MD_NR_VERDICTS,
};

enum md_view { MD_VIEW_NONE, MD_VIEW_KERNEL, MD_VIEW_LEDGER, MD_VIEW_SCAN };

struct md_check {
	enum md_verdict verdict;
	enum md_view suspect;
	long kernel, ledger, scan;	/* pages, summed over nodes */
	long delta;			/* suspect - the other two (or kernel - ledger) */
	long bound;			/* pages of events seen while reading */
	long scan_busy;			/* scan is a lower bound by this much */
	bool quiescent;			/* strict comparison was possible */
	bool node_differs;
	int nid;			/* first node where the views differ */
	u64 scan_age_ms;
};

extern const char * const md_verdict_names[MD_NR_VERDICTS];
u64 md_scan_age_ms(void);
void md_check_memcg(struct md_entry *e, struct mem_cgroup *memcg,
		    struct md_check *c, bool may_scan);
void md_check_show(struct seq_file *m, struct md_check *c);
void md_check_global(struct seq_file *m);

/* scan.c */
void md_scan(void);
int md_resync(void);

/* probes.c */
enum md_point {
	MD_P_DIRTIED,
	MD_P_CLEANED_IO,
	MD_P_CANCELLED,
	MD_P_MIGRATED,
	MD_P_MOVED,
	MD_P_ONLINE,
	MD_P_OFFLINE,
	MD_P_FREE,
	MD_NR_POINTS,
};

const char *md_point_name(enum md_point p);
int md_probes_register(void);
void md_probes_unregister_events(void);
void md_probes_unregister(void);
void md_probes_show(struct seq_file *m);
unsigned long md_probes_missed(void);
void md_probes_log_missed(void);

/* debugfs.c */
int md_debugfs_init(void);
void md_debugfs_exit(void);
void md_debugfs_entry_dir(struct md_entry *e, struct md_entry *parent,
			  struct mem_cgroup *memcg);
void md_debugfs_entry_rename(struct md_entry *e, struct md_entry *parent,
			     struct mem_cgroup *memcg);

/* inject.c */
DECLARE_STATIC_KEY_FALSE(md_inject_key);
bool md_inject_enabled(void);
void md_inject_init(void);
void md_inject_exit(void);
bool __md_inject_drop(enum md_point p, struct mem_cgroup *memcg);
void __md_inject_migrated(struct mem_cgroup *memcg, int nid, long pages);
unsigned long md_inject_missed(enum md_point p);
int md_inject_command(char *cmd);
void md_inject_show(struct seq_file *m);

/* Free when fault injection is off: a patched-out branch. */
static inline bool md_inject_drop(enum md_point p, struct mem_cgroup *memcg)
{
	return static_branch_unlikely(&md_inject_key) && __md_inject_drop(p, memcg);
}

static inline void md_inject_migrated(struct mem_cgroup *memcg, int nid,
				      long pages)
{
	if (static_branch_unlikely(&md_inject_key))
		__md_inject_migrated(memcg, nid, pages);
}

#endif /* MEMCG_DIRTY_H */
