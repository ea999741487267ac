// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/memcg_dirty/: version, probes, summary, check, events,
 * control, inject, audit, watch, folios, and cgroups/, a mirror of the
 * memory cgroup hierarchy with a stat and a check file per memcg.  This
 * file owns every dentry and nothing else: the ledger's walk
 * (md_ledger_walk_*()) does the upkeep of the entries and hands over each
 * memcg's entry, then the dead ones, whose directories are removed after
 * md_mutex is dropped (as mm/shrinker_debug.c does), one walk at a time.
 * Everything is computed elsewhere and printed here.  All files are
 * root-only; no kernel addresses are printed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/workqueue.h>
#include "audit.h"
#include "check.h"
#include "compat.h"
#include "control.h"
#include "debugfs.h"
#include "anomaly.h"
#include "faults.h"
#include "inject.h"
#include "ledger.h"
#include "probes.h"
#include "scan.h"
#include "shadow.h"
#include "unit.h"
#include "watch.h"

#define MD_MODE_RO	0400
#define MD_MODE_RW	0600
#define MD_CMD_MAX	64

/* DEFINE_SHOW_ATTRIBUTE() with a write method: NAME_show and NAME_write. */
#define MD_DEFINE_SHOW_WRITE(__name)					\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
									\
static const struct file_operations __name ## _fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read		= seq_read,					\
	.write		= __name ## _write,				\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

static struct dentry *md_root_dir;
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
					*ledger += md_entry_dirty(e, nid) +
						   md_entry_carried_ledger(e, nid);
					*kernel += md_entry_carried_kernel(e, nid);
				}
				*kernel += md_kernel_dirty_node(pos, nid);
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
		ledger += md_entry_dirty(e, nid);
		kernel += md_kernel_dirty_node(memcg, nid);
	}
	settled = md_subtree_dirty(memcg, &hl, &hk);
	seq_printf(m, "dirty %ld\ndirty_hier %ld\n", ledger, hl);
	seq_printf(m, "kernel_dirty %ld\nkernel_dirty_hier %ld\n", kernel, hk);
	for_each_node(nid) {
		seq_printf(m, "dirty_node%d %ld\n", nid, md_entry_dirty(e, nid));
		seq_printf(m, "kernel_dirty_node%d %ld\n", nid,
			   md_kernel_dirty_node(memcg, nid));
	}
	for (ev = 0; ev < MD_NR_EVENTS; ev++)
		seq_printf(m, "%s %ld\n", md_event_names[ev], md_entry_event(e, ev));
	/* A folio dirtied while uncharged has no cgroup: counted at the root. */
	seq_printf(m, "dirtied_uncharged %ld\n",
		   memcg == md_root_memcg() ? md_uncharged_total() : 0);
	seq_printf(m, "synced %d\n", READ_ONCE(e->synced));
	if (MD_KERNEL_REPARENTS) {
		for_each_node(nid) {
			ledger_carried += md_entry_carried_ledger(e, nid);
			kernel_carried += md_entry_carried_kernel(e, nid);
		}
		seq_printf(m, "carried %ld\nkernel_carried %ld\n", ledger_carried, kernel_carried);
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

static int md_global_check_show(struct seq_file *m, void *v)
{
	unsigned long missed;
	struct md_global_check g;
	int i;

	md_probes_log_missed();
	missed = md_probes_missed();
	mutex_lock(&md_mutex);
	md_check_global(&g, md_probes_untrusted());
	mutex_unlock(&md_mutex);

	seq_printf(m, "verdict %s\n", md_verdict_names[g.worst]);
	for (i = 0; i < MD_NR_VERDICTS; i++)
		seq_printf(m, "%s %ld\n", md_verdict_names[i], g.counts[i]);
	seq_printf(m, "kernel_global %ld\nkernel_sum %ld\n", g.kernel_global, g.kernel_sum);
	seq_printf(m, "sum_check %s\n", !g.sum_settled ? "unsettled" :
		   g.kernel_sum == g.kernel_global ? "ok" : "mismatch");
	seq_printf(m, "hier_check unavailable\nhier_check_reason %s\n", MD_HIER_UNAVAILABLE);
	seq_printf(m, "negative %ld\n", g.negative);
	seq_printf(m, "scan_age_ms %llu\n", md_scan_age_ms());
	seq_printf(m, "probes_missed %lu\nlost_events %ld\n", missed, md_lost_total());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_global_check);

static int md_events_file_show(struct seq_file *m, void *v)
{
	md_probes_log_missed();
	md_events_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_events_file);

static int md_summary_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *pos = NULL;
	char *path = m->private;
	struct md_check c;
	struct md_entry *e;
	bool untrusted;
	int len;

	md_probes_log_missed();
	untrusted = md_probes_untrusted();
	seq_puts(m, "id path state dirty kernel_dirty verdict\n");
	mutex_lock(&md_mutex);
	md_check_ref_all();
	while ((pos = md_memcg_walk(pos))) {
		e = md_entry_get(pos, GFP_ATOMIC);	/* from the pool only */
		len = cgroup_path(pos->css.cgroup, path, PATH_MAX);
		if (len < 0 || len >= PATH_MAX)
			strscpy(path, "(path too long)", PATH_MAX);
		seq_printf(m, "%llu ", cgroup_id(pos->css.cgroup));
		seq_escape(m, path, " \t\n\\");
		seq_printf(m, " %s ", css_is_dying(&pos->css) ? "dying" : "online");
		if (!e) {	/* no room for an entry: nothing to compare */
			seq_puts(m, "- - untrusted\n");
			continue;
		}
		/* the cached scan only: a summary must not scan per line */
		md_check_memcg(e, pos, &c, untrusted ? MD_CHECK_UNTRUSTED : 0);
		seq_printf(m, "%ld %ld %s\n", c.ledger, c.kernel, md_verdict_names[c.verdict]);
	}
	mutex_unlock(&md_mutex);
	return 0;
}

