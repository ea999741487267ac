// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-dirty: is dirty accounting right on this machine, and where is the
 * dirty memory?  Reads /sys/kernel/debug/memcg_dirty (or the directory in
 * $MEMCG_DIRTY_DEBUGFS, for tests).  See memcg-dirty.8.
 *
 * The commands: each loads rows from the model (mdmodel.h) and describes
 * them to the emitter (mdemit.h), which writes the table, JSON or
 * Prometheus text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mdcli.h"
#include "mdemit.h"
#include "mdmodel.h"
#include "mdprom.h"

#define MD_ROOT_DEFAULT "/sys/kernel/debug/memcg_dirty"
#define EXIT_OK 0
#define EXIT_BAD 1
#define EXIT_ERR 2
#define EXIT_UNSURE 3
#define ARRAY_SIZE(a) (sizeof(a) / sizeof(*(a)))
/* Table columns: with a heading, without, or with the key printed before the value. */
#define COL(key, width, head)	{ key, width, head, 0 }
#define BARE(key, width)	{ key, width, NULL, 0 }
#define LABELLED(key, width)	{ key, width, NULL, 1 }

struct ctx {
	struct md_src src;
	struct md_emit e;
	FILE *out;
	int json, tree, strict, follow, count;
	long max_cgroups;
	double interval;
	const char *prom;
	long page_size;
};

static int __attribute__((format(printf, 2, 3))) error(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	md_verr(&c->src, fmt, ap);
	va_end(ap);
	return EXIT_ERR;
}

/* The table's first column: the path, or with --tree the name indented by depth. */
static void row_name(struct ctx *c, const struct md_row *r, char *name, size_t len)
{
	int depth = 0;
	const char *p;

	if (!c->tree) {
		snprintf(name, len, "%s%s", r->path, r->dying ? " (dying)" : "");
		return;
	}
	for (p = r->path; *p; p++)
		depth += *p == '/';
	p = strrchr(r->path, '/');
	snprintf(name, len, "%*s%s%s", strcmp(r->path, "/") ? 2 * (depth - 1) : 0, "",
		 strcmp(r->path, "/") ? p + 1 : "/", r->dying ? " (dying)" : "");
}

/* A count in bytes, JSON's null and the table's "-" when the module gave none. */
static void bytes_field(struct ctx *c, const char *key, const char *cell, int known, long long v)
{
	if (!known) {
		md_field_raw(&c->e, key, NULL);
		md_cell(&c->e, cell, "-");
		return;
	}
	md_field_int(&c->e, key, v);
	md_cell_bytes(&c->e, cell, v);
}

static void table_row(struct ctx *c, const struct md_summary *s, size_t i)
{
	const struct md_row *r = &s->rows[i];
	long long l = r->dirty, k = r->kernel, wl = r->writeback, wk = r->kernel_wb;
	char name[4200];

	if (c->tree) {
		md_hier(s, i, &l, &k);
		md_hier_wb(s, i, &wl, &wk);
	}
	l *= c->page_size;
	k *= c->page_size;
	wl *= c->page_size;
	wk *= c->page_size;
	row_name(c, r, name, sizeof(name));
	md_begin_object(&c->e, NULL);
	md_field_uint(&c->e, "id", r->id);
	md_field_str(&c->e, "path", r->path);
	md_field_str(&c->e, "state", r->dying ? "dying" : "online");
	bytes_field(c, c->tree ? "dirty_hier_bytes" : "dirty_bytes", "dirty", r->known, l);
	bytes_field(c, c->tree ? "kernel_dirty_hier_bytes" : "kernel_dirty_bytes", "kernel",
		    r->known, k);
	md_field_str(&c->e, "verdict", r->verdict);
	/* file_writeback: after the verdict, where JSON readers of the older fields do not look */
	bytes_field(c, c->tree ? "writeback_hier_bytes" : "writeback_bytes", "writeback",
		    r->wb_known, wl);
	bytes_field(c, c->tree ? "kernel_writeback_hier_bytes" : "kernel_writeback_bytes",
		    "kernel_wb", r->wb_known, wk);
	md_cell(&c->e, "name", "%s", name);
	if (r->known)
		md_cell_bytes(&c->e, "diff", k - l);
	else
		md_cell(&c->e, "diff", "-");
	md_end(&c->e);
}

