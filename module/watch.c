// SPDX-License-Identifier: GPL-2.0
/*
 * The watch: which code moves one memcg's NR_FILE_DIRTY.  "watch CGROUP" in
 * control puts a hardware data watchpoint on each CPU's share of that
 * memcg's per-node counter, the per-CPU slot every update of the kernel
 * writes (compat.c, md_kernel_dirty_slot()), through perf's exported
 * hw_breakpoint interface: one CPU-bound event per CPU and node.  A write
 * there traps once done; the handler reads the slot (the change since its
 * last hit) and saves the call chain that made it, in a ring per CPU.
 * Hardware sees every write, whatever the compiler inlined.
 *
 * A work item then finds, in each chain, the code that made the change:
 * the first frame past the stat functions themselves (md_watch_plumbing()).
 * Where that is one of the kernel's dirty-accounting functions
 * (md_watch_sites[]), the change is "accounted"; anywhere else, the counter
 * moved without any page changing state there: "outside"; where the chain
 * ends before any such frame (the unwinder lost its way), "unknown"; a
 * dead cgroup's count given to its parent, "reparented".  An accounted
 * change is also held against the state change the probes saw its task
 * begin (notes.c, md_notes_change_of()): a change by another number of
 * pages than the folio has, or of another memcg's counter than the folio's,
 * is "mismatched", the shape of the 4.3 migration bug.  So is a reparented
 * change of the watched memcg's counter by other than what the child gave
 * up on that node: the reparenting's note (notes.c) says what the child's
 * counter held at the call's entry, and the handler reads what it holds
 * when the parent's moves (md_notes_reparent_held()), while the child is
 * sure to be alive.  Outside and mismatched changes are said on the
 * console, once per call site.  "watch" in debugfs lists the last changes
 * of each CPU, symbolized (%pS).
 *
 * x86 has four debug registers per CPU: up to four nodes are watched, the
 * first four with memory ("watch CGROUP"), or the one the audit found apart
 * (audit.c).  One memcg at a time, armed only on demand: while armed, each
 * change of its counter costs a debug exception.  Each CPU is armed in
 * turn: its breakpoints first, then, on that CPU with interrupts off, each
 * slot's start value, and one write of the value it holds, which must trap
 * (a breakpoint that does not fire, as when the host has taken the VM's
 * debug registers, fails the arming rather than watch nothing).  CPUs that
 * go offline are disarmed and armed again when they come back (a dynamic
 * CPU hotplug state).  The watch stops by itself when its cgroup is removed,
 * and one armed by the audit also once it has named the code, or after
 * audit_watch_s (md_watch_tend_fn(), every second while armed).
 *
 * Context: the handler runs in the debug exception, like an NMI: it only
 * writes its own CPU's ring, published by a sequence count (each record
 * says its index, so that a reader lapped by the ring counts it lost),
 * and queues an irq_work.  Arming, disarming and the report sleep, under
 * md_watch_mutex, taken inside the CPU hotplug lock (cpus_read_lock(), or
 * the hotplug callbacks').
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hw_breakpoint.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ratelimit.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/stacktrace.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "faults.h"
#include "notes.h"
#include "watch.h"

#define MD_WATCH_NODES		4	/* debug registers per CPU (x86) */
#define MD_WATCH_RECORDS	32	/* changes kept per CPU */
#define MD_WATCH_DEPTH		8	/* frames kept per change */
#define MD_WATCH_SAVE		24	/* frames saved, the exception's own included */
#define MD_WATCH_SAID		32	/* call sites said on the console */
#define MD_WATCH_LINE_FRAMES	4	/* frames in a console line */
#define MD_WATCH_TEND		HZ	/* how often md_watch_tend_fn() looks */

struct md_watch_record {
	unsigned int seq;		/* odd while being written */
	unsigned long index;		/* its CPU's head when written */
	int nid;
	long pages;
	u64 time_ns;
	bool paired;			/* the writer's state change is in note */
	struct md_change_note note;
	/* of a reparenting's note: what its child held at entry, and at the hit */
	bool judged;
	long child_held, child_now;
	unsigned int depth;
	unsigned long chain[MD_WATCH_DEPTH];	/* [0]: where the slot was written */
};

