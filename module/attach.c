// SPDX-License-Identifier: GPL-2.0
/*
 * The probe points attached: of each point's candidates (probes.c), the
 * first whose symbol the running kernel has is registered at load, and
 * unregistered at unload; memcg_free first and last.  What each point
 * attached, or why not, with its hits and missed hits, is filled in for
 * the probes file (debugfs.c prints it); missed hits and a cgroup v1
 * charge move that goes unseen make every verdict untrusted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "compat.h"
#include "anomaly.h"
#include "inject.h"
#include "ledger.h"
#include "memcg.h"
#include "resync.h"
#include "points.h"
#include "probes.h"
#include "attach.h"

static char *fail_probe;
module_param(fail_probe, charp, 0400);
MODULE_PARM_DESC(fail_probe, "selftest aid: act as if this probe point's symbols were absent (POINT), or could not take this kind of attachment (POINT/KIND)");

static const char * const md_kind_names[] = { "kprobe", "kretprobe", "tracepoint", "ftrace" };

const char * const md_attach_status_names[MD_NR_ATTACH_STATUSES] = {
	[MD_ATTACHED]			= "attached",
	[MD_UNUSED_NO_REPARENTING]	= "unused:no_reparenting",
	[MD_ATTACH_ERROR]		= "error",
	[MD_ABSENT_NO_CGROUP_V1]	= "absent:no_cgroup_v1",
	[MD_ABSENT]			= "absent",
};

/* A point's attachment: its state, indexed as md_candidates[]. */
static struct md_probe {
	const struct md_variant *used;		/* NULL: not attached */
	int err;
	struct kretprobe krp;			/* .kp alone for kprobes */
	struct tracepoint *tp;
	struct ftrace_ops ops;
} md_probes[MD_NR_POINTS];

struct md_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void md_tp_match(struct tracepoint *tp, void *priv)
{
	struct md_tp_lookup *l = priv;

	if (!strcmp(tp->name, l->name))
		l->tp = tp;
}

static const char *md_probe_point(struct md_probe *p)
{
	return md_point_name(p - md_probes);
}

static const struct md_candidates *md_probe_candidates(struct md_probe *p)
{
	return &md_candidates[p - md_probes];
}

/*
 * An ftrace callback on @v's symbol alone.  PERMANENT, as kprobes' own
 * ftrace_ops: sysctl kernel.ftrace_enabled=0 is then refused while it is
 * attached, instead of silently stopping the count.  Without
 * FTRACE_OPS_FL_RECURSION the callback is called directly (our handlers
 * never call back into the function they are attached to).
 */
static int md_attach_ftrace(struct md_probe *p, const struct md_variant *v)
{
	unsigned long ip = md_symbol_entry(v->symbol);
	int ret;

	if (!ip)
		return -ENOENT;
	memset(&p->ops, 0, sizeof(p->ops));
	p->ops.func = v->ftrace;
	p->ops.flags = FTRACE_OPS_FL_PERMANENT;
	/* -EINVAL: not a function ftrace can call out from */
	ret = ftrace_set_filter_ip(&p->ops, ip, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&p->ops);
	if (ret)
		ftrace_free_filter(&p->ops);
	return ret;
}

static int md_attach(struct md_probe *p, const struct md_variant *v)
{
	struct md_tp_lookup l = { .name = v->symbol };
	int ret;

	memset(&p->krp, 0, sizeof(p->krp));
	switch (v->kind) {
	case MD_TRACEPOINT:
		for_each_kernel_tracepoint(md_tp_match, &l);
		if (!l.tp)
			return -ENOENT;
		ret = tracepoint_probe_register(l.tp, v->tp_probe, NULL);
		if (!ret)
			p->tp = l.tp;
		return ret;
	case MD_KPROBE:
		p->krp.kp.symbol_name = v->symbol;
		p->krp.kp.pre_handler = v->pre;
		return register_kprobe(&p->krp.kp);
	case MD_KRETPROBE:
		p->krp.kp.symbol_name = v->symbol;
		p->krp.entry_handler = v->entry;
		p->krp.handler = v->ret;
		p->krp.data_size = v->data_size;
		/* these may sleep (folio_mkclean): room for many in flight */
		p->krp.maxactive = max_t(int, 64, 16 * num_possible_cpus());
		return register_kretprobe(&p->krp);
	case MD_FTRACE:
		return md_attach_ftrace(p, v);
	}
	return -EINVAL;
}