static int cmd_table(struct ctx *c, char **args, int nargs)
{
	struct md_col cols[] = {
		COL("name", -40, c->tree ? "CGROUP (subtree)" : "CGROUP"),
		COL("dirty", 12, "DIRTY"), COL("kernel", 12, "KERNEL"), COL("diff", 12, "DIFF"),
		COL("writeback", 12, "WRITEBACK"), COL("kernel_wb", 12, "KERNEL_WB"),
		COL("verdict", 0, "VERDICT"),
	};
	struct md_summary s;
	size_t i;

	if (md_load_rows(&c->src, &s, args, nargs))
		return EXIT_ERR;
	md_sort(&s, c->tree);
	md_table(&c->e, cols, ARRAY_SIZE(cols));
	md_table_head(&c->e);
	md_begin_object(&c->e, NULL);
	md_field_int(&c->e, "page_size", c->page_size);
	md_begin_array(&c->e, "cgroups");
	for (i = 0; i < s.n; i++)
		if (md_selected(&s.rows[i], args, nargs))
			table_row(c, &s, i);
	md_end(&c->e);
	md_end(&c->e);
	md_table(&c->e, NULL, 0);	/* cols is about to go */
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
	static const int rank[] = {
		[EXIT_OK] = 0, [EXIT_UNSURE] = 1, [EXIT_BAD] = 2, [EXIT_ERR] = 3,
	};

	return rank[b] > rank[a] ? b : a;
}

/*
 * The table's per-counter verdicts of a check file, from its NAME_verdict
 * keys in file order: "(dirty ok, writeback mismatch)"; nothing from a
 * module older than them.
 */
static void counter_verdicts(struct ctx *c, const struct md_kvs *kv)
{
	char buf[256];
	size_t j, o = 0;

	buf[0] = '\0';
	for (j = 0; j < kv->n; j++) {
		const char *key = kv->kv[j].key;
		size_t n = strlen(key);

		if (n <= 8 || strcmp(key + n - 8, "_verdict") || !md_verdict_valid(kv->kv[j].val) ||
		    o >= sizeof(buf))
			continue;
		o += snprintf(buf + o, sizeof(buf) - o, "%s%.*s %s", o ? ", " : "(",
			      (int)(n - 8), key, kv->kv[j].val);
	}
	if (o && o < sizeof(buf) - 1)
		md_cell(&c->e, "counters", "%s)", buf);
}

/*
 * One check file: JSON shows every key the module wrote, the table a
 * summary: the verdict (the worst counter's), for a cgroup the views of
 * that counter and its name, and every counter's verdict.
 */
static int check_one(struct ctx *c, const char *arg)
{
	struct md_check_file k;
	long long num;
	size_t j;
	int rc;

	if (md_load_check(&c->src, arg, &k))
		return EXIT_ERR;
	rc = verdict_exit(k.verdict, k.quiescent, c->strict);
	md_begin_object(&c->e, NULL);
	md_field_str(&c->e, "cgroup", k.cgroup);
	for (j = 0; md_json(&c->e) && j < k.kv.n; j++) {
		if (!md_parse_ll(k.kv.kv[j].val, &num))
			md_field_int(&c->e, k.kv.kv[j].key, num);
		else
			md_field_str(&c->e, k.kv.kv[j].key, k.kv.kv[j].val);
	}
	md_cell(&c->e, "verdict", "%s", k.verdict);
	if (arg)
		md_cell(&c->e, "detail", "(kernel %s ledger %s scan %s suspect %s delta %s)",
			md_kv_get(&k.kv, "kernel") ?: "?", md_kv_get(&k.kv, "ledger") ?: "?",
			md_kv_get(&k.kv, "scan") ?: "?", md_kv_get(&k.kv, "suspect") ?: "?",
			md_kv_get(&k.kv, "delta") ?: "?");
	if (k.counter)
		md_cell(&c->e, "counter", "%s", k.counter);
	counter_verdicts(c, &k.kv);
	md_end(&c->e);
	md_free_kvs(&k.kv);
	return rc;
}

/*
 * The writeback domains' verdict as an exit: a bad one 1; "busy" (nothing
 * judged: counts moved while the module scanned) 0, or 3 with --strict,
 * as a bounded check; "unavailable" 3.
 */
