// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection for testing the checks themselves, only when loaded with
 * fault_inject=1 (which taints the kernel).  The upper half (inject.h says
 * how the two divide the work): the commands, and what drop, miss, skew
 * and replay42 do; what delay, nomem and deaf set is inject_hooks.c's.
 * debugfs "inject" takes:
 *   drop POINT N [CGROUP]  the ledger ignores the next N updates from a
 *                       probe point (for CGROUP only, if given)
 *   miss POINT N        count N missed hits on a probe point
 *   skew CGROUP PAGES   move the kernel's own counter of CGROUP by +-PAGES
 *                       (not the node's: see md_kernel_skew())
 *   unskew CGROUP       undo every skew of CGROUP
 *   replay42 on|off     each migration of a dirty folio also applies the 4.2
 *                       bug's net effect: a memcg decrement without increment
 *   delay POINT USECS   hold a race window open (inject_hooks.h lists the
 *                       points; 0 turns it off); the delay parameter sets
 *                       one at load
 *   nomem NAME N        the next N entry creations for cgroups named NAME
 *                       fail as if memory were short (0 turns it off)
 *   hold PATH MSECS     keep PATH's first cached folio locked that long
 *   deaf CPU|off        the watch's breakpoints on CPU are installed and then
 *                       disabled, as if the host had taken the debug registers
 * CGROUP is a path in the memory hierarchy ("/" for the root).  The kernel's
 * counters are put back as they were: on unload for memcgs still alive,
 * and when a memcg goes offline (before its stats are flushed into its
 * parent's for good).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/nodemask.h>
#include <linux/panic.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include "inject.h"
#include "ledger.h"
#include "memcg.h"

static bool fault_inject;
module_param(fault_inject, bool, 0400);
MODULE_PARM_DESC(fault_inject, "enable the debugfs inject file (taints the kernel)");

static char *delay;
module_param(delay, charp, 0400);
MODULE_PARM_DESC(delay, "with fault_inject: POINT:USECS, a delay point set from the load on (e.g. load:500000)");

/*
 * Skews and their undoing, serialised against a memcg going offline: one
 * that saw the memcg alive is undone by the offline probe, one that comes
 * after finds it dying and does nothing.
 */
static DEFINE_RAW_SPINLOCK(md_skew_lock);
static atomic_t md_drop[MD_NR_POINTS];
static u64 md_drop_cgid[MD_NR_POINTS];	/* 0: any memcg */
static atomic_long_t md_miss[MD_NR_POINTS];
static bool md_replay42;
static atomic_long_t md_replayed;
static atomic_t md_holding;	/* folios "hold" keeps locked right now */

#define MD_INJECT_MAX_N		1000000
#define MD_INJECT_MAX_PAGES	1048576L

static unsigned int slot_shift;
module_param(slot_shift, uint, 0400);
MODULE_PARM_DESC(slot_shift, "with fault_inject: read the kernel's counter this many slots off NR_FILE_DIRTY's, which the load must refuse");

bool md_inject_enabled(void)
{
	return fault_inject;
}

/* Before md_inject_init(): only the parameters are read. */
unsigned int md_inject_slot_shift(void)
{
	return fault_inject ? slot_shift : 0;
}

/* The delay parameter, POINT:USECS: windows that open before inject exists. */
static void md_inject_delay_param(void)
{
	char point[16];
	unsigned long us;
	const char *colon;

	if (!delay)
		return;
	colon = strchr(delay, ':');
	if (!colon || colon - delay >= sizeof(point) || kstrtoul(colon + 1, 10, &us)) {
		pr_warn("delay=%s: not POINT:USECS, ignored\n", delay);
		return;
	}
	strscpy(point, delay, colon - delay + 1);
	if (md_delay_set(point, us))
		pr_warn("delay=%s: no such point, or over %d us, ignored\n",
			delay, MD_DELAY_MAX_US);
}

void md_inject_init(void)
{
	if (!fault_inject)
		return;
	add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	pr_warn("fault injection enabled (fault_inject=1): kernel tainted\n");
	md_inject_delay_param();
	static_branch_enable(&md_inject_key);
}

/* Apply @pages to @memcg's kernel counter on @nid, remembered in @e. */
static void md_skew_apply(struct md_entry *e, struct mem_cgroup *memcg, int nid,
			  long pages)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&md_skew_lock, flags);
	if (!css_is_dying(&memcg->css)) {
		md_kernel_skew(memcg, MD_C_DIRTY, nid, pages);
		atomic_long_add(pages, &e->inject.skew[nid]);
	}
	raw_spin_unlock_irqrestore(&md_skew_lock, flags);
}

