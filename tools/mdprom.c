// SPDX-License-Identifier: GPL-2.0
/*
 * The node_exporter textfile of memcg-dirty --prometheus: which metrics,
 * joined by the model and written by the emitter's Prometheus backend.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "mdemit.h"
#include "mdmodel.h"
#include "mdprom.h"

/* The top @n cgroups by dirty pages: their bytes, verdicts and event totals. */
static void prom_cgroups(const struct md_src *src, long page_size, struct md_emit *p,
			 const struct md_summary *s, size_t n)
{
	char err[MD_ERRLEN];
	long long v;
	size_t i, j;

	md_prom_family(p, "memcg_dirty_bytes", "gauge",
		       "Dirty file bytes charged to the cgroup, by view.");
	for (i = 0; i < n; i++) {
		const struct md_row *r = &s->rows[i];
		long long scan = md_cgroup_scan(src, r);

		md_prom_int(p, "memcg_dirty_bytes", r->dirty * page_size,
			    "cgroup", r->path, "source", "ledger", NULL);
		md_prom_int(p, "memcg_dirty_bytes", r->kernel * page_size,
			    "cgroup", r->path, "source", "kernel", NULL);
		if (scan >= 0)
			md_prom_int(p, "memcg_dirty_bytes", scan * page_size,
				    "cgroup", r->path, "source", "scan", NULL);
	}
	md_prom_family(p, "memcg_dirty_check_status", "gauge",
		       "1 for the cgroup's current verdict.");
	for (i = 0; i < n; i++)
		md_prom_int(p, "memcg_dirty_check_status", 1,
			    "cgroup", s->rows[i].path, "verdict", s->rows[i].verdict, NULL);
	md_prom_family(p, "memcg_dirty_event_bytes_total", "counter",
		       "Bytes moved by each dirty accounting event.");
	for (i = 0; i < n; i++) {
		struct md_kvs k;

		if (s->rows[i].dying || md_read_cgroup(src, s->rows[i].path, "stat", &k, err))
			continue;
		for (j = 0; j < k.n; j++)
			if (md_event_total(&k, j, &v))
				md_prom_int(p, "memcg_dirty_event_bytes_total", v * page_size,
					    "cgroup", s->rows[i].path, "event", k.kv[j].key, NULL);
		md_free_kvs(&k);
	}
	md_prom_family(p, "memcg_dirty_cgroups_omitted", "gauge",
		       "Cgroups left out by --max-cgroups.");
	md_prom_uint(p, "memcg_dirty_cgroups_omitted", s->n - n, NULL);
}

/* The global verdict, the probes and the anomaly log. */
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
	return 0;
}

static int write_prom(const struct md_src *src, long page_size, long max_cgroups, FILE *f)
{
	struct md_summary s;
	struct md_emit p;
	size_t n;

	if (md_load_summary(src, &s))
		return -1;
	md_sort(&s, 0);
	n = max_cgroups >= 0 && (size_t)max_cgroups < s.n ? (size_t)max_cgroups : s.n;
	md_emit_init(&p, f, MD_PROM);
	prom_cgroups(src, page_size, &p, &s, n);
	md_free_summary(&s);
	return prom_module(src, &p);
}

/* Atomically: a temporary file in the same directory, then rename. */
int md_textfile(const struct md_src *src, long page_size, long max_cgroups, const char *path)
{
	char tmp[4096];
	FILE *f;
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return md_err(src, "cannot write %s: %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	ok = f && !write_prom(src, page_size, max_cgroups, f);
	ok = ok && !fflush(f) && !fsync(fd);
	if (f)
		ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return md_err(src, "cannot write %s%s%s", path, e ? ": " : "",
			      e ? strerror(e) : "");
	}
	return 0;
}
