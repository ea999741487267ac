// SPDX-License-Identifier: GPL-2.0
/*
 * The operator's commands: a page scan now, a resync of the unsynced
 * ledgers, and arming or stopping the watch.  One function per command,
 * reached two ways: the control file in debugfs (debugfs.c), and the
 * module parameters scan, resync and watch under
 * /sys/module/memcg_dirty/parameters/.  Those are for a kernel in lockdown,
 * which refuses every debugfs file with a write bit (fs/debugfs/file.c,
 * debugfs_locked_down()) but no module parameter that is not a hardware
 * one (kernel/params.c, param_check_unsafe()), and for a kernel booted
 * with debugfs=off.
 *
 * A parameter's file is there from before md_init() runs until after
 * md_exit() returns (mod_sysfs_setup() comes before the init, the teardown
 * after the exit), and one given at load is set before md_init() runs.
 * So a command runs only from md_control_start(), the last step of the
 * load, to md_control_stop(), the first of the unload, which waits for
 * the commands running; otherwise it is refused with -EBUSY.
 *
 * Process context only: the commands sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include "control.h"
#include "ledger.h"
#include "resync.h"
#include "scan.h"
#include "watch.h"

/* Readers: the commands running.  The writer: the load's end, the unload. */
static DECLARE_RWSEM(md_control_rwsem);
static bool md_control_live;

/* Enter one command: 0, or -EBUSY while the module loads or unloads. */
static int md_control_enter(const char *what)
{
	down_read(&md_control_rwsem);
	if (md_control_live)
		return 0;
	up_read(&md_control_rwsem);
	pr_warn_ratelimited("%s: refused while the module loads or unloads; write it under /sys/module/memcg_dirty/parameters/ once it is loaded\n",
			    what);
	return -EBUSY;
}

static void md_control_leave(void)
{
	up_read(&md_control_rwsem);
}

/* The page scan, now; version's scan_* lines then give its result. */
int md_control_scan(void)
{
	int ret = md_control_enter("scan");

	if (ret)
		return ret;
	mutex_lock(&md_mutex);
	md_scan();
	mutex_unlock(&md_mutex);
	md_control_leave();
	return 0;
}

/* Retry the starting point of the unsynced ledgers now. */
int md_control_resync(void)
{
	int ret = md_control_enter("resync");

	if (ret)
		return ret;
	ret = md_resync();
	md_control_leave();
	return ret < 0 ? ret : 0;
}

/*
 * The counter a watch's argument @arg ends with (" dirty", " writeback"),
 * cut off @arg; dirty's when it names none (a last word that is no
 * counter's name is the path's).
 */
static enum md_counter md_control_watch_counter(char *arg)
{
	char *space = strrchr(arg, ' ');
	enum md_counter c;

	if (!space)
		return MD_C_DIRTY;
	for (c = 0; c < MD_NR_COUNTERS; c++) {
		if (!strcmp(space + 1, md_counter_names[c])) {
			*space = '\0';
			strim(arg);
			return c;
		}
	}
	return MD_C_DIRTY;
}

/*
 * @arg "off" stops the watch; a cgroup path ("/..."), then a counter's
 * name or none (dirty), arms it on that cgroup's counter, replacing any
 * watch; anything else is -EINVAL.  The errors are md_watch_start()'s
 * (watch.c).
 */
int md_control_watch(const char *arg)
{
	enum md_counter c;
	char *path;
	int ret;

	if (strcmp(arg, "off") && arg[0] != '/') {
		pr_warn_ratelimited("watch: takes a cgroup path (/...), then dirty (the default) or writeback; or off\n");
		return -EINVAL;
	}
	path = kstrdup(arg, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	c = md_control_watch_counter(path);
	ret = md_control_enter("watch");
	if (ret)
		goto out;
	if (!strcmp(path, "off"))
		md_watch_stop();
	else
		ret = md_watch_start(path, c, true);
	md_control_leave();
out:
	kfree(path);
	return ret;
}

/* The last step of the load: commands may run from now on. */
void md_control_start(void)
{
	down_write(&md_control_rwsem);
	md_control_live = true;
	up_write(&md_control_rwsem);
}

/* The first step of the unload: once the commands running are done, no more. */
void md_control_stop(void)
{
	down_write(&md_control_rwsem);
	md_control_live = false;
	up_write(&md_control_rwsem);
}

/* scan=1: a page scan now.  Anything but 1 is -EINVAL. */
static int md_param_scan_set(const char *val, const struct kernel_param *kp)
{
	unsigned int one;

	if (kstrtouint(val, 0, &one) || one != 1)
		return -EINVAL;
	return md_control_scan();
}

static const struct kernel_param_ops md_param_scan_ops = {
	.set	= md_param_scan_set,
};
module_param_cb(scan, &md_param_scan_ops, NULL, 0200);
MODULE_PARM_DESC(scan, "write 1: a page scan now (control's \"scan\", also under lockdown)");

/* resync=1: retry the unsynced ledgers now. */
static int md_param_resync_set(const char *val, const struct kernel_param *kp)
{
	unsigned int one;

	if (kstrtouint(val, 0, &one) || one != 1)
		return -EINVAL;
	return md_control_resync();
}

static const struct kernel_param_ops md_param_resync_ops = {
	.set	= md_param_resync_set,
};
module_param_cb(resync, &md_param_resync_ops, NULL, 0200);
MODULE_PARM_DESC(resync, "write 1: retry the unsynced ledgers now (control's \"resync\", also under lockdown)");

/* watch=CGROUP arms the watch on that cgroup, watch=off stops it. */
static int md_param_watch_set(const char *val, const struct kernel_param *kp)
{
	char *arg = kstrdup(val, GFP_KERNEL);
	int ret;

	if (!arg)
		return -ENOMEM;
	ret = md_control_watch(strim(arg));
	kfree(arg);
	return ret;
}

/* The watched cgroup's path, or an empty line. */
static int md_param_watch_get(char *buf, const struct kernel_param *kp)
{
	size_t len;

	md_watch_path_get(buf, PAGE_SIZE - 1);
	len = strlen(buf);
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

static const struct kernel_param_ops md_param_watch_ops = {
	.set	= md_param_watch_set,
	.get	= md_param_watch_get,
};
module_param_cb(watch, &md_param_watch_ops, NULL, 0600);
MODULE_PARM_DESC(watch, "write a cgroup path, then dirty (the default) or writeback: watch which code moves that counter of it; off: stop (control's \"watch\", also under lockdown); reads what is watched");
