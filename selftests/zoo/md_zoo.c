// SPDX-License-Identifier: GPL-2.0
/*
 * md_zoo: bugs of the per-memcg dirty counter (NR_FILE_DIRTY), staged on
 * purpose so that the memcg_dirty selftests can show its audit catching
 * them.  Test-only: built with the module in a clone, never packaged.  It
 * taints the kernel when loaded.
 *
 * One command per write to /sys/kernel/debug/md_zoo/trigger (or, with
 * debugfs off, to the module parameter trigger); FILE is a file on a disk
 * filesystem, INDEX a page index whose folio is cached:
 *   dirty_unaccounted FILE INDEX  class 1, the 4.2 bug: PG_dirty set on a
 *                                 clean folio without the increment, so its
 *                                 cleaning later takes the count below 0
 *   clean_unaccounted FILE INDEX  its mirror image, which the tests use to
 *                                 put class 1's damage right: a dirty folio
 *                                 made clean without the decrement
 *   clean_twice FILE INDEX        class 2: a dirty folio's count taken once
 *                                 more, as by a second decrement of one
 *                                 cleaning
 *   wrong_memcg FILE INDEX OTHER OTHER_INDEX
 *                                 class 3: a dirty folio's increment moved
 *                                 to the memcg of OTHER's folio
 *   phantom FILE INDEX            class 4: the count of FILE's memcg raised
 *                                 with no page changing state
 *   deep FILE INDEX               class 4 made MD_ZOO_DEEP calls down a chain
 *                                 of functions named like the kernel's stat
 *                                 functions: no frame a localization keeps
 *                                 says who made it
 *   wb_phantom FILE INDEX         the writeback counter (NR_WRITEBACK) of
 *                                 FILE's memcg raised by the folio's size,
 *                                 no folio under writeback
 *   wb_lost FILE INDEX            lowered by it: below 0 once FILE's
 *                                 memcg has nothing under writeback
 *   wbd_residue FILE INDEX        the writeback domain of FILE's inode:
 *                                 its WB_RECLAIMABLE raised by the folio's
 *                                 size, no page dirtied, as 22b3c8d6612e's
 *                                 inode switch left in the domain it left
 *   wbd_lost FILE INDEX           lowered by it, as that switch did to the
 *                                 domain it went to
 *   migrate_keep FILE | off       class 5: while armed, a migration of one
 *                                 of FILE's dirty folios to another node
 *                                 moves PG_dirty but leaves the count behind
 *   site_size FILE                class 6, inside the accounting: the next
 *                                 increment the kernel makes for a folio of
 *                                 FILE becoming dirty is twice the folio
 *   site_memcg FILE OTHER OTHER_INDEX
 *                                 class 7, inside the accounting: the next
 *                                 such increment lands on the memcg of
 *                                 OTHER's folio
 *   site_off                      disarm class 6 or 7 if it has not fired
 *   hold_mmap FILE | off          not a bug: hold FILE's i_mmap_rwsem for
 *                                 writing until "hold_mmap off", so that a
 *                                 writeback of FILE's mapped folios sleeps
 *                                 in folio_mkclean(), inside the accounting
 *                                 window of folio_clear_dirty_for_io()
 *   gap FILE INDEX MS             class 9, no bug: a dirtier preempted in
 *                                 its gap, between setting PG_dirty on a
 *                                 clean folio and counting it (where
 *                                 folio_memcg_lock() is empty that gap is
 *                                 outside any RCU section): PG_dirty set,
 *                                 the folio unlocked, MS milliseconds
 *                                 asleep, then counted and tagged as the
 *                                 kernel does; the write returns then, and
 *                                 the file gap_open says 1 meanwhile
 *   clean_io FILE INDEX           a cleaning for writeback I/O of a dirty
 *                                 folio, folio_clear_dirty_for_io() alone
 *                                 (no writeback follows): the cleaner that
 *                                 may meet class 9's folio in its gap
 *   undo                          put back every count the zoo changed
 * Reading it shows whether class 5 is armed and how many pages' counts it
 * left behind, then lists the counts changed: class, cgroup id, node, pages.
 *
 * Classes 1 to 5 change the counter from a function of their own name
 * (md_zoo_*), which a localization should name.  Their counter changes are
 * made through lruvec_stat_mod_folio() only: an exported function, called
 * directly.  Classes 6 and 7 change no counter themselves: a kprobe on the
 * kernel's stat function alters the arguments of the kernel's own call
 * from its dirty accounting, so the wrong change is made there, by the
 * kernel's code, as the 4.3 migration bug was; a localization by call site
 * alone sees nothing wrong.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/backing-dev.h>
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/panic.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include "zoo_compat.h"

#define MD_ZOO_MAX_CHANGES	256
#define MD_ZOO_CMD_MAX		512
#define MD_ZOO_MAX_ARGS		4

/* A count the zoo changed, to be put back: the memcg is pinned meanwhile. */
struct md_zoo_change {
	const char *class;
	enum node_stat_item item;	/* NR_FILE_DIRTY, or NR_WRITEBACK (wb_*) */
	struct mem_cgroup *memcg;
	int nid;
	long pages;
};

