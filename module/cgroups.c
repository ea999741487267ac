// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/memcg_dirty/cgroups/: a mirror of the memory cgroup
 * hierarchy, a directory per memcg with its stat and check files.  This
 * file owns those dentries only: the ledger's walk (md_ledger_walk_*())
 * does the upkeep of the entries and hands over each memcg's entry, then
 * the dead ones, whose directories are removed after md_mutex is dropped
 * (as mm/shrinker_debug.c does), by one walk at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "attach.h"
#include "cgroups.h"
#include "check.h"
#include "compat.h"
#include "inject_hooks.h"
#include "ledger.h"
#include "memcg.h"
#include "unit.h"

#define MD_MODE_RO	0400

static struct dentry *md_cgroups_dir;

/*
 * Counter @c's ledger and kernel values summed over @memcg's subtree,
 * dying included, and carried.  Summed again if a carry ran meanwhile (it
 * may have moved values inside the subtree), at most MD_CARRY_TRIES times:
 * false if the last sum still had one run through it.
 */
static bool md_subtree_sum(struct mem_cgroup *memcg, enum md_counter c, long *ledger,
			   long *kernel)
{
	struct md_unit_walk w;
	struct mem_cgroup *pos;
	struct md_entry *e;
	int nid;

	md_unit_walk_begin(&w, memcg, MD_UNIT_SUBTREE);
	do {
		md_delay(MD_D_CARRY_READ);
		*ledger = 0;
		*kernel = 0;
		rcu_read_lock();
		while ((pos = md_unit_walk_next(&w))) {
			e = md_entry_lookup(pos);
			for_each_node(nid) {
				if (e) {	/* and what freed descendants left */
					*ledger += md_entry_ledger(e, c, nid) +
						   md_entry_carried_ledger(e, c, nid);
					*kernel += md_entry_carried_kernel(e, c, nid);
				}
				*kernel += md_kernel_node(pos, c, nid);
			}
		}
		rcu_read_unlock();
	} while (md_unit_walk_again(&w));
	return w.settled;
}

/*
 * Counter @c's lines of the stat file, each key named after it: dirty,
 * kernel_dirty_hier, writeback_node0...  Whether the _hier sums settled.
 */
static bool md_stat_counter(struct seq_file *m, struct md_entry *e, struct mem_cgroup *memcg,
			    enum md_counter c)
{
	const char *name = md_counter_names[c];
	long ledger = 0, kernel = 0, hl, hk;
	bool settled;
	int nid;

	for_each_node(nid) {
		ledger += md_entry_ledger(e, c, nid);
		kernel += md_kernel_node(memcg, c, nid);
	}
	settled = md_subtree_sum(memcg, c, &hl, &hk);
	seq_printf(m, "%s %ld\n%s_hier %ld\n", name, ledger, name, hl);
	seq_printf(m, "kernel_%s %ld\nkernel_%s_hier %ld\n", name, kernel, name, hk);
	for_each_node(nid) {
		seq_printf(m, "%s_node%d %ld\n", name, nid, md_entry_ledger(e, c, nid));
		seq_printf(m, "kernel_%s_node%d %ld\n", name, nid, md_kernel_node(memcg, c, nid));
	}
	/* the dirty counter's is "synced", the entry's (below) */
	if (c != MD_C_DIRTY)
		seq_printf(m, "%s_synced %d\n", name,
			   READ_ONCE(e->synced) && !test_bit(c, &e->rows_unsynced));
	return settled;
}

/* What freed descendants left in @e, of counter @c: "carried", "carried_writeback"... */
static void md_stat_carried(struct seq_file *m, struct md_entry *e, enum md_counter c)
{
	const char *sep = c == MD_C_DIRTY ? "" : "_";
	const char *name = c == MD_C_DIRTY ? "" : md_counter_names[c];
	long ledger = 0, kernel = 0;
	int nid;

	for_each_node(nid) {
		ledger += md_entry_carried_ledger(e, c, nid);
		kernel += md_entry_carried_kernel(e, c, nid);
	}
	seq_printf(m, "carried%s%s %ld\nkernel_carried%s%s %ld\n", sep, name, ledger,
		   sep, name, kernel);
}