static int domains_exit(const struct md_domains *d, int strict)
{
	if (!strcmp(d->verdict, "mismatch") || !strcmp(d->verdict, "underflow"))
		return EXIT_BAD;
	if (!strcmp(d->verdict, "unavailable"))
		return EXIT_UNSURE;
	return strict && !d->judged ? EXIT_UNSURE : EXIT_OK;
}

/* The global check's part of the writeback domains: a row unless all are ok. */
static int check_domains(struct ctx *c)
{
	char err[MD_ERRLEN];
	struct md_domains d;
	int ret = md_read_domains(&c->src, &d, err, 1), rc;

	if (ret == MD_UNREADABLE)
		return EXIT_OK;		/* a module older than the domains */
	if (ret)
		return error(c, "%s/%s", c->src.root, err);
	rc = domains_exit(&d, c->strict);
	if (strcmp(d.verdict, "ok")) {
		md_begin_object(&c->e, NULL);
		md_field_str(&c->e, "cgroup", "(writeback domains)");
		md_field_str(&c->e, "verdict", d.verdict);
		md_cell(&c->e, "detail", "(memcg-dirty domains)");
		md_end(&c->e);
	}
	md_free_domains(&d);
	return rc;
}

static int cmd_check(struct ctx *c, char **args, int nargs)
{
	static const struct md_col cols[] = {
		BARE("cgroup", 0), BARE("verdict", 0), BARE("detail", 0), LABELLED("counter", 0),
		BARE("counters", 0),
	};
	struct md_summary s;
	int rc = EXIT_OK, i;
	size_t j;

	if (md_load_rows(&c->src, &s, args, nargs))
		return EXIT_ERR;
	md_table(&c->e, cols, ARRAY_SIZE(cols));
	md_begin_object(&c->e, NULL);
	md_begin_array(&c->e, "checks");
	for (i = 0; i < (nargs ? nargs : 1); i++)
		rc = worse(rc, check_one(c, nargs ? args[i] : NULL));
	/*
	 * after the global check, every cgroup that is not ok: its verdict is
	 * its worst counter's, so a bad writeback verdict exits as a bad
	 * dirty one; check CGROUP names the counter
	 */
	for (j = 0; !nargs && j < s.n; j++) {
		if (!strcmp(s.rows[j].verdict, "ok"))
			continue;
		rc = worse(rc, verdict_exit(s.rows[j].verdict, 1, 0));
		md_begin_object(&c->e, NULL);
		md_field_str(&c->e, "cgroup", s.rows[j].path);
		md_field_str(&c->e, "verdict", s.rows[j].verdict);
		md_end(&c->e);
	}
	/* the writeback domains, where the module has them: "domains" names them */
	if (!nargs)
		rc = worse(rc, check_domains(c));
	md_end(&c->e);
	md_field_int(&c->e, "exit", rc);
	md_end(&c->e);
	md_free_summary(&s);
	return rc;
}