static DEFINE_RAW_SPINLOCK(md_zoo_lock);	/* the changes; any context */
static struct md_zoo_change md_zoo_changes[MD_ZOO_MAX_CHANGES];
static unsigned int md_zoo_nr_changes;
static unsigned long md_zoo_refused;	/* not staged: no room to record it */

static DEFINE_MUTEX(md_zoo_mutex);	/* commands, and class 5's arming */
/* Commands run from the end of the load to the start of the unload. */
static bool md_zoo_live;
static struct dentry *md_zoo_dir;

/*
 * Remember a change of @memcg's count on @nid by @pages, and make it if
 * @apply (else the kernel is about to).  A change that cannot be
 * remembered is refused: one the zoo could not undo would outlive the
 * test.  Any context.
 */
static bool md_zoo_record_item(const char *class, enum node_stat_item item,
			       struct mem_cgroup *memcg, int nid, long pages, bool apply)
{
	struct md_zoo_change *c;
	unsigned long flags;
	bool recorded = false;

	raw_spin_lock_irqsave(&md_zoo_lock, flags);
	if (md_zoo_nr_changes < MD_ZOO_MAX_CHANGES && css_tryget(&memcg->css)) {
		c = &md_zoo_changes[md_zoo_nr_changes++];
		c->class = class;
		c->item = item;
		c->memcg = memcg;
		c->nid = nid;
		c->pages = pages;
		if (apply)
			md_zoo_stat_mod(memcg, item, nid, pages);
		recorded = true;
	} else {
		md_zoo_refused++;
	}
	raw_spin_unlock_irqrestore(&md_zoo_lock, flags);
	return recorded;
}

/* The same, of NR_FILE_DIRTY: every class but the wb_ ones. */
static bool md_zoo_record(const char *class, struct mem_cgroup *memcg, int nid,
			  long pages, bool apply)
{
	return md_zoo_record_item(class, NR_FILE_DIRTY, memcg, nid, pages, apply);
}

static bool md_zoo_apply(const char *class, struct mem_cgroup *memcg, int nid,
			 long pages)
{
	return md_zoo_record(class, memcg, nid, pages, true);
}

/*
 * The writeback domains' changes (wbd_*), each domain held (wb_get()) until
 * undone; the zoo's commands run on the suite's disks, which stay.
 * md_zoo_mutex.
 */
#define MD_ZOO_WBD_MAX	16
static struct {
	struct bdi_writeback *wb;
	long pages;
} md_zoo_wbd[MD_ZOO_WBD_MAX];
static int md_zoo_nr_wbd;

static void md_zoo_undo(void)
{
	struct md_zoo_change *c;
	unsigned long flags;

	raw_spin_lock_irqsave(&md_zoo_lock, flags);
	while (md_zoo_nr_changes) {
		c = &md_zoo_changes[--md_zoo_nr_changes];
		md_zoo_stat_mod(c->memcg, c->item, c->nid, -c->pages);
		css_put(&c->memcg->css);
	}
	raw_spin_unlock_irqrestore(&md_zoo_lock, flags);
	while (md_zoo_nr_wbd) {
		md_zoo_nr_wbd--;
		wb_stat_mod(md_zoo_wbd[md_zoo_nr_wbd].wb, WB_RECLAIMABLE,
			    -md_zoo_wbd[md_zoo_nr_wbd].pages);
		wb_put(md_zoo_wbd[md_zoo_nr_wbd].wb);
	}
}

/* --- the bug classes -------------------------------------------------------- */

/* Class 1: the folio is dirty, and nothing counted it. */
static noinline int md_zoo_dirty_unaccounted(struct folio *folio)
{
	if (folio_test_dirty(folio))
		return -EBUSY;
	folio_set_dirty(folio);
	return 0;
}

/* Class 1's mirror image: the folio is clean, and nothing uncounted it. */
static noinline int md_zoo_clean_unaccounted(struct folio *folio)
{
	if (!folio_test_dirty(folio))
		return -EINVAL;
	folio_clear_dirty(folio);
	return 0;
}

/* Class 2: a second decrement for one cleaning. */
static noinline int md_zoo_clean_twice(struct folio *folio, struct mem_cgroup *memcg)
{
	if (!folio_test_dirty(folio))
		return -EINVAL;
	return md_zoo_apply("clean_twice", memcg, folio_nid(folio),
			    -folio_nr_pages(folio)) ? 0 : -ENOSPC;
}

/* Class 3: the increment of @folio landed on @other's memcg. */
static noinline int md_zoo_wrong_memcg(struct folio *folio, struct mem_cgroup *memcg,
				       struct mem_cgroup *other)
{
	long pages = folio_nr_pages(folio);

	if (!folio_test_dirty(folio))
		return -EINVAL;
	if (memcg == other)
		return -EXDEV;
	if (!md_zoo_apply("wrong_memcg", memcg, folio_nid(folio), -pages))
		return -ENOSPC;
	if (!md_zoo_apply("wrong_memcg", other, folio_nid(folio), pages)) {
		md_zoo_apply("wrong_memcg", memcg, folio_nid(folio), pages);
		return -ENOSPC;
	}
	return 0;
}