static void md_skew_undo(struct md_entry *e, struct mem_cgroup *memcg)
{
	unsigned long flags;
	int nid;

	raw_spin_lock_irqsave(&md_skew_lock, flags);
	for_each_node(nid)
		md_kernel_skew(memcg, MD_C_DIRTY, nid, -atomic_long_xchg(&e->inject.skew[nid], 0));
	raw_spin_unlock_irqrestore(&md_skew_lock, flags);
}

void __md_inject_memcg_offline(struct mem_cgroup *memcg)
{
	struct md_entry *e;

	rcu_read_lock();
	e = md_entry_lookup(memcg);
	if (e)
		md_skew_undo(e, memcg);
	rcu_read_unlock();
}

/* Probe handlers: true if this update is to be dropped. */
bool __md_inject_drop(enum md_point p, struct mem_cgroup *memcg)
{
	u64 cgid = READ_ONCE(md_drop_cgid[p]);

	if (!atomic_read(&md_drop[p]))
		return false;
	if (cgid && (!memcg || cgroup_id(memcg->css.cgroup) != cgid))
		return false;
	return atomic_dec_if_positive(&md_drop[p]) >= 0;
}

unsigned long md_inject_missed(enum md_point p)
{
	return fault_inject ? atomic_long_read(&md_miss[p]) : 0;
}

/* Migration handler: the 4.2 kernel lost the increment for the new page. */
void __md_inject_migrated(struct mem_cgroup *memcg, int nid, long pages)
{
	struct md_entry *e;

	if (!READ_ONCE(md_replay42) || !memcg)
		return;
	e = md_entry_lookup(memcg);
	if (!e)
		return;
	md_skew_apply(e, memcg, nid, -pages);
	atomic_long_add(pages, &md_replayed);
}

