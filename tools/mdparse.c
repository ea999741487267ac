// SPDX-License-Identifier: GPL-2.0
/* Strict parsers for the memcg_dirty debugfs files; see mdparse.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdparse.h"

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, MD_ERRLEN, fmt, ap);
	va_end(ap);
	return -1;
}

/* 0 and the active mode in @mode, or -1 when no one mode is in brackets. */
int md_parse_lockdown(const char *text, char *mode, size_t len)
{
	const char *open = strchr(text, '['), *close;
	size_t n;

	if (!open || strchr(open + 1, '['))
		return -1;
	close = strchr(open + 1, ']');
	n = close ? (size_t)(close - open - 1) : 0;
	if (!n || n >= len || strcspn(open + 1, " \n") < n)
		return -1;
	memcpy(mode, open + 1, n);
	mode[n] = '\0';
	return 0;
}

int md_parse_ll(const char *s, long long *v)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int md_parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

const char * const md_counters[MD_NR_COUNTERS] = { "dirty", "writeback" };

int md_counter_index(const char *name)
{
	int i;

	for (i = 0; i < MD_NR_COUNTERS; i++)
		if (!strcmp(name, md_counters[i]))
			return i;
	return -1;
}

int md_verdict_valid(const char *v)
{
	static const char * const ok[] = { "ok", "mismatch", "underflow", "untrusted", "unsynced" };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		if (!strcmp(v, ok[i]))
			return 1;
	return 0;
}

/*
 * Split @text into lines (a copy, owned by the caller via *buf) and each
 * line into at most @max space-separated fields.  Returns the line count or
 * -1 when the text is not newline-terminated text.
 */
static long split_lines(const char *text, char **buf, char ***lines)
{
	size_t len = strlen(text), n = 0, i;
	char *b, *p;

	if (len && text[len - 1] != '\n')
		return -1;
	for (i = 0; i < len; i++) {
		unsigned char c = text[i];

		if (c == '\n')
			n++;
		else if (c < 0x20 && c != '\t')
			return -1;
	}
	b = strdup(text);
	*lines = calloc(n + 1, sizeof(char *));
	if (!b || !*lines) {
		free(b);
		free(*lines);
		return -1;
	}
	for (i = 0, p = b; i < n; i++) {
		char *nl = strchr(p, '\n');

		*nl = '\0';
		(*lines)[i] = p;
		p = nl + 1;
	}
	*buf = b;
	return n;
}

static int split_fields(char *line, char **f, int max)
{
	int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == max)
			return max + 1;
		f[n++] = tok;
	}
	return n;
}

/* seq_escape() writes \ooo octal escapes; undo them, reject anything else. */
static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		if (s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' || s[3] < '0' || s[3] > '7') {
			free(out);
			return NULL;
		}
		*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
		s += 4;
	}
	*o = '\0';
	if (o - out != (long)strlen(out)) {	/* an escaped NUL */
		free(out);
		return NULL;
	}
	return out;
}

/*
 * A ledger and kernel column pair of a summary line: two numbers, or "-"
 * in both (no ledger entry, for which the module writes untrusted).
 */
static int summary_pair(const char *l, const char *k, long long *lv, long long *kv, int *known)
{
	*lv = *kv = 0;
	*known = strcmp(l, "-") || strcmp(k, "-");
	if (!*known)
		return 0;
	return md_parse_ll(l, lv) || md_parse_ll(k, kv) ? -1 : 0;
}

/*
 * The header: "id path state dirty kernel_dirty verdict", then, from the
 * module that audits file_writeback too, "writeback kernel_writeback".
 * Both are read, so that this CLI reads an older module.
 */
#define MD_SUMMARY_HEAD	"id path state dirty kernel_dirty verdict"

