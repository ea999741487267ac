// SPDX-License-Identifier: GPL-2.0
/*
 * The watch's report (watch.c arms it): the records of its changes, and
 * which code made each.  In each record's call chain, the code that made
 * the change is the first frame past the stat functions themselves
 * (md_watch_plumbing()).  Where that is one of the kernel's functions
 * that account the watched counter (md_watch_accounting[]: the dirty
 * accounting's, or the writeback accounting's), the change is
 * "accounted"; anywhere else, the counter moved without any page changing
 * state there: "outside"; where the chain ends before any such frame (the
 * unwinder lost its way), "unknown"; a dead cgroup's count given to its
 * parent, "reparented".  An accounted change is also held against the
 * state change the probes saw its task begin (notes.c,
 * md_notes_change_of()): a change by another number of pages than the
 * folio has, or of another memcg's counter than the folio's (but for a
 * reparenting in between), is "mismatched", the shape of the 4.3
 * migration bug.  So is a reparented
 * change of the watched memcg's counter by other than what the child gave
 * up on that node (md_watch_reparent_mismatch()).  Outside and mismatched
 * changes are reported on the console, once per call site.
 *
 * Context: the records are written in the debug exception
 * (md_watch_ring_claim(), md_watch_ring_publish()) and read here under a
 * sequence count; the report and the reported call sites are under the
 * watch's mutex (watch.c), in process context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/ratelimit.h>
#include <linux/string.h>
#include "inject_hooks.h"
#include "notes.h"
#include "watch_report.h"

#define MD_WATCH_REPORTED		32	/* call sites reported on the console */
#define MD_WATCH_LINE_FRAMES	4	/* frames in a console line */

const char * const md_watch_where_names[] = {
	[MD_W_ACCOUNTED]	= "accounted",
	[MD_W_MISMATCHED]	= "mismatched",
	[MD_W_OUTSIDE]		= "outside",
	[MD_W_UNKNOWN]		= "unknown",
	[MD_W_REPARENTED]	= "reparented",
};

static unsigned long md_watch_reported[MD_WATCH_REPORTED][MD_WATCH_LINE_FRAMES];
static unsigned int md_watch_nr_reported;
/* each call site is reported once per arming: the limit is for re-armings */
static DEFINE_RATELIMIT_STATE(md_watch_rs, 5 * HZ, MD_WATCH_REPORTED);

/*
 * The kernel's functions that change NR_FILE_DIRTY with a page's dirty
 * state (some inline others, so callers are listed too).
 */
static const char * const md_watch_dirty_sites[] = {
	"folio_account_dirtied", "__folio_mark_dirty",
	"folio_clear_dirty_for_io", "folio_account_cleaned", "__folio_cancel_dirty",
	"folio_migrate_mapping", "__folio_migrate_mapping", "__migrate_folio",
	"mem_cgroup_move_account",
	/* its only caller, which Debian's 6.1 -rt build inlines it into */
	"mem_cgroup_move_charge_pte_range",
};

/*
 * The functions that change NR_WRITEBACK with a page's writeback state:
 * its start and end (exported, so never inlined into their callers), and
 * v1 charge moving.  Migration moves no folio under writeback.
 */
static const char * const md_watch_writeback_sites[] = {
	"__folio_start_writeback", "__folio_end_writeback",
	"mem_cgroup_move_account", "mem_cgroup_move_charge_pte_range",
};