/*
 * Where a change came from: the watch file's words.  Unknown: the chain
 * ends (the unwinder lost its way, or MD_WATCH_DEPTH) before any frame
 * past the stat functions, so nothing says where.  Reparented: a dead
 * cgroup's count given to its parent (md_watch_reparenting[]).
 */
enum md_watch_where {
	MD_W_ACCOUNTED, MD_W_MISMATCHED, MD_W_OUTSIDE, MD_W_UNKNOWN, MD_W_REPARENTED,
};

static const char * const md_watch_where_names[] = {
	[MD_W_ACCOUNTED]	= "accounted",
	[MD_W_MISMATCHED]	= "mismatched",
	[MD_W_OUTSIDE]		= "outside",
	[MD_W_UNKNOWN]		= "unknown",
	[MD_W_REPARENTED]	= "reparented",
};

/* Per CPU; index i of the arrays is node md_watch_nid[i]. */
struct md_watch_cpu {
	struct perf_event *bp[MD_WATCH_NODES];
	long last[MD_WATCH_NODES];	/* the slot's value at the last hit */
	bool started[MD_WATCH_NODES];	/* last[] read on this CPU, once armed */
	unsigned long head;		/* records written */
	unsigned long sorted;		/* of them, sorted by the report */
	struct md_watch_record ring[MD_WATCH_RECORDS];
};

static DEFINE_MUTEX(md_watch_mutex);
/* Set while armed: the handler's data. */
static struct md_watch_cpu __percpu *md_watch_pcpu;
static long __percpu *md_watch_slot[MD_WATCH_NODES];
static int md_watch_nid[MD_WATCH_NODES];
/* The rest under md_watch_mutex. */
static struct mem_cgroup *md_watch_memcg;	/* a reference while armed */
static u64 md_watch_cgid;
static int md_watch_nodes;
static nodemask_t md_watch_nodemask;
static struct cpumask md_watch_cpus;		/* CPUs armed */
static bool md_watch_by_audit;			/* stops once it has named the code */
static unsigned int md_watch_limit_s;		/* 0, or it stops after this long */
static unsigned long md_watch_until;		/* jiffies: then */
static int md_watch_hp;				/* the hotplug state, or <= 0 */
static u64 md_watch_named;			/* whose code the audit's watch named */
static char *md_watch_path;
static unsigned long md_watch_changes, md_watch_outside, md_watch_lost;
static unsigned long md_watch_mismatched, md_watch_unpaired;
static unsigned long md_watch_unknown, md_watch_reparented;
static unsigned long md_watch_said[MD_WATCH_SAID][MD_WATCH_LINE_FRAMES];
static unsigned int md_watch_nr_said;
/* each call site is said once per arming: the limit is for re-armings */
static DEFINE_RATELIMIT_STATE(md_watch_rs, 5 * HZ, MD_WATCH_SAID);

/*
 * The kernel's functions that change NR_FILE_DIRTY with a page's dirty
 * state (some inline others, so callers are listed too).
 */
static const char * const md_watch_sites[] = {
	"folio_account_dirtied", "__folio_mark_dirty",
	"folio_clear_dirty_for_io", "folio_account_cleaned", "__folio_cancel_dirty",
	"folio_migrate_mapping", "__folio_migrate_mapping", "__migrate_folio",
	"mem_cgroup_move_account",
	/* its only caller, which Debian's 6.1 -rt build inlines it into */
	"mem_cgroup_move_charge_pte_range",
};

/*
 * From 7.1 the offlining of a removed memcg gives its local counts to its
 * parent's per-CPU counters as it reparents its folios (7.3: the LRU and
 * slab items, and v1's LRU lists; not NR_FILE_DIRTY): the parent's counter
 * moves with its pages, no page changing state.  Right only if the child's
 * moved back by as much (md_watch_reparent_mismatch()).
 */
static const char * const md_watch_reparenting[] = {
	"reparent_memcg_lruvec_state_local",
};

static void md_watch_report_fn(struct work_struct *work);
static DECLARE_WORK(md_watch_work, md_watch_report_fn);
static void md_watch_tend_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(md_watch_tend_work, md_watch_tend_fn);

static void md_watch_kick(struct irq_work *work)
{
	queue_work(system_unbound_wq, &md_watch_work);
}

static struct irq_work md_watch_irq_work = IRQ_WORK_INIT(md_watch_kick);