static int md_stat_show(struct seq_file *m, void *v)
{
	struct md_entry *e = m->private;
	struct mem_cgroup *memcg;
	bool settled = true;
	enum md_counter c;
	int ev;

	memcg = md_entry_pin(e);
	if (!memcg)
		return -ENOENT;		/* freed while the file was open */

	/*
	 * A miss the probes already counted unsyncs its rows before they are
	 * shown, as check, summary and events have it: else writeback_synced
	 * says 1 of a row the next of those reads takes back.
	 */
	md_probes_log_missed();
	for (c = 0; c < MD_NR_COUNTERS; c++)
		settled &= md_stat_counter(m, e, memcg, c);
	for (ev = 0; ev < MD_NR_EVENTS; ev++)
		seq_printf(m, "%s %ld\n", md_event_names[ev], md_entry_event(e, ev));
	/* A folio dirtied while uncharged has no cgroup: counted at the root. */
	seq_printf(m, "dirtied_uncharged %ld\n",
		   memcg == md_root_memcg() ? md_uncharged_total() : 0);
	seq_printf(m, "synced %d\n", READ_ONCE(e->synced));
	if (MD_KERNEL_REPARENTS) {
		for (c = 0; c < MD_NR_COUNTERS; c++)
			md_stat_carried(m, e, c);
		seq_printf(m, "kernel_carried_unseen %ld\n",
			   READ_ONCE(e->scan.kernel_carried_unseen));
	}
	/* 0: carries kept running through the _hier sums, which may be off */
	seq_printf(m, "hier_settled %d\n", settled);
	css_put(&memcg->css);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_stat);

