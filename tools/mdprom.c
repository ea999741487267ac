// SPDX-License-Identifier: GPL-2.0
/*
 * The node_exporter textfile of memcg-dirty --prometheus: which metrics,
 * joined by the model and written by the emitter's Prometheus backend.
 * Every name, unit and label set here is a contract with the rules in
 * packaging/prometheus/ and with dashboards: memcg-dirty.8 lists them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdemit.h"
#include "mdmodel.h"
#include "mdprom.h"

static const char * const verdicts[] = { "ok", "unsynced", "untrusted", "mismatch", "underflow" };

/* What the textfile says of an exported cgroup besides its summary line. */
struct prom_cg {
	char *label;		/* its cgroup label: the path, PATH@ID when dying */
	long long scan;		/* dirty pages the last scan found; -1: none to show */
	long long wb_scan;	/* pages under writeback it found; -1: none to show */
	char suspect[16];	/* its check's suspect: the worst counter's */
	char counter[16];	/* that counter, whose suspect and node these are */
	char node[24];		/* the first NUMA node where that counter's kernel and ledger differ */
	/* each counter's verdict in its check, "" when none (md_counters[] order) */
	char verdicts[MD_NR_COUNTERS][16];
	struct md_kvs stat;
	int has_stat;
};

static int bad_verdict(const char *v)
{
	return !strcmp(v, "mismatch") || !strcmp(v, "underflow");
}

/*
 * The first node whose kernel_NAME_node<N> and NAME_node<N> differ in @k,
 * for counter NAME (dirty, writeback).
 */
static void differing_node(const struct md_kvs *k, const char *counter, char *node, size_t len)
{
	char err[MD_ERRLEN], key[64], prefix[32];
	size_t i, n;
	long long l, kv;

	snprintf(node, len, "unknown");
	n = snprintf(prefix, sizeof(prefix), "%s_node", counter);
	for (i = 0; i < k->n; i++) {
		if (strncmp(k->kv[i].key, prefix, n) || strlen(k->kv[i].key) > 40)
			continue;
		snprintf(key, sizeof(key), "kernel_%s", k->kv[i].key);
		if (md_parse_ll(k->kv[i].val, &l) || md_kv_num(k, key, &kv, err) || kv == l)
			continue;
		snprintf(node, len, "%s", k->kv[i].key + n);
		return;
	}
}

/* Counter @counter's @key of a check (md_check_get()) as a count, or -1. */
static long long check_count(const struct md_kvs *k, const char *counter, const char *key)
{
	const char *v = md_check_get(k, counter, key);
	long long n;

	return v && !md_parse_ll(v, &n) ? n : -1;
}

/* A cgroup's check and stat, read once for every family that needs them. */
static void prom_read_cgroup(const struct md_src *src, const struct md_row *r, struct prom_cg *c)
{
	char err[MD_ERRLEN];
	struct md_kvs k;
	int i;

	c->scan = c->wb_scan = -1;
	/*
	 * A dying cgroup's path may be a live one's too (a service restarted):
	 * its name is the module's for its directory, so that no series is
	 * written twice.
	 */
	if (r->dying ? asprintf(&c->label, "%s@%llu", r->path, r->id) < 0 :
	    !(c->label = strdup(r->path)))
		c->label = NULL;
	snprintf(c->suspect, sizeof(c->suspect), "unknown");
	snprintf(c->counter, sizeof(c->counter), "unknown");
	snprintf(c->node, sizeof(c->node), "unknown");
	c->has_stat = 0;
	if (r->dying)		/* its directory is NAME@ID: no file by its path */
		return;
	if (!md_read_cgroup(src, r->path, "check", &k, err)) {
		const char *suspect = md_kv_get(&k, "suspect");
		/* an older module's check has no counter key: the dirty counter's */
		const char *counter = md_kv_get(&k, "counter") ?: "dirty";

		c->scan = check_count(&k, "dirty", "scan");
		c->wb_scan = check_count(&k, "writeback", "scan");
		if (suspect && strlen(suspect) < sizeof(c->suspect))
			snprintf(c->suspect, sizeof(c->suspect), "%s", suspect);
		if (strlen(counter) < sizeof(c->counter))
			snprintf(c->counter, sizeof(c->counter), "%s", counter);
		for (i = 0; i < MD_NR_COUNTERS; i++) {
			const char *v = md_check_get(&k, md_counters[i], "verdict");

			if (v && md_verdict_valid(v))
				snprintf(c->verdicts[i], sizeof(c->verdicts[i]), "%s", v);
		}
		md_free_kvs(&k);
	}
	if (!md_read_cgroup(src, r->path, "stat", &c->stat, err)) {
		c->has_stat = 1;
		differing_node(&c->stat, c->counter, c->node, sizeof(c->node));
	}
}