/* The debug exception after a write to a watched slot on this CPU. */
static void md_watch_hit(struct perf_event *bp, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	int i = (long)bp->overflow_handler_context;
	unsigned long entries[MD_WATCH_SAVE], ip = instruction_pointer(regs);
	struct md_watch_cpu *wc = this_cpu_ptr(md_watch_pcpu);
	struct md_watch_record *r;
	unsigned int n, first;
	long now;

	if (!wc->started[i])	/* no start value yet: md_watch_start_cpu() */
		return;
	now = READ_ONCE(*this_cpu_ptr(md_watch_slot[i]));
	if (now == wc->last[i])
		return;
	/* the chain from the interrupted code on, found by its ip */
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (first = 0; first < n && entries[first] != ip; first++)
		;
	r = &wc->ring[wc->head % MD_WATCH_RECORDS];
	WRITE_ONCE(r->seq, r->seq + 1);
	smp_wmb();		/* odd before the fields */
	r->index = wc->head;
	r->nid = md_watch_nid[i];
	r->pages = now - wc->last[i];
	r->time_ns = local_clock();
	r->paired = md_notes_change_of(current, &r->note);
	/* the child is read while its reparenting runs: later it may be gone */
	r->judged = r->paired && r->note.cgid2 == md_watch_cgid &&
		    md_notes_reparent_held(&r->note, r->nid, &r->child_held,
					   &r->child_now);
	if (first == n) {	/* the unwinder lost its way: the ip alone */
		r->chain[0] = ip;
		r->depth = 1;
	} else {
		r->depth = min_t(unsigned int, n - first, MD_WATCH_DEPTH);
		memcpy(r->chain, entries + first, r->depth * sizeof(entries[0]));
	}
	smp_wmb();		/* the fields before even */
	WRITE_ONCE(r->seq, r->seq + 1);
	WRITE_ONCE(wc->head, wc->head + 1);
	wc->last[i] = now;
	irq_work_queue(&md_watch_irq_work);
}

/*
 * A stable copy of @wc's record @index, or false if it is being rewritten
 * or its slot was since taken by a later record (the ring lapped).
 */
static bool md_watch_read(const struct md_watch_cpu *wc, unsigned long index,
			  struct md_watch_record *copy)
{
	const struct md_watch_record *r = &wc->ring[index % MD_WATCH_RECORDS];
	unsigned int seq = READ_ONCE(r->seq);

	if (seq & 1)
		return false;
	smp_rmb();		/* the sequence before the fields: md_watch_hit() */
	*copy = *r;
	smp_rmb();		/* the fields before the sequence again */
	return READ_ONCE(r->seq) == seq && seq && copy->index == index;
}

/* The stat functions themselves: the frames before the code that called them. */
static bool md_watch_plumbing(const char *fn)
{
	static const char * const prefixes[] = {
		"__mod_", "mod_", "__lruvec_stat", "lruvec_stat", "memcg_stat",
		"__memcg_stat", "__count_memcg", "memcg_rstat",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (str_has_prefix(fn, prefixes[i]))
			return true;
	return false;
}

static bool md_watch_listed(const char *fn, const char * const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(fn, names[i]))
			return true;
	return false;
}

/*
 * The frame of @r that made the change (past the stat functions), in
 * *@where: outside, accounted (one of the kernel's dirty-accounting
 * sites), reparented, or unknown (no such frame in the chain).  A GCC
 * clone (fn.isra.0, fn.constprop.0, fn.part.0, fn.cold) is its function.
 */
static unsigned int md_watch_site(const struct md_watch_record *r,
				  enum md_watch_where *where)
{
	char fn[KSYM_NAME_LEN], *dot;
	unsigned int i;

	for (i = 0; i < r->depth; i++) {
		snprintf(fn, sizeof(fn), "%ps", (void *)r->chain[i]);
		dot = strchr(fn, '.');
		if (dot)
			*dot = '\0';
		if (md_watch_plumbing(fn))
			continue;
		if (md_watch_listed(fn, md_watch_sites, ARRAY_SIZE(md_watch_sites)))
			*where = MD_W_ACCOUNTED;
		else if (md_watch_listed(fn, md_watch_reparenting,
					 ARRAY_SIZE(md_watch_reparenting)))
			*where = MD_W_REPARENTED;
		else
			*where = MD_W_OUTSIDE;
		return i;
	}
	*where = MD_W_UNKNOWN;
	return 0;
}