/* Each counter's accounting: its sites, and its name on the console. */
static const struct {
	const char * const *sites;
	size_t nr;
	const char *accounting;
} md_watch_accounting[MD_NR_COUNTERS] = {
	[MD_C_DIRTY] = { md_watch_dirty_sites, ARRAY_SIZE(md_watch_dirty_sites),
			 "the dirty accounting" },
	[MD_C_WRITEBACK] = { md_watch_writeback_sites, ARRAY_SIZE(md_watch_writeback_sites),
			     "the writeback accounting" },
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

/*
 * A stable copy of @ring's record @index, or false if it is being
 * rewritten or its slot was since taken by a later record (the ring lapped).
 */
bool md_watch_ring_read(const struct md_watch_ring *ring, unsigned long index,
			struct md_watch_record *copy)
{
	const struct md_watch_record *r = &ring->records[index % MD_WATCH_RECORDS];
	unsigned int seq = READ_ONCE(r->seq);

	if (seq & 1)
		return false;
	smp_rmb();		/* the sequence before the fields: md_watch_ring_publish() */
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
 * *@where: outside, accounted (one of the sites of counter @c's
 * accounting), reparented, or unknown (no such frame in the chain).  A GCC
 * clone (fn.isra.0, fn.constprop.0, fn.part.0, fn.cold) is its function.
 */
static unsigned int md_watch_site(const struct md_watch_record *r, enum md_counter c,
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
		if (md_watch_listed(fn, md_watch_accounting[c].sites, md_watch_accounting[c].nr))
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

/* Whether the watched memcg (@cgid's) is none of those @r's note names. */
static bool md_watch_other_memcg(const struct md_watch_record *r, u64 cgid)
{
	return cgid != r->note.cgid && cgid != r->note.cgid2;
}

/*
 * Whether @r, made in the counter's accounting, disagrees with the state
 * change its task began: another size, or another counter than @cgid's
 * (the watched memcg's), unless the kernel rightly counted the folio of a
 * descendant there: dying, killed or reparented (md_notes_reparent_raced()).
 */
static bool md_watch_mismatch(const struct md_watch_record *r, u64 cgid)
{
	return abs(r->pages) != r->note.pages ||
	       (md_watch_other_memcg(r, cgid) && r->reparent_raced == MD_RACE_NONE);
}

/*
 * Whether @r, accounted and paired, is a change of a descendant's folio
 * that the kernel rightly counted in the watched memcg (@cgid's) because
 * the descendant was killed after its probe read it, and not yet offlined
 * (which an earlier rule alone called "mismatched").
 */
static bool md_watch_killed(const struct md_watch_record *r, u64 cgid)
{
	return md_watch_paired(r) && abs(r->pages) == r->note.pages &&
	       md_watch_other_memcg(r, cgid) && r->reparent_raced == MD_RACE_KILLED;
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

/*
 * Where @r, a change of @target's counter, came from; @site: its frame
 * that made the change.
 */
enum md_watch_where md_watch_where(const struct md_watch_record *r,
				   const struct md_watch_target *target, unsigned int *site)
{
	u64 cgid = target->cgid;
	enum md_watch_where where;

	*site = md_watch_site(r, target->counter, &where);
	if (where == MD_W_REPARENTED && md_watch_reparent_mismatch(r))
		return MD_W_MISMATCHED;
	if (where != MD_W_ACCOUNTED)
		return where;
	return md_watch_paired(r) && md_watch_mismatch(r, cgid) ? MD_W_MISMATCHED :
							    MD_W_ACCOUNTED;
}

/* Whether the line's frames (@n of them at @c) are new: each is reported once. */
static bool md_watch_new_site(const unsigned long *c, unsigned int n)
{
	unsigned long key[MD_WATCH_LINE_FRAMES] = { };
	unsigned int i;

	memcpy(key, c, n * sizeof(*c));
	for (i = 0; i < md_watch_nr_reported; i++)
		if (!memcmp(md_watch_reported[i], key, sizeof(key)))
			return false;
	if (md_watch_nr_reported < MD_WATCH_REPORTED)
		memcpy(md_watch_reported[md_watch_nr_reported++], key, sizeof(key));
	return true;
}

/* Say an outside or mismatched change, once per call site. */
static void md_watch_say(const struct md_watch_record *r, unsigned int site,
			 enum md_watch_where where, const struct md_watch_target *target)
{
	const unsigned long *c = r->chain + site;
	unsigned int n = min_t(unsigned int, r->depth - site, MD_WATCH_LINE_FRAMES);
	const char *acc = md_watch_accounting[target->counter].accounting;
	char why[160];

	if (!md_watch_new_site(c, n) || !__ratelimit(&md_watch_rs))
		return;
	if (where == MD_W_OUTSIDE)
		snprintf(why, sizeof(why), "outside %s", acc);
	else if (r->judged)
		snprintf(why, sizeof(why),
			 "in %s, but reparenting took %ld of them from cgroup id %llu, which still holds %ld",
			 acc, r->child_held - r->child_now, r->note.cgid, r->child_now);
	else
		snprintf(why, sizeof(why),
			 "in %s, but the state change there is %ld page%s of cgroup id %llu (%s)",
			 acc, r->note.pages, r->note.pages == 1 ? "" : "s", r->note.cgid,
			 md_point_name(r->note.point));
	pr_warn("watch %s (id %llu) node %d: counter %+ld %s, at %pS%s%pS%s%pS%s%pS\n",
		target->path, target->cgid, r->nid, r->pages, why,
		(void *)c[0], n > 1 ? " <- " : "", n > 1 ? (void *)c[1] : NULL,
		n > 2 ? " <- " : "", n > 2 ? (void *)c[2] : NULL,
		n > 3 ? " <- " : "", n > 3 ? (void *)c[3] : NULL);
}

/* At each arming: every call site may be reported again. */
void md_watch_report_reset(void)
{
	md_watch_nr_reported = 0;
}

/*
 * Sort the changes recorded in @ring since the last run into @tally, a
 * watch of @target; say the wrong ones.
 */
void md_watch_report_ring(struct md_watch_ring *ring,
			  const struct md_watch_target *target,
			  struct md_watch_tally *tally)
{
	unsigned long head = READ_ONCE(ring->head);
	struct md_watch_record copy;
	enum md_watch_where where;
	unsigned int site;

	if (head != ring->sorted)
		md_delay(MD_D_WATCH);
	if (head - ring->sorted > MD_WATCH_RECORDS) {
		tally->lost += head - ring->sorted - MD_WATCH_RECORDS;
		ring->sorted = head - MD_WATCH_RECORDS;
	}
	for (; ring->sorted != head; ring->sorted++) {
		tally->changes++;
		if (!md_watch_ring_read(ring, ring->sorted, &copy)) {
			tally->lost++;
			continue;
		}
		where = md_watch_where(&copy, target, &site);
		switch (where) {
		case MD_W_ACCOUNTED:
			tally->unpaired += !md_watch_paired(&copy);
			tally->killed += md_watch_killed(&copy, target->cgid);
			continue;
		case MD_W_UNKNOWN:
			tally->unknown++;
			continue;
		case MD_W_REPARENTED:
			tally->reparented++;
			tally->unpaired += !copy.paired;
			continue;
		case MD_W_OUTSIDE:
			tally->outside++;
			break;
		case MD_W_MISMATCHED:
			tally->mismatched++;
			break;
		}
		md_watch_say(&copy, site, where, target);
	}
}