/*
 * One cgroup's pages of a counter, in bytes, by view: ledger and kernel if
 * @known (it has a ledger entry), the scan if it has one (>= 0).
 */
static void md_prom_views(struct md_emit *p, long page_size, const char *name,
			  const char *label, int known, long long ledger, long long kernel,
			  long long scan)
{
	if (known) {
		md_prom_int(p, name, ledger * page_size, "cgroup", label, "source", "ledger", NULL);
		md_prom_int(p, name, kernel * page_size, "cgroup", label, "source", "kernel", NULL);
	}
	if (scan >= 0)
		md_prom_int(p, name, scan * page_size, "cgroup", label, "source", "scan", NULL);
}

/* The top @n cgroups: their bytes, verdicts, suspects and event totals. */
static void prom_cgroups(struct md_emit *p, long page_size, const struct md_summary *s,
			 const struct prom_cg *cg, size_t n)
{
	long long v;
	size_t i, j;

	md_prom_family(p, "memcg_dirty_bytes", "gauge",
		       "Dirty file bytes charged to the cgroup, by view.");
	for (i = 0; i < n; i++)		/* no ledger entry: no ledger or kernel figure */
		md_prom_views(p, page_size, "memcg_dirty_bytes", cg[i].label, s->rows[i].known,
			      s->rows[i].dirty, s->rows[i].kernel, cg[i].scan);
	/* an older module audits file_dirty alone: no family */
	if (s->writeback) {
		md_prom_family(p, "memcg_dirty_writeback_bytes", "gauge",
			       "File bytes under writeback charged to the cgroup, by view.");
		for (i = 0; i < n; i++)
			md_prom_views(p, page_size, "memcg_dirty_writeback_bytes", cg[i].label,
				      s->rows[i].wb_known, s->rows[i].writeback,
				      s->rows[i].kernel_wb, cg[i].wb_scan);
	}
	md_prom_family(p, "memcg_dirty_check_status", "gauge",
		       "1 for the cgroup's current verdict: the worst of its counters'.");
	for (i = 0; i < n; i++)
		md_prom_int(p, "memcg_dirty_check_status", 1,
			    "cgroup", cg[i].label, "verdict", s->rows[i].verdict, NULL);
	md_prom_family(p, "memcg_dirty_check_verdict", "gauge",
		       "1 for the verdict of each counter (dirty, writeback) in the cgroup's check.");
	for (i = 0; i < n; i++)
		for (j = 0; j < MD_NR_COUNTERS; j++)
			if (cg[i].verdicts[j][0])
				md_prom_int(p, "memcg_dirty_check_verdict", 1,
					    "cgroup", cg[i].label, "counter", md_counters[j],
					    "verdict", cg[i].verdicts[j], NULL);
	md_prom_family(p, "memcg_dirty_check_suspect", "gauge",
		       "1 for a cgroup whose verdict is mismatch or underflow: the view its check suspects, the first NUMA node where kernel and ledger differ, and the counter they are of.");
	for (i = 0; i < n; i++)
		if (bad_verdict(s->rows[i].verdict))
			md_prom_int(p, "memcg_dirty_check_suspect", 1, "cgroup", cg[i].label,
				    "suspect", cg[i].suspect, "numa_node", cg[i].node,
				    "counter", cg[i].counter, NULL);
	md_prom_family(p, "memcg_dirty_event_bytes_total", "counter",
		       "Bytes moved by each accounting event of the dirty and writeback counters.");
	for (i = 0; i < n; i++)
		for (j = 0; cg[i].has_stat && j < cg[i].stat.n; j++)
			if (md_event_total(&cg[i].stat, j, &v))
				md_prom_int(p, "memcg_dirty_event_bytes_total", v * page_size,
					    "cgroup", cg[i].label, "event", cg[i].stat.kv[j].key,
					    NULL);
}