/* Whether @r is paired with a state change of a folio (no reparenting). */
static bool md_watch_paired(const struct md_watch_record *r)
{
	return r->paired && r->note.point != MD_P_REPARENT;
}

/*
 * Whether @r, made in the dirty accounting, disagrees with the state
 * change its task began: another size, or another memcg's counter.
 */
static bool md_watch_mismatch(const struct md_watch_record *r)
{
	const struct md_change_note *n = &r->note;

	return abs(r->pages) != n->pages ||
	       (md_watch_cgid != n->cgid && md_watch_cgid != n->cgid2);
}

/*
 * Whether @r, made by a reparenting, gave the watched memcg other than
 * what the child gave up on that node: the child's counter, read at the
 * call's entry and at the hit (after the kernel's take from the child,
 * before its next node), must have gone down by what the parent's went
 * up.  Unjudged (the note lost, or not the parent's change): right.
 */
static bool md_watch_reparent_mismatch(const struct md_watch_record *r)
{
	return r->judged && r->child_held - r->child_now != r->pages;
}

/* Where @r came from; @site: its frame that made the change. */
static enum md_watch_where md_watch_where(const struct md_watch_record *r,
					  unsigned int *site)
{
	enum md_watch_where where;

	*site = md_watch_site(r, &where);
	if (where == MD_W_REPARENTED && md_watch_reparent_mismatch(r))
		return MD_W_MISMATCHED;
	if (where != MD_W_ACCOUNTED)
		return where;
	return md_watch_paired(r) && md_watch_mismatch(r) ? MD_W_MISMATCHED :
							    MD_W_ACCOUNTED;
}

/* Whether the line's frames (@n of them at @c) are new: each is said once. */
static bool md_watch_new_site(const unsigned long *c, unsigned int n)
{
	unsigned long key[MD_WATCH_LINE_FRAMES] = { };
	unsigned int i;

	memcpy(key, c, n * sizeof(*c));
	for (i = 0; i < md_watch_nr_said; i++)
		if (!memcmp(md_watch_said[i], key, sizeof(key)))
			return false;
	if (md_watch_nr_said < MD_WATCH_SAID)
		memcpy(md_watch_said[md_watch_nr_said++], key, sizeof(key));
	return true;
}

/* Say an outside or mismatched change, once per call site. */
static void md_watch_say(const struct md_watch_record *r, unsigned int site,
			 enum md_watch_where where)
{
	const unsigned long *c = r->chain + site;
	unsigned int n = min_t(unsigned int, r->depth - site, MD_WATCH_LINE_FRAMES);
	char why[160];

	if (!md_watch_new_site(c, n) || !__ratelimit(&md_watch_rs))
		return;
	if (where == MD_W_OUTSIDE)
		strscpy(why, "outside the dirty accounting", sizeof(why));
	else if (r->judged)
		snprintf(why, sizeof(why),
			 "in the dirty accounting, but reparenting took %ld of them from cgroup id %llu, which still holds %ld",
			 r->child_held - r->child_now, r->note.cgid, r->child_now);
	else
		snprintf(why, sizeof(why),
			 "in the dirty accounting, but the state change there is %ld page%s of cgroup id %llu (%s)",
			 r->note.pages, r->note.pages == 1 ? "" : "s", r->note.cgid,
			 md_point_name(r->note.point));
	pr_warn("watch %s (id %llu) node %d: counter %+ld %s, at %pS%s%pS%s%pS%s%pS\n",
		md_watch_path, md_watch_cgid, r->nid, r->pages, why,
		(void *)c[0], n > 1 ? " <- " : "", n > 1 ? (void *)c[1] : NULL,
		n > 2 ? " <- " : "", n > 2 ? (void *)c[2] : NULL,
		n > 3 ? " <- " : "", n > 3 ? (void *)c[3] : NULL);
}

