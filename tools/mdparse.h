/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for the memcg_dirty debugfs files, shared by the memcg-dirty CLI,
 * its unit tests and its fuzz target.  Every parser is strict: a malformed
 * line is an error with its line number, never a guess.
 */
#ifndef MDPARSE_H
#define MDPARSE_H

#include <stddef.h>

#define MD_ERRLEN 256

/*
 * The counters the module audits, in its order (the check file's
 * NAME_verdict keys, the events file's counter column): a memcg's verdict
 * is its worst counter's, the first such in this order.
 */
#define MD_NR_COUNTERS	2
extern const char * const md_counters[MD_NR_COUNTERS];	/* "dirty", "writeback" */

struct md_row {			/* one summary line */
	unsigned long long id;
	char *path;		/* unescaped */
	int dying;
	long long dirty, kernel;	/* pages; 0 when !known */
	char verdict[16];	/* the worst of its counters' */
	/* 0: "-" in both columns, the memcg has no ledger entry (then untrusted) */
	int known;
	/* file_writeback, pages: 0 when !wb_known (an older module's summary, or "-") */
	long long writeback, kernel_wb;
	int wb_known;
};

struct md_summary {
	struct md_row *rows;
	size_t n;
	int writeback;		/* the header has writeback and kernel_writeback */
};

struct md_kv {
	char *key, *val;
};

struct md_kvs {			/* "key value" lines */
	struct md_kv *kv;
	size_t n;
};

struct md_probe_row {
	char *point, *symbol, *type, *status;
	unsigned long long hits, missed;
};

struct md_probes {
	struct md_probe_row *rows;
	size_t n;
};

struct md_event_row {
	char *time, *id, *path, *node, *kind, *probe, *pfn;
	long long kernel, ledger, scan;
	unsigned long long missed;
	/*
	 * Whose kernel, ledger and scan: "dirty", "writeback", or "-" (none: a
	 * probe's own anomaly).  An older module's log has no such column:
	 * then "dirty", and "-" for probe_missed, as the module now writes them.
	 */
	char *counter;
};

struct md_events {
	unsigned long long dropped;
	struct md_event_row *rows;
	size_t n;
};

int md_parse_summary(const char *text, struct md_summary *s, char *err);
void md_free_summary(struct md_summary *s);
int md_parse_kvs(const char *text, struct md_kvs *k, char *err);
void md_free_kvs(struct md_kvs *k);
const char *md_kv_get(const struct md_kvs *k, const char *key);
int md_kv_num(const struct md_kvs *k, const char *key, long long *v, char *err);
/*
 * The writeback domains (debugfs domains): a domain per bdi and cgroup,
 * WB_RECLAIMABLE and WB_WRITEBACK in the kernel's view and the scan's.
 */
struct md_domain_row {
	char *bdi, *cgroup, *verdict;
	unsigned long long id;
	long long reclaimable_kernel, reclaimable_scan, writeback_kernel, writeback_scan;
	int writeback_judged;	/* 0: the file system counts its own (scan "-") */
};

struct md_domains {
	char *verdict;		/* the worst; "unavailable" with a reason */
	char *reason;		/* NULL unless unavailable */
	int judged;		/* nothing moved while the scan ran */
	long long domains, unseen;
	struct md_domain_row *rows;
	size_t n;
};

int md_parse_domains(const char *text, struct md_domains *d, char *err);
void md_free_domains(struct md_domains *d);
int md_parse_probes(const char *text, struct md_probes *p, char *err);
void md_free_probes(struct md_probes *p);
int md_parse_events(const char *text, struct md_events *e, char *err);
void md_free_events(struct md_events *e);

int md_verdict_valid(const char *v);
/* md_counters[] index of @name, or -1 */
int md_counter_index(const char *name);
/* /sys/kernel/security/lockdown ("none [integrity] confidentiality"): the mode in brackets */
int md_parse_lockdown(const char *text, char *mode, size_t len);
int md_parse_ll(const char *s, long long *v);
int md_parse_ull(const char *s, unsigned long long *v);

/* Prometheus text format (0.0.4): 0 when valid, else -1 and a reason. */
int md_prom_validate(const char *text, char *err);

#endif