static int md_check_file_show(struct seq_file *m, void *v)
{
	struct md_entry *e = m->private;
	const struct md_check_row *r;
	struct mem_cgroup *memcg;
	enum md_counter ctr;
	struct md_check c;
	const char *name;

	memcg = md_entry_pin(e);
	if (!memcg)
		return -ENOENT;
	md_probes_log_missed();
	mutex_lock(&md_mutex);
	md_check_memcg(e, memcg, &c, MD_CHECK_SCAN |
		       MD_CHECK_UNTRUSTED(md_probes_untrusted()));
	mutex_unlock(&md_mutex);
	css_put(&memcg->css);
	/* the worst counter's verdict and figures, then every counter's */
	seq_printf(m, "verdict %s\n", md_verdict_names[c.verdict]);
	seq_printf(m, "kernel %ld\nledger %ld\nscan %ld\n", c.kernel, c.ledger, c.scan);
	seq_printf(m, "ledger_known %d\n", !c.ledger_unknown);
	seq_printf(m, "scan_age_ms %llu\n", c.scan_age_ms);
	seq_printf(m, "suspect %s\n", md_view_names[c.suspect]);
	seq_printf(m, "delta %ld\n", c.delta);
	seq_printf(m, "quiescent %d\nbound %ld\n", c.quiescent, c.bound);
	if (c.unit)
		seq_printf(m, "unit %llu\n", c.unit);
	seq_printf(m, "scan_busy %ld\n", c.scan_busy);
	seq_printf(m, "counter %s\n", md_counter_names[c.counter]);
	for (ctr = 0; ctr < MD_NR_COUNTERS; ctr++) {
		r = &c.rows[ctr];
		name = md_counter_names[ctr];
		seq_printf(m, "%s_verdict %s\n", name, md_verdict_names[r->verdict]);
		seq_printf(m, "%s_kernel %ld\n%s_ledger %ld\n%s_scan %ld\n", name, r->kernel,
			   name, r->ledger, name, r->scan);
		seq_printf(m, "%s_suspect %s\n%s_delta %ld\n", name, md_view_names[r->suspect],
			   name, r->delta);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_check_file);

/*
 * Directory name for a memcg: its cgroup name, with a '%' prefix where the
 * name would collide with our own files (or starts with '%' itself), and an
 * @ID suffix once the cgroup is removed, so a new cgroup of the same name
 * can take the plain name while the dying one is still counted.
 */
static const char * const md_reserved[] = { "stat", "check" };

static char *md_dir_name(struct mem_cgroup *memcg, u64 cgid)
{
	char *path, *name, *base;
	bool escape = false;
	int i, len;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return NULL;
	len = cgroup_path(memcg->css.cgroup, path, PATH_MAX);
	if (len < 0 || len >= PATH_MAX) {
		kfree(path);
		return NULL;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (i = 0; i < ARRAY_SIZE(md_reserved); i++)
		escape |= !strcmp(base, md_reserved[i]);
	escape |= base[0] == '%';
	if (css_is_dying(&memcg->css))
		name = kasprintf(GFP_KERNEL, "%s%s@%llu", escape ? "%" : "", base, cgid);
	else
		name = kasprintf(GFP_KERNEL, "%s%s", escape ? "%" : "", base);
	kfree(path);
	return name;
}

/*
 * A memcg's directory goes in its parent's; the root memcg's is cgroups/
 * itself.  Without its parent's (no entry, or no directory yet: an
 * allocation failed) it waits for a later reconcile.
 */
static void md_cgroups_entry_dir(struct md_entry *e, struct md_entry *parent,
				 struct mem_cgroup *memcg)
{
	struct dentry *dir;
	char *name;

	if (!md_cgroups_dir)	/* debugfs is off */
		return;
	if (memcg == md_root_memcg()) {
		dir = md_cgroups_dir;
	} else {
		if (!parent || !parent->fs.dir)
			return;
		name = md_dir_name(memcg, e->cgid);
		if (!name)
			return;
		dir = debugfs_create_dir(name, parent->fs.dir);
		if (IS_ERR(dir)) {
			pr_warn_ratelimited("cannot create cgroups/.../%s for cgroup %llu: %ld\n",
					    name, e->cgid, PTR_ERR(dir));
			kfree(name);
			return;
		}
		kfree(name);
		e->fs.renamed = css_is_dying(&memcg->css);
	}
	debugfs_create_file("stat", MD_MODE_RO, dir, e, &md_stat_fops);
	debugfs_create_file("check", MD_MODE_RO, dir, e, &md_check_file_fops);
	e->fs.dir = dir;
}

static void md_cgroups_entry_rename(struct md_entry *e, struct md_entry *parent,
				    struct mem_cgroup *memcg)
{
	char *name;
	int ret;

	if (!parent || !parent->fs.dir)
		return;
	name = md_dir_name(memcg, e->cgid);
	if (!name)
		return;
	ret = md_debugfs_rename(e->fs.dir, name);
	if (ret)
		pr_warn_ratelimited("cannot rename dying cgroup %llu to %s: %d\n",
				    e->cgid, name, ret);
	else
		e->fs.renamed = true;
	kfree(name);
}

/*
 * The entry of @memcg's parent, or NULL.  The walk holds @memcg, which
 * holds its parent, whose entry lives as long as it does.
 */
static struct md_entry *md_parent_entry(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);
	struct md_entry *e;

	if (!parent)
		return NULL;
	rcu_read_lock();
	e = md_entry_lookup(parent);
	rcu_read_unlock();
	return e;
}

/*
 * Bring cgroups/ in line with the memory cgroup hierarchy: a directory for
 * every memcg (dying ones renamed NAME@ID), none for freed ones.  Process
 * context: the change work (@work), a summary reader, the load.
 *
 * The ledger's walk keeps one walk at a time from taking the dead entries
 * to freeing them, so a child's directory is always gone before its
 * parent's (recursive) removal starts.  It cannot deadlock:
 * debugfs_remove() in the walk waits for readers of the dead entries'
 * stat and check files, which take md_mutex only (dropped by then); the
 * one reader that reconciles, a summary open, is never removed here; and
 * md_cgroups_stop()'s cancel_work_sync() waits for a work that may wait
 * for a summary open, which holds a module reference, so it is over
 * before an unload begins.
 */
static void md_reconcile(bool work)
{
	struct md_ledger_walk w;
	struct md_entry *e;

	md_ledger_walk_begin(&w);
	while ((e = md_ledger_walk_next(&w))) {
		if (!e->fs.dir)
			md_cgroups_entry_dir(e, md_parent_entry(w.pos), w.pos);
		else if (!e->fs.renamed && css_is_dying(&w.pos->css))
			md_cgroups_entry_rename(e, md_parent_entry(w.pos), w.pos);
	}
	md_ledger_walk_unlock(&w);

	if (work && w.dead)
		md_delay(MD_D_REMOVE);
	/* oldest first: a child's directory goes before its parent's */
	while ((e = md_ledger_walk_dead(&w)))
		debugfs_remove(e->fs.dir);	/* waits for the stat readers */
	md_ledger_walk_end(&w);
}

void md_cgroups_reconcile(void)
{
	md_reconcile(false);
}

static void md_change_fn(struct work_struct *work)
{
	md_delay(MD_D_WORK);
	md_reconcile(true);
}

static DECLARE_WORK(md_change_work, md_change_fn);

/* First, debugfs or not: the change work keeps the ledger's entries. */
void md_cgroups_init(void)
{
	md_ledger_set_change_work(&md_change_work);
}

void md_cgroups_create(struct dentry *root)
{
	md_cgroups_dir = debugfs_create_dir("cgroups", root);
}

/* After md_ledger_stop(): nobody queues the change work any more. */
void md_cgroups_stop(void)
{
	cancel_work_sync(&md_change_work);
}

/* Once debugfs_remove() took memcg_dirty/, cgroups/ with it. */
void md_cgroups_exit(void)
{
	md_cgroups_dir = NULL;
}