/* Every cgroup, the omitted ones included: counts by verdict, what was left out. */
static void prom_aggregates(struct md_emit *p, long page_size, const struct md_summary *s,
			    size_t n)
{
	unsigned long long ledger = 0, kernel = 0, wb_ledger = 0, wb_kernel = 0;
	size_t i, j, count;

	md_prom_family(p, "memcg_dirty_cgroups", "gauge",
		       "Cgroups by verdict, those left out by --max-cgroups included.");
	for (j = 0; j < sizeof(verdicts) / sizeof(*verdicts); j++) {
		for (i = 0, count = 0; i < s->n; i++)
			count += !strcmp(s->rows[i].verdict, verdicts[j]);
		md_prom_uint(p, "memcg_dirty_cgroups", count, "verdict", verdicts[j], NULL);
	}
	md_prom_family(p, "memcg_dirty_cgroups_omitted", "gauge",
		       "Cgroups left out by --max-cgroups.");
	md_prom_uint(p, "memcg_dirty_cgroups_omitted", s->n - n, NULL);
	/* summed as unsigned: absurd counts wrap, without a signed overflow */
	for (i = n; i < s->n; i++) {
		ledger += (unsigned long long)s->rows[i].dirty;
		kernel += (unsigned long long)s->rows[i].kernel;
		wb_ledger += (unsigned long long)s->rows[i].writeback;
		wb_kernel += (unsigned long long)s->rows[i].kernel_wb;
	}
	md_prom_family(p, "memcg_dirty_omitted_bytes", "gauge",
		       "Dirty file bytes of the cgroups left out by --max-cgroups, by view.");
	md_prom_int(p, "memcg_dirty_omitted_bytes", (long long)ledger * page_size,
		    "source", "ledger", NULL);
	md_prom_int(p, "memcg_dirty_omitted_bytes", (long long)kernel * page_size,
		    "source", "kernel", NULL);
	if (!s->writeback)
		return;
	md_prom_family(p, "memcg_dirty_omitted_writeback_bytes", "gauge",
		       "File bytes under writeback of the cgroups left out by --max-cgroups, by view.");
	md_prom_int(p, "memcg_dirty_omitted_writeback_bytes", (long long)wb_ledger * page_size,
		    "source", "ledger", NULL);
	md_prom_int(p, "memcg_dirty_omitted_writeback_bytes", (long long)wb_kernel * page_size,
		    "source", "kernel", NULL);
}

