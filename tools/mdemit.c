// SPDX-License-Identifier: GPL-2.0
/* The memcg-dirty output emitter: table, JSON and Prometheus; see mdemit.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdemit.h"

void md_emit_init(struct md_emit *e, FILE *f, enum md_format fmt)
{
	memset(e, 0, sizeof(*e));
	e->f = f;
	e->fmt = fmt;
}

int md_json(const struct md_emit *e)
{
	return e->fmt == MD_JSON;
}

void md_human(long long bytes, char *buf, size_t len)
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

/* --- JSON ----------------------------------------------------------------- */

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

/* The separator a value needs, and its key when it is a member. */
static void json_key(struct md_emit *e, const char *key)
{
	if (e->comma)
		fputc(',', e->f);
	if (key) {
		json_str(e->f, key);
		fputc(':', e->f);
	}
	e->comma = 1;
}

/* --- table ---------------------------------------------------------------- */

static void clear_row(struct md_emit *e)
{
	size_t i;

	for (i = 0; i < MD_EMIT_COLS; i++) {
		free(e->cell[i]);
		e->cell[i] = NULL;
	}
}

/* The cells given so far, in column order; nothing when none was given. */
static void print_row(struct md_emit *e)
{
	int n = 0;
	size_t i;

	for (i = 0; i < e->ncols; i++) {
		if (!e->cell[i])
			continue;
		if (n++)
			fputc(' ', e->f);
		if (e->cols[i].label)
			fprintf(e->f, "%s ", e->cols[i].key);
		fprintf(e->f, "%*s", e->cols[i].width, e->cell[i]);
	}
	if (n)
		fputc('\n', e->f);
	clear_row(e);
}

static void vset_cell(struct md_emit *e, const char *key, const char *fmt, va_list ap)
{
	size_t i;

	if (e->fmt != MD_TABLE)
		return;
	for (i = 0; i < e->ncols; i++) {
		if (strcmp(e->cols[i].key, key))
			continue;
		free(e->cell[i]);
		if (vasprintf(&e->cell[i], fmt, ap) < 0)
			e->cell[i] = NULL;
		return;
	}
}

static void __attribute__((format(printf, 3, 4)))
set_cell(struct md_emit *e, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset_cell(e, key, fmt, ap);
	va_end(ap);
}

void md_table(struct md_emit *e, const struct md_col *cols, size_t ncols)
{
	clear_row(e);
	e->cols = cols;
	e->ncols = ncols < MD_EMIT_COLS ? ncols : MD_EMIT_COLS;
}

void md_table_head(struct md_emit *e)
{
	size_t i;

	if (e->fmt != MD_TABLE || !e->ncols)
		return;
	for (i = 0; i < e->ncols; i++)
		fprintf(e->f, "%s%*s", i ? " " : "", e->cols[i].width, e->cols[i].head ?: "");
	fputc('\n', e->f);
}

void md_cell(struct md_emit *e, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset_cell(e, key, fmt, ap);
	va_end(ap);
}

void md_cell_bytes(struct md_emit *e, const char *key, long long bytes)
{
	char buf[32];

	if (e->fmt != MD_TABLE)
		return;
	md_human(bytes, buf, sizeof(buf));
	set_cell(e, key, "%s", buf);
}

void md_text(struct md_emit *e, const char *fmt, ...)
{
	va_list ap;

	if (e->fmt != MD_TABLE)
		return;
	va_start(ap, fmt);
	vfprintf(e->f, fmt, ap);
	va_end(ap);
}

/* --- structure and fields, JSON and table ------------------------------- */

static void begin(struct md_emit *e, const char *key, char open, char close)
{
	if (e->depth == MD_EMIT_DEPTH)
		return;		/* deeper than any command nests */
	if (e->fmt == MD_JSON) {
		json_key(e, key);
		fputc(open, e->f);
		e->comma = 0;
	} else if (e->fmt == MD_TABLE && open == '{') {
		clear_row(e);
	}
	e->close[e->depth++] = close;
}

void md_begin_object(struct md_emit *e, const char *key)
{
	begin(e, key, '{', '}');
}

void md_begin_array(struct md_emit *e, const char *key)
{
	begin(e, key, '[', ']');
}

void md_end(struct md_emit *e)
{
	char close;

	if (!e->depth)
		return;
	close = e->close[--e->depth];
	if (e->fmt == MD_JSON) {
		fputc(close, e->f);
		e->comma = 1;
		if (!e->depth) {	/* a whole document: its own line */
			fputc('\n', e->f);
			e->comma = 0;
		}
	} else if (e->fmt == MD_TABLE && close == '}') {
		print_row(e);
	}
}

void md_field_str(struct md_emit *e, const char *key, const char *val)
{
	if (e->fmt == MD_JSON) {
		json_key(e, key);
		json_str(e->f, val);
	}
	set_cell(e, key, "%s", val);
}

void md_field_int(struct md_emit *e, const char *key, long long v)
{
	if (e->fmt == MD_JSON) {
		json_key(e, key);
		fprintf(e->f, "%lld", v);
	}
	set_cell(e, key, "%lld", v);
}

void md_field_uint(struct md_emit *e, const char *key, unsigned long long v)
{
	if (e->fmt == MD_JSON) {
		json_key(e, key);
		fprintf(e->f, "%llu", v);
	}
	set_cell(e, key, "%llu", v);
}

/* A rate: rounded to a whole number, which is all the precision it has. */
void md_field_real(struct md_emit *e, const char *key, double v)
{
	if (e->fmt == MD_JSON) {
		json_key(e, key);
		fprintf(e->f, "%.0f", v);
	}
	set_cell(e, key, "%.0f", v);
}

/* A number as the module wrote it, copied verbatim; NULL when there is none. */
void md_field_raw(struct md_emit *e, const char *key, const char *val)
{
	if (e->fmt == MD_JSON) {
		json_key(e, key);
		fputs(val ?: "null", e->f);
	}
	set_cell(e, key, "%s", val ?: "null");
}

/* --- Prometheus ------------------------------------------------------------ */

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

void md_prom_family(struct md_emit *e, const char *name, const char *type, const char *help)
{
	if (e->fmt == MD_PROM)
		fprintf(e->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The name and its {labels}, if any: the value comes after. */
static void prom_sample(struct md_emit *e, const char *name, va_list ap)
{
	const char *label, *sep = "{";

	fputs(name, e->f);
	while ((label = va_arg(ap, const char *))) {
		fprintf(e->f, "%s%s=\"", sep, label);
		prom_label(e->f, va_arg(ap, const char *));
		fputc('"', e->f);
		sep = ",";
	}
	if (*sep == ',')
		fputc('}', e->f);
}

void md_prom_int(struct md_emit *e, const char *name, long long v, ...)
{
	va_list ap;

	if (e->fmt != MD_PROM)
		return;
	va_start(ap, v);
	prom_sample(e, name, ap);
	va_end(ap);
	fprintf(e->f, " %lld\n", v);
}

void md_prom_uint(struct md_emit *e, const char *name, unsigned long long v, ...)
{
	va_list ap;

	if (e->fmt != MD_PROM)
		return;
	va_start(ap, v);
	prom_sample(e, name, ap);
	va_end(ap);
	fprintf(e->f, " %llu\n", v);
}

void md_prom_usecs(struct md_emit *e, const char *name, unsigned long long us, ...)
{
	va_list ap;

	if (e->fmt != MD_PROM)
		return;
	va_start(ap, us);
	prom_sample(e, name, ap);
	va_end(ap);
	fprintf(e->f, " %llu.%06llu\n", us / 1000000, us % 1000000);
}