/* Class 4: the counter raised, and no page changed state. */
static noinline int md_zoo_phantom_dirty(struct folio *folio, struct mem_cgroup *memcg)
{
	return md_zoo_apply("phantom", memcg, folio_nid(folio),
			    folio_nr_pages(folio)) ? 0 : -ENOSPC;
}

/*
 * The writeback counter's classes (NR_WRITEBACK, memory.stat's
 * file_writeback), the folio's size: wb_phantom raises it with no folio
 * under writeback, as a start counted twice would; wb_lost lowers it, as
 * an end counted twice (or a start never counted) would.
 */
static noinline int md_zoo_wb_phantom(struct folio *folio, struct mem_cgroup *memcg)
{
	return md_zoo_record_item("wb_phantom", NR_WRITEBACK, memcg, folio_nid(folio),
				  folio_nr_pages(folio), true) ? 0 : -ENOSPC;
}

static noinline int md_zoo_wb_lost(struct folio *folio, struct mem_cgroup *memcg)
{
	return md_zoo_record_item("wb_lost", NR_WRITEBACK, memcg, folio_nid(folio),
				  -folio_nr_pages(folio), true) ? 0 : -ENOSPC;
}

/*
 * The writeback domain's classes: @folio's inode's domain (read under the
 * i_pages lock, as the kernel reads it to count) has its WB_RECLAIMABLE
 * changed by @pages, the folio unchanged.
 */
static noinline int md_zoo_wbd_change(struct folio *folio, long pages)
{
	struct address_space *mapping = folio->mapping;
	struct bdi_writeback *wb;
	unsigned long flags;

	if (md_zoo_nr_wbd == MD_ZOO_WBD_MAX)
		return -ENOSPC;
	xa_lock_irqsave(&mapping->i_pages, flags);
	wb = inode_to_wb(mapping->host);
	if (wb) {
		wb_get(wb);
		wb_stat_mod(wb, WB_RECLAIMABLE, pages);
	}
	xa_unlock_irqrestore(&mapping->i_pages, flags);
	if (!wb)
		return -ENODEV;
	md_zoo_wbd[md_zoo_nr_wbd].wb = wb;
	md_zoo_wbd[md_zoo_nr_wbd].pages = pages;
	md_zoo_nr_wbd++;
	return 0;
}

static noinline int md_zoo_wbd_residue(struct folio *folio)
{
	return md_zoo_wbd_change(folio, folio_nr_pages(folio));
}

static noinline int md_zoo_wbd_lost(struct folio *folio)
{
	return md_zoo_wbd_change(folio, -folio_nr_pages(folio));
}

/*
 * Class 4, deep: the change is recorded first, then made at the bottom of
 * a chain of calls to a function named like the kernel's stat functions
 * (__mod_*), deeper than a localization keeps frames of.  The barrier
 * after the call keeps it a call (no sibling call, no loop).
 */
#define MD_ZOO_DEEP	12

static noinline void __mod_md_zoo_deep(struct mem_cgroup *memcg, int nid, long pages,
				       int depth)
{
	if (depth) {
		__mod_md_zoo_deep(memcg, nid, pages, depth - 1);
		barrier();
		return;
	}
	md_zoo_stat_mod(memcg, NR_FILE_DIRTY, nid, pages);
}

static noinline int md_zoo_deep(struct folio *folio, struct mem_cgroup *memcg)
{
	long pages = folio_nr_pages(folio);
	unsigned long flags;

	if (!md_zoo_record("deep", memcg, folio_nid(folio), pages, false))
		return -ENOSPC;
	/* under the lock, as md_zoo_record() applies its changes */
	raw_spin_lock_irqsave(&md_zoo_lock, flags);
	__mod_md_zoo_deep(memcg, folio_nid(folio), pages, MD_ZOO_DEEP);
	raw_spin_unlock_irqrestore(&md_zoo_lock, flags);
	return 0;
}

/*
 * Class 5: after a successful folio_migrate_mapping() of a dirty folio
 * between nodes, the count goes back to the old node (both folios are
 * still locked, the new one not yet charged: the old one names the memcg).
 */
static noinline void md_zoo_migrate_keep_count(struct folio *src, struct folio *dst)
{
	long pages = folio_nr_pages(src);
	struct mem_cgroup *memcg;

	rcu_read_lock();
	memcg = folio_memcg(src);
	if (memcg && md_zoo_apply("migrate_keep", memcg, folio_nid(src), pages))
		md_zoo_apply("migrate_keep", memcg, folio_nid(dst), -pages);
	rcu_read_unlock();
}

/* --- the file a probe class is armed for -------------------------------------- */

struct md_zoo_armed {
	struct address_space *mapping;	/* read by the handlers; NULL: not armed */
	struct path path;		/* its reference */
};

static void md_zoo_armed_set(struct md_zoo_armed *a, const struct path *path)
{
	a->path = *path;
	path_get(&a->path);
	WRITE_ONCE(a->mapping, d_inode(path->dentry)->i_mapping);
}