static int cmd_domains(struct ctx *c)
{
	static const struct md_col cols[] = {
		COL("bdi", -8, "BDI"), COL("cgroup", -24, "CGROUP"),
		COL("reclaimable_kernel", 10, "RECL_KERN"), COL("reclaimable_scan", 10, "RECL_SCAN"),
		COL("writeback_kernel", 10, "WB_KERN"), COL("writeback_scan", 10, "WB_SCAN"),
		COL("verdict", -9, "VERDICT"),
	};
	char err[MD_ERRLEN];
	struct md_domains d;
	size_t i;
	int ret = md_read_domains(&c->src, &d, err, 0);

	if (ret)
		return ret == MD_MALFORMED ? error(c, "%s/%s", c->src.root, err) : EXIT_ERR;
	md_table(&c->e, cols, ARRAY_SIZE(cols));
	md_begin_object(&c->e, NULL);
	md_field_str(&c->e, "verdict", d.verdict);
	if (d.reason) {
		md_field_str(&c->e, "reason", d.reason);
		if (!md_json(&c->e))
			fprintf(c->out, "writeback domains: unavailable (%s)\n", d.reason);
	} else {
		md_field_int(&c->e, "judged", d.judged);
		md_field_int(&c->e, "domains", d.domains);
		md_field_int(&c->e, "unseen", d.unseen);
		if (!md_json(&c->e))
			fprintf(c->out, "writeback domains: %s, %s (%lld, %zu shown)\n", d.verdict,
				d.judged ? "judged" :
				"not all judged: pages or counts moved while the module scanned",
				d.domains, d.n);
		md_table_head(&c->e);
	}
	md_begin_array(&c->e, "domains");
	for (i = 0; i < d.n; i++) {
		const struct md_domain_row *r = &d.rows[i];

		md_begin_object(&c->e, NULL);
		md_field_str(&c->e, "bdi", r->bdi);
		md_field_str(&c->e, "cgroup", r->cgroup);
		md_field_uint(&c->e, "id", r->id);
		md_field_int(&c->e, "reclaimable_kernel", r->reclaimable_kernel);
		md_field_int(&c->e, "reclaimable_scan", r->reclaimable_scan);
		md_field_int(&c->e, "writeback_kernel", r->writeback_kernel);
		if (r->writeback_judged) {
			md_field_int(&c->e, "writeback_scan", r->writeback_scan);
		} else {
			md_field_raw(&c->e, "writeback_scan", NULL);
			md_cell(&c->e, "writeback_scan", "-");
		}
		md_field_str(&c->e, "verdict", r->verdict);
		md_end(&c->e);
	}
	md_end(&c->e);
	ret = domains_exit(&d, c->strict);
	md_field_int(&c->e, "exit", ret);
	md_end(&c->e);
	md_table(&c->e, NULL, 0);
	md_free_domains(&d);
	return ret;
}

static int cmd_probes(struct ctx *c)
{
	static const struct md_col cols[] = {
		COL("point", -14, "POINT"), COL("symbol", -28, "SYMBOL"), COL("type", -11, "TYPE"),
		COL("status", -12, "STATUS"), COL("hits", 12, "HITS"), COL("missed", 8, "MISSED"),
	};
	char err[MD_ERRLEN];
	struct md_probes p;
	size_t i;
	int ret = md_read_probes(&c->src, &p, err);

	if (ret)
		return ret == MD_MALFORMED ? error(c, "%s/%s", c->src.root, err) : EXIT_ERR;
	md_table(&c->e, cols, ARRAY_SIZE(cols));
	md_table_head(&c->e);
	md_begin_object(&c->e, NULL);
	md_begin_array(&c->e, "probes");
	for (i = 0; i < p.n; i++) {
		md_begin_object(&c->e, NULL);
		md_field_str(&c->e, "point", p.rows[i].point);
		md_field_str(&c->e, "symbol", p.rows[i].symbol);
		md_field_str(&c->e, "type", p.rows[i].type);
		md_field_str(&c->e, "status", p.rows[i].status);
		md_field_uint(&c->e, "hits", p.rows[i].hits);
		md_field_uint(&c->e, "missed", p.rows[i].missed);
		md_end(&c->e);
	}
	md_end(&c->e);
	md_end(&c->e);
	md_free_probes(&p);
	return EXIT_OK;
}

static void emit_event(struct md_emit *e, const struct md_event_row *r)
{
	md_begin_object(e, NULL);
	md_field_str(e, "time", r->time);
	md_field_str(e, "id", r->id);
	md_field_str(e, "path", r->path);
	md_field_str(e, "node", r->node);
	md_field_str(e, "kind", r->kind);
	md_field_str(e, "probe", r->probe);
	md_field_str(e, "pfn", r->pfn);
	md_field_int(e, "kernel", r->kernel);
	md_field_int(e, "ledger", r->ledger);
	md_field_int(e, "scan", r->scan);
	md_field_uint(e, "missed", r->missed);
	md_field_str(e, "counter", r->counter);
	md_end(e);
}