int md_parse_summary(const char *text, struct md_summary *s, char *err)
{
	char *buf = NULL, **lines = NULL, *f[9];
	long n = split_lines(text, &buf, &lines), i;
	int cols;

	memset(s, 0, sizeof(*s));
	if (n < 0)
		return fail(err, "summary: not text");
	if (n >= 1 && !strcmp(lines[0], MD_SUMMARY_HEAD))
		cols = 6;
	else if (n >= 1 && !strcmp(lines[0], MD_SUMMARY_HEAD " writeback kernel_writeback"))
		cols = 8;
	else {
		free(buf);
		free(lines);
		return fail(err, "summary: missing or unknown header");
	}
	s->writeback = cols == 8;
	s->rows = calloc(n, sizeof(*s->rows));
	if (!s->rows)
		goto bad_mem;
	for (i = 1; i < n; i++) {
		struct md_row *r = &s->rows[s->n];

		if (split_fields(lines[i], f, cols) != cols)
			goto bad;
		if (md_parse_ull(f[0], &r->id) || !strcmp(f[2], "") ||
		    (strcmp(f[2], "online") && strcmp(f[2], "dying")) ||
		    summary_pair(f[3], f[4], &r->dirty, &r->kernel, &r->known) ||
		    !md_verdict_valid(f[5]) || f[1][0] != '/')
			goto bad;
		if (cols == 8 && summary_pair(f[6], f[7], &r->writeback, &r->kernel_wb, &r->wb_known))
			goto bad;
		/* no figure but for a memcg without an entry: untrusted */
		if ((!r->known || (cols == 8 && !r->wb_known)) && strcmp(f[5], "untrusted"))
			goto bad;
		r->path = unescape(f[1]);
		if (!r->path)
			goto bad;
		r->dying = !strcmp(f[2], "dying");
		snprintf(r->verdict, sizeof(r->verdict), "%s", f[5]);
		s->n++;
	}
	free(buf);
	free(lines);
	return 0;
bad:
	fail(err, "summary: line %ld is malformed", i + 1);
	free(buf);
	free(lines);
	md_free_summary(s);
	return -1;
bad_mem:
	free(buf);
	free(lines);
	return fail(err, "summary: out of memory");
}

void md_free_summary(struct md_summary *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->rows[i].path);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

int md_parse_kvs(const char *text, struct md_kvs *k, char *err)
{
	char *buf = NULL, **lines = NULL, *f[3];
	long n = split_lines(text, &buf, &lines), i;

	memset(k, 0, sizeof(*k));
	if (n < 0)
		return fail(err, "not text");
	k->kv = calloc(n + 1, sizeof(*k->kv));
	if (!k->kv) {
		free(buf);
		free(lines);
		return fail(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (split_fields(lines[i], f, 2) != 2) {
			fail(err, "line %ld is not 'key value'", i + 1);
			free(buf);
			free(lines);
			md_free_kvs(k);
			return -1;
		}
		k->kv[k->n].key = strdup(f[0]);
		k->kv[k->n].val = strdup(f[1]);
		k->n++;
	}
	free(buf);
	free(lines);
	return 0;
}

void md_free_kvs(struct md_kvs *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->kv[i].key);
		free(k->kv[i].val);
	}
	free(k->kv);
	memset(k, 0, sizeof(*k));
}

const char *md_kv_get(const struct md_kvs *k, const char *key)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->kv[i].key && !strcmp(k->kv[i].key, key))
			return k->kv[i].val;
	return NULL;
}

int md_kv_num(const struct md_kvs *k, const char *key, long long *v, char *err)
{
	const char *s = md_kv_get(k, key);

	if (!s)
		return fail(err, "key '%s' missing", key);
	if (md_parse_ll(s, v))
		return fail(err, "key '%s' is not a number", key);
	return 0;
}

static int domain_verdict_valid(const char *v)
{
	return !strcmp(v, "ok") || !strcmp(v, "busy") || !strcmp(v, "mismatch") ||
	       !strcmp(v, "underflow");
}

