// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg-dirty model: the module's debugfs files, read and joined into
 * rows.  See mdmodel.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mdmodel.h"

void md_verr(const struct md_src *s, const char *fmt, va_list ap)
{
	fprintf(s->err, "memcg-dirty: ");
	vfprintf(s->err, fmt, ap);
	fputc('\n', s->err);
}

int md_err(const struct md_src *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	md_verr(s, fmt, ap);
	va_end(ap);
	return -1;
}

/* Read a whole file; NULL with a message that says what to do. */
char *md_slurp(const struct md_src *s, const char *rel)
{
	char path[4096], *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", s->root, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		md_err(s, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				close(fd);
				md_err(s, "out of memory reading %s", path);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			md_err(s, "cannot read %s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		md_err(s, "%s is not text", path);
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Is the module there?  One clear line when it is not: MD_NOT_LOADED when
 * its directory is missing (with MEMCG_DIRTY_DEBUGFS, that directory),
 * -1 for every other reason.
 */
int md_preflight(const struct md_src *s)
{
	struct stat st;

	if (getenv("MEMCG_DIRTY_DEBUGFS")) {
		if (stat(s->root, &st)) {
			int e = errno;

			md_err(s, "%s: %s", s->root, strerror(e));
			return e == ENOENT ? MD_NOT_LOADED : -1;
		}
		return 0;
	}
	if (geteuid() != 0)
		return md_err(s, "needs root to read /sys/kernel/debug (run it with sudo)");
	if (stat("/sys/kernel/debug/tracing", &st) && access("/sys/kernel/debug", R_OK) == 0 &&
	    stat(s->root, &st)) {
		FILE *m = fopen("/proc/mounts", "r");
		char line[512];
		int mounted = 0;

		while (m && fgets(line, sizeof(line), m))
			mounted |= !!strstr(line, " /sys/kernel/debug debugfs ");
		if (m)
			fclose(m);
		if (!mounted)
			return md_err(s, "debugfs is not mounted: run 'mount -t debugfs none /sys/kernel/debug'");
	}
	if (stat(s->root, &st) && !stat("/sys/module/memcg_dirty", &st) &&
	    stat("/sys/kernel/debug", &st))
		return md_err(s, "memcg_dirty is loaded, but the kernel has no debugfs (booted with debugfs=off?): its audit says what it finds on the console, and scan, resync and watch are parameters in %s",
			      MD_PARAMS_DEFAULT);
	if (stat(s->root, &st)) {
		if (!stat("/sys/module/memcg_dirty", &st))
			return md_err(s, "memcg_dirty is loaded, but %s is not there", s->root);
		md_err(s, "memcg_dirty is not loaded: run 'modprobe memcg_dirty'");
		return MD_NOT_LOADED;
	}
	return 0;
}

int md_load_summary(const struct md_src *s, struct md_summary *sum)
{
	char err[MD_ERRLEN], *text = md_slurp(s, "summary");
	int ret;

	if (!text)
		return -1;
	ret = md_parse_summary(text, sum, err);
	free(text);
	if (ret)
		md_err(s, "%s/%s", s->root, err);
	return ret;
}

/*
 * The md_read_*() functions leave saying that a file is malformed to their
 * callers: some commands must say it in their own words, the textfile
 * writer only fails.
 */
int md_read_kvs(const struct md_src *s, const char *rel, struct md_kvs *k, char *err)
{
	char *text = md_slurp(s, rel);
	int ret;

	if (!text)
		return MD_UNREADABLE;
	ret = md_parse_kvs(text, k, err) ? MD_MALFORMED : 0;
	free(text);
	return ret;
}

int md_read_cgroup(const struct md_src *s, const char *path, const char *name,
		   struct md_kvs *k, char *err)
{
	char rel[4200];

	md_cgroup_rel(path, name, rel, sizeof(rel));
	return md_read_kvs(s, rel, k, err);
}

int md_read_probes(const struct md_src *s, struct md_probes *p, char *err)
{
	char *text = md_slurp(s, "probes");
	int ret;

	if (!text)
		return MD_UNREADABLE;
	ret = md_parse_probes(text, p, err) ? MD_MALFORMED : 0;
	free(text);
	return ret;
}

/*
 * The domains file; MD_UNREADABLE without one, said only if @quiet is 0
 * (a module older than the file has none).
 */
int md_read_domains(const struct md_src *s, struct md_domains *d, char *err, int quiet)
{
	char path[4096], *text;
	int ret;

	snprintf(path, sizeof(path), "%s/domains", s->root);
	if (quiet && access(path, F_OK))
		return MD_UNREADABLE;
	text = md_slurp(s, "domains");
	if (!text)
		return MD_UNREADABLE;
	ret = md_parse_domains(text, d, err) ? MD_MALFORMED : 0;
	free(text);
	return ret;
}

int md_read_events(const struct md_src *s, struct md_events *e, char *err)
{
	char *text = md_slurp(s, "events");
	int ret;

	if (!text)
		return MD_UNREADABLE;
	ret = md_parse_events(text, e, err) ? MD_MALFORMED : 0;
	free(text);
	return ret;
}

/* Write @text to @path in one write: 0, or the errno. */
static int md_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, text, len) != (ssize_t)len)
		err = errno ?: EIO;
	close(fd);
	return err;
}