/* Once the class's probe is gone: no handler reads the mapping any more. */
static void md_zoo_armed_clear(struct md_zoo_armed *a)
{
	if (a->mapping) {
		WRITE_ONCE(a->mapping, NULL);
		path_put(&a->path);
	}
}

/* --- class 5's kretprobe ------------------------------------------------------ */

static struct md_zoo_armed md_zoo_mig_file;
static atomic_long_t md_zoo_mig_kept;	/* pages whose count stayed behind */

struct md_zoo_mig_data {
	struct folio *dst, *src;
};

static int md_zoo_mig_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_zoo_mig_data *d = (void *)ri->data;

	if ((void *)regs_get_kernel_argument(regs, 0) != READ_ONCE(md_zoo_mig_file.mapping))
		return 1;	/* not the file: no return handler */
	d->dst = (void *)regs_get_kernel_argument(regs, 1);
	d->src = (void *)regs_get_kernel_argument(regs, 2);
	return 0;
}

static int md_zoo_mig_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct md_zoo_mig_data *d = (void *)ri->data;

	/* 0 is success on every supported kernel (MIGRATEPAGE_SUCCESS) */
	if (regs_return_value(regs) || !folio_test_dirty(d->dst) ||
	    folio_nid(d->src) == folio_nid(d->dst))
		return 0;
	md_zoo_migrate_keep_count(d->src, d->dst);
	atomic_long_add(folio_nr_pages(d->src), &md_zoo_mig_kept);
	return 0;
}

/* 6.12's static worker first, then the exported function of 6.1 */
static const char * const md_zoo_mig_symbols[] = {
	"__folio_migrate_mapping", "folio_migrate_mapping",
};

static struct kretprobe md_zoo_mig_probe = {
	.entry_handler	= md_zoo_mig_entry,
	.handler	= md_zoo_mig_ret,
	.data_size	= sizeof(struct md_zoo_mig_data),
	.maxactive	= 16,
};

static bool md_zoo_mig_registered;

static void md_zoo_mig_disarm(void)
{
	lockdep_assert_held(&md_zoo_mutex);
	if (md_zoo_mig_registered) {
		unregister_kretprobe(&md_zoo_mig_probe);	/* waits for handlers */
		md_zoo_mig_registered = false;
	}
	md_zoo_armed_clear(&md_zoo_mig_file);
}

static int md_zoo_mig_arm(struct path *path)
{
	int err = -ENOENT;
	size_t i;

	lockdep_assert_held(&md_zoo_mutex);
	md_zoo_mig_disarm();
	md_zoo_armed_set(&md_zoo_mig_file, path);
	for (i = 0; i < ARRAY_SIZE(md_zoo_mig_symbols); i++) {
		memset(&md_zoo_mig_probe.kp, 0, sizeof(md_zoo_mig_probe.kp));
		md_zoo_mig_probe.kp.symbol_name = md_zoo_mig_symbols[i];
		err = register_kretprobe(&md_zoo_mig_probe);
		if (!err) {
			md_zoo_mig_registered = true;
			return 0;
		}
	}
	pr_warn("migrate_keep: cannot probe %s nor %s: %d\n",
		md_zoo_mig_symbols[0], md_zoo_mig_symbols[1], err);
	md_zoo_mig_disarm();
	return err;
}

/* --- classes 6 and 7: a kprobe on the kernel's stat function ---------------- */

/*
 * Armed for one folio of a file becoming dirty: the kernel's own increment
 * of NR_FILE_DIRTY for it, made by its dirty accounting through the stat
 * function below, gets other arguments (x86-64: the folio in rdi, the
 * change in rdx; a kprobe at a function's entry may rewrite them).  The
 * zoo records what the kernel is about to get wrong, to undo it later.
 */
static struct md_zoo_armed md_zoo_site_file;
static struct folio *md_zoo_site_other;	/* class 7: referenced, or NULL */
static atomic_t md_zoo_site_armed;	/* cleared by the one hit */
static atomic_long_t md_zoo_site_fired;

/* Class 6: the increment twice the folio's size. */
static noinline void md_zoo_site_size(struct folio *folio, struct pt_regs *regs)
{
	long pages = (int)regs->dx;
	struct mem_cgroup *memcg = folio_memcg(folio);

	if (memcg && md_zoo_record("site_size", memcg, folio_nid(folio), pages, false))
		regs->dx = 2 * pages;
}

/* Class 7: the increment handed another memcg's folio. */
static noinline void md_zoo_site_memcg(struct folio *folio, struct pt_regs *regs)
{
	struct folio *other = md_zoo_site_other;
	struct mem_cgroup *memcg = folio_memcg(folio);
	struct mem_cgroup *other_memcg = folio_memcg(other);
	long pages = (int)regs->dx;

	if (!memcg || !other_memcg || memcg == other_memcg)
		return;
	if (!md_zoo_record("site_memcg", memcg, folio_nid(folio), -pages, false))
		return;
	if (!md_zoo_record("site_memcg", other_memcg, folio_nid(other), pages, false)) {
		md_zoo_record("site_memcg", memcg, folio_nid(folio), pages, false);
		return;
	}
	regs->di = (unsigned long)other;
}

