/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memcg-dirty output emitter, one object with three backends: an
 * aligned table, JSON and the Prometheus text format.  Commands describe
 * records (objects of named fields) and the emitter owns each format's
 * escaping and separators, so that no command writes a comma or a quote.
 *
 * JSON: objects and arrays nest; a top-level value ends its line, which
 * makes one document, or one JSON line per record.
 * Table: a column layout (md_table()) says which fields show, where and
 * how wide; the fields of an object become one row when the object ends.
 * md_cell() and md_text() add what only the table shows.
 * Prometheus: metric families and samples with labels.
 * Calls that do not belong to the emitter's format do nothing.
 */
#ifndef MDEMIT_H
#define MDEMIT_H

#include <stddef.h>
#include <stdio.h>

enum md_format { MD_TABLE, MD_JSON, MD_PROM };

struct md_col {
	const char *key;	/* the field or cell it shows */
	int width;		/* as printf's: < 0 pads on the right, 0 not at all */
	const char *head;	/* its heading in md_table_head() */
	int label;		/* the key before the value: "node 0" */
};

#define MD_EMIT_DEPTH	8
#define MD_EMIT_COLS	12

struct md_emit {
	FILE *f;
	enum md_format fmt;
	int depth;
	int comma;			/* JSON: a value precedes at this depth */
	char close[MD_EMIT_DEPTH];	/* JSON: '}' or ']' per open level */
	const struct md_col *cols;	/* table: the layout */
	size_t ncols;
	char *cell[MD_EMIT_COLS];	/* table: the row being filled */
};

void md_emit_init(struct md_emit *e, FILE *f, enum md_format fmt);
int md_json(const struct md_emit *e);

/* Structure: key is NULL for a top-level value or an array element. */
void md_begin_object(struct md_emit *e, const char *key);
void md_begin_array(struct md_emit *e, const char *key);
void md_end(struct md_emit *e);

/* Fields of the current object. */
void md_field_str(struct md_emit *e, const char *key, const char *val);
void md_field_int(struct md_emit *e, const char *key, long long v);
void md_field_uint(struct md_emit *e, const char *key, unsigned long long v);
void md_field_real(struct md_emit *e, const char *key, double v);
void md_field_raw(struct md_emit *e, const char *key, const char *val);

/* The table backend only. */
void md_table(struct md_emit *e, const struct md_col *cols, size_t ncols);
void md_table_head(struct md_emit *e);
void md_cell(struct md_emit *e, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void md_cell_bytes(struct md_emit *e, const char *key, long long bytes);
void md_text(struct md_emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The Prometheus backend only: labels are name, value pairs ending in NULL. */
void md_prom_family(struct md_emit *e, const char *name, const char *type, const char *help);
void md_prom_int(struct md_emit *e, const char *name, long long v, ...)
	__attribute__((sentinel));
void md_prom_uint(struct md_emit *e, const char *name, unsigned long long v, ...)
	__attribute__((sentinel));
/* A count of microseconds, written as seconds (the unit), exactly. */
void md_prom_usecs(struct md_emit *e, const char *name, unsigned long long us, ...)
	__attribute__((sentinel));

void md_human(long long bytes, char *buf, size_t len);

#endif