/*
 * The kernel's lockdown mode into @mode ("none", "integrity",
 * "confidentiality"); "unknown" when securityfs is not mounted or the
 * kernel has no lockdown.
 */
static void md_lockdown_mode(char *mode, size_t len)
{
	FILE *f = fopen(MD_LOCKDOWN_FILE, "r");
	char line[256];

	if (!f || !fgets(line, sizeof(line), f) || md_parse_lockdown(line, mode, len))
		snprintf(mode, len, "unknown");
	if (f)
		fclose(f);
}

/*
 * The module scans synchronously: when the write returns, "version" has
 * the result.  Lockdown refuses every debugfs file with a write bit
 * (EPERM), control included, but not the module's parameters: there the
 * parameter scan runs the same scan.
 */
int md_start_scan(const struct md_src *s)
{
	const char *params = getenv("MEMCG_DIRTY_PARAMS") ?: MD_PARAMS_DEFAULT;
	char path[4096], param[4096], mode[32];
	int err, perr;

	snprintf(path, sizeof(path), "%s/control", s->root);
	err = md_write_file(path, "scan\n");
	if (!err)
		return 0;
	if (err != EPERM)
		return md_err(s, "cannot start a scan through %s: %s", path, strerror(err));
	md_lockdown_mode(mode, sizeof(mode));
	if (!strcmp(mode, "none"))
		return md_err(s, "cannot start a scan through %s: %s (not lockdown: is it root's?)",
			      path, strerror(err));
	snprintf(param, sizeof(param), "%s/scan", params);
	perr = md_write_file(param, "1\n");
	if (!perr)
		return 0;
	return md_err(s, "lockdown (%s) refuses writing any debugfs file, %s too; and the module parameter %s: %s%s",
		      mode, path, param, strerror(perr),
		      perr == ENOENT ? " (a memcg_dirty older than its scan parameter: no scan under lockdown)" : "");
}

/* Cgroup argument -> path in the memory hierarchy ("/", "/a/b"). */
void md_normalize(const char *arg, char *out, size_t len)
{
	static const char * const prefixes[] = { "/sys/fs/cgroup/memory", "/sys/fs/cgroup" };
	size_t i, n;

	for (i = 0; i < 2; i++) {
		n = strlen(prefixes[i]);
		if (!strncmp(arg, prefixes[i], n) && (arg[n] == '/' || !arg[n])) {
			arg += n;
			break;
		}
	}
	snprintf(out, len, "%s%s", *arg == '/' ? "" : "/", arg);
	n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
}

/* The debugfs directory of a cgroup path: names escaped as the module does. */
static void dir_of(const char *path, char *out, size_t len)
{
	char tmp[4096], *save = NULL, *tok;
	size_t o = 0;

	o += snprintf(out, len, "cgroups");
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (tok = strtok_r(tmp, "/", &save); tok && o < len; tok = strtok_r(NULL, "/", &save)) {
		int esc = !strcmp(tok, "stat") || !strcmp(tok, "check") || tok[0] == '%';

		o += snprintf(out + o, len - o, "/%s%s", esc ? "%" : "", tok);
	}
}

/*
 * A cgroup's file @name ("stat" or "check": at most 5 characters), relative
 * to the root.  The directory is cut short rather than the file name.
 */
void md_cgroup_rel(const char *path, const char *name, char *out, size_t len)
{
	dir_of(path, out, len - 6);
	strcat(strcat(out, "/"), name);
}