static int md_zoo_site_pre(struct kprobe *p, struct pt_regs *regs)
{
	/* a folio, or 6.1's head page: one address (folio_page(folio, 0)) */
	struct folio *folio = page_folio((struct page *)regs_get_kernel_argument(regs, 0));
	struct address_space *mapping = READ_ONCE(md_zoo_site_file.mapping);

	if (regs_get_kernel_argument(regs, 1) != NR_FILE_DIRTY ||
	    (int)regs_get_kernel_argument(regs, 2) <= 0 || !mapping ||
	    READ_ONCE(folio->mapping) != mapping || !atomic_xchg(&md_zoo_site_armed, 0))
		return 0;
	/* the caller holds the memcg stable: folio locked or i_pages locked */
	rcu_read_lock();
	if (md_zoo_site_other)
		md_zoo_site_memcg(folio, regs);
	else
		md_zoo_site_size(folio, regs);
	rcu_read_unlock();
	atomic_long_inc(&md_zoo_site_fired);
	return 0;
}

/* the exported stat function of 6.2 to 6.18, of 6.19 on, of 6.1 */
static const char * const md_zoo_site_symbols[] = {
	"__lruvec_stat_mod_folio", "lruvec_stat_mod_folio", "__mod_lruvec_page_state",
};

static struct kprobe md_zoo_site_probe = {
	.pre_handler	= md_zoo_site_pre,
};

static bool md_zoo_site_registered;

static void md_zoo_site_disarm(void)
{
	lockdep_assert_held(&md_zoo_mutex);
	atomic_set(&md_zoo_site_armed, 0);
	if (md_zoo_site_registered) {
		unregister_kprobe(&md_zoo_site_probe);	/* waits for handlers */
		md_zoo_site_registered = false;
	}
	md_zoo_armed_clear(&md_zoo_site_file);
	if (md_zoo_site_other) {
		folio_put(md_zoo_site_other);
		md_zoo_site_other = NULL;
	}
}

/* Arm for FILE at @path; class 7 with @other (a reference it takes over). */
static int md_zoo_site_arm(struct path *path, struct folio *other)
{
	int err = -ENOENT;
	size_t i;

	lockdep_assert_held(&md_zoo_mutex);
	md_zoo_site_disarm();
	md_zoo_site_other = other;
	md_zoo_armed_set(&md_zoo_site_file, path);
	for (i = 0; i < ARRAY_SIZE(md_zoo_site_symbols); i++) {
		memset(&md_zoo_site_probe, 0, sizeof(md_zoo_site_probe));
		md_zoo_site_probe.pre_handler = md_zoo_site_pre;
		md_zoo_site_probe.symbol_name = md_zoo_site_symbols[i];
		err = register_kprobe(&md_zoo_site_probe);
		if (!err) {
			md_zoo_site_registered = true;
			atomic_set(&md_zoo_site_armed, 1);
			return 0;
		}
	}
	pr_warn("site: cannot probe %s, %s nor %s: %d\n", md_zoo_site_symbols[0],
		md_zoo_site_symbols[1], md_zoo_site_symbols[2], err);
	md_zoo_site_disarm();
	return err;
}

/* --- holding a mapping's rmap lock ----------------------------------------- */

/* Taken and let go by one kthread: a rwsem is released by its owner. */
static struct task_struct *md_zoo_holder;
static struct path md_zoo_held_path;
static DECLARE_COMPLETION(md_zoo_held);

static int md_zoo_hold_fn(void *data)
{
	struct address_space *mapping = data;

	i_mmap_lock_write(mapping);
	complete(&md_zoo_held);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	i_mmap_unlock_write(mapping);
	return 0;
}

static void md_zoo_hold_off(void)
{
	if (!md_zoo_holder)
		return;
	kthread_stop(md_zoo_holder);
	put_task_struct(md_zoo_holder);
	md_zoo_holder = NULL;
	path_put(&md_zoo_held_path);
}

static int md_zoo_cmd_hold_mmap(char **argv)
{
	struct task_struct *t;
	int err;

	if (!strcmp(argv[1], "off")) {
		md_zoo_hold_off();
		return 0;
	}
	if (md_zoo_holder)
		return -EBUSY;
	err = kern_path(argv[1], LOOKUP_FOLLOW, &md_zoo_held_path);
	if (err)
		return err;
	reinit_completion(&md_zoo_held);
	t = kthread_create(md_zoo_hold_fn, d_inode(md_zoo_held_path.dentry)->i_mapping,
			   "md_zoo_hold");
	if (IS_ERR(t)) {
		path_put(&md_zoo_held_path);
		return PTR_ERR(t);
	}
	get_task_struct(t);
	md_zoo_holder = t;
	wake_up_process(t);
	wait_for_completion(&md_zoo_held);
	return 0;
}

/* --- class 9: a dirtier preempted in its gap ---------------------------------- */

static atomic_t md_zoo_gap_open;