/* One domain line: "bdi B cgroup P id N reclaimable kernel K scan S writeback kernel K scan S|- verdict V" */
static int domain_row(char *line, struct md_domain_row *r)
{
	char *f[19];

	if (split_fields(line, f, 18) != 18 || strcmp(f[0], "bdi") || strcmp(f[2], "cgroup") ||
	    strcmp(f[4], "id") || strcmp(f[6], "reclaimable") || strcmp(f[7], "kernel") ||
	    strcmp(f[9], "scan") || strcmp(f[11], "writeback") || strcmp(f[12], "kernel") ||
	    strcmp(f[14], "scan") || strcmp(f[16], "verdict") || md_parse_ull(f[5], &r->id) ||
	    md_parse_ll(f[8], &r->reclaimable_kernel) || md_parse_ll(f[10], &r->reclaimable_scan) ||
	    md_parse_ll(f[13], &r->writeback_kernel) || !domain_verdict_valid(f[17]))
		return -1;
	r->writeback_judged = strcmp(f[15], "-") != 0;
	if (r->writeback_judged && md_parse_ll(f[15], &r->writeback_scan))
		return -1;
	r->bdi = unescape(f[1]);
	r->cgroup = unescape(f[3]);
	r->verdict = strdup(f[17]);
	return r->bdi && r->cgroup && r->verdict ? 0 : -1;
}

int md_parse_domains(const char *text, struct md_domains *d, char *err)
{
	static const char * const head[] = { "verdict", "judged", "domains", "shown", "unseen" };
	char *buf = NULL, **lines = NULL, *f[3];
	long n = split_lines(text, &buf, &lines), i;
	long long shown = 0;
	int ret = -1;

	memset(d, 0, sizeof(*d));
	if (n < 0)
		return fail(err, "domains: not text");
	if (n == 2 && split_fields(lines[0], f, 2) == 2 && !strcmp(f[0], "verdict") &&
	    !strcmp(f[1], "unavailable") && split_fields(lines[1], f + 1, 2) == 2 &&
	    !strcmp(f[1], "reason")) {
		d->verdict = strdup("unavailable");
		d->reason = strdup(f[2]);
		ret = d->verdict && d->reason ? 0 : fail(err, "out of memory");
		goto out;
	}
	if (n < 5) {
		fail(err, "domains: %ld lines, not the 5 of its head", n);
		goto out;
	}
	for (i = 0; i < 5; i++) {
		if (split_fields(lines[i], f, 2) != 2 || strcmp(f[0], head[i])) {
			fail(err, "domains: line %ld is not '%s VALUE'", i + 1, head[i]);
			goto out;
		}
		if ((i == 0 && !domain_verdict_valid(f[1])) ||
		    (i == 1 && strcmp(f[1], "yes") && strcmp(f[1], "no")) ||
		    (i == 2 && (md_parse_ll(f[1], &d->domains) || d->domains < 0)) ||
		    (i == 3 && (md_parse_ll(f[1], &shown) || shown != n - 5)) ||
		    (i == 4 && (md_parse_ll(f[1], &d->unseen) || d->unseen < 0))) {
			fail(err, "domains: line %ld has a bad value", i + 1);
			goto out;
		}
		if (i == 0)
			d->verdict = strdup(f[1]);
		if (i == 1)
			d->judged = !strcmp(f[1], "yes");
	}
	d->rows = calloc(n - 5 + 1, sizeof(*d->rows));
	if (!d->rows || !d->verdict) {
		fail(err, "out of memory");
		goto out;
	}
	for (i = 5; i < n; i++) {
		if (domain_row(lines[i], &d->rows[d->n++])) {
			fail(err, "domains: line %ld is malformed", i + 1);
			goto out;
		}
	}
	ret = 0;
out:
	free(buf);
	free(lines);
	if (ret)
		md_free_domains(d);
	return ret;
}

void md_free_domains(struct md_domains *d)
{
	size_t i;

	for (i = 0; d->rows && i < d->n; i++) {
		free(d->rows[i].bdi);
		free(d->rows[i].cgroup);
		free(d->rows[i].verdict);
	}
	free(d->rows);
	free(d->verdict);
	free(d->reason);
	memset(d, 0, sizeof(*d));
}

