// SPDX-License-Identifier: GPL-2.0
/*
 * The watch: which code moves one memcg's NR_FILE_DIRTY, or its
 * NR_WRITEBACK.  "watch CGROUP [COUNTER]" in control puts a hardware data
 * watchpoint on each CPU's share of that memcg's per-node counter, the
 * per-CPU slot every update of the kernel
 * writes (compat.c, md_kernel_slot()), through perf's exported
 * hw_breakpoint interface: one CPU-bound event per CPU and node.  A write
 * there traps once done; the handler reads the slot (the change since its
 * last hit) and saves the call chain that made it, in a ring per CPU.
 * Hardware sees every write, whatever the compiler inlined.
 *
 * A work item then finds, in each chain, the code that made the change,
 * and says the wrong ones on the console (watch_report.c).  For a
 * reparenting, the note (notes.c) says what the child's counter held at
 * the call's entry, and the handler reads what it holds when the parent's
 * moves (md_notes_reparent_held()), while the child is sure to be alive.
 * "watch" in debugfs lists the last changes of each CPU
 * (md_watch_read_begin()).
 *
 * x86 has four debug registers per CPU: up to four nodes are watched, the
 * first four with memory ("watch CGROUP"), or the one the audit found apart
 * (audit.c).  One memcg and one counter at a time (two counters on two
 * nodes would fit, but would halve the nodes a counter gets), armed only
 * on demand: while armed, each change of its counter costs a debug
 * exception.  Each CPU is armed in
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
 * and queues an irq_work.  Arming, disarming, the report and the reading
 * sleep, under md_watch_mutex, taken inside the CPU hotplug lock
 * (cpus_read_lock(), or the hotplug callbacks').
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hw_breakpoint.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/stacktrace.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "inject_hooks.h"
#include "memcg.h"
#include "notes.h"
#include "points.h"
#include "watch.h"
#include "watch_report.h"

#define MD_WATCH_NODES		4	/* debug registers per CPU (x86) */
#define MD_WATCH_SAVE		24	/* frames saved, the exception's own included */
#define MD_WATCH_TEND		HZ	/* how often md_watch_tend_fn() looks */

/* Per CPU; index i of the arrays is node md_watch_nid[i]. */
struct md_watch_cpu {
	struct perf_event *bp[MD_WATCH_NODES];
	long last[MD_WATCH_NODES];	/* the slot's value at the last hit */
	bool started[MD_WATCH_NODES];	/* last[] read on this CPU, once armed */
	struct md_watch_ring ring;
};

static DEFINE_MUTEX(md_watch_mutex);
/* Set while armed: the handler's data. */
static struct md_watch_cpu __percpu *md_watch_pcpu;
static long __percpu *md_watch_slot[MD_WATCH_NODES];
static int md_watch_nid[MD_WATCH_NODES];
/* The rest under md_watch_mutex. */
static struct mem_cgroup *md_watch_memcg;	/* a reference while armed */
static u64 md_watch_cgid;
static enum md_counter md_watch_counter;
static int md_watch_nodes;
static nodemask_t md_watch_nodemask;
static struct cpumask md_watch_cpus;		/* CPUs armed */
static bool md_watch_by_audit;			/* stops once it has named the code */
static unsigned int md_watch_limit_s;		/* 0, or it stops after this long */
static unsigned long md_watch_until;		/* jiffies: then */
static int md_watch_hp;				/* the hotplug state, or <= 0 */
static u64 md_watch_named;			/* whose code the audit's watch named */
static enum md_counter md_watch_named_counter;	/* and of which counter */
static char *md_watch_path;
static struct md_watch_tally md_watch_tally;	/* what this arming saw, sorted */

static void md_watch_report_fn(struct work_struct *work);
static DECLARE_WORK(md_watch_work, md_watch_report_fn);
static void md_watch_tend_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(md_watch_tend_work, md_watch_tend_fn);

static void md_watch_kick(struct irq_work *work)
{
	queue_work(md_wq, &md_watch_work);
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
	r = md_watch_ring_claim(&wc->ring);
	r->nid = md_watch_nid[i];
	r->pages = now - wc->last[i];
	r->time_ns = local_clock();
	/* a note of a change of another counter is no pairing */
	r->paired = md_notes_change_of(current, &r->note) &&
		    (md_point_counters(r->note.point) & BIT(md_watch_counter));
	r->reparent_raced = r->paired ? md_notes_reparent_raced(&r->note) : MD_RACE_NONE;
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
	md_watch_ring_publish(&wc->ring, r);
	wc->last[i] = now;
	irq_work_queue(&md_watch_irq_work);
}

