// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection's lower half (inject_hooks.h says how it and inject.c
 * divide the work).  A delay point in atomic context spins, one in
 * process context sleeps; the table says which.  Each point counts the
 * delays it served, so a test can tell that it opened the window it meant
 * to.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "compat.h"
#include "inject_hooks.h"

DEFINE_STATIC_KEY_FALSE(md_inject_key);

static const struct {
	const char *name;
	bool atomic;		/* may run where sleeping is not allowed */
} md_delay_points[MD_NR_DELAYS] = {
	[MD_D_CHANGED]		= { "changed",		true },
	[MD_D_RECONCILE]	= { "reconcile",	false },
	[MD_D_WORK]		= { "work",		false },
	[MD_D_RESYNC]		= { "resync",		false },
	[MD_D_CLEANED_IO]	= { "cleaned_io",	true },
	[MD_D_MOVED]		= { "moved",		true },
	[MD_D_SUM]		= { "sum",		false },
	[MD_D_LOAD]		= { "load",		false },
	[MD_D_UNLOAD]		= { "unload",		false },
	[MD_D_FREE]		= { "free",		true },
	[MD_D_WATCH]		= { "watch",		false },
	[MD_D_REMOVE]		= { "remove",		false },
	[MD_D_CARRY_READ]	= { "carry_read",	false },
	[MD_D_WATCH_ARM]	= { "watch_arm",	false },
	[MD_D_VIEWS]		= { "views",		false },
	[MD_D_QUIET]		= { "quiet",		false },
	[MD_D_LOAD_FILES]	= { "load_files",	false },
	[MD_D_OFFLINE]		= { "offline",		true },
	[MD_D_AUDIT_TOTALS]	= { "audit_totals",	false },
};

static unsigned long md_delay_us[MD_NR_DELAYS];
static atomic_long_t md_delay_hits[MD_NR_DELAYS];

void __md_delay(enum md_delay_point p)
{
	unsigned long us = READ_ONCE(md_delay_us[p]);

	if (!us)
		return;
	atomic_long_inc(&md_delay_hits[p]);
	if (md_delay_points[p].atomic)
		mdelay(DIV_ROUND_UP(us, 1000));
	else
		fsleep(us);
}

int md_delay_set(const char *point, unsigned long usecs)
{
	int p;

	if (usecs > MD_DELAY_MAX_US)
		return -EINVAL;
	for (p = 0; p < MD_NR_DELAYS; p++) {
		if (!strcmp(point, md_delay_points[p].name)) {
			WRITE_ONCE(md_delay_us[p], usecs);
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Entry creation fails for memcgs whose cgroup has this name (its last
 * path component), so that a test can take one memcg's entry away, even
 * one that does not exist yet.
 */
static DEFINE_RAW_SPINLOCK(md_fail_lock);
static char md_fail_name[NAME_MAX + 1];
static long md_fail_left;

bool __md_fail_entry(struct mem_cgroup *memcg)
{
	unsigned long flags;
	bool fail = false;

	if (!READ_ONCE(md_fail_left))
		return false;
	raw_spin_lock_irqsave(&md_fail_lock, flags);
	if (md_fail_left && md_memcg_name_is(memcg, md_fail_name)) {
		md_fail_left--;
		fail = true;
	}
	raw_spin_unlock_irqrestore(&md_fail_lock, flags);
	return fail;
}

/* The next @n entry creations for cgroups named @name fail; 0 stops it. */
int md_fail_entry_set(const char *name, long n)
{
	unsigned long flags;

	if (!*name || strlen(name) > NAME_MAX || strchr(name, '/') || n < 0)
		return -EINVAL;
	raw_spin_lock_irqsave(&md_fail_lock, flags);
	strscpy(md_fail_name, name, sizeof(md_fail_name));
	WRITE_ONCE(md_fail_left, n);
	raw_spin_unlock_irqrestore(&md_fail_lock, flags);
	return 0;
}

/* The CPU whose watch breakpoints are installed deaf, or -1. */
static int md_deaf_cpu = -1;

bool __md_watch_deaf(int cpu)
{
	return READ_ONCE(md_deaf_cpu) == cpu;
}

int md_watch_deaf_set(int cpu)
{
	if (cpu < -1 || cpu >= (int)nr_cpu_ids)
		return -EINVAL;
	WRITE_ONCE(md_deaf_cpu, cpu);
	return 0;
}

/* Into @st, what is set: for debugfs "inject" (show.c). */
void md_inject_hooks_read(struct md_inject_hooks_state *st)
{
	unsigned long flags;
	int p;

	for (p = 0; p < MD_NR_DELAYS; p++) {
		st->delays[p].name = md_delay_points[p].name;
		st->delays[p].us = READ_ONCE(md_delay_us[p]);
		st->delays[p].hits = atomic_long_read(&md_delay_hits[p]);
	}
	raw_spin_lock_irqsave(&md_fail_lock, flags);
	strscpy(st->fail_name, md_fail_name, sizeof(st->fail_name));
	raw_spin_unlock_irqrestore(&md_fail_lock, flags);
	st->fail_left = READ_ONCE(md_fail_left);
	st->deaf_cpu = READ_ONCE(md_deaf_cpu);
}