int md_parse_probes(const char *text, struct md_probes *p, char *err)
{
	char *buf = NULL, **lines = NULL, *f[7];
	long n = split_lines(text, &buf, &lines), i;

	memset(p, 0, sizeof(*p));
	if (n < 0)
		return fail(err, "probes: not text");
	if (n < 1 || strcmp(lines[0], "point symbol type status hits missed")) {
		free(buf);
		free(lines);
		return fail(err, "probes: missing or unknown header");
	}
	p->rows = calloc(n, sizeof(*p->rows));
	for (i = 1; p->rows && i < n; i++) {
		struct md_probe_row *r = &p->rows[p->n];

		if (split_fields(lines[i], f, 6) != 6 || md_parse_ull(f[4], &r->hits) ||
		    md_parse_ull(f[5], &r->missed)) {
			fail(err, "probes: line %ld is malformed", i + 1);
			free(buf);
			free(lines);
			md_free_probes(p);
			return -1;
		}
		r->point = strdup(f[0]);
		r->symbol = strdup(f[1]);
		r->type = strdup(f[2]);
		r->status = strdup(f[3]);
		p->n++;
	}
	free(buf);
	free(lines);
	return p->rows ? 0 : fail(err, "out of memory");
}

void md_free_probes(struct md_probes *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->rows[i].point);
		free(p->rows[i].symbol);
		free(p->rows[i].type);
		free(p->rows[i].status);
	}
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

/* An events line's counter: "-", or a name as the module's are ("dirty", "writeback"). */
static int counter_valid(const char *c)
{
	if (!strcmp(c, "-"))
		return 1;
	if (*c < 'a' || *c > 'z')
		return 0;
	for (; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return 0;
	return 1;
}

/* The header; the module that audits more than file_dirty adds "counter". */
#define MD_EVENTS_HEAD	"time id path node kind probe pfn kernel ledger scan missed"

int md_parse_events(const char *text, struct md_events *e, char *err)
{
	char *buf = NULL, **lines = NULL, *f[13];
	long n = split_lines(text, &buf, &lines), i;
	int cols = 0;

	memset(e, 0, sizeof(*e));
	if (n < 0)
		return fail(err, "events: not text");
	if (n >= 2 && !strcmp(lines[1], MD_EVENTS_HEAD))
		cols = 11;
	else if (n >= 2 && !strcmp(lines[1], MD_EVENTS_HEAD " counter"))
		cols = 12;
	if (!cols || split_fields(lines[0], f, 2) != 2 || strcmp(f[0], "dropped") ||
	    md_parse_ull(f[1], &e->dropped)) {
		free(buf);
		free(lines);
		return fail(err, "events: missing or unknown header");
	}
	e->rows = calloc(n, sizeof(*e->rows));
	for (i = 2; e->rows && i < n; i++) {
		struct md_event_row *r = &e->rows[e->n];
		char *path;

		if (split_fields(lines[i], f, cols) != cols || md_parse_ll(f[7], &r->kernel) ||
		    md_parse_ll(f[8], &r->ledger) || md_parse_ll(f[9], &r->scan) ||
		    md_parse_ull(f[10], &r->missed) || (cols == 12 && !counter_valid(f[11])) ||
		    !(path = strcmp(f[2], "-") ? unescape(f[2]) : strdup("-"))) {
			fail(err, "events: line %ld is malformed", i + 1);
			free(buf);
			free(lines);
			md_free_events(e);
			return -1;
		}
		r->time = strdup(f[0]);
		r->id = strdup(f[1]);
		r->path = path;
		r->node = strdup(f[3]);
		r->kind = strdup(f[4]);
		r->probe = strdup(f[5]);
		r->pfn = strdup(f[6]);
		/* an older module's: the dirty counter's, a probe's own none */
		r->counter = strdup(cols == 12 ? f[11] : strcmp(f[4], "probe_missed") ? "dirty" : "-");
		e->n++;
	}
	free(buf);
	free(lines);
	return e->rows ? 0 : fail(err, "out of memory");
}

void md_free_events(struct md_events *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		struct md_event_row *r = &e->rows[i];

		free(r->time);
		free(r->id);
		free(r->path);
		free(r->node);
		free(r->kind);
		free(r->probe);
		free(r->pfn);
		free(r->counter);
	}
	free(e->rows);
	memset(e, 0, sizeof(*e));
}