/* The audit's state: the audit file's keys, as counters and gauges. */
static const struct {
	const char *key, *name, *type, *help;
	int usecs;
	int optional;	/* a module older than the key has none: left out */
} audit_keys[] = {
	{ "audit_ms", "memcg_dirty_audit_period_seconds", "gauge",
	  "The audit's period (audit_ms); 0: no audit.", 0, 0 },
	{ "audit_warn", "memcg_dirty_audit_warn_enabled", "gauge",
	  "1 when a bad verdict of the audit also raises a WARN (audit_warn).", 0, 0 },
	{ "audit_watch", "memcg_dirty_audit_watch_enabled", "gauge",
	  "1 when a bad verdict of the audit arms the watch (audit_watch).", 0, 0 },
	{ "audits", "memcg_dirty_audit_passes_total", "counter",
	  "Passes of the audit over every memcg.", 0, 0 },
	{ "last_us", "memcg_dirty_audit_last_pass_seconds", "gauge",
	  "How long the last pass took, its wait included.", 1, 0 },
	{ "last_wait_us", "memcg_dirty_audit_last_wait_seconds", "gauge",
	  "How long the last pass waited for an RCU grace period (no CPU used).", 1, 0 },
	{ "last_memcgs", "memcg_dirty_audit_last_cgroups", "gauge",
	  "Memcgs the last pass compared.", 0, 0 },
	{ "differed", "memcg_dirty_audit_differed_total", "counter",
	  "Comparisons that found kernel and ledger apart beyond the bound.", 0, 0 },
	{ "escalations", "memcg_dirty_audit_escalations_total", "counter",
	  "Page scans and full verdicts, on a memcg's second strike.", 0, 0 },
	{ "bad_verdicts", "memcg_dirty_audit_bad_verdicts_total", "counter",
	  "Mismatches or underflows found by two escalations in a row, and reported.", 0, 0 },
	{ "unconfirmed", "memcg_dirty_audit_unconfirmed_total", "counter",
	  "Mismatches or underflows found by one escalation, not by the next: not reported.", 0, 1 },
	{ "printed", "memcg_dirty_audit_lines_printed_total", "counter",
	  "Console lines of bad verdicts, one per memcg and verdict.", 0, 0 },
	{ "printed_audit", "memcg_dirty_audit_last_printed_pass", "gauge",
	  "The number of the pass that printed the last console line (0: none).", 0, 0 },
	{ "suppressed", "memcg_dirty_audit_lines_suppressed_total", "counter",
	  "Console lines held back by the ratelimit, to be printed later.", 0, 0 },
	{ "warned", "memcg_dirty_audit_warnings_total", "counter",
	  "WARNs raised (audit_warn=1), one per memcg and verdict.", 0, 0 },
	{ "untrusted_printed", "memcg_dirty_audit_untrusted_printed", "gauge",
	  "1 once the audit reported that probes missed hits and it gives no verdict.", 0, 0 },
	{ "watches", "memcg_dirty_audit_watches_total", "counter",
	  "Watches the audit armed on a memcg found bad.", 0, 0 },
	{ "last_unsynced", "memcg_dirty_audit_last_unsynced_cgroups", "gauge",
	  "Memcgs the last pass found unsynced: no ledger yet, kernel held against scan.", 0, 1 },
	{ "unsynced_long", "memcg_dirty_audit_unsynced_long_total", "counter",
	  "Memcgs reported unsynced for audit_unsynced_s seconds, once each.", 0, 1 },
	{ "domain_scans", "memcg_dirty_audit_domain_scans_total", "counter",
	  "Page scans the audit made for the writeback domains, on a quiet machine.", 0, 1 },
	{ "domain_bad", "memcg_dirty_audit_domain_bad_verdicts_total", "counter",
	  "Writeback domains found bad by two judged scans, and reported (in bad_verdicts too).", 0, 1 },
};

static int prom_audit(const struct md_src *src, struct md_emit *p)
{
	char err[MD_ERRLEN];
	struct md_kvs k;
	long long v;
	size_t i;
	int ret = md_read_kvs(src, "audit", &k, err);

	if (ret == MD_MALFORMED)
		md_err(src, "%s/audit: %s", src->root, err);
	if (ret)
		return -1;
	for (i = 0; i < sizeof(audit_keys) / sizeof(*audit_keys); i++) {
		if (audit_keys[i].optional && md_kv_num(&k, audit_keys[i].key, &v, err))
			continue;
		if (md_kv_num(&k, audit_keys[i].key, &v, err) || v < 0) {
			md_err(src, "%s/audit: no count '%s'", src->root, audit_keys[i].key);
			md_free_kvs(&k);
			return -1;
		}
		md_prom_family(p, audit_keys[i].name, audit_keys[i].type, audit_keys[i].help);
		if (audit_keys[i].usecs)
			md_prom_usecs(p, audit_keys[i].name, v, NULL);
		else if (!strcmp(audit_keys[i].key, "audit_ms"))
			md_prom_usecs(p, audit_keys[i].name, v * 1000, NULL);
		else
			md_prom_int(p, audit_keys[i].name, v, NULL);
	}
	md_free_kvs(&k);
	return 0;
}

/* A bad domain sorts first: the ones an alert is about are never cut off. */
static int domain_bad(const struct md_domain_row *r)
{
	return !strcmp(r->verdict, "mismatch") || !strcmp(r->verdict, "underflow");
}

/*
 * The writeback domains (a module older than them has no file: nothing),
 * at most @max of them, bad ones first: bytes per counter and view, and
 * each one's verdict.
 */