/* Sort the changes recorded since the last run; say the wrong ones. */
static void md_watch_report_fn(struct work_struct *work)
{
	struct md_watch_record copy;
	enum md_watch_where where;
	struct md_watch_cpu *wc;
	unsigned long head;
	unsigned int site;
	int cpu;

	mutex_lock(&md_watch_mutex);
	if (!md_watch_pcpu)
		goto out;
	for_each_possible_cpu(cpu) {
		wc = per_cpu_ptr(md_watch_pcpu, cpu);
		head = READ_ONCE(wc->head);
		if (head != wc->sorted)
			md_delay(MD_D_WATCH);
		if (head - wc->sorted > MD_WATCH_RECORDS) {
			md_watch_lost += head - wc->sorted - MD_WATCH_RECORDS;
			wc->sorted = head - MD_WATCH_RECORDS;
		}
		for (; wc->sorted != head; wc->sorted++) {
			md_watch_changes++;
			if (!md_watch_read(wc, wc->sorted, &copy)) {
				md_watch_lost++;
				continue;
			}
			where = md_watch_where(&copy, &site);
			switch (where) {
			case MD_W_ACCOUNTED:
				md_watch_unpaired += !md_watch_paired(&copy);
				continue;
			case MD_W_UNKNOWN:
				md_watch_unknown++;
				continue;
			case MD_W_REPARENTED:
				md_watch_reparented++;
				md_watch_unpaired += !copy.paired;
				continue;
			case MD_W_OUTSIDE:
				md_watch_outside++;
				break;
			case MD_W_MISMATCHED:
				md_watch_mismatched++;
				break;
			}
			md_watch_say(&copy, site, where);
		}
	}
out:
	mutex_unlock(&md_watch_mutex);
}

/* Release @cpu's breakpoints (none may be left half armed). */
static void md_watch_disarm_cpu(struct md_watch_cpu *wc, int cpu)
{
	int i;

	for (i = 0; i < MD_WATCH_NODES; i++) {
		if (wc->bp[i])
			perf_event_release_kernel(wc->bp[i]);
		wc->bp[i] = NULL;
		wc->started[i] = false;	/* no handler runs for @cpu now */
	}
	cpumask_clear_cpu(cpu, &md_watch_cpus);
}

/* Release what arming took; returns the rings, to be freed once unused. */
static struct md_watch_cpu __percpu *md_watch_disarm(void)
{
	struct md_watch_cpu __percpu *pcpu = md_watch_pcpu;
	int cpu;

	lockdep_assert_held(&md_watch_mutex);
	if (!pcpu)
		return NULL;
	for_each_possible_cpu(cpu)
		md_watch_disarm_cpu(per_cpu_ptr(pcpu, cpu), cpu);
	md_watch_pcpu = NULL;
	md_notes_pair(NULL);
	css_put(&md_watch_memcg->css);
	md_watch_memcg = NULL;
	kfree(md_watch_path);
	md_watch_path = NULL;
	return pcpu;
}

/* Free the rings of a watch disarmed, once no report reads them. */
static void md_watch_free(struct md_watch_cpu __percpu *pcpu)
{
	if (!pcpu)
		return;
	/* no handler runs any more: the events are released */
	irq_work_sync(&md_watch_irq_work);
	cancel_work_sync(&md_watch_work);
	free_percpu(pcpu);
}

void md_watch_stop(void)
{
	struct md_watch_cpu __percpu *pcpu;

	mutex_lock(&md_watch_mutex);
	pcpu = md_watch_disarm();
	mutex_unlock(&md_watch_mutex);
	md_watch_free(pcpu);
}

/*
 * On the CPU being armed, interrupts off, its breakpoints in: the start
 * value of each slot, read where only this CPU writes it, so that no write
 * falls between the read and the breakpoint.  Then the self-test: the
 * value written back, which traps like any write (x86 traps on the write,
 * not on a change).  Nothing else on this CPU runs in between (no NMI
 * moves NR_FILE_DIRTY), and the kernel's own updates are single
 * instructions (this_cpu_add()), so nothing is lost.
 */
static void md_watch_start_cpu(void *info)
{
	struct md_watch_cpu *wc = info;
	long *slot;
	int i;

	for (i = 0; i < md_watch_nodes; i++) {
		slot = this_cpu_ptr(md_watch_slot[i]);
		wc->last[i] = READ_ONCE(*slot);
		wc->started[i] = true;
		WRITE_ONCE(*slot, wc->last[i]);
	}
}

/*
 * Arm @cpu: its breakpoints, its start values, and the check that each
 * breakpoint fired on the self-test's write.  0, or an error with @cpu
 * left unarmed: perf's (-ENOSPC: the debug registers are taken), or -EIO
 * for a breakpoint that did not fire.
 */
