// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-dirty: is dirty accounting right on this machine, and where is the
 * dirty memory?  Reads /sys/kernel/debug/memcg_dirty (or the directory in
 * $MEMCG_DIRTY_DEBUGFS, for tests).  See memcg-dirty.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "mdcli.h"
#include "mdparse.h"

#define MD_ROOT_DEFAULT "/sys/kernel/debug/memcg_dirty"
#define EXIT_OK 0
#define EXIT_BAD 1
#define EXIT_ERR 2
#define EXIT_UNSURE 3

struct ctx {
	const char *root;
	FILE *out, *err;
	int json, tree, strict, follow, count;
	long max_cgroups;
	double interval;
	const char *prom;
	long page_size;
};

static int error(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "memcg-dirty: ");
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	return EXIT_ERR;
}

/* Read a whole file; NULL with a message that says what to do. */
static char *slurp(struct ctx *c, const char *rel)
{
	char path[4096], *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", c->root, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		error(c, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				close(fd);
				error(c, "out of memory reading %s", path);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			error(c, "cannot read %s: %s", path, strerror(errno));
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
		error(c, "%s is not text", path);
		free(buf);
		return NULL;
	}
	return buf;
}

/* Is the module there?  One clear line when it is not. */
static int preflight(struct ctx *c)
{
	struct stat st;

	if (getenv("MEMCG_DIRTY_DEBUGFS")) {
		if (stat(c->root, &st))
			return error(c, "%s: %s", c->root, strerror(errno));
		return 0;
	}
	if (geteuid() != 0)
		return error(c, "needs root to read /sys/kernel/debug (run it with sudo)");
	if (stat("/sys/kernel/debug/tracing", &st) && access("/sys/kernel/debug", R_OK) == 0 &&
	    stat(c->root, &st)) {
		FILE *m = fopen("/proc/mounts", "r");
		char line[512];
		int mounted = 0;

		while (m && fgets(line, sizeof(line), m))
			mounted |= !!strstr(line, " /sys/kernel/debug debugfs ");
		if (m)
			fclose(m);
		if (!mounted)
			return error(c, "debugfs is not mounted: run 'mount -t debugfs none /sys/kernel/debug'");
	}
	if (stat(c->root, &st))
		return error(c, "memcg_dirty is not loaded: run 'modprobe memcg_dirty'");
	return 0;
}

static int load_summary(struct ctx *c, struct md_summary *s)
{
	char err[MD_ERRLEN], *text = slurp(c, "summary");
	int ret;

	if (!text)
		return -1;
	ret = md_parse_summary(text, s, err);
	free(text);
	if (ret)
		error(c, "%s/%s", c->root, err);
	return ret;
}