/* One document of all events, or with --follow one JSON line per event. */
static int cmd_events(struct ctx *c)
{
	static const struct md_col cols[] = {
		BARE("time", 14), BARE("kind", -18), BARE("path", -30), LABELLED("node", -2),
		LABELLED("probe", -10), LABELLED("kernel", 0), LABELLED("ledger", 0),
		LABELLED("scan", 0), LABELLED("missed", 0), LABELLED("counter", 0),
	};
	char err[MD_ERRLEN], last[64] = "";
	struct md_events ev;
	size_t i;
	int ret;

	md_table(&c->e, cols, ARRAY_SIZE(cols));
	if (!c->follow) {
		md_begin_object(&c->e, NULL);
		md_begin_array(&c->e, "events");
	}
	for (;;) {
		ret = md_read_events(&c->src, &ev, err);
		if (ret)
			return ret == MD_MALFORMED ? error(c, "%s/%s", c->src.root, err) : EXIT_ERR;
		for (i = 0; i < ev.n; i++)
			if (md_event_is_new(&ev.rows[i], last))
				emit_event(&c->e, &ev.rows[i]);
		if (ev.n)
			snprintf(last, sizeof(last), "%s", ev.rows[ev.n - 1].time);
		if (!c->follow) {
			md_end(&c->e);
			md_field_uint(&c->e, "dropped", ev.dropped);
			md_end(&c->e);
		}
		md_free_events(&ev);
		fflush(c->out);
		if (!c->follow || (c->count > 0 && --c->count == 0))
			return EXIT_OK;
		usleep((useconds_t)(c->interval * 1e6));
	}
}

static int cmd_scan(struct ctx *c)
{
	char err[MD_ERRLEN];
	struct md_kvs k;
	int ret;

	if (md_start_scan(&c->src))
		return EXIT_ERR;
	ret = md_read_kvs(&c->src, "version", &k, err);
	if (ret == MD_MALFORMED)
		return error(c, "%s/version: %s", c->src.root, err);
	if (ret)
		return EXIT_ERR;
	md_begin_object(&c->e, NULL);
	md_field_raw(&c->e, "scan_ms", md_kv_get(&k, "scan_ms"));
	md_field_raw(&c->e, "scan_dirty_pages", md_kv_get(&k, "scan_dirty"));
	md_field_raw(&c->e, "scan_busy_pages", md_kv_get(&k, "scan_busy"));
	md_field_raw(&c->e, "scans", md_kv_get(&k, "scans"));
	md_end(&c->e);
	md_text(&c->e, "scan took %s ms: %s dirty pages, %s busy (locked, not counted)\n",
		md_kv_get(&k, "scan_ms") ?: "?", md_kv_get(&k, "scan_dirty") ?: "?",
		md_kv_get(&k, "scan_busy") ?: "?");
	md_free_kvs(&k);
	return EXIT_OK;
}

/* --- rates (watch: its old name): dirtying and cleaning per cgroup ------ */

static void rates_rows(struct ctx *c, const struct md_sample *prev, size_t np,
		       const struct md_sample *cur, size_t nc, int tty)
{
	size_t i;

	for (i = 0; i < nc; i++) {
		double dr, cr;
		char d[32];

		md_rates(prev, np, &cur[i], c->page_size, c->interval, &dr, &cr);
		md_human(cur[i].dirty * c->page_size, d, sizeof(d));
		md_begin_object(&c->e, NULL);
		md_field_int(&c->e, "time", (long)time(NULL));
		md_field_str(&c->e, "cgroup", cur[i].path);
		md_field_int(&c->e, "dirty_bytes", cur[i].dirty * c->page_size);
		md_field_real(&c->e, "dirtied_bytes_per_s", dr);
		md_field_real(&c->e, "cleaned_bytes_per_s", cr);
		md_cell(&c->e, "dirty", tty ? "%s" : "dirty=%s", d);
		md_cell(&c->e, "dirtied", tty ? "%.0f/s" : "dirtied=%.0fB/s", dr);
		md_cell(&c->e, "cleaned", tty ? "%.0f/s" : "cleaned=%.0fB/s", cr);
		md_end(&c->e);
	}
}

/* A full screen on a terminal, else lines; JSON lines with --json. */
static int cmd_rates(struct ctx *c)
{
	static const struct md_col screen[] = {
		COL("cgroup", -40, "CGROUP"), COL("dirty", 12, "DIRTY"),
		COL("dirtied", 14, "DIRTIED/s"), COL("cleaned", 14, "CLEANED/s"),
	};
	static const struct md_col lines[] = {
		BARE("time", 0), BARE("cgroup", 0), BARE("dirty", 0), BARE("dirtied", 0),
		BARE("cleaned", 0),
	};
	struct md_sample *prev = NULL, *cur;
	size_t np = 0, nc;
	int tty = isatty(fileno(c->out)) && !c->json;

	if (tty)
		md_table(&c->e, screen, ARRAY_SIZE(screen));
	else
		md_table(&c->e, lines, ARRAY_SIZE(lines));
	if (md_take(&c->src, &prev, &np))
		return EXIT_ERR;
	while (c->count < 0 || c->count-- > 0) {
		usleep((useconds_t)(c->interval * 1e6));
		if (md_take(&c->src, &cur, &nc))
			return EXIT_ERR;
		if (tty) {
			md_text(&c->e, "\033[H\033[2J");
			md_table_head(&c->e);
		}
		rates_rows(c, prev, np, cur, nc, tty);
		fflush(c->out);
		md_free_samples(prev, np);
		prev = cur;
		np = nc;
	}
	md_free_samples(prev, np);
	return EXIT_OK;
}