static int md_watch_arm_cpu(struct md_watch_cpu *wc, int cpu)
{
	struct perf_event_attr attr;
	struct perf_event *bp;
	u64 enabled, running;
	int i, ret;

	lockdep_assert_held(&md_watch_mutex);
	for (i = 0; i < md_watch_nodes; i++) {
		hw_breakpoint_init(&attr);
		attr.bp_addr = (unsigned long)per_cpu_ptr(md_watch_slot[i], cpu);
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		attr.bp_type = HW_BREAKPOINT_W;
		bp = perf_event_create_kernel_counter(&attr, cpu, NULL, md_watch_hit,
						      (void *)(long)i);
		if (IS_ERR(bp)) {
			ret = PTR_ERR(bp);
			goto fail;
		}
		wc->bp[i] = bp;
		if (md_watch_deaf(cpu))		/* fault injection: a register taken */
			perf_event_disable(bp);
	}
	md_delay(MD_D_WATCH_ARM);	/* hits until the start are dropped */
	ret = smp_call_function_single(cpu, md_watch_start_cpu, wc, 1);
	if (ret)
		goto fail;
	for (i = 0; i < md_watch_nodes; i++) {
		if (!perf_event_read_value(wc->bp[i], &enabled, &running)) {
			ret = -EIO;
			goto fail;
		}
	}
	cpumask_set_cpu(cpu, &md_watch_cpus);
	return 0;
fail:
	md_watch_disarm_cpu(wc, cpu);
	return ret;
}

/* Say on the console why @cpu is not watched. */
static void md_watch_say_unarmed(int cpu, int err)
{
	if (err == -EIO)
		pr_warn("watch %s: CPU %d's breakpoint did not fire on a known write of the counter: its debug registers are not ours (taken by the host, a debugger of this VM?); changes there would go unseen\n",
			md_watch_path, cpu);
	else if (err == -ENOSPC)
		pr_warn("watch %s: no hardware watchpoint for CPU %d: %d (its debug registers are taken: a debugger, perf mem:)\n",
			md_watch_path, cpu, err);
	else
		pr_warn("watch %s: no hardware watchpoint for CPU %d: %d\n",
			md_watch_path, cpu, err);
}

/*
 * CPU hotplug, in the hotplug thread of @cpu: perf drops a CPU's events
 * when it goes offline, so they are released before and made again when
 * it is back.  A CPU comes online whether or not it can be watched.
 */
static int md_watch_cpu_online(unsigned int cpu)
{
	int ret;

	mutex_lock(&md_watch_mutex);
	if (md_watch_pcpu && !cpumask_test_cpu(cpu, &md_watch_cpus)) {
		ret = md_watch_arm_cpu(per_cpu_ptr(md_watch_pcpu, cpu), cpu);
		if (ret)
			md_watch_say_unarmed(cpu, ret);
	}
	mutex_unlock(&md_watch_mutex);
	return 0;
}

static int md_watch_cpu_offline(unsigned int cpu)
{
	mutex_lock(&md_watch_mutex);
	if (md_watch_pcpu)
		md_watch_disarm_cpu(per_cpu_ptr(md_watch_pcpu, cpu), cpu);
	mutex_unlock(&md_watch_mutex);
	return 0;
}

/*
 * Every second while armed: stop a watch whose cgroup was removed (its
 * registers and its reference are not kept for a counter nobody moves any
 * more), and one the audit armed once it has named the code or its time
 * is up.
 */
static void md_watch_tend_fn(struct work_struct *work)
{
	struct md_watch_cpu __percpu *pcpu = NULL;
	char why[64] = "";

	mutex_lock(&md_watch_mutex);
	if (!md_watch_pcpu)
		goto out;
	if (css_is_dying(&md_watch_memcg->css)) {
		strscpy(why, "its cgroup was removed", sizeof(why));
	} else if (md_watch_by_audit && (md_watch_outside || md_watch_mismatched)) {
		strscpy(why, "it named the code (above)", sizeof(why));
		md_watch_named = md_watch_cgid;
	} else if (md_watch_limit_s && time_after_eq(jiffies, md_watch_until)) {
		snprintf(why, sizeof(why), "nothing named within audit_watch_s (%u s)",
			 md_watch_limit_s);
	}
	if (why[0]) {
		pr_info("watch %s (id %llu) stopped: %s; its breakpoints and the cgroup are released\n",
			md_watch_path, md_watch_cgid, why);
		pcpu = md_watch_disarm();
	} else {
		queue_delayed_work(system_unbound_wq, &md_watch_tend_work, MD_WATCH_TEND);
	}
out:
	mutex_unlock(&md_watch_mutex);
	md_watch_free(pcpu);
}