static int md_summary_open(struct inode *inode, struct file *file)
{
	char *path = kmalloc(PATH_MAX, GFP_KERNEL);
	int ret;

	if (!path)
		return -ENOMEM;
	md_debugfs_reconcile();	/* so that cgroups/ matches what is listed */
	ret = single_open_size(file, md_summary_show, path, 64 * 1024);
	if (ret)
		kfree(path);
	return ret;
}

static int md_summary_release(struct inode *inode, struct file *file)
{
	kfree(((struct seq_file *)file->private_data)->private);
	return single_release(inode, file);
}

static const struct file_operations md_summary_fops = {
	.owner		= THIS_MODULE,
	.open		= md_summary_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= md_summary_release,
};

/*
 * control: "scan" runs the page scan now, "resync" retries the starting
 * point of unsynced entries, "watch CGROUP" watches which code moves that
 * cgroup's counter (watch.c), "watch off" stops it: control.c's commands,
 * which the module parameters of the same names also run (lockdown).
 * Anything else is -EINVAL, nothing done.
 * Reading it lists the commands.
 */
/* One command per write: one line, printable, under MD_CMD_MAX bytes. */
static int md_read_command(const char __user *ubuf, size_t len, char *buf)
{
	size_t i;

	if (len >= MD_CMD_MAX)
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isprint(buf[i]))
			return -EINVAL;
	return 0;
}

static ssize_t md_control_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[MD_CMD_MAX], *cmd = buf;
	int ret;

	ret = md_read_command(ubuf, len, buf);
	if (ret)
		return ret;
	if (!strcmp(cmd, "scan")) {
		ret = md_control_scan();
	} else if (!strcmp(cmd, "resync")) {
		ret = md_control_resync();
	} else if (str_has_prefix(cmd, "watch ")) {
		ret = md_control_watch(cmd + strlen("watch "));
	} else {
		pr_warn_ratelimited("control: unknown command (scan, resync, watch CGROUP, watch off)\n");
		ret = -EINVAL;
	}
	return ret ?: len;
}