static void md_detach(struct md_probe *p)
{
	const struct md_variant *v = p->used;

	if (!v)
		return;
	switch (v->kind) {
	case MD_TRACEPOINT:
		tracepoint_probe_unregister(p->tp, v->tp_probe, NULL);
		break;
	case MD_KPROBE:
		unregister_kprobe(&p->krp.kp);
		break;
	case MD_KRETPROBE:
		unregister_kretprobe(&p->krp);
		break;
	case MD_FTRACE:
		unregister_ftrace_function(&p->ops);
		ftrace_free_filter(&p->ops);
		break;
	}
	p->used = NULL;
}

/*
 * Only where the kernel reparents does the release call for a carry, and
 * is there a reparenting to follow.
 */
static bool md_probe_wanted(struct md_probe *p)
{
	return (p != &md_probes[MD_P_RELEASE] && p != &md_probes[MD_P_REPARENT]) ||
	       MD_KERNEL_REPARENTS;
}

/* fail_probe names @v: its point (every candidate), or its point/kind */
static bool md_fail_probe(struct md_probe *p, const struct md_variant *v)
{
	const char *point = md_probe_point(p);
	size_t len = strlen(point);

	if (!fail_probe || strncmp(fail_probe, point, len))
		return false;
	return !fail_probe[len] ||
	       (fail_probe[len] == '/' && !strcmp(fail_probe + len + 1, md_kind_names[v->kind]));
}

/* The first candidate that attaches; 0, or the error of a required point. */
static int md_probe_register(struct md_probe *p)
{
	const struct md_candidates *c = md_probe_candidates(p);
	const struct md_variant *v;

	p->err = -ENOENT;
	for (v = c->variants; v->symbol; v++) {
		if (md_fail_probe(p, v))
			continue;
		p->err = md_attach(p, v);
		if (!p->err)
			break;
		/* an ftrace callback that cannot attach leaves it to the next */
		if (v->kind == MD_FTRACE) {
			pr_info("probe point %s: ftrace on %s failed (%d), trying the next\n",
				md_probe_point(p), v->symbol, p->err);
			continue;
		}
		if (p->err != -ENOENT)
			break;
	}
	if (!p->err) {
		p->used = v;
		return 0;
	}
	if (c->required) {
		pr_err("required probe point %s could not attach (%s): %d\n",
		       md_probe_point(p), v->symbol ?: c->variants[0].symbol, p->err);
		return p->err;
	}
	pr_info("optional probe point %s not attached: %d\n", md_probe_point(p), p->err);
	return 0;
}

/*
 * memcg_free first, before anything can make an entry: an entry of a
 * memcg freed unheard of would stay hashed, for a new memcg at the same
 * address to inherit.
 */
int md_probes_register_free(void)
{
	return md_probe_register(&md_probes[MD_P_FREE]);
}

int md_probes_register_events(void)
{
	struct md_probe *p;
	int ret;

	for (p = md_probes; p < md_probes + MD_NR_POINTS; p++) {
		if (p == &md_probes[MD_P_FREE] || !md_probe_wanted(p))
			continue;
		ret = md_probe_register(p);
		if (ret) {
			md_probes_unregister_events();
			return ret;
		}
	}
	if (md_probes_blind())
		pr_warn("cgroup v1 charge moving cannot be followed (moved not attached): every verdict is untrusted\n");
	return 0;
}

/*
 * Everything but memcg_free: that one must outlive every user of ledger
 * entries (readers, fault-injection undo), since it is what tells them a
 * memcg is gone.  The windows that hold a memcg end first, while their
 * return handlers can still put it.
 */
void md_probes_unregister_events(void)
{
	struct kretprobe *kretprobes[MD_NR_POINTS];
	struct kprobe *kprobes[MD_NR_POINTS];
	int nr_kretprobes = 0, nr_kprobes = 0;
	struct md_probe *p;

	md_memcg_holds_drain();
	/*
	 * The kprobes and the kretprobes each go in one call: one grace
	 * period for all of them, not one each (the unload's time, and every
	 * selftest's: about a second under the emulator).
	 */
	for (p = md_probes; p < md_probes + MD_NR_POINTS; p++) {
		if (p == &md_probes[MD_P_FREE] || !p->used)
			continue;
		if (p->used->kind == MD_KPROBE)
			kprobes[nr_kprobes++] = &p->krp.kp;
		else if (p->used->kind == MD_KRETPROBE)
			kretprobes[nr_kretprobes++] = &p->krp;
		else
			md_detach(p);
	}
	if (nr_kprobes)
		unregister_kprobes(kprobes, nr_kprobes);
	if (nr_kretprobes)
		unregister_kretprobes(kretprobes, nr_kretprobes);
	for (p = md_probes; p < md_probes + MD_NR_POINTS; p++)
		if (p != &md_probes[MD_P_FREE])
			p->used = NULL;
	tracepoint_synchronize_unregister();
}