static int prom_domains(const struct md_src *src, struct md_emit *p, long page_size, long max)
{
	static const char *const views[] = { "kernel", "scan" };
	char err[MD_ERRLEN], id[32];
	struct md_domains d;
	size_t *pick, n = 0, i;
	int pass, v, ret = md_read_domains(src, &d, err, 1);

	if (ret == MD_UNREADABLE)
		return 0;
	if (ret)
		return md_err(src, "%s/%s", src->root, err);
	pick = calloc(d.n + 1, sizeof(*pick));
	if (!pick) {
		md_free_domains(&d);
		return md_err(src, "out of memory");
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < d.n; i++)
			if (domain_bad(&d.rows[i]) == !pass &&
			    (pass == 0 || max < 0 || n < (size_t)max))
				pick[n++] = i;
	md_prom_family(p, "memcg_dirty_domains_status", "gauge",
		       "1 for the writeback domains' worst verdict (busy: counts moved while the module scanned, not judged).");
	md_prom_int(p, "memcg_dirty_domains_status", 1, "verdict", d.verdict, NULL);
	md_prom_family(p, "memcg_dirty_domain_bytes", "gauge",
		       "A writeback domain's (bdi and cgroup) WB_RECLAIMABLE and WB_WRITEBACK, in the kernel's view and the scan's; the kernel's below 0 is a bug.");
	for (i = 0; i < n; i++) {
		const struct md_domain_row *r = &d.rows[pick[i]];
		long long val[2][2] = {
			{ r->reclaimable_kernel, r->reclaimable_scan },
			{ r->writeback_kernel, r->writeback_scan },
		};

		snprintf(id, sizeof(id), "%llu", r->id);
		for (v = 0; v < 4; v++) {
			if (v == 3 && !r->writeback_judged)
				continue;
			md_prom_int(p, "memcg_dirty_domain_bytes", val[v / 2][v % 2] * page_size,
				    "bdi", r->bdi, "cgroup", r->cgroup, "id", id,
				    "counter", v / 2 ? "writeback" : "reclaimable", "view", views[v % 2],
				    NULL);
		}
	}
	md_prom_family(p, "memcg_dirty_domain_verdict", "gauge", "1 for a writeback domain's verdict.");
	for (i = 0; i < n; i++) {
		const struct md_domain_row *r = &d.rows[pick[i]];

		snprintf(id, sizeof(id), "%llu", r->id);
		md_prom_int(p, "memcg_dirty_domain_verdict", 1, "bdi", r->bdi, "cgroup", r->cgroup,
			    "id", id, "verdict", r->verdict, NULL);
	}
	free(pick);
	md_free_domains(&d);
	return 0;
}

/* The global verdict, the probes, the anomaly log and the audit. */
static int prom_module(const struct md_src *src, struct md_emit *p)
{
	char err[MD_ERRLEN];
	struct md_probes pr;
	struct md_events ev;
	struct md_kvs g;
	size_t i;

	if (md_read_kvs(src, "check", &g, err))
		return -1;
	md_prom_family(p, "memcg_dirty_global_check_status", "gauge", "1 for the global verdict.");
	md_prom_int(p, "memcg_dirty_global_check_status", 1,
		    "verdict", md_kv_get(&g, "verdict") ?: "unknown", NULL);
	md_prom_family(p, "memcg_dirty_global_check_verdict", "gauge",
		       "1 for the global verdict of each counter (dirty, writeback): its worst over every cgroup.");
	for (i = 0; i < MD_NR_COUNTERS; i++) {
		/* NAME_verdict; an older module's verdict is the dirty counter's */
		const char *v = md_check_get(&g, md_counters[i], "verdict");

		if (v)
			md_prom_int(p, "memcg_dirty_global_check_verdict", 1,
				    "counter", md_counters[i], "verdict", v, NULL);
	}
	md_free_kvs(&g);
	if (md_read_probes(src, &pr, err))
		return -1;
	md_prom_family(p, "memcg_dirty_probe_hits_total", "counter", "Probe hits.");
	for (i = 0; i < pr.n; i++)
		md_prom_uint(p, "memcg_dirty_probe_hits_total", pr.rows[i].hits,
			     "point", pr.rows[i].point, NULL);
	md_prom_family(p, "memcg_dirty_probe_missed_total", "counter",
		       "Probe hits missed (nmissed).");
	for (i = 0; i < pr.n; i++)
		md_prom_uint(p, "memcg_dirty_probe_missed_total", pr.rows[i].missed,
			     "point", pr.rows[i].point, NULL);
	md_free_probes(&pr);
	if (md_read_events(src, &ev, err))
		return -1;
	md_prom_family(p, "memcg_dirty_anomalies_logged", "gauge",
		       "Anomalies in the module's log, by kind.");
	for (i = 0; i < md_nr_anomaly_kinds; i++) {
		const char *kind = md_anomaly_kinds[i];

		md_prom_uint(p, "memcg_dirty_anomalies_logged", md_count_kind(&ev, kind),
			     "kind", kind, NULL);
	}
	md_prom_family(p, "memcg_dirty_anomalies_dropped_total", "counter",
		       "Anomalies pushed out of the log.");
	md_prom_uint(p, "memcg_dirty_anomalies_dropped_total", ev.dropped, NULL);
	md_free_events(&ev);
	return prom_audit(src, p);
}