static void human(long long bytes, char *buf, size_t len)
{
	static const char * const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = bytes < 0 ? -(double)bytes : (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%s%.*f %s", bytes < 0 ? "-" : "", u ? 1 : 0, v, unit[u]);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* ,"key":"value" */
static void json_kv(FILE *f, const char *key, const char *val)
{
	fprintf(f, ",\"%s\":", key);
	json_str(f, val);
}

/* Cgroup argument -> path in the memory hierarchy ("/", "/a/b"). */
static void normalize(const char *arg, char *out, size_t len)
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

static int selected(struct md_row *r, char **args, int nargs)
{
	char p[4096];
	int i;
	size_t n;

	if (!nargs)
		return 1;
	for (i = 0; i < nargs; i++) {
		normalize(args[i], p, sizeof(p));
		n = strlen(p);
		if (!strcmp(r->path, p) || (!strcmp(p, "/") ? 1 :
		    !strncmp(r->path, p, n) && r->path[n] == '/'))
			return 1;
	}
	return 0;
}

static int known(struct md_summary *s, const char *arg)
{
	char p[4096];
	size_t i;

	normalize(arg, p, sizeof(p));
	for (i = 0; i < s->n; i++)
		if (!s->rows[i].dying && !strcmp(s->rows[i].path, p))
			return 1;
	return 0;
}

static int check_args(struct ctx *c, struct md_summary *s, char **args, int nargs)
{
	int i;

	for (i = 0; i < nargs; i++)
		if (!known(s, args[i]))
			return error(c, "unknown cgroup '%s' (not in the memory hierarchy)", args[i]);
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

/* Ledger and kernel summed over the subtree of rows[i] (rows sorted by path). */
static void hier(struct md_summary *s, size_t i, long long *l, long long *k)
{
	size_t n = strlen(s->rows[i].path), j;
	int root = !strcmp(s->rows[i].path, "/");

	*l = *k = 0;
	for (j = 0; j < s->n; j++) {
		const char *p = s->rows[j].path;

		if (j == i || root || (!strncmp(p, s->rows[i].path, n) && p[n] == '/')) {
			*l += s->rows[j].dirty;
			*k += s->rows[j].kernel;
		}
	}
}

static int cmd_table(struct ctx *c, char **args, int nargs)
{
	struct md_summary s;
	char a[32], b[32], d[32];
	size_t i;
	int first = 1;

	if (load_summary(c, &s))
		return EXIT_ERR;
	if (check_args(c, &s, args, nargs)) {
		md_free_summary(&s);
		return EXIT_ERR;
	}
	qsort(s.rows, s.n, sizeof(*s.rows), c->tree ? cmp_path : cmp_dirty);
	if (c->json)
		fprintf(c->out, "{\"page_size\":%ld,\"cgroups\":[", c->page_size);
	else
		fprintf(c->out, "%-40s %12s %12s %12s %s\n", c->tree ? "CGROUP (subtree)" : "CGROUP",
			"DIRTY", "KERNEL", "DIFF", "VERDICT");
	for (i = 0; i < s.n; i++) {
		struct md_row *r = &s.rows[i];
		long long l = r->dirty, k = r->kernel;

		if (!selected(r, args, nargs))
			continue;
		if (c->tree)
			hier(&s, i, &l, &k);
		l *= c->page_size;
		k *= c->page_size;
		if (c->json) {
			fprintf(c->out, "%s{\"id\":%llu,\"path\":", first ? "" : ",", r->id);
			json_str(c->out, r->path);
			fprintf(c->out, ",\"state\":\"%s\",\"%s\":%lld,\"%s\":%lld,\"verdict\":\"%s\"}",
				r->dying ? "dying" : "online",
				c->tree ? "dirty_hier_bytes" : "dirty_bytes", l,
				c->tree ? "kernel_dirty_hier_bytes" : "kernel_dirty_bytes", k, r->verdict);
		} else {
			char name[4200];
			int depth = 0;
			const char *p;

			if (c->tree) {
				for (p = r->path; *p; p++)
					depth += *p == '/';
				p = strrchr(r->path, '/');
				snprintf(name, sizeof(name), "%*s%s%s", strcmp(r->path, "/") ? 2 * (depth - 1) : 0, "",
					 strcmp(r->path, "/") ? p + 1 : "/", r->dying ? " (dying)" : "");
			} else {
				snprintf(name, sizeof(name), "%s%s", r->path, r->dying ? " (dying)" : "");
			}
			human(l, a, sizeof(a));
			human(k, b, sizeof(b));
			human(k - l, d, sizeof(d));
			fprintf(c->out, "%-40s %12s %12s %12s %s\n", name, a, b, d, r->verdict);
		}
		first = 0;
	}
	if (c->json)
		fprintf(c->out, "]}\n");
	md_free_summary(&s);
	return EXIT_OK;
}

static int verdict_exit(const char *v, int quiescent, int strict)
{
	if (!strcmp(v, "mismatch") || !strcmp(v, "underflow"))
		return EXIT_BAD;
	if (!strcmp(v, "untrusted") || !strcmp(v, "unsynced"))
		return EXIT_UNSURE;
	if (strict && !quiescent)
		return EXIT_UNSURE;
	return EXIT_OK;
}

static int worse(int a, int b)
{
	static const int rank[] = { [EXIT_OK] = 0, [EXIT_UNSURE] = 1, [EXIT_BAD] = 2, [EXIT_ERR] = 3 };

	return rank[b] > rank[a] ? b : a;
}

static int cmd_check(struct ctx *c, char **args, int nargs)
{
	struct md_summary s;
	int rc = EXIT_OK, first = 1, i;
	char err[MD_ERRLEN];

	if (load_summary(c, &s))
		return EXIT_ERR;
	if (check_args(c, &s, args, nargs)) {
		md_free_summary(&s);
		return EXIT_ERR;
	}
	if (c->json)
		fprintf(c->out, "{\"checks\":[");
	for (i = 0; i < (nargs ? nargs : 1); i++) {
		char p[4096], rel[4200], *text;
		struct md_kvs k;
		long long q = 1;
		const char *v;

		if (nargs) {
			normalize(args[i], p, sizeof(p));
			dir_of(p, rel, sizeof(rel) - 6);
			strcat(rel, "/check");
		} else {
			snprintf(p, sizeof(p), "(global)");
			snprintf(rel, sizeof(rel), "check");
		}
		text = slurp(c, rel);
		if (!text) {
			rc = EXIT_ERR;
			continue;
		}
		if (md_parse_kvs(text, &k, err) || !(v = md_kv_get(&k, "verdict")) ||
		    !md_verdict_valid(v)) {
			free(text);
			md_free_kvs(&k);
			rc = worse(rc, error(c, "%s/%s: malformed", c->root, rel));
			continue;
		}
		if (md_kv_get(&k, "quiescent"))
			md_kv_num(&k, "quiescent", &q, err);
		rc = worse(rc, verdict_exit(v, q, c->strict));
		if (c->json) {
			size_t j;

			fprintf(c->out, "%s{\"cgroup\":", first ? "" : ",");
			json_str(c->out, p);
			for (j = 0; j < k.n; j++) {
				long long num;

				fprintf(c->out, ",");
				json_str(c->out, k.kv[j].key);
				if (!md_parse_ll(k.kv[j].val, &num))
					fprintf(c->out, ":%lld", num);
				else {
					fprintf(c->out, ":");
					json_str(c->out, k.kv[j].val);
				}
			}
			fprintf(c->out, "}");
		} else {
			fprintf(c->out, "%s %s", p, v);
			if (nargs)
				fprintf(c->out, " (kernel %s ledger %s scan %s suspect %s delta %s)",
					md_kv_get(&k, "kernel") ?: "?", md_kv_get(&k, "ledger") ?: "?",
					md_kv_get(&k, "scan") ?: "?", md_kv_get(&k, "suspect") ?: "?",
					md_kv_get(&k, "delta") ?: "?");
			fputc('\n', c->out);
		}
		first = 0;
		free(text);
		md_free_kvs(&k);
	}
	if (!nargs) {		/* the global check, and every cgroup that is not ok */
		size_t j;

		for (j = 0; j < s.n; j++) {
			if (!strcmp(s.rows[j].verdict, "ok"))
				continue;
			rc = worse(rc, verdict_exit(s.rows[j].verdict, 1, 0));
			if (c->json) {
				fprintf(c->out, ",{\"cgroup\":");
				json_str(c->out, s.rows[j].path);
				fprintf(c->out, ",\"verdict\":\"%s\"}", s.rows[j].verdict);
			} else {
				fprintf(c->out, "%s %s\n", s.rows[j].path, s.rows[j].verdict);
			}
		}
	}
	if (c->json)
		fprintf(c->out, "],\"exit\":%d}\n", rc);
	md_free_summary(&s);
	return rc;
}

static int cmd_probes(struct ctx *c)
{
	char err[MD_ERRLEN], *text = slurp(c, "probes");
	struct md_probes p;
	size_t i;

	if (!text)
		return EXIT_ERR;
	if (md_parse_probes(text, &p, err)) {
		free(text);
		return error(c, "%s/%s", c->root, err);
	}
	if (c->json)
		fprintf(c->out, "{\"probes\":[");
	else
		fprintf(c->out, "%-14s %-28s %-11s %-12s %12s %8s\n", "POINT", "SYMBOL", "TYPE",
			"STATUS", "HITS", "MISSED");
	for (i = 0; i < p.n; i++) {
		struct md_probe_row *r = &p.rows[i];

		if (c->json) {
			fprintf(c->out, "%s{\"point\":", i ? "," : "");
			json_str(c->out, r->point);
			json_kv(c->out, "symbol", r->symbol);
			json_kv(c->out, "type", r->type);
			json_kv(c->out, "status", r->status);
			fprintf(c->out, ",\"hits\":%llu,\"missed\":%llu}", r->hits, r->missed);
		} else {
			fprintf(c->out, "%-14s %-28s %-11s %-12s %12llu %8llu\n", r->point, r->symbol,
				r->type, r->status, r->hits, r->missed);
		}
	}
	if (c->json)
		fprintf(c->out, "]}\n");
	md_free_probes(&p);
	free(text);
	return EXIT_OK;
}

static void print_event(struct ctx *c, struct md_event_row *r, int first)
{
	if (c->json) {
		fprintf(c->out, "%s{\"time\":", first ? "" : ",");
		json_str(c->out, r->time);
		json_kv(c->out, "id", r->id);
		json_kv(c->out, "path", r->path);
		json_kv(c->out, "node", r->node);
		json_kv(c->out, "kind", r->kind);
		json_kv(c->out, "probe", r->probe);
		json_kv(c->out, "pfn", r->pfn);
		fprintf(c->out, ",\"kernel\":%lld,\"ledger\":%lld,\"scan\":%lld,\"missed\":%llu}",
			r->kernel, r->ledger, r->scan, r->missed);
	} else {
		fprintf(c->out, "%14s %-18s %-30s node %-2s probe %-10s kernel %lld ledger %lld scan %lld missed %llu\n",
			r->time, r->kind, r->path, r->node, r->probe, r->kernel, r->ledger, r->scan,
			r->missed);
	}
}

static int cmd_events(struct ctx *c)
{
	char err[MD_ERRLEN], last[64] = "";
	int first = 1;

	if (c->json && !c->follow)
		fprintf(c->out, "{\"events\":[");
	do {
		char *text = slurp(c, "events");
		struct md_events e;
		size_t i;

		if (!text)
			return EXIT_ERR;
		if (md_parse_events(text, &e, err)) {
			free(text);
			return error(c, "%s/%s", c->root, err);
		}
		for (i = 0; i < e.n; i++) {
			/* times are "seconds.micros" since boot: compare as numbers */
			if (*last && strtod(e.rows[i].time, NULL) <= strtod(last, NULL))
				continue;
			if (c->follow && c->json) {
				print_event(c, &e.rows[i], 1);
				fputc('\n', c->out);
			} else {
				print_event(c, &e.rows[i], first);
			}
			first = 0;
		}
		if (e.n)
			snprintf(last, sizeof(last), "%s", e.rows[e.n - 1].time);
		if (!c->follow && c->json)
			fprintf(c->out, "],\"dropped\":%llu}\n", e.dropped);
		md_free_events(&e);
		free(text);
		fflush(c->out);
		if (!c->follow || (c->count > 0 && --c->count == 0))
			break;
		usleep((useconds_t)(c->interval * 1e6));
	} while (1);
	return EXIT_OK;
}

static int cmd_scan(struct ctx *c)
{
	char path[4096], err[MD_ERRLEN], *text;
	struct md_kvs k;
	int fd;

	snprintf(path, sizeof(path), "%s/control", c->root);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "scan\n", 5) != 5) {
		if (fd >= 0)
			close(fd);
		return error(c, "cannot start a scan through %s: %s", path, strerror(errno));
	}
	close(fd);
	text = slurp(c, "version");
	if (!text)
		return EXIT_ERR;
	if (md_parse_kvs(text, &k, err)) {
		free(text);
		return error(c, "%s/version: %s", c->root, err);
	}
	if (c->json)
		fprintf(c->out, "{\"scan_ms\":%s,\"scan_dirty_pages\":%s,\"scan_busy_pages\":%s,\"scans\":%s}\n",
			md_kv_get(&k, "scan_ms") ?: "null", md_kv_get(&k, "scan_dirty") ?: "null",
			md_kv_get(&k, "scan_busy") ?: "null", md_kv_get(&k, "scans") ?: "null");
	else
		fprintf(c->out, "scan took %s ms: %s dirty pages, %s busy (locked, not counted)\n",
			md_kv_get(&k, "scan_ms") ?: "?", md_kv_get(&k, "scan_dirty") ?: "?",
			md_kv_get(&k, "scan_busy") ?: "?");
	md_free_kvs(&k);
	free(text);
	return EXIT_OK;
}

/* --- watch: rates of dirtying and cleaning per cgroup ------------------- */

struct sample {
	char *path;
	long long dirty, dirtied, cleaned;
};

static int take(struct ctx *c, struct sample **out, size_t *n)
{
	struct md_summary s;
	size_t i;

	if (load_summary(c, &s))
		return -1;
	*out = calloc(s.n + 1, sizeof(**out));
	*n = 0;
	for (i = 0; *out && i < s.n; i++) {
		char rel[4200], err[MD_ERRLEN], *text;
		struct md_kvs k;
		struct sample *x = &(*out)[*n];

		if (s.rows[i].dying)
			continue;
		dir_of(s.rows[i].path, rel, sizeof(rel) - 6);
		strcat(rel, "/stat");
		text = slurp(c, rel);
		if (!text)
			continue;	/* removed meanwhile */
		if (!md_parse_kvs(text, &k, err) && !md_kv_num(&k, "dirty", &x->dirty, err) &&
		    !md_kv_num(&k, "dirtied", &x->dirtied, err) &&
		    !md_kv_num(&k, "cleaned_io", &x->cleaned, err)) {
			x->path = strdup(s.rows[i].path);
			(*n)++;
		}
		md_free_kvs(&k);
		free(text);
	}
	md_free_summary(&s);
	return *out ? 0 : -1;
}

static int cmd_watch(struct ctx *c)
{
	struct sample *prev = NULL, *cur;
	size_t np = 0, nc, i, j;
	int tty = isatty(fileno(c->out)) && !c->json;

	if (take(c, &prev, &np))
		return EXIT_ERR;
	while (c->count < 0 || c->count-- > 0) {
		usleep((useconds_t)(c->interval * 1e6));
		if (take(c, &cur, &nc))
			return EXIT_ERR;
		if (tty)
			fprintf(c->out, "\033[H\033[2J%-40s %12s %14s %14s\n", "CGROUP", "DIRTY",
				"DIRTIED/s", "CLEANED/s");
		for (i = 0; i < nc; i++) {
			double dr = 0, cr = 0;
			char d[32];

			for (j = 0; j < np; j++)
				if (!strcmp(prev[j].path, cur[i].path)) {
					dr = (cur[i].dirtied - prev[j].dirtied) * c->page_size / c->interval;
					cr = (cur[i].cleaned - prev[j].cleaned) * c->page_size / c->interval;
				}
			if (c->json) {
				fprintf(c->out, "{\"time\":%ld,\"cgroup\":", (long)time(NULL));
				json_str(c->out, cur[i].path);
				fprintf(c->out, ",\"dirty_bytes\":%lld,\"dirtied_bytes_per_s\":%.0f,\"cleaned_bytes_per_s\":%.0f}\n",
					cur[i].dirty * c->page_size, dr, cr);
			} else {
				human(cur[i].dirty * c->page_size, d, sizeof(d));
				if (tty)
					fprintf(c->out, "%-40s %12s %12.0f/s %12.0f/s\n", cur[i].path, d, dr, cr);
				else
					fprintf(c->out, "%ld %s dirty=%s dirtied=%.0fB/s cleaned=%.0fB/s\n",
						(long)time(NULL), cur[i].path, d, dr, cr);
			}
		}
		fflush(c->out);
		for (j = 0; j < np; j++)
			free(prev[j].path);
		free(prev);
		prev = cur;
		np = nc;
	}
	for (j = 0; j < np; j++)
		free(prev[j].path);
	free(prev);
	return EXIT_OK;
}

/* --- node_exporter textfile ------------------------------------------------ */

static void prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static int write_prom(struct ctx *c, FILE *f)
{
	static const char * const events[] = { "dirtied", "cleaned_io", "cancelled", "removed_dirty",
		"migrated", "moved_in", "moved_out" };
	struct md_summary s;
	struct md_probes p;
	struct md_events e;
	struct md_kvs g;
	char err[MD_ERRLEN], *text;
	size_t i, j, n;

	if (load_summary(c, &s))
		return -1;
	qsort(s.rows, s.n, sizeof(*s.rows), cmp_dirty);
	n = c->max_cgroups >= 0 && (size_t)c->max_cgroups < s.n ? (size_t)c->max_cgroups : s.n;

	fprintf(f, "# HELP memcg_dirty_bytes Dirty file bytes charged to the cgroup, by view.\n"
		   "# TYPE memcg_dirty_bytes gauge\n");
	for (i = 0; i < n; i++) {
		struct md_row *r = &s.rows[i];
		char rel[4200];
		struct md_kvs k;
		long long scan = -1;

		dir_of(r->path, rel, sizeof(rel) - 6);
		strcat(rel, "/check");
		text = r->dying ? NULL : slurp(c, rel);
		if (text && !md_parse_kvs(text, &k, err)) {
			md_kv_num(&k, "scan", &scan, err);
			md_free_kvs(&k);
		}
		free(text);
		for (j = 0; j < 3; j++) {
			long long v = j == 0 ? r->dirty : j == 1 ? r->kernel : scan;

			if (j == 2 && scan < 0)
				continue;
			fprintf(f, "memcg_dirty_bytes{cgroup=\"");
			prom_label(f, r->path);
			fprintf(f, "\",source=\"%s\"} %lld\n", j == 0 ? "ledger" : j == 1 ? "kernel" : "scan",
				v * c->page_size);
		}
	}
	fprintf(f, "# HELP memcg_dirty_check_status 1 for the cgroup's current verdict.\n"
		   "# TYPE memcg_dirty_check_status gauge\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "memcg_dirty_check_status{cgroup=\"");
		prom_label(f, s.rows[i].path);
		fprintf(f, "\",verdict=\"%s\"} 1\n", s.rows[i].verdict);
	}
	fprintf(f, "# HELP memcg_dirty_event_bytes_total Bytes moved by each dirty accounting event.\n"
		   "# TYPE memcg_dirty_event_bytes_total counter\n");
	for (i = 0; i < n; i++) {
		char rel[4200];
		struct md_kvs k;

		if (s.rows[i].dying)
			continue;
		dir_of(s.rows[i].path, rel, sizeof(rel) - 6);
		strcat(rel, "/stat");
		text = slurp(c, rel);
		if (!text)
			continue;
		if (!md_parse_kvs(text, &k, err)) {
			for (j = 0; j < sizeof(events) / sizeof(*events); j++) {
				long long v;

				if (md_kv_num(&k, events[j], &v, err))
					continue;
				fprintf(f, "memcg_dirty_event_bytes_total{cgroup=\"");
				prom_label(f, s.rows[i].path);
				fprintf(f, "\",event=\"%s\"} %lld\n", events[j], v * c->page_size);
			}
			md_free_kvs(&k);
		}
		free(text);
	}
	fprintf(f, "# HELP memcg_dirty_cgroups_omitted Cgroups left out by --max-cgroups.\n"
		   "# TYPE memcg_dirty_cgroups_omitted gauge\nmemcg_dirty_cgroups_omitted %zu\n", s.n - n);
	md_free_summary(&s);

	text = slurp(c, "check");
	if (!text || md_parse_kvs(text, &g, err)) {
		free(text);
		return -1;
	}
	fprintf(f, "# HELP memcg_dirty_global_check_status 1 for the global verdict.\n"
		   "# TYPE memcg_dirty_global_check_status gauge\n"
		   "memcg_dirty_global_check_status{verdict=\"%s\"} 1\n", md_kv_get(&g, "verdict") ?: "unknown");
	md_free_kvs(&g);
	free(text);

	text = slurp(c, "probes");
	if (!text || md_parse_probes(text, &p, err)) {
		free(text);
		return -1;
	}
	fprintf(f, "# HELP memcg_dirty_probe_hits_total Probe hits.\n# TYPE memcg_dirty_probe_hits_total counter\n");
	for (i = 0; i < p.n; i++)
		fprintf(f, "memcg_dirty_probe_hits_total{point=\"%s\"} %llu\n", p.rows[i].point, p.rows[i].hits);
	fprintf(f, "# HELP memcg_dirty_probe_missed_total Probe hits missed (nmissed).\n"
		   "# TYPE memcg_dirty_probe_missed_total counter\n");
	for (i = 0; i < p.n; i++)
		fprintf(f, "memcg_dirty_probe_missed_total{point=\"%s\"} %llu\n", p.rows[i].point,
			p.rows[i].missed);
	md_free_probes(&p);
	free(text);

	text = slurp(c, "events");
	if (!text || md_parse_events(text, &e, err)) {
		free(text);
		return -1;
	}
	fprintf(f, "# HELP memcg_dirty_anomalies_logged Anomalies in the module's log, by kind.\n"
		   "# TYPE memcg_dirty_anomalies_logged gauge\n");
	{
		static const char * const kinds[] = { "ledger_underflow", "kernel_negative",
			"dirtied_uncharged", "probe_missed", "mismatch" };

		for (j = 0; j < 5; j++) {
			size_t cnt = 0;

			for (i = 0; i < e.n; i++)
				cnt += !strcmp(e.rows[i].kind, kinds[j]);
			fprintf(f, "memcg_dirty_anomalies_logged{kind=\"%s\"} %zu\n", kinds[j], cnt);
		}
	}
	fprintf(f, "# HELP memcg_dirty_anomalies_dropped_total Anomalies pushed out of the log.\n"
		   "# TYPE memcg_dirty_anomalies_dropped_total counter\n"
		   "memcg_dirty_anomalies_dropped_total %llu\n", e.dropped);
	md_free_events(&e);
	free(text);
	return 0;
}

/* Atomically: a temporary file in the same directory, then rename. */
static int cmd_prometheus(struct ctx *c)
{
	char tmp[4096];
	FILE *f;
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", c->prom, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return error(c, "cannot write %s: %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	ok = f && !write_prom(c, f);
	ok = ok && !fflush(f) && !fsync(fd);
	if (f)
		ok = !fclose(f) && ok;
	if (!ok || rename(tmp, c->prom)) {
		int e = errno;

		unlink(tmp);
		return error(c, "cannot write %s%s%s", c->prom, e ? ": " : "", e ? strerror(e) : "");
	}
	return EXIT_OK;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memcg-dirty [--tree] [--json] [CGROUP...]      cgroups by dirty bytes\n"
		"       memcg-dirty check [--strict] [--json] [CGROUP...]\n"
		"       memcg-dirty watch [-n SECONDS] [-c COUNT] [--json]\n"
		"       memcg-dirty events [--follow] [--json]\n"
		"       memcg-dirty scan [--json]\n"
		"       memcg-dirty probes [--json]\n"
		"       memcg-dirty --prometheus FILE [--max-cgroups N]\n"
		"CGROUP: /sys/fs/cgroup/... or a path in the memory hierarchy (v1 or v2).\n"
		"check exits 0 when all ok, 1 on mismatch or underflow, 3 when untrusted or\n"
		"unsynced (--strict: also when only a bounded check was possible), 2 on errors.\n");
}