/* What is watched, as the report names it; under md_watch_mutex, armed. */
static struct md_watch_target md_watch_target(void)
{
	lockdep_assert_held(&md_watch_mutex);
	return (struct md_watch_target){
		.path = md_watch_path,
		.cgid = md_watch_cgid,
		.counter = md_watch_counter,
	};
}

/* Sort the changes recorded since the last run; say the wrong ones. */
static void md_watch_report_fn(struct work_struct *work)
{
	struct md_watch_target target;
	int cpu;

	mutex_lock(&md_watch_mutex);
	if (!md_watch_pcpu)
		goto out;
	target = md_watch_target();
	for_each_possible_cpu(cpu)
		md_watch_report_ring(&per_cpu_ptr(md_watch_pcpu, cpu)->ring, &target,
				     &md_watch_tally);
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
	md_notes_pair(NULL, NULL, MD_C_DIRTY);
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

	cpus_read_lock();	/* md_notes_pair() */
	mutex_lock(&md_watch_mutex);
	pcpu = md_watch_disarm();
	mutex_unlock(&md_watch_mutex);
	cpus_read_unlock();
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

	cpus_read_lock();	/* md_watch_disarm(): md_notes_pair() */
	mutex_lock(&md_watch_mutex);
	if (!md_watch_pcpu)
		goto out;
	if (css_is_dying(&md_watch_memcg->css)) {
		strscpy(why, "its cgroup was removed", sizeof(why));
	} else if (md_watch_by_audit && (md_watch_tally.outside || md_watch_tally.mismatched)) {
		strscpy(why, "it named the code (above)", sizeof(why));
		md_watch_named = md_watch_cgid;
		md_watch_named_counter = md_watch_counter;
	} else if (md_watch_limit_s && time_after_eq(jiffies, md_watch_until)) {
		snprintf(why, sizeof(why), "nothing named within audit_watch_s (%u s)",
			 md_watch_limit_s);
	}
	if (why[0]) {
		pr_info("watch %s (id %llu) stopped: %s; its breakpoints and the cgroup are released\n",
			md_watch_path, md_watch_cgid, why);
		pcpu = md_watch_disarm();
	} else {
		queue_delayed_work(md_wq, &md_watch_tend_work, MD_WATCH_TEND);
	}
out:
	mutex_unlock(&md_watch_mutex);
	cpus_read_unlock();
	md_watch_free(pcpu);
}

/*
 * Watch counter @c of the memcg at @path on @nodes (the first
 * MD_WATCH_NODES of them with memory), replacing any watch if @replace;
 * @by_audit: until it has named the code; @limit_s: for that many
 * seconds at most (0: no limit).
 * 0, -ENOENT (no such live cgroup), -EBUSY (another watch armed and
 * kept), -EALREADY (the audit's, on a memcg whose code it named),
 * -ENOMEM, -EIO (a breakpoint that does not fire), or perf's error for a
 * watchpoint it cannot give (such as -ENOSPC when the debug registers are
 * taken), with nothing armed.
 */
static int md_watch_arm(const char *path, enum md_counter c, const nodemask_t *nodes,
			bool replace, bool by_audit, unsigned int limit_s)
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
	    (by_audit && cgroup_id(memcg->css.cgroup) == md_watch_named &&
	     c == md_watch_named_counter)) {
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
	md_watch_counter = c;
	md_watch_path = name;
	md_watch_nodes = 0;
	nodes_clear(md_watch_nodemask);
	/* only nodes with memory: the kernel gives no others nodeinfo */
	for_each_node_mask(nid, *nodes) {
		if (!node_state(nid, N_MEMORY) || md_watch_nodes == MD_WATCH_NODES)
			continue;
		node_set(nid, md_watch_nodemask);
		md_watch_nid[md_watch_nodes] = nid;
		md_watch_slot[md_watch_nodes++] = md_kernel_slot(memcg, c, nid);
	}
	memset(&md_watch_tally, 0, sizeof(md_watch_tally));
	md_watch_report_reset();
	md_watch_by_audit = by_audit;
	md_watch_limit_s = limit_s;
	md_watch_until = jiffies + (unsigned long)limit_s * HZ;
	cpumask_clear(&md_watch_cpus);
	md_watch_pcpu = pcpu;	/* before any event can fire */
	md_notes_pair(memcg, &md_watch_nodemask, c);
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
		queue_delayed_work(md_wq, &md_watch_tend_work, MD_WATCH_TEND);
		pcpu = NULL;
	}
	mutex_unlock(&md_watch_mutex);
	cpus_read_unlock();
	md_watch_free(pcpu);
	return ret;
}