/*
 * Class 9, no bug: what block_dirty_folio(), mark_buffer_dirty() and
 * filemap_dirty_folio() do where folio_memcg_lock() is empty, with a
 * preemption between their two steps.  PG_dirty is set first, on a folio
 * they need not hold locked, and counted later by __folio_mark_dirty(),
 * which also tags the folio dirty in the page cache.  Here the folio is
 * unlocked and the task sleeps in between, outside any RCU section.  The
 * count is then made through the kernel's own path (folio_mark_dirty(),
 * under the folio lock, with PG_dirty clear for a moment).  If a cleaner
 * cleared PG_dirty meanwhile (and took the count it had not yet been
 * given), the folio is counted and tagged as __folio_mark_dirty() does,
 * without looking at PG_dirty (filemap_dirty_folio(), then PG_dirty
 * cleared again).  Truncated meanwhile: no count, as there.  @folio is
 * locked and referenced, and is again on return.
 */
static noinline int md_zoo_gap(struct folio *folio, unsigned int ms)
{
	struct address_space *mapping = folio->mapping;
	bool cleaned;

	if (folio_test_set_dirty(folio))
		return -EBUSY;
	atomic_set(&md_zoo_gap_open, 1);
	folio_unlock(folio);
	msleep(ms);
	folio_lock(folio);
	cleaned = !folio_test_dirty(folio);
	if (folio->mapping == mapping && !cleaned) {
		folio_clear_dirty(folio);
		folio_mark_dirty(folio);
	} else if (folio->mapping == mapping) {
		/* the count and the tag alone: no dirty buffers on a clean folio */
		filemap_dirty_folio(mapping, folio);
		folio_clear_dirty(folio);
	}
	atomic_set(&md_zoo_gap_open, 0);
	return 0;
}

/* A cleaning for writeback I/O that starts no writeback: the tag stays. */
static noinline int md_zoo_clean_io(struct folio *folio)
{
	return folio_clear_dirty_for_io(folio) ? 0 : -EINVAL;
}

/* --- commands ---------------------------------------------------------------- */

/* A cached folio of FILE (a file on a filesystem that accounts dirty pages). */
struct md_zoo_target {
	struct path path;
	struct folio *folio;	/* locked, referenced */
};

static int md_zoo_target_get(struct md_zoo_target *t, const char *file,
			     const char *index_arg, bool wait)
{
	struct address_space *mapping;
	unsigned long index;
	struct folio *folio;
	int err;

	if (kstrtoul(index_arg, 0, &index))
		return -EINVAL;
	err = kern_path(file, LOOKUP_FOLLOW, &t->path);
	if (err)
		return err;
	mapping = d_inode(t->path.dentry)->i_mapping;
	err = -EINVAL;
	if (!S_ISREG(d_inode(t->path.dentry)->i_mode) || !mapping_can_writeback(mapping))
		goto out_path;
	/* NULL before 6.3, an error pointer from then on */
	folio = __filemap_get_folio(mapping, index, 0, 0);
	err = -ENOENT;
	if (IS_ERR_OR_NULL(folio))
		goto out_path;
	err = -EBUSY;
	if (wait)
		folio_lock(folio);
	else if (!folio_trylock(folio))
		goto out_put;
	err = -ESTALE;
	if (folio->mapping != mapping || folio_test_writeback(folio) ||
	    !folio_test_uptodate(folio))
		goto out_folio;
	t->folio = folio;
	return 0;
out_folio:
	folio_unlock(folio);
out_put:
	folio_put(folio);
out_path:
	path_put(&t->path);
	return err;
}

static void md_zoo_target_put(struct md_zoo_target *t)
{
	folio_unlock(t->folio);
	folio_put(t->folio);
	path_put(&t->path);
}

/*
 * The folio stays locked while a class acts on it: it cannot be cleaned,
 * truncated or migrated meanwhile.  Its memcg is read under RCU (from 7.1
 * an rmdir repoints it); md_zoo_apply() pins a memcg it keeps.
 */
static int md_zoo_cmd_folio(char **argv)
{
	struct md_zoo_target t;
	struct mem_cgroup *memcg;
	int err;

	err = md_zoo_target_get(&t, argv[1], argv[2], true);
	if (err)
		return err;
	rcu_read_lock();
	memcg = folio_memcg(t.folio);
	if (!memcg)
		err = -ENODEV;
	else if (!strcmp(argv[0], "dirty_unaccounted"))
		err = md_zoo_dirty_unaccounted(t.folio);
	else if (!strcmp(argv[0], "clean_unaccounted"))
		err = md_zoo_clean_unaccounted(t.folio);
	else if (!strcmp(argv[0], "clean_io"))
		err = md_zoo_clean_io(t.folio);
	else if (!strcmp(argv[0], "clean_twice"))
		err = md_zoo_clean_twice(t.folio, memcg);
	else if (!strcmp(argv[0], "deep"))
		err = md_zoo_deep(t.folio, memcg);
	else if (!strcmp(argv[0], "wb_phantom"))
		err = md_zoo_wb_phantom(t.folio, memcg);
	else if (!strcmp(argv[0], "wb_lost"))
		err = md_zoo_wb_lost(t.folio, memcg);
	else if (!strcmp(argv[0], "wbd_residue"))
		err = md_zoo_wbd_residue(t.folio);
	else if (!strcmp(argv[0], "wbd_lost"))
		err = md_zoo_wbd_lost(t.folio);
	else
		err = md_zoo_phantom_dirty(t.folio, memcg);
	rcu_read_unlock();
	md_zoo_target_put(&t);
	return err;
}

