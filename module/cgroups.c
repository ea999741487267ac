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
 * Ledger and kernel values summed over @memcg's subtree, dying included,
 * and carried.  Summed again if a carry ran meanwhile (it may have moved
 * values inside the subtree), at most MD_CARRY_TRIES times: false if the
 * last sum still had one run through it.
 */
static bool md_subtree_dirty(struct mem_cgroup *memcg, long *ledger,
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
					*ledger += md_entry_ledger(e, MD_C_DIRTY, nid) +
						   md_entry_carried_ledger(e, MD_C_DIRTY, nid);
					*kernel += md_entry_carried_kernel(e, MD_C_DIRTY, nid);
				}
				*kernel += md_kernel_node(pos, MD_C_DIRTY, nid);
			}
		}
		rcu_read_unlock();
	} while (md_unit_walk_again(&w));
	return w.settled;
}

static int md_stat_show(struct seq_file *m, void *v)
{
	struct md_entry *e = m->private;
	long ledger = 0, kernel = 0, hl, hk;
	long ledger_carried = 0, kernel_carried = 0;
	struct mem_cgroup *memcg;
	int nid, ev;
	bool settled;

	memcg = md_entry_pin(e);
	if (!memcg)
		return -ENOENT;		/* freed while the file was open */

	for_each_node(nid) {
		ledger += md_entry_ledger(e, MD_C_DIRTY, nid);
		kernel += md_kernel_node(memcg, MD_C_DIRTY, nid);
	}
	settled = md_subtree_dirty(memcg, &hl, &hk);
	seq_printf(m, "dirty %ld\ndirty_hier %ld\n", ledger, hl);
	seq_printf(m, "kernel_dirty %ld\nkernel_dirty_hier %ld\n", kernel, hk);
	for_each_node(nid) {
		seq_printf(m, "dirty_node%d %ld\n", nid, md_entry_ledger(e, MD_C_DIRTY, nid));
		seq_printf(m, "kernel_dirty_node%d %ld\n", nid,
			   md_kernel_node(memcg, MD_C_DIRTY, nid));
	}
	for (ev = 0; ev < MD_NR_EVENTS; ev++)
		seq_printf(m, "%s %ld\n", md_event_names[ev], md_entry_event(e, ev));
	/* A folio dirtied while uncharged has no cgroup: counted at the root. */
	seq_printf(m, "dirtied_uncharged %ld\n",
		   memcg == md_root_memcg() ? md_uncharged_total() : 0);
	seq_printf(m, "synced %d\n", READ_ONCE(e->synced));
	if (MD_KERNEL_REPARENTS) {
		for_each_node(nid) {
			ledger_carried += md_entry_carried_ledger(e, MD_C_DIRTY, nid);
			kernel_carried += md_entry_carried_kernel(e, MD_C_DIRTY, nid);
		}
		seq_printf(m, "carried %ld\nkernel_carried %ld\n", ledger_carried, kernel_carried);
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
	struct mem_cgroup *memcg;
	struct md_check c;

	memcg = md_entry_pin(e);
	if (!memcg)
		return -ENOENT;
	md_probes_log_missed();
	mutex_lock(&md_mutex);
	md_check_memcg(e, memcg, &c, MD_CHECK_SCAN |
		       (md_probes_untrusted() ? MD_CHECK_UNTRUSTED : 0));
	mutex_unlock(&md_mutex);
	css_put(&memcg->css);
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