/* Apply @pages to @memcg's kernel counter on its first node, remembered. */
static int md_inject_skew(struct mem_cgroup *memcg, long pages, bool undo)
{
	struct md_entry *e;

	lockdep_assert_held(&md_mutex);
	e = md_entry_get(memcg, GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	if (undo)
		md_skew_undo(e, memcg);
	else
		md_skew_apply(e, memcg, first_online_node, pages);
	return 0;
}

static int md_point_by_name(const char *name)
{
	int p;

	for (p = 0; p < MD_NR_POINTS; p++)
		if (!strcmp(name, md_point_name(p)))
			return p;
	return -1;
}

/* drop POINT N [CGROUP], miss POINT N */
static int md_cmd_drop_miss(char **arg, int nargs, bool drop)
{
	struct mem_cgroup *memcg;
	u64 cgid = 0;
	long n;
	int p;

	p = md_point_by_name(arg[0]);
	if (p < 0)
		return -ENOENT;
	if (kstrtol(arg[1], 10, &n) || n < 1 || n > MD_INJECT_MAX_N)
		return -EINVAL;
	if (!drop) {
		atomic_long_add(n, &md_miss[p]);
		return 0;
	}
	if (nargs == 3) {
		memcg = md_memcg_by_path(arg[2]);
		if (!memcg)
			return -ENOENT;
		cgid = cgroup_id(memcg->css.cgroup);
		css_put(&memcg->css);
	}
	atomic_set(&md_drop[p], 0);
	WRITE_ONCE(md_drop_cgid[p], cgid);
	atomic_set(&md_drop[p], n);
	return 0;
}

/* replay42 on|off */
static int md_cmd_replay42(char **arg, int nargs, bool unused)
{
	if (!strcmp(arg[0], "on"))
		WRITE_ONCE(md_replay42, true);
	else if (!strcmp(arg[0], "off"))
		WRITE_ONCE(md_replay42, false);
	else
		return -EINVAL;
	return 0;
}

/* delay POINT USECS */
static int md_cmd_delay(char **arg, int nargs, bool unused)
{
	unsigned long us;

	if (kstrtoul(arg[1], 10, &us))
		return -EINVAL;
	return md_delay_set(arg[0], us);
}

/* deaf CPU|off */
static int md_cmd_deaf(char **arg, int nargs, bool unused)
{
	int cpu;

	if (!strcmp(arg[0], "off"))
		return md_watch_deaf_set(-1);
	if (kstrtoint(arg[0], 10, &cpu) || cpu < 0)
		return -EINVAL;
	return md_watch_deaf_set(cpu);
}

/* nomem NAME N */
static int md_cmd_nomem(char **arg, int nargs, bool unused)
{
	long n;

	if (kstrtol(arg[1], 10, &n) || n < 0 || n > MD_INJECT_MAX_N)
		return -EINVAL;
	return md_fail_entry_set(arg[0], n);
}

/*
 * hold PATH MSECS: keep the first page-cache folio of PATH locked, as a
 * writer between write_begin and write_end would, so that a test can show
 * what the scan makes of a locked folio.  Sleeps in the writer's context.
 */
static int md_cmd_hold(char **arg, int nargs, bool unused)
{
	struct folio *folio;
	struct path path;
	unsigned long ms;
	int ret;

	if (kstrtoul(arg[1], 10, &ms) || !ms || ms > MD_DELAY_MAX_US / USEC_PER_MSEC)
		return -EINVAL;
	ret = kern_path(arg[0], LOOKUP_FOLLOW, &path);
	if (ret)
		return ret;
	/* NULL (6.1) or an error (6.12) when the folio is not cached */
	folio = filemap_lock_folio(d_inode(path.dentry)->i_mapping, 0);
	if (IS_ERR_OR_NULL(folio)) {
		path_put(&path);
		return -ENODATA;
	}
	atomic_inc(&md_holding);
	msleep(ms);
	atomic_dec(&md_holding);
	folio_unlock(folio);
	folio_put(folio);
	path_put(&path);
	return 0;
}

/* skew CGROUP PAGES, unskew CGROUP */
static int md_cmd_skew(char **arg, int nargs, bool skew)
{
	struct mem_cgroup *memcg;
	long n = 0;
	int ret;

	if (skew && (kstrtol(arg[1], 10, &n) || !n ||
		     n < -MD_INJECT_MAX_PAGES || n > MD_INJECT_MAX_PAGES))
		return -EINVAL;
	memcg = md_memcg_by_path(arg[0]);
	if (!memcg)
		return -ENOENT;
	mutex_lock(&md_mutex);
	ret = md_inject_skew(memcg, n, !skew);
	mutex_unlock(&md_mutex);
	css_put(&memcg->css);
	return ret;
}

#define MD_CMD_MAX_ARGS	3

static const struct md_inject_cmd {
	const char *verb;
	int min_args, max_args;
	int (*run)(char **arg, int nargs, bool flag);
	bool flag;
} md_inject_cmds[] = {
	{ "deaf",	1, 1, md_cmd_deaf,	false },
	{ "delay",	2, 2, md_cmd_delay,	false },
	{ "drop",	2, 3, md_cmd_drop_miss,	true },
	{ "hold",	2, 2, md_cmd_hold,	false },
	{ "miss",	2, 2, md_cmd_drop_miss,	false },
	{ "nomem",	2, 2, md_cmd_nomem,	false },
	{ "replay42",	1, 1, md_cmd_replay42,	false },
	{ "skew",	2, 2, md_cmd_skew,	true },
	{ "unskew",	1, 1, md_cmd_skew,	false },
};

/* One command: a verb and its space-separated arguments.  0 or -errno. */
int md_inject_command(char *cmd)
{
	char *verb = strsep(&cmd, " "), *arg[MD_CMD_MAX_ARGS];
	const struct md_inject_cmd *c;
	int nargs = 0;

	while (cmd && nargs < MD_CMD_MAX_ARGS)
		arg[nargs++] = strsep(&cmd, " ");
	if (cmd)			/* more arguments than any command takes */
		return -EINVAL;
	for (c = md_inject_cmds; c < md_inject_cmds + ARRAY_SIZE(md_inject_cmds); c++) {
		if (strcmp(verb, c->verb))
			continue;
		if (nargs < c->min_args || nargs > c->max_args)
			return -EINVAL;
		return c->run(arg, nargs, c->flag);
	}
	return -EINVAL;
}

/* Into @st, what the commands set and what it did: for debugfs "inject" (show.c). */
void md_inject_read(struct md_inject_state *st)
{
	int p;

	st->replay42 = READ_ONCE(md_replay42);
	st->replayed_pages = atomic_long_read(&md_replayed);
	st->holding = atomic_read(&md_holding);
	for (p = 0; p < MD_NR_POINTS; p++) {
		st->points[p].drop = atomic_read(&md_drop[p]);
		st->points[p].miss = atomic_long_read(&md_miss[p]);
	}
}

/* Put back what skew and replay did to memcgs that are still alive. */
void md_inject_exit(void)
{
	struct md_entry *e;
	struct mem_cgroup *memcg;

	if (!fault_inject)
		return;
	mutex_lock(&md_mutex);
	md_ledger_list_fresh();		/* skewed entries not listed yet too */
	list_for_each_entry(e, &md_entries, node) {
		memcg = md_entry_pin(e);
		if (!memcg)
			continue;
		md_skew_undo(e, memcg);
		css_put(&memcg->css);
	}
	mutex_unlock(&md_mutex);
}