/*
 * gap FILE INDEX MS: the folio is held referenced, its memcg not needed.
 * It sleeps without md_zoo_mutex, which it touches nothing under, so
 * that other commands (clean_io) run meanwhile.
 */
static int md_zoo_cmd_gap(char **argv)
{
	struct md_zoo_target t;
	unsigned int ms;
	int err;

	lockdep_assert_held(&md_zoo_mutex);
	if (kstrtouint(argv[3], 0, &ms) || ms > 60000)
		return -EINVAL;
	mutex_unlock(&md_zoo_mutex);
	err = md_zoo_target_get(&t, argv[1], argv[2], true);
	if (!err) {
		err = md_zoo_gap(t.folio, ms);
		md_zoo_target_put(&t);
	}
	mutex_lock(&md_zoo_mutex);
	return err;
}

static int md_zoo_cmd_wrong_memcg(char **argv)
{
	struct md_zoo_target t, other;
	struct mem_cgroup *memcg, *other_memcg;
	int err;

	err = md_zoo_target_get(&t, argv[1], argv[2], true);
	if (err)
		return err;
	/* not waiting: OTHER's folio may be FILE's own, locked above */
	err = md_zoo_target_get(&other, argv[3], argv[4], false);
	if (!err) {
		rcu_read_lock();
		memcg = folio_memcg(t.folio);
		other_memcg = folio_memcg(other.folio);
		err = memcg && other_memcg ?
		      md_zoo_wrong_memcg(t.folio, memcg, other_memcg) : -ENODEV;
		rcu_read_unlock();
		md_zoo_target_put(&other);
	}
	md_zoo_target_put(&t);
	return err;
}

static int md_zoo_cmd_migrate_keep(char **argv)
{
	struct path path;
	int err;

	if (!strcmp(argv[1], "off")) {
		md_zoo_mig_disarm();
		return 0;
	}
	err = kern_path(argv[1], LOOKUP_FOLLOW, &path);
	if (err)
		return err;
	err = S_ISREG(d_inode(path.dentry)->i_mode) ? md_zoo_mig_arm(&path) : -EINVAL;
	path_put(&path);
	return err;
}

/* site_size FILE, or site_memcg FILE OTHER OTHER_INDEX */
static int md_zoo_cmd_site(char **argv)
{
	struct md_zoo_target other;
	struct folio *other_folio = NULL;
	struct path path;
	int err;

	err = kern_path(argv[1], LOOKUP_FOLLOW, &path);
	if (err)
		return err;
	err = -EINVAL;
	if (!S_ISREG(d_inode(path.dentry)->i_mode) ||
	    !mapping_can_writeback(d_inode(path.dentry)->i_mapping))
		goto out;
	if (!strcmp(argv[0], "site_memcg")) {
		err = md_zoo_target_get(&other, argv[2], argv[3], true);
		if (err)
			goto out;
		other_folio = other.folio;
		folio_get(other_folio);		/* kept while armed */
		md_zoo_target_put(&other);
	}
	err = md_zoo_site_arm(&path, other_folio);
out:
	path_put(&path);
	return err;
}

static int md_zoo_cmd_site_off(char **argv)
{
	md_zoo_site_disarm();
	return 0;
}

static int md_zoo_cmd_undo(char **argv)
{
	md_zoo_site_disarm();
	md_zoo_undo();
	return 0;
}

static const struct md_zoo_cmd {
	const char *verb;
	int nargs;
	int (*run)(char **argv);
} md_zoo_cmds[] = {
	{ "dirty_unaccounted",	2, md_zoo_cmd_folio },
	{ "clean_unaccounted",	2, md_zoo_cmd_folio },
	{ "clean_twice",	2, md_zoo_cmd_folio },
	{ "clean_io",		2, md_zoo_cmd_folio },
	{ "gap",		3, md_zoo_cmd_gap },
	{ "wrong_memcg",	4, md_zoo_cmd_wrong_memcg },
	{ "phantom",		2, md_zoo_cmd_folio },
	{ "deep",		2, md_zoo_cmd_folio },
	{ "wb_phantom",		2, md_zoo_cmd_folio },
	{ "wb_lost",		2, md_zoo_cmd_folio },
	{ "wbd_residue",	2, md_zoo_cmd_folio },
	{ "wbd_lost",		2, md_zoo_cmd_folio },
	{ "migrate_keep",	1, md_zoo_cmd_migrate_keep },
	{ "site_size",		1, md_zoo_cmd_site },
	{ "site_memcg",		3, md_zoo_cmd_site },
	{ "site_off",		0, md_zoo_cmd_site_off },
	{ "undo",		0, md_zoo_cmd_undo },
	{ "hold_mmap",		1, md_zoo_cmd_hold_mmap },
};

