/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe handlers on the kernel's dirty accounting: each point's
 * candidate attachments, for attach.c, and the points' hits.
 */
#ifndef MEMCG_DIRTY_PROBES_H
#define MEMCG_DIRTY_PROBES_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/types.h>
#include "points.h"

/*
 * MD_FTRACE: an ftrace callback at the function's entry, where one is
 * enough; a kprobe there costs ftrace's full register save and the kprobe
 * dispatch on top of it.  Each ftrace candidate has a kprobe after it, for
 * a kernel whose ftrace is off or cannot reach the symbol.
 */
enum md_kind { MD_KPROBE, MD_KRETPROBE, MD_TRACEPOINT, MD_FTRACE };

/* One way to attach a point: a kernel symbol, or a tracepoint by name. */
struct md_variant {
	const char *symbol;
	enum md_kind kind;
	kprobe_pre_handler_t pre;
	kretprobe_handler_t entry, ret;
	ftrace_func_t ftrace;
	size_t data_size;
	void *tp_probe;
};

/* A point's candidates in order of preference, and whether it may be missing. */
struct md_candidates {
	bool required;
	const struct md_variant *variants;	/* terminated by a NULL symbol */
};

extern const struct md_candidates md_candidates[MD_NR_POINTS];

unsigned long md_probes_hits(enum md_point p);

#endif /* MEMCG_DIRTY_PROBES_H */
