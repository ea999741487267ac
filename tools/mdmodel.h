/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memcg-dirty model: reads the module's debugfs files through the
 * strict parsers of mdparse.h and joins them into the rows the commands
 * show.  It never writes to stdout; what goes wrong is reported on s->err.
 */
#ifndef MDMODEL_H
#define MDMODEL_H

#include <stdarg.h>
#include <stdio.h>
#include "mdparse.h"

/* Where the module's parameters are (MEMCG_DIRTY_PARAMS overrides it), and lockdown's mode. */
#define MD_PARAMS_DEFAULT	"/sys/module/memcg_dirty/parameters"
#define MD_LOCKDOWN_FILE	"/sys/kernel/security/lockdown"

struct md_src {
	const char *root;	/* the module's debugfs directory */
	FILE *err;		/* where to say what went wrong */
};

/* The md_read_*() results besides 0. */
#define MD_UNREADABLE	(-1)	/* could not read the file: already reported why */
#define MD_MALFORMED	(-2)	/* read but did not parse: the reason is in err */
/* md_preflight(): the module's directory is not there (memcg_dirty not loaded) */
#define MD_NOT_LOADED	(-3)

/* "memcg-dirty: ..." on s->err; md_err() returns -1, for its callers to return. */
void md_verr(const struct md_src *s, const char *fmt, va_list ap);
int md_err(const struct md_src *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

char *md_slurp(const struct md_src *s, const char *rel);
int md_preflight(const struct md_src *s);
int md_load_summary(const struct md_src *s, struct md_summary *sum);
int md_read_kvs(const struct md_src *s, const char *rel, struct md_kvs *k, char *err);
int md_read_cgroup(const struct md_src *s, const char *path, const char *name,
		   struct md_kvs *k, char *err);
int md_read_probes(const struct md_src *s, struct md_probes *p, char *err);
int md_read_domains(const struct md_src *s, struct md_domains *d, char *err, int quiet);
int md_read_events(const struct md_src *s, struct md_events *e, char *err);
int md_start_scan(const struct md_src *s);

/* Cgroup paths, and which rows a command's arguments select. */
void md_normalize(const char *arg, char *out, size_t len);
void md_cgroup_rel(const char *path, const char *name, char *out, size_t len);
int md_selected(const struct md_row *r, char **args, int nargs);
int md_check_args(const struct md_src *s, const struct md_summary *sum, char **args, int nargs);
int md_load_rows(const struct md_src *s, struct md_summary *sum, char **args, int nargs);
#define MD_BY_DIRTY	0
#define MD_BY_PATH	1
#define MD_BY_DIFFER	2
void md_sort(struct md_summary *sum, int how);
void md_hier(const struct md_summary *sum, size_t i, long long *l, long long *k);
void md_hier_wb(const struct md_summary *sum, size_t i, long long *l, long long *k);

/* A check file, the global one or a cgroup's. */
struct md_check_file {
	char cgroup[4096];	/* the normalized path, or "(global)" */
	char rel[4200];		/* the file, relative to the root */
	struct md_kvs kv;	/* every key, in file order */
	const char *verdict;	/* valid: md_verdict_valid(); the worst counter's */
	const char *counter;	/* whose figures the keys without a prefix are; NULL: an older module's, dirty */
	long long quiescent;
};

int md_load_check(const struct md_src *s, const char *arg, struct md_check_file *c);
long long md_cgroup_scan(const struct md_src *s, const struct md_row *r);
const char *md_check_get(const struct md_kvs *k, const char *counter, const char *key);

/* What a cgroup's stat file and the anomaly log count. */
int md_event_total(const struct md_kvs *k, size_t i, long long *v);
extern const char * const md_anomaly_kinds[];
extern const size_t md_nr_anomaly_kinds;
size_t md_count_kind(const struct md_events *e, const char *kind);
int md_event_is_new(const struct md_event_row *r, const char *last);

/* rates: one sample per online cgroup. */
struct md_sample {
	char *path;
	long long dirty, dirtied, cleaned;	/* pages */
};

int md_take(const struct md_src *s, struct md_sample **out, size_t *n);
void md_rates(const struct md_sample *prev, size_t np, const struct md_sample *x,
	      long page_size, double interval, double *dirtied, double *cleaned);
void md_free_samples(struct md_sample *x, size_t n);

#endif