static int md_control_show(struct seq_file *m, void *v)
{
	seq_puts(m, "commands: scan resync watch\n");
	return 0;
}

MD_DEFINE_SHOW_WRITE(md_control);

static int md_inject_file_show(struct seq_file *m, void *v)
{
	md_inject_show(m);
	return 0;
}

static ssize_t md_inject_file_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	char buf[MD_CMD_MAX];
	int ret;

	ret = md_read_command(ubuf, len, buf);
	if (!ret)
		ret = md_inject_command(buf);
	if (ret)
		pr_warn_ratelimited("inject: command rejected: %d\n", ret);
	return ret ?: len;
}

MD_DEFINE_SHOW_WRITE(md_inject_file);

static int md_probes_file_show(struct seq_file *m, void *v)
{
	md_probes_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_probes_file);

static int md_version_show(struct seq_file *m, void *v)
{
	struct md_shadow_stats shadow;

	seq_printf(m, "version %s\n", MEMCG_DIRTY_VERSION);
	seq_printf(m, "kernel %s\n", init_utsname()->release);
	seq_printf(m, "hierarchy %s\n", md_cgroup_v1() ? "v1" : "v2");
	seq_printf(m, "nodes %u\n", nr_node_ids);
	seq_printf(m, "lost_events %ld\n", md_lost_total());
	seq_printf(m, "entries %ld\nentry_bytes %zu\n", md_entries_count(), md_entry_bytes());
	seq_printf(m, "fault_inject %d\n", md_inject_enabled());
	md_shadow_stats(&shadow);
	seq_printf(m, "track %d\nshadow_bytes %lu\nshadow_suspects %lu\nshadow_said %lu\n",
		   md_shadow_enabled(), shadow.bytes, shadow.suspects, shadow.said);
	seq_printf(m, "shadow_raced %lu\nshadow_dropped %lu\n", shadow.raced, shadow.dropped);
	seq_printf(m, "kernel_hier unavailable\nkernel_hier_reason %s\n", MD_HIER_UNAVAILABLE);
	mutex_lock(&md_mutex);
	seq_printf(m, "scans %llu\n", md_last_scan.count);
	seq_printf(m, "scan_ms %llu\n", div_u64(md_last_scan.duration_ns, NSEC_PER_MSEC));
	seq_printf(m, "scan_dirty %ld\nscan_busy %ld\nscan_uncharged %ld\n",
		   md_last_scan.dirty, md_last_scan.busy, md_last_scan.uncharged);
	seq_printf(m, "scan_untagged %ld\nscan_never_counted %ld\n",
		   md_last_scan.untagged, md_last_scan.never_counted);
	mutex_unlock(&md_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_version);

static int md_audit_file_show(struct seq_file *m, void *v)
{
	struct md_audit_stats st;

	md_audit_read_stats(&st);
	seq_printf(m, "audit_ms %u\naudit_warn %d\n", md_audit_period_ms(), md_audit_warns());
	seq_printf(m, "audits %lu\nlast_us %llu\nlast_wait_us %llu\nlast_memcgs %lu\n",
		   st.audits, div_u64(st.last_ns, NSEC_PER_USEC),
		   div_u64(st.last_wait_ns, NSEC_PER_USEC), st.last_memcgs);
	seq_printf(m, "differed %lu\nescalations %lu\nbad_verdicts %lu\nunconfirmed %lu\n",
		   st.differed, st.escalations, st.bad_verdicts, st.unconfirmed);
	seq_printf(m, "printed %lu\nprinted_audit %lu\nsuppressed %lu\nwarned %lu\n",
		   st.printed, st.printed_audit, st.suppressed, st.warned);
	seq_printf(m, "untrusted_printed %d\n", st.untrusted_printed);
	seq_printf(m, "audit_watch %d\nwatches %lu\n", md_audit_arms_watch(), st.watches);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_audit_file);

static int md_folios_show(struct seq_file *m, void *v)
{
	return md_shadow_folios_show(m);
}

DEFINE_SHOW_ATTRIBUTE(md_folios);

static int md_watch_file_show(struct seq_file *m, void *v)
{
	md_watch_show(m);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(md_watch_file);

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
static void md_debugfs_entry_dir(struct md_entry *e, struct md_entry *parent,
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

static void md_debugfs_entry_rename(struct md_entry *e, struct md_entry *parent,
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
 * md_debugfs_stop()'s cancel_work_sync() waits for a work that may wait
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
			md_debugfs_entry_dir(e, md_parent_entry(w.pos), w.pos);
		else if (!e->fs.renamed && css_is_dying(&w.pos->css))
			md_debugfs_entry_rename(e, md_parent_entry(w.pos), w.pos);
	}
	md_ledger_walk_unlock(&w);

	if (work && w.dead)
		md_delay(MD_D_REMOVE);
	/* oldest first: a child's directory goes before its parent's */
	while ((e = md_ledger_walk_dead(&w)))
		debugfs_remove(e->fs.dir);	/* waits for the stat readers */
	md_ledger_walk_end(&w);
}

void md_debugfs_reconcile(void)
{
	md_reconcile(false);
}

static void md_change_fn(struct work_struct *work)
{
	md_delay(MD_D_WORK);
	md_reconcile(true);
}

static DECLARE_WORK(md_change_work, md_change_fn);

int md_debugfs_init(void)
{
	int ret;

	md_ledger_set_change_work(&md_change_work);
	md_root_dir = debugfs_create_dir("memcg_dirty", NULL);
	if (IS_ERR(md_root_dir)) {
		ret = PTR_ERR(md_root_dir);
		md_root_dir = NULL;
		/* -EPERM: debugfs=off; -ENODEV: no CONFIG_DEBUG_FS */
		if (ret != -EPERM && ret != -ENODEV)
			return ret;
		pr_info("debugfs is off (debugfs=off?): no files; the audit says what it finds on the console, and scan, resync and watch are module parameters\n");
		return 0;
	}
	debugfs_create_file("version", MD_MODE_RO, md_root_dir, NULL, &md_version_fops);
	debugfs_create_file("probes", MD_MODE_RO, md_root_dir, NULL, &md_probes_file_fops);
	debugfs_create_file("summary", MD_MODE_RO, md_root_dir, NULL, &md_summary_fops);
	debugfs_create_file("control", MD_MODE_RW, md_root_dir, NULL, &md_control_fops);
	debugfs_create_file("check", MD_MODE_RO, md_root_dir, NULL, &md_global_check_fops);
	debugfs_create_file("events", MD_MODE_RO, md_root_dir, NULL, &md_events_file_fops);
	debugfs_create_file("audit", MD_MODE_RO, md_root_dir, NULL, &md_audit_file_fops);
	debugfs_create_file("watch", MD_MODE_RO, md_root_dir, NULL, &md_watch_file_fops);
	debugfs_create_file("folios", MD_MODE_RO, md_root_dir, NULL, &md_folios_fops);
	if (md_inject_enabled())
		debugfs_create_file("inject", MD_MODE_RW, md_root_dir, NULL, &md_inject_file_fops);
	md_cgroups_dir = debugfs_create_dir("cgroups", md_root_dir);
	return 0;
}

/* After md_ledger_stop(): nobody queues the change work any more. */
void md_debugfs_stop(void)
{
	cancel_work_sync(&md_change_work);
}

void md_debugfs_exit(void)
{
	debugfs_remove(md_root_dir);
	md_root_dir = NULL;
	md_cgroups_dir = NULL;
}