static void prom_loaded(struct md_emit *p, int loaded)
{
	md_prom_family(p, "memcg_dirty_module_loaded", "gauge",
		       "1 when memcg_dirty's files were read, 0 when the module is not loaded.");
	md_prom_int(p, "memcg_dirty_module_loaded", loaded, NULL);
}

struct prom_args {
	const struct md_src *src;
	long page_size, max_cgroups;
};

static int write_prom(const struct prom_args *a, FILE *f)
{
	struct prom_cg *cg;
	struct md_summary s;
	struct md_emit p;
	size_t n, i;
	int ret;

	if (md_load_summary(a->src, &s))
		return -1;
	md_sort(&s, MD_BY_DIFFER);
	n = a->max_cgroups >= 0 && (size_t)a->max_cgroups < s.n ? (size_t)a->max_cgroups : s.n;
	cg = calloc(n + 1, sizeof(*cg));
	if (!cg) {
		md_free_summary(&s);
		return md_err(a->src, "out of memory");
	}
	for (i = 0; i < n; i++)
		prom_read_cgroup(a->src, &s.rows[i], &cg[i]);
	for (i = 0; i < n; i++)
		if (!cg[i].label) {
			ret = md_err(a->src, "out of memory");
			goto out;
		}
	md_emit_init(&p, f, MD_PROM);
	prom_loaded(&p, 1);
	prom_cgroups(&p, a->page_size, &s, cg, n);
	prom_aggregates(&p, a->page_size, &s, n);
	ret = prom_module(a->src, &p);
	if (!ret)
		ret = prom_domains(a->src, &p, a->page_size, a->max_cgroups);
out:
	for (i = 0; i < n; i++) {
		free(cg[i].label);
		if (cg[i].has_stat)
			md_free_kvs(&cg[i].stat);
	}
	free(cg);
	md_free_summary(&s);
	return ret;
}

static int write_unloaded(const struct prom_args *a, FILE *f)
{
	struct md_emit p;

	(void)a;
	md_emit_init(&p, f, MD_PROM);
	prom_loaded(&p, 0);
	return 0;
}

/* Atomically: a temporary file in the same directory, then rename. */
static int textfile(const struct prom_args *a, const char *path,
		    int (*fill)(const struct prom_args *a, FILE *f))
{
	char tmp[4096];
	FILE *f;
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return md_err(a->src, "cannot write %s: %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	errno = 0;
	ok = f && !fill(a, f);
	ok = ok && !fflush(f) && !fsync(fd);
	if (f)
		ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return md_err(a->src, "cannot write %s%s%s", path, e ? ": " : "",
			      e ? strerror(e) : "");
	}
	return 0;
}

int md_textfile(const struct md_src *src, long page_size, long max_cgroups, const char *path)
{
	struct prom_args a = { src, page_size, max_cgroups };

	return textfile(&a, path, write_prom);
}

int md_textfile_unloaded(const struct md_src *src, const char *path)
{
	struct prom_args a = { src, 0, 0 };

	return textfile(&a, path, write_unloaded);
}