int md_selected(const struct md_row *r, char **args, int nargs)
{
	char p[4096];
	int i;
	size_t n;

	if (!nargs)
		return 1;
	for (i = 0; i < nargs; i++) {
		md_normalize(args[i], p, sizeof(p));
		n = strlen(p);
		if (!strcmp(r->path, p) || (!strcmp(p, "/") ? 1 :
		    !strncmp(r->path, p, n) && r->path[n] == '/'))
			return 1;
	}
	return 0;
}

static int known(const struct md_summary *sum, const char *arg)
{
	char p[4096];
	size_t i;

	md_normalize(arg, p, sizeof(p));
	for (i = 0; i < sum->n; i++)
		if (!sum->rows[i].dying && !strcmp(sum->rows[i].path, p))
			return 1;
	return 0;
}

int md_check_args(const struct md_src *s, const struct md_summary *sum, char **args, int nargs)
{
	int i;

	for (i = 0; i < nargs; i++)
		if (!known(sum, args[i]))
			return md_err(s, "unknown cgroup '%s' (not in the memory hierarchy)", args[i]);
	return 0;
}

/* The summary, once every cgroup named in @args is known to be in it. */
int md_load_rows(const struct md_src *s, struct md_summary *sum, char **args, int nargs)
{
	if (md_load_summary(s, sum))
		return -1;
	if (md_check_args(s, sum, args, nargs)) {
		md_free_summary(sum);
		return -1;
	}
	return 0;
}

static int cmp_dirty(const void *a, const void *b)
{
	const struct md_row *x = a, *y = b;

	if (x->dirty != y->dirty)
		return x->dirty < y->dirty ? 1 : -1;
	return strcmp(x->path, y->path);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct md_row *)a)->path, ((const struct md_row *)b)->path);
}

/* 0 for a counter found wrong, 1 for a verdict that is not sure, 2 for ok. */
static int verdict_rank(const char *v)
{
	if (!strcmp(v, "mismatch") || !strcmp(v, "underflow"))
		return 0;
	return strcmp(v, "ok") ? 1 : 2;
}

/* |kernel - ledger|, as unsigned: absurd counts do not overflow. */
static unsigned long long gap(long long kernel, long long ledger)
{
	unsigned long long k = (unsigned long long)kernel, l = (unsigned long long)ledger;

	return kernel > ledger ? k - l : l - k;
}

/* The wider of its counters' gaps (an unknown count is 0, as in its row). */
static unsigned long long row_gap(const struct md_row *r)
{
	unsigned long long d = gap(r->kernel, r->dirty), w = gap(r->kernel_wb, r->writeback);

	return d > w ? d : w;
}

static int cmp_differ(const void *a, const void *b)
{
	const struct md_row *x = a, *y = b;
	int rx = verdict_rank(x->verdict), ry = verdict_rank(y->verdict);

	if (rx != ry)
		return rx - ry;
	if (row_gap(x) != row_gap(y))
		return row_gap(x) < row_gap(y) ? 1 : -1;
	return cmp_dirty(a, b);
}

/*
 * MD_BY_DIRTY: most dirty first.  MD_BY_PATH: a parent comes right before
 * its subtree.  MD_BY_DIFFER: the textfile's top N, the cgroups a reader
 * must see first: mismatch and underflow, then untrusted and unsynced,
 * then ok; within each, kernel and ledger furthest apart first (of the
 * counter, dirty or writeback, where they are furthest apart), then most
 * dirty.
 */
void md_sort(struct md_summary *sum, int how)
{
	qsort(sum->rows, sum->n, sizeof(*sum->rows),
	      how == MD_BY_PATH ? cmp_path : how == MD_BY_DIFFER ? cmp_differ : cmp_dirty);
}

/*
 * Ledger and kernel summed over the subtree of rows[i], of file_dirty
 * (@wb 0) or file_writeback (@wb 1); unknown counts are 0.  Summed as
 * unsigned: absurd counts from a damaged file wrap as they always did,
 * without the undefined behaviour of a signed overflow.
 */
static void hier(const struct md_summary *sum, size_t i, int wb, long long *l, long long *k)
{
	const char *top = sum->rows[i].path;
	size_t n = strlen(top), j;
	unsigned long long ul = 0, uk = 0;
	int root = !strcmp(top, "/");

	for (j = 0; j < sum->n; j++) {
		const struct md_row *r = &sum->rows[j];
		const char *p = r->path;

		if (j == i || root || (!strncmp(p, top, n) && p[n] == '/')) {
			ul += (unsigned long long)(wb ? r->writeback : r->dirty);
			uk += (unsigned long long)(wb ? r->kernel_wb : r->kernel);
		}
	}
	*l = (long long)ul;
	*k = (long long)uk;
}