void md_probes_unregister(void)
{
	md_probes_unregister_events();
	md_detach(&md_probes[MD_P_FREE]);
}

static unsigned long md_probe_missed(struct md_probe *p)
{
	unsigned long missed = md_inject_missed(p - md_probes);

	if (!p->used || p->used->kind == MD_TRACEPOINT || p->used->kind == MD_FTRACE)
		return missed;
	return missed + p->krp.kp.nmissed + p->krp.nmissed;
}

/*
 * New misses since the last look become probe_missed anomalies; those of
 * points healed by a resync unsync every memcg (md_point_resyncs()).
 * Caller does not hold md_mutex.
 */
void md_probes_log_missed(void)
{
	static unsigned long logged[MD_NR_POINTS];
	static DEFINE_SPINLOCK(lock);
	unsigned long missed;
	int i;

	bool resync = false;

	spin_lock(&lock);
	for (i = 0; i < MD_NR_POINTS; i++) {
		missed = md_probe_missed(&md_probes[i]);
		if (missed == logged[i])
			continue;
		logged[i] = missed;
		if (md_point_resyncs(i)) {
			/* put right below: logged, not warned of */
			resync = true;
			md_anomaly_record(MD_A_PROBE_MISSED, MD_NR_COUNTERS, 0, -1,
					  md_point_name(i), 0, 0, 0, 0, missed);
			continue;
		}
		md_anomaly_of(MD_A_PROBE_MISSED, MD_NR_COUNTERS, 0, -1, md_point_name(i), 0,
			      0, 0, 0, missed);
	}
	spin_unlock(&lock);
	if (resync) {
		md_ledger_unsync_counter(MD_C_WRITEBACK);
		md_resync_kick();
	}
}

/*
 * On a cgroup v1 hierarchy of a kernel that can move charges, pages change
 * memcg unseen without the moved probe.
 */
bool md_probes_blind(void)
{
	return MD_KERNEL_HAS_MEMCG_V1 && md_cgroup_v1() && !md_probes[MD_P_MOVED].used;
}

/*
 * The counters (enum md_counter bits) none of whose verdicts can be
 * trusted: their points missed hits, or changes go unseen (every counter).
 */
unsigned int md_probes_untrusted(void)
{
	unsigned int counters = 0;
	int i;

	if (md_probes_blind())
		return MD_ALL_COUNTERS;
	for (i = 0; i < MD_NR_POINTS; i++)
		if (!md_point_resyncs(i) && md_probe_missed(&md_probes[i]))
			counters |= md_point_counters(i);
	return counters;
}

unsigned long md_probes_missed(void)
{
	unsigned long missed = 0;
	int i;

	for (i = 0; i < MD_NR_POINTS; i++)
		missed += md_probe_missed(&md_probes[i]);
	return missed;
}

/*
 * "attached", or why not: "absent" when no candidate symbol exists (with
 * the reason where it is known), else the registration's error.
 */
static enum md_attach_status md_probe_attach_status(struct md_probe *p)
{
	if (p->used)
		return MD_ATTACHED;
	if (!md_probe_wanted(p))
		return MD_UNUSED_NO_REPARENTING;
	if (p->err != -ENOENT)
		return MD_ATTACH_ERROR;
	if (p == &md_probes[MD_P_MOVED] && !MD_KERNEL_HAS_MEMCG_V1)
		return MD_ABSENT_NO_CGROUP_V1;
	return MD_ABSENT;
}

/* The line of the probes file for @point, into @s. */
void md_probes_status(enum md_point point, struct md_probe_status *s)
{
	struct md_probe *p = &md_probes[point];
	const struct md_variant *v = p->used ?: md_probe_candidates(p)->variants;

	s->symbol = v->symbol;
	s->kind = md_kind_names[v->kind];
	s->status = md_probe_attach_status(p);
	s->err = p->err;
	s->hits = md_probes_hits(point);
	s->missed = md_probe_missed(p);
}