/*
 * Watch the memcg at @path on @nodes (the first MD_WATCH_NODES of them
 * with memory), replacing any watch if @replace; @by_audit: until it has
 * named the code; @limit_s: for that many seconds at most (0: no limit).
 * 0, -ENOENT (no such live cgroup), -EBUSY (another watch armed and
 * kept), -EALREADY (the audit's, on a memcg whose code it named),
 * -ENOMEM, -EIO (a breakpoint that does not fire), or perf's error for a
 * watchpoint it cannot give (such as -ENOSPC when the debug registers are
 * taken), with nothing armed.
 */
static int md_watch_arm(const char *path, const nodemask_t *nodes, bool replace,
			bool by_audit, unsigned int limit_s)
{
	struct md_watch_cpu __percpu *pcpu;
	struct mem_cgroup *memcg;
	int cpu = -1, nid, ret;
	char *name;

	memcg = md_memcg_by_path(path);
	if (!memcg)
		return -ENOENT;
	if (replace)
		md_watch_stop();
	pcpu = alloc_percpu(struct md_watch_cpu);
	name = kstrdup(path, GFP_KERNEL);
	cpus_read_lock();
	mutex_lock(&md_watch_mutex);
	if (!pcpu || !name || md_watch_pcpu ||
	    (by_audit && cgroup_id(memcg->css.cgroup) == md_watch_named)) {
		/*
		 * busy: another watch armed, kept or since md_watch_stop()
		 * above; or the audit's watch of this memcg named its code
		 */
		ret = md_watch_pcpu ? -EBUSY : !pcpu || !name ? -ENOMEM : -EALREADY;
		mutex_unlock(&md_watch_mutex);
		cpus_read_unlock();
		kfree(name);
		free_percpu(pcpu);
		css_put(&memcg->css);
		return ret;
	}
	md_watch_memcg = memcg;
	md_watch_cgid = cgroup_id(memcg->css.cgroup);
	md_watch_path = name;
	md_watch_nodes = 0;
	nodes_clear(md_watch_nodemask);
	/* only nodes with memory: the kernel gives no others nodeinfo */
	for_each_node_mask(nid, *nodes) {
		if (!node_state(nid, N_MEMORY) || md_watch_nodes == MD_WATCH_NODES)
			continue;
		node_set(nid, md_watch_nodemask);
		md_watch_nid[md_watch_nodes] = nid;
		md_watch_slot[md_watch_nodes++] = md_kernel_dirty_slot(memcg, nid);
	}
	md_watch_changes = 0;
	md_watch_outside = 0;
	md_watch_mismatched = 0;
	md_watch_unpaired = 0;
	md_watch_unknown = 0;
	md_watch_reparented = 0;
	md_watch_lost = 0;
	md_watch_nr_said = 0;
	md_watch_by_audit = by_audit;
	md_watch_limit_s = limit_s;
	md_watch_until = jiffies + (unsigned long)limit_s * HZ;
	cpumask_clear(&md_watch_cpus);
	md_watch_pcpu = pcpu;	/* before any event can fire */
	md_notes_pair(&md_watch_nodemask);
	ret = md_watch_nodes ? 0 : -ENOENT;
	for_each_online_cpu(cpu) {
		if (ret)
			break;
		ret = md_watch_arm_cpu(per_cpu_ptr(pcpu, cpu), cpu);
		if (ret)
			md_watch_say_unarmed(cpu, ret);
	}
	if (ret) {
		/* under the mutex: no other caller's watch is torn down */
		pcpu = md_watch_disarm();
	} else {
		queue_delayed_work(system_unbound_wq, &md_watch_tend_work, MD_WATCH_TEND);
		pcpu = NULL;
	}
	mutex_unlock(&md_watch_mutex);
	cpus_read_unlock();
	md_watch_free(pcpu);
	return ret;
}