void md_hier(const struct md_summary *sum, size_t i, long long *l, long long *k)
{
	hier(sum, i, 0, l, k);
}

void md_hier_wb(const struct md_summary *sum, size_t i, long long *l, long long *k)
{
	hier(sum, i, 1, l, k);
}

/* The check file of cgroup @arg, or the global one when @arg is NULL. */
int md_load_check(const struct md_src *s, const char *arg, struct md_check_file *c)
{
	char err[MD_ERRLEN];
	int ret;

	if (arg) {
		md_normalize(arg, c->cgroup, sizeof(c->cgroup));
		md_cgroup_rel(c->cgroup, "check", c->rel, sizeof(c->rel));
	} else {
		snprintf(c->cgroup, sizeof(c->cgroup), "(global)");
		snprintf(c->rel, sizeof(c->rel), "check");
	}
	ret = md_read_kvs(s, c->rel, &c->kv, err);
	if (ret == MD_UNREADABLE)
		return -1;
	c->verdict = ret ? NULL : md_kv_get(&c->kv, "verdict");
	if (!c->verdict || !md_verdict_valid(c->verdict)) {
		md_free_kvs(&c->kv);
		return md_err(s, "%s/%s: malformed", s->root, c->rel);
	}
	c->counter = md_kv_get(&c->kv, "counter");
	c->quiescent = 1;
	if (md_kv_get(&c->kv, "quiescent"))
		md_kv_num(&c->kv, "quiescent", &c->quiescent, err);
	return 0;
}

/*
 * Counter @counter's value of key @key ("scan", "verdict", ...) in a
 * cgroup's check file: its NAME_KEY; from a module older than the
 * counter keys (no "counter" key), the dirty counter's is KEY itself.
 * NULL when there is none.
 */
const char *md_check_get(const struct md_kvs *k, const char *counter, const char *key)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%s", counter, key);
	if (md_kv_get(k, name))
		return md_kv_get(k, name);
	if (!strcmp(counter, "dirty") && !md_kv_get(k, "counter"))
		return md_kv_get(k, key);
	return NULL;
}

/* Dirty pages the last scan found in an online cgroup; -1: no scan to show. */
long long md_cgroup_scan(const struct md_src *s, const struct md_row *r)
{
	char err[MD_ERRLEN];
	struct md_kvs k;
	long long scan = -1;
	const char *v;

	if (r->dying)
		return -1;
	if (!md_read_cgroup(s, r->path, "check", &k, err)) {
		v = md_check_get(&k, "dirty", "scan");
		if (!v || md_parse_ll(v, &scan))
			scan = -1;
		md_free_kvs(&k);
	}
	return scan;
}

/*
 * Is @key one of a counter's page counts in a stat file: NAME, NAME_hier,
 * kernel_NAME, kernel_NAME_hier, NAME_node<N>, kernel_NAME_node<N>, and
 * where the kernel reparents carried and kernel_carried (the dirty
 * counter's) or carried_NAME and kernel_carried_NAME?
 */
static int counter_key(const char *key)
{
	size_t i, n;
	const char *p;

	if (!strcmp(key, "carried") || !strcmp(key, "kernel_carried"))
		return 1;
	if (!strncmp(key, "kernel_", 7))
		key += 7;
	if (!strncmp(key, "carried_", 8))
		return md_counter_index(key + 8) >= 0;
	for (i = 0; i < MD_NR_COUNTERS; i++) {
		n = strlen(md_counters[i]);
		if (strncmp(key, md_counters[i], n))
			continue;
		p = key + n;
		/* and the counter's own synced flag (writeback_synced) */
		if (!*p || !strcmp(p, "_hier") || !strncmp(p, "_node", 5) ||
		    !strcmp(p, "_synced"))
			return 1;
	}
	return 0;
}