/* --- node_exporter textfile (mdprom.c) ------------------------------------ */

static int cmd_prometheus(struct ctx *c)
{
	if (md_textfile(&c->src, c->page_size, c->max_cgroups, c->prom))
		return EXIT_ERR;
	return EXIT_OK;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memcg-dirty [--tree] [--json] [CGROUP...]      cgroups by dirty bytes\n"
		"       memcg-dirty check [--strict] [--json] [CGROUP...]\n"
		"       memcg-dirty rates [-n SECONDS] [-c COUNT] [--json]\n"
		"       memcg-dirty events [--follow] [--json]\n"
		"       memcg-dirty scan [--json]\n"
		"       memcg-dirty probes [--json]\n"
		"       memcg-dirty domains [--strict] [--json]     the writeback domains\n"
		"       memcg-dirty --prometheus FILE [--max-cgroups N]  (N: 50 by default)\n"
		"CGROUP: /sys/fs/cgroup/... or a path in the memory hierarchy (v1 or v2).\n"
		"check exits 0 when all ok, 1 on mismatch or underflow, 3 when untrusted or\n"
		"unsynced (--strict: also when only a bounded check was possible), 2 on errors;\n"
		"a cgroup's verdict is the worst of its counters' (file_dirty, file_writeback);\n"
		"check and domains exit 1 when a writeback domain's count is wrong.\n"
		"watch: the old name of rates, kept for one release.\n");
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
	struct ctx c = { .out = out, .src.err = errf, .max_cgroups = MD_PROM_MAX_CGROUPS, .interval = 2,
			 .count = -1 };
	const char *cmd = NULL;
	char *end;
	int o;

	c.src.root = getenv("MEMCG_DIRTY_DEBUGFS") ?: MD_ROOT_DEFAULT;
	c.page_size = sysconf(_SC_PAGESIZE);
	if (argc > 1 && (!strcmp(argv[1], "check") || !strcmp(argv[1], "rates") ||
			 !strcmp(argv[1], "watch") || !strcmp(argv[1], "events") ||
			 !strcmp(argv[1], "scan") || !strcmp(argv[1], "probes") ||
			 !strcmp(argv[1], "domains"))) {
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
	if (c.strict && (!cmd || (strcmp(cmd, "check") && strcmp(cmd, "domains"))))
		return error(&c, "--strict goes with 'check' or 'domains'");
	if (c.prom && cmd)
		return error(&c, "--prometheus writes the textfile only; no command with it");
	o = md_preflight(&c.src);
	if (o) {
		/* a textfile that says so, for an alert; the exit still says it failed */
		if (o == MD_NOT_LOADED && c.prom)
			md_textfile_unloaded(&c.src, c.prom);
		return EXIT_ERR;
	}
	md_emit_init(&c.e, out, c.json ? MD_JSON : MD_TABLE);
	if (c.prom)
		return cmd_prometheus(&c);
	if (!cmd)
		return cmd_table(&c, argv + optind, argc - optind);
	if (!strcmp(cmd, "check"))
		return cmd_check(&c, argv + optind, argc - optind);
	if (optind != argc)
		return error(&c, "'%s' takes no cgroup arguments", cmd);
	/* watch: the old name of rates, kept for one release */
	if (!strcmp(cmd, "rates") || !strcmp(cmd, "watch"))
		return cmd_rates(&c);
	if (!strcmp(cmd, "events"))
		return cmd_events(&c);
	if (!strcmp(cmd, "scan"))
		return cmd_scan(&c);
	if (!strcmp(cmd, "domains"))
		return cmd_domains(&c);
	return cmd_probes(&c);
}