/*
 * "watch CGROUP [COUNTER]": counter @c on its first MD_WATCH_NODES nodes
 * with memory, until stopped.
 */
int md_watch_start(const char *path, enum md_counter c, bool replace)
{
	return md_watch_arm(path, c, &node_states[N_MEMORY], replace, false, 0);
}

/*
 * The audit's watch of @path's counter @c, found apart on node @nid
 * (NUMA_NO_NODE: on none alone), for at most @limit_s seconds; never
 * replaces a watch.
 */
int md_watch_start_audit(const char *path, enum md_counter c, int nid, unsigned int limit_s)
{
	nodemask_t nodes = nid == NUMA_NO_NODE || !node_state(nid, N_MEMORY) ?
			   node_states[N_MEMORY] : nodemask_of_node(nid);

	return md_watch_arm(path, c, &nodes, false, true, limit_s);
}

/*
 * What is watched, as "watch" in control takes it, into @buf: the
 * cgroup's path, then the counter's name unless it is dirty's; "" when
 * nothing is watched.
 */
void md_watch_path_get(char *buf, size_t size)
{
	mutex_lock(&md_watch_mutex);
	if (!md_watch_pcpu)
		strscpy(buf, "", size);
	else if (md_watch_counter == MD_C_DIRTY)
		strscpy(buf, md_watch_path, size);
	else
		snprintf(buf, size, "%s %s", md_watch_path, md_counter_names[md_watch_counter]);
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

/*
 * Begin reading the watch for its debugfs file: false when nothing is
 * watched; otherwise what it watches and saw, in @st, and @cur before its
 * first change.  Holds md_watch_mutex: md_watch_read_end() follows,
 * whatever it returns.
 */
bool md_watch_read_begin(struct md_watch_state *st, struct md_watch_cursor *cur)
{
	flush_work(&md_watch_work);
	mutex_lock(&md_watch_mutex);
	if (!md_watch_pcpu)
		return false;
	st->path = md_watch_path;
	st->cgid = md_watch_cgid;
	st->counter = md_watch_counter;
	st->nodes = &md_watch_nodemask;
	st->cpus = &md_watch_cpus;
	st->breakpoints = cpumask_weight(&md_watch_cpus) * md_watch_nodes;
	st->by_audit = md_watch_by_audit;
	st->limit_s = md_watch_limit_s;
	st->stops_in_s = max(0L, (long)(md_watch_until - jiffies)) / HZ;
	st->tally = md_watch_tally;
	cur->cpu = -1;
	cur->index = 0;
	cur->head = 0;
	return true;
}

/*
 * The next change @cur finds in the rings, CPU by CPU, each CPU's last
 * MD_WATCH_RECORDS oldest first, skipping those being rewritten; false
 * past the last.
 */
bool md_watch_read_change(struct md_watch_cursor *cur, struct md_watch_change *c)
{
	struct md_watch_target target;
	struct md_watch_record copy;
	struct md_watch_ring *ring;
	unsigned int site;

	lockdep_assert_held(&md_watch_mutex);
	for (;;) {
		if (cur->index == cur->head) {	/* this CPU's done: the next one's */
			cur->cpu = cpumask_next(cur->cpu, cpu_possible_mask);
			if (cur->cpu >= nr_cpu_ids)
				return false;
			ring = &per_cpu_ptr(md_watch_pcpu, cur->cpu)->ring;
			cur->head = READ_ONCE(ring->head);
			cur->index = cur->head > MD_WATCH_RECORDS ?
				     cur->head - MD_WATCH_RECORDS : 0;
			continue;
		}
		ring = &per_cpu_ptr(md_watch_pcpu, cur->cpu)->ring;
		if (md_watch_ring_read(ring, cur->index++, &copy))
			break;
	}
	c->cpu = cur->cpu;
	c->time_ns = copy.time_ns;
	c->nid = copy.nid;
	c->pages = copy.pages;
	target = md_watch_target();
	c->where = md_watch_where(&copy, &target, &site);
	c->nr_frames = copy.depth - site;
	memcpy(c->frames, copy.chain + site, c->nr_frames * sizeof(c->frames[0]));
	return true;
}

void md_watch_read_end(void)
{
	mutex_unlock(&md_watch_mutex);
}