int md_cli(int argc, char **argv, FILE *out, FILE *errf)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "tree", no_argument, NULL, 't' },
		{ "strict", no_argument, NULL, 's' }, { "follow", no_argument, NULL, 'f' },
		{ "prometheus", required_argument, NULL, 'p' },
		{ "max-cgroups", required_argument, NULL, 'm' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctx c = { .out = out, .err = errf, .max_cgroups = -1, .interval = 2, .count = -1 };
	const char *cmd = NULL;
	char *end;
	int o, rc;

	c.root = getenv("MEMCG_DIRTY_DEBUGFS") ?: MD_ROOT_DEFAULT;
	c.page_size = sysconf(_SC_PAGESIZE);
	if (argc > 1 && (!strcmp(argv[1], "check") || !strcmp(argv[1], "watch") ||
			 !strcmp(argv[1], "events") || !strcmp(argv[1], "scan") ||
			 !strcmp(argv[1], "probes"))) {
		cmd = argv[1];
		argc--;
		argv++;
	}
	optind = 0;		/* glibc: start afresh (the tests call us repeatedly) */
	opterr = 0;
	while ((o = getopt_long(argc, argv, "n:c:h", opts, NULL)) != -1) {
		switch (o) {
		case 'j': c.json = 1; break;
		case 't': c.tree = 1; break;
		case 's': c.strict = 1; break;
		case 'f': c.follow = 1; break;
		case 'p': c.prom = optarg; break;
		case 'm':
			c.max_cgroups = strtol(optarg, &end, 10);
			if (!*optarg || *end || c.max_cgroups < 0)
				return error(&c, "--max-cgroups takes a count, not '%s'", optarg);
			break;
		case 'n':
			c.interval = strtod(optarg, &end);
			if (!*optarg || *end || !(c.interval >= 0.1 && c.interval <= 86400))
				return error(&c, "-n takes seconds (0.1 to 86400), not '%s'", optarg);
			break;
		case 'c':
			c.count = (int)strtol(optarg, &end, 10);
			if (!*optarg || *end || c.count < 1)
				return error(&c, "-c takes a count, not '%s'", optarg);
			break;
		case 'h':
			usage(out);
			return EXIT_OK;
		default:
			usage(errf);
			return EXIT_ERR;
		}
	}
	if (c.follow && (!cmd || strcmp(cmd, "events")))
		return error(&c, "--follow goes with 'events'");
	if (c.strict && (!cmd || strcmp(cmd, "check")))
		return error(&c, "--strict goes with 'check'");
	rc = preflight(&c);
	if (rc)
		return rc;
	if (c.prom) {
		if (cmd)
			return error(&c, "--prometheus writes the textfile only; no command with it");
		return cmd_prometheus(&c);
	}
	if (!cmd)
		return cmd_table(&c, argv + optind, argc - optind);
	if (!strcmp(cmd, "check"))
		return cmd_check(&c, argv + optind, argc - optind);
	if (optind != argc)
		return error(&c, "'%s' takes no cgroup arguments", cmd);
	if (!strcmp(cmd, "watch"))
		return cmd_watch(&c);
	if (!strcmp(cmd, "events"))
		return cmd_events(&c);
	if (!strcmp(cmd, "scan"))
		return cmd_scan(&c);
	return cmd_probes(&c);
}