/* "watch CGROUP": its first MD_WATCH_NODES nodes with memory, until stopped. */
int md_watch_start(const char *path, bool replace)
{
	return md_watch_arm(path, &node_states[N_MEMORY], replace, false, 0);
}

/*
 * The audit's watch of @path, found apart on node @nid (NUMA_NO_NODE: on
 * none alone), for at most @limit_s seconds; never replaces a watch.
 */
int md_watch_start_audit(const char *path, int nid, unsigned int limit_s)
{
	nodemask_t nodes = nid == NUMA_NO_NODE || !node_state(nid, N_MEMORY) ?
			   node_states[N_MEMORY] : nodemask_of_node(nid);

	return md_watch_arm(path, &nodes, false, true, limit_s);
}

/* The watched cgroup's path into @buf, or "" when nothing is watched. */
void md_watch_path_get(char *buf, size_t size)
{
	mutex_lock(&md_watch_mutex);
	strscpy(buf, md_watch_pcpu ? md_watch_path : "", size);
	mutex_unlock(&md_watch_mutex);
}

/* At load: follow CPU hotplug.  Without it, CPUs that come back are not watched. */
void md_watch_init(void)
{
	md_watch_hp = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "memcg_dirty/watch:online",
						md_watch_cpu_online, md_watch_cpu_offline);
	if (md_watch_hp < 0)
		pr_warn("watch: cannot follow CPU hotplug (%d): CPUs that go offline stay unwatched\n",
			md_watch_hp);
}

/* At unload, once nothing can arm a watch. */
void md_watch_exit(void)
{
	md_watch_stop();
	cancel_delayed_work_sync(&md_watch_tend_work);
	if (md_watch_hp > 0)
		cpuhp_remove_state_nocalls(md_watch_hp);
	md_watch_hp = 0;
}

/* The first line of the watch file: what is watched, and what was seen. */
static void md_watch_show_header(struct seq_file *m)
{
	seq_printf(m, "watching %s (id %llu) nodes %*pbl of %*pbl cpus %*pbl of %*pbl breakpoints %u armed_by %s",
		   md_watch_path, md_watch_cgid, nodemask_pr_args(&md_watch_nodemask),
		   nodemask_pr_args(&node_states[N_MEMORY]), cpumask_pr_args(&md_watch_cpus),
		   cpumask_pr_args(cpu_online_mask),
		   cpumask_weight(&md_watch_cpus) * md_watch_nodes,
		   md_watch_by_audit ? "audit" : "control");
	if (md_watch_limit_s)
		seq_printf(m, " stops_in_s %ld",
			   max(0L, (long)(md_watch_until - jiffies)) / HZ);
	seq_printf(m, " changes %lu outside %lu mismatched %lu unpaired %lu lost %lu unknown %lu reparented %lu\n",
		   md_watch_changes, md_watch_outside, md_watch_mismatched,
		   md_watch_unpaired, md_watch_lost, md_watch_unknown, md_watch_reparented);
}

void md_watch_show(struct seq_file *m)
{
	struct md_watch_record copy;
	enum md_watch_where where;
	struct md_watch_cpu *wc;
	unsigned long i, head;
	unsigned int site, f;
	int cpu;

	flush_work(&md_watch_work);
	mutex_lock(&md_watch_mutex);
	if (!md_watch_pcpu) {
		seq_puts(m, "watching nothing (control: watch CGROUP)\n");
		goto out;
	}
	md_watch_show_header(m);
	seq_puts(m, "cpu time_us node pages where chain\n");
	for_each_possible_cpu(cpu) {
		wc = per_cpu_ptr(md_watch_pcpu, cpu);
		head = READ_ONCE(wc->head);
		i = head > MD_WATCH_RECORDS ? head - MD_WATCH_RECORDS : 0;
		for (; i != head; i++) {
			if (!md_watch_read(wc, i, &copy))
				continue;
			where = md_watch_where(&copy, &site);
			seq_printf(m, "%d %llu %d %ld %s", cpu,
				   div_u64(copy.time_ns, NSEC_PER_USEC), copy.nid, copy.pages,
				   md_watch_where_names[where]);
			for (f = site; f < copy.depth; f++)
				seq_printf(m, "%s%pS", f == site ? " " : " <- ",
					   (void *)copy.chain[f]);
			seq_putc(m, '\n');
		}
	}
out:
	mutex_unlock(&md_watch_mutex);
}
