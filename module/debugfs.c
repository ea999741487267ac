// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/memcg_dirty/: version, probes, summary, check, events,
 * control, inject, audit, watch, folios, domains, and cgroups/, a mirror of the
 * memory cgroup hierarchy with a stat and a check file per memcg, which
 * cgroups.c keeps.  Everything is computed elsewhere and printed here.
 * All files are root-only; no kernel addresses are printed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include "attach.h"
#include "audit.h"
#include "cgroups.h"
#include "check.h"
#include "compat.h"
#include "control.h"
#include "debugfs.h"
#include "domains.h"
#include "anomaly.h"
#include "inject.h"
#include "ledger.h"
#include "memcg.h"
#include "scan.h"
#include "shadow.h"
#include "show.h"
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

static int md_global_check_show(struct seq_file *m, void *v)
{
	unsigned long missed;
	struct md_global_check g;
	enum md_counter c;
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
	for (c = 0; c < MD_NR_COUNTERS; c++)
		seq_printf(m, "%s_verdict %s\n", md_counter_names[c],
			   md_verdict_names[g.row_worst[c]]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_global_check);

static int md_events_file_show(struct seq_file *m, void *v)
{
	md_probes_log_missed();
	md_show_events(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_events_file);

static int md_summary_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *pos = NULL;
	char *path = m->private;
	struct md_check c;
	struct md_entry *e;
	unsigned int untrusted;
	int len;

	md_probes_log_missed();
	untrusted = md_probes_untrusted();
	seq_puts(m, "id path state dirty kernel_dirty verdict writeback kernel_writeback\n");
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
			seq_puts(m, "- - untrusted - -\n");
			continue;
		}
		/* the cached scan only: a summary must not scan per line */
		md_check_memcg(e, pos, &c, MD_CHECK_UNTRUSTED(untrusted));
		/* the memcg's verdict is its worst counter's */
		seq_printf(m, "%ld %ld %s %ld %ld\n", c.rows[MD_C_DIRTY].ledger,
			   c.rows[MD_C_DIRTY].kernel, md_verdict_names[c.verdict],
			   c.rows[MD_C_WRITEBACK].ledger, c.rows[MD_C_WRITEBACK].kernel);
	}
	mutex_unlock(&md_mutex);
	return 0;
}

/* a summary line's room, for a path of about 80 characters */
#define MD_SUMMARY_LINE_BYTES	128

static int md_summary_open(struct inode *inode, struct file *file)
{
	char *path = kmalloc(PATH_MAX, GFP_KERNEL);
	int ret;

	if (!path)
		return -ENOMEM;
	md_cgroups_reconcile();	/* so that cgroups/ matches what is listed */
	/*
	 * Room for every line at once: a buffer that overflows makes seq_file
	 * run the whole show again in one twice the size, five passes over
	 * 10,000 memcgs from 64 KiB.  A line is 40 bytes and a path.
	 */
	ret = single_open_size(file, md_summary_show, path,
			       SZ_64K + md_entries_count() * MD_SUMMARY_LINE_BYTES);
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
		pr_warn_ratelimited("control: unknown command (scan, resync, watch CGROUP [COUNTER], watch off)\n");
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
	md_show_inject(m);
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
	struct md_probe_status s;
	int i;

	seq_puts(m, "point symbol type status hits missed\n");
	for (i = 0; i < MD_NR_POINTS; i++) {
		md_probes_status(i, &s);
		seq_printf(m, "%s %s %s %s", md_point_name(i), s.symbol, s.kind,
			   md_attach_status_names[s.status]);
		if (s.status == MD_ATTACH_ERROR)
			seq_printf(m, ":%d", s.err);
		seq_printf(m, " %lu %lu\n", s.hits, s.missed);
	}
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
	seq_printf(m, "track %d\nshadow_bytes %lu\nshadow_suspects %lu\nshadow_reported %lu\n",
		   md_shadow_enabled(), shadow.bytes, shadow.suspects, shadow.reported);
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
	seq_printf(m, "audit_unsynced_s %u\nlast_unsynced %lu\nunsynced_long %lu\n",
		   md_audit_unsynced_s(), st.last_unsynced, st.unsynced_long);
	seq_printf(m, "domain_scans %lu\ndomain_bad %lu\n", st.domain_scans, st.domain_bad);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(md_audit_file);

static int md_folios_show(struct seq_file *m, void *v)
{
	return md_show_folios(m);
}

DEFINE_SHOW_ATTRIBUTE(md_folios);

static int md_watch_file_show(struct seq_file *m, void *v)
{
	md_show_watch(m);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(md_watch_file);

/* The writeback domains, from a page scan of their own */
static int md_domains_file_show(struct seq_file *m, void *v)
{
	mutex_lock(&md_mutex);
	md_audit_scan_domains();
	md_domains_show(m);
	mutex_unlock(&md_mutex);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(md_domains_file);

int md_debugfs_init(void)
{
	int ret;

	md_cgroups_init();
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
	debugfs_create_file("domains", MD_MODE_RO, md_root_dir, NULL, &md_domains_file_fops);
	if (md_inject_enabled())
		debugfs_create_file("inject", MD_MODE_RW, md_root_dir, NULL, &md_inject_file_fops);
	md_cgroups_create(md_root_dir);
	return 0;
}

/* After md_ledger_stop(): nobody queues the change work any more. */
void md_debugfs_stop(void)
{
	md_cgroups_stop();
}

void md_debugfs_exit(void)
{
	debugfs_remove(md_root_dir);
	md_root_dir = NULL;
	md_cgroups_exit();
}