/*
 * Is the i-th key of a cgroup's stat file an event total, and its value?
 * The module writes each counter's page counts (dirty, dirty_hier,
 * kernel_dirty, kernel_dirty_hier, then dirty_node<N> and
 * kernel_dirty_node<N> per node; the same for writeback), then one total
 * per accounting event in its own order (dirtied, cleaned_io, ...,
 * wb_started, wb_ended, ...), then dirtied_uncharged (not an event of the
 * cgroup: folios that had none), synced (a state), carried,
 * kernel_carried, carried_writeback, kernel_carried_writeback and
 * kernel_carried_unseen (pages, where the kernel reparents) and
 * hier_settled (a state).  So the events are every other key, in file
 * order, and an event the module gains is exported without a change here.
 * A repeated key counts once, with its first value, as md_kv_get() reads it.
 */
int md_event_total(const struct md_kvs *k, size_t i, long long *v)
{
	/* wb_ended_irq: a part of wb_ended, not an event of its own */
	static const char * const not_events[] = { "dirtied_uncharged", "synced",
		"kernel_carried_unseen", "hier_settled", "wb_ended_irq" };
	const char *key = k->kv[i].key;
	size_t j;

	if (!key || counter_key(key))
		return 0;
	for (j = 0; j < sizeof(not_events) / sizeof(*not_events); j++)
		if (!strcmp(key, not_events[j]))
			return 0;
	for (j = 0; j < i; j++)
		if (k->kv[j].key && !strcmp(k->kv[j].key, key))
			return 0;
	return !md_parse_ll(k->kv[i].val, v);
}

/*
 * The anomaly kinds, as md_anomaly_names[] in module/anomaly.c names them.
 * This is the CLI's one copy: the events file lists only anomalies that
 * happened and no file of the module lists the kinds, yet the textfile
 * reports every kind, 0 when none is logged, so that a series exists
 * before its first anomaly.  A kind added to the module must be added here.
 */
const char * const md_anomaly_kinds[] = { "ledger_underflow", "kernel_negative",
	"dirtied_uncharged", "probe_missed", "mismatch", "cleaned_uncounted" };
const size_t md_nr_anomaly_kinds = sizeof(md_anomaly_kinds) / sizeof(*md_anomaly_kinds);

size_t md_count_kind(const struct md_events *e, const char *kind)
{
	size_t i, n = 0;

	for (i = 0; i < e->n; i++)
		n += !strcmp(e->rows[i].kind, kind);
	return n;
}

/* Is @r newer than the last event shown ("" when none was)? */
int md_event_is_new(const struct md_event_row *r, const char *last)
{
	/* times are "seconds.micros" since boot: compare as numbers */
	return !*last || strtod(r->time, NULL) > strtod(last, NULL);
}

/* rates: dirty pages and the dirtied and cleaned totals of every online cgroup. */
int md_take(const struct md_src *s, struct md_sample **out, size_t *n)
{
	struct md_summary sum;
	size_t i;

	if (md_load_summary(s, &sum))
		return -1;
	*out = calloc(sum.n + 1, sizeof(**out));
	*n = 0;
	for (i = 0; *out && i < sum.n; i++) {
		char err[MD_ERRLEN];
		struct md_kvs k;
		struct md_sample *x = &(*out)[*n];
		int ret;

		if (sum.rows[i].dying)
			continue;
		ret = md_read_cgroup(s, sum.rows[i].path, "stat", &k, err);
		if (ret == MD_UNREADABLE)
			continue;	/* removed meanwhile */
		if (!ret && !md_kv_num(&k, "dirty", &x->dirty, err) &&
		    !md_kv_num(&k, "dirtied", &x->dirtied, err) &&
		    !md_kv_num(&k, "cleaned_io", &x->cleaned, err)) {
			x->path = strdup(sum.rows[i].path);
			(*n)++;
		}
		md_free_kvs(&k);
	}
	md_free_summary(&sum);
	return *out ? 0 : -1;
}

/* Bytes dirtied and cleaned per second since x's cgroup was last sampled in @prev. */
void md_rates(const struct md_sample *prev, size_t np, const struct md_sample *x,
	      long page_size, double interval, double *dirtied, double *cleaned)
{
	size_t j;

	*dirtied = *cleaned = 0;	/* a new cgroup */
	for (j = 0; j < np; j++)
		if (!strcmp(prev[j].path, x->path)) {
			*dirtied = (x->dirtied - prev[j].dirtied) * page_size / interval;
			*cleaned = (x->cleaned - prev[j].cleaned) * page_size / interval;
		}
}

void md_free_samples(struct md_sample *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(x[i].path);
	free(x);
}