/* --- Prometheus text exposition format, strictly ---------------------- */

static int prom_name(const char **p, int label)
{
	const char *s = *p;

	if (!(isalpha((unsigned char)*s) || *s == '_' || (!label && *s == ':')))
		return -1;
	while (isalnum((unsigned char)*s) || *s == '_' || (!label && *s == ':'))
		s++;
	*p = s;
	return 0;
}

static int prom_value(const char *s)
{
	char *end;

	if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "-Inf"))
		return 0;
	if (!*s)
		return -1;
	strtod(s, &end);
	return *end ? -1 : 0;
}

int md_prom_validate(const char *text, char *err)
{
	char *buf = NULL, **lines = NULL;
	long n = split_lines(text, &buf, &lines), i;
	int ret = 0;

	if (n < 0)
		return fail(err, "not newline-terminated text");
	for (i = 0; i < n && !ret; i++) {
		const char *p = lines[i], *name;
		char metric[256];

		if (!*p) {
			ret = fail(err, "line %ld: empty line", i + 1);
			break;
		}
		if (!strncmp(p, "# HELP ", 7) || !strncmp(p, "# TYPE ", 7)) {
			int type = p[2] == 'T';

			p += 7;
			name = p;
			if (prom_name(&p, 0) || *p != ' ') {
				ret = fail(err, "line %ld: bad metric name in comment", i + 1);
				break;
			}
			if (type && strcmp(p + 1, "counter") && strcmp(p + 1, "gauge") &&
			    strcmp(p + 1, "untyped") && strcmp(p + 1, "histogram") &&
			    strcmp(p + 1, "summary"))
				ret = fail(err, "line %ld: unknown type", i + 1);
			continue;
		}
		if (*p == '#')
			continue;
		name = p;
		if (prom_name(&p, 0)) {
			ret = fail(err, "line %ld: bad metric name", i + 1);
			break;
		}
		snprintf(metric, sizeof(metric), "%.*s", (int)(p - name), name);
		if (*p == '{') {
			p++;
			while (*p != '}') {
				if (prom_name(&p, 1) || *p++ != '=' || *p++ != '"') {
					ret = fail(err, "line %ld: bad label in %s", i + 1, metric);
					break;
				}
				while (*p && *p != '"') {
					if (*p == '\\') {
						p++;
						if (*p != '\\' && *p != '"' && *p != 'n') {
							ret = fail(err, "line %ld: bad escape", i + 1);
							break;
						}
					}
					p++;
				}
				if (ret || *p++ != '"') {
					ret = ret ?: fail(err, "line %ld: unterminated label value", i + 1);
					break;
				}
				if (*p == ',')
					p++;
				else if (*p != '}') {
					ret = fail(err, "line %ld: expected , or }", i + 1);
					break;
				}
			}
			if (ret)
				break;
			p++;
		}
		if (*p != ' ') {
			ret = fail(err, "line %ld: no value for %s", i + 1, metric);
			break;
		}
		p++;
		{
			char val[64];
			const char *sp = strchr(p, ' ');
			size_t len = sp ? (size_t)(sp - p) : strlen(p);
			long long ts;

			if (len >= sizeof(val)) {
				ret = fail(err, "line %ld: value too long", i + 1);
				break;
			}
			memcpy(val, p, len);
			val[len] = '\0';
			if (prom_value(val) || (sp && md_parse_ll(sp + 1, &ts)))
				ret = fail(err, "line %ld: bad value '%s'", i + 1, val);
		}
	}
	free(buf);
	free(lines);
	return ret;
}