/* Run one command, @buf: its words, split in place. */
static int md_zoo_run(char *buf)
{
	char *argv[MD_ZOO_MAX_ARGS + 2], *cur = buf, *tok;
	int argc = 0, err = -EINVAL;
	size_t i;

	while ((tok = strsep(&cur, " \t\n"))) {
		if (!*tok)
			continue;
		if (argc == ARRAY_SIZE(argv))
			return -EINVAL;
		argv[argc++] = tok;
	}
	if (!argc)
		return -EINVAL;
	mutex_lock(&md_zoo_mutex);
	if (!md_zoo_live)
		err = -EBUSY;
	for (i = 0; md_zoo_live && i < ARRAY_SIZE(md_zoo_cmds); i++) {
		if (strcmp(argv[0], md_zoo_cmds[i].verb))
			continue;
		if (argc == md_zoo_cmds[i].nargs + 1)
			err = md_zoo_cmds[i].run(argv);
		break;
	}
	mutex_unlock(&md_zoo_mutex);
	return err;
}

static ssize_t md_zoo_trigger_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	char buf[MD_ZOO_CMD_MAX];
	int err;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	err = md_zoo_run(buf);
	return err ?: len;
}

/*
 * The same commands as the module parameter trigger, for a kernel booted
 * with debugfs=off (selftests/md_nodebugfs.sh).
 */
static int md_zoo_param_set(const char *val, const struct kernel_param *kp)
{
	char buf[MD_ZOO_CMD_MAX];

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -E2BIG;
	return md_zoo_run(buf);
}

static const struct kernel_param_ops md_zoo_param_ops = {
	.set	= md_zoo_param_set,
};
module_param_cb(trigger, &md_zoo_param_ops, NULL, 0200);
MODULE_PARM_DESC(trigger, "one command, as written to the trigger file in debugfs");

/*
 * Changes are only taken back under md_zoo_mutex (or once the file is
 * gone), so those below the count read here stay as they are meanwhile.
 */
static int md_zoo_trigger_show(struct seq_file *m, void *v)
{
	struct md_zoo_change *c;
	unsigned int i, nr;

	mutex_lock(&md_zoo_mutex);
	seq_printf(m, "migrate_keep %s kept_pages %ld\n", md_zoo_mig_file.mapping ? "armed" : "off",
		   atomic_long_read(&md_zoo_mig_kept));
	seq_printf(m, "site %s fired %ld\n",
		   !atomic_read(&md_zoo_site_armed) ? "off" :
		   md_zoo_site_other ? "memcg" : "size",
		   atomic_long_read(&md_zoo_site_fired));
	seq_puts(m, "class cgroup_id node pages\n");
	raw_spin_lock_irq(&md_zoo_lock);
	nr = md_zoo_nr_changes;
	raw_spin_unlock_irq(&md_zoo_lock);
	for (i = 0; i < nr; i++) {
		c = &md_zoo_changes[i];
		seq_printf(m, "%s %llu %d %ld\n", c->class, cgroup_id(c->memcg->css.cgroup),
			   c->nid, c->pages);
	}
	seq_printf(m, "refused %lu\n", READ_ONCE(md_zoo_refused));
	mutex_unlock(&md_zoo_mutex);
	return 0;
}

static int md_zoo_trigger_open(struct inode *inode, struct file *file)
{
	return single_open(file, md_zoo_trigger_show, NULL);
}

static const struct file_operations md_zoo_trigger_fops = {
	.owner		= THIS_MODULE,
	.open		= md_zoo_trigger_open,
	.read		= seq_read,
	.write		= md_zoo_trigger_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init md_zoo_init(void)
{
	md_zoo_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(md_zoo_dir)) {
		/* debugfs=off: the parameter trigger only */
		if (PTR_ERR(md_zoo_dir) != -EPERM && PTR_ERR(md_zoo_dir) != -ENODEV) {
			pr_err("cannot create its debugfs directory: %ld\n", PTR_ERR(md_zoo_dir));
			return PTR_ERR(md_zoo_dir);
		}
		md_zoo_dir = NULL;
	} else {
		debugfs_create_file("trigger", 0600, md_zoo_dir, NULL, &md_zoo_trigger_fops);
		debugfs_create_atomic_t("gap_open", 0400, md_zoo_dir, &md_zoo_gap_open);
	}
	add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	mutex_lock(&md_zoo_mutex);
	md_zoo_live = true;
	mutex_unlock(&md_zoo_mutex);
	pr_warn("accounting bugs staged on demand: kernel tainted\n");
	return 0;
}

static void __exit md_zoo_exit(void)
{
	debugfs_remove(md_zoo_dir);
	mutex_lock(&md_zoo_mutex);
	md_zoo_live = false;
	md_zoo_mig_disarm();
	md_zoo_site_disarm();
	md_zoo_hold_off();
	mutex_unlock(&md_zoo_mutex);
	md_zoo_undo();
}

module_init(md_zoo_init);
module_exit(md_zoo_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Bugs of the per-memcg dirty counter, staged for memcg_dirty's selftests");
