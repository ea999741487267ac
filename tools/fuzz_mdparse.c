// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: every memcg-dirty parser on the same arbitrary input,
 * then the model's joins that need no files: the input as a cgroup
 * argument, and what the parsed summary, stat and events files are joined
 * into.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mdmodel.h"
#include "mdparse.h"

static void fuzz_rows(struct md_summary *s, char *text)
{
	long long l, k;
	size_t i;

	md_sort(s, MD_BY_PATH);
	for (i = 0; i < s->n; i++) {
		md_hier(s, i, &l, &k);
		md_hier_wb(s, i, &l, &k);
		md_selected(&s->rows[i], &text, 1);
	}
	md_sort(s, MD_BY_DIRTY);
	md_sort(s, MD_BY_DIFFER);	/* the textfile's order: absurd counts must not overflow */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[MD_ERRLEN], path[4096], rel[4200];
	struct md_summary s;
	struct md_kvs k;
	struct md_probes p;
	struct md_domains d;
	struct md_events e;
	long long v;
	size_t i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	md_normalize(text, path, sizeof(path));
	md_cgroup_rel(path, "check", rel, sizeof(rel));
	if (!md_parse_summary(text, &s, err)) {
		fuzz_rows(&s, text);
		md_free_summary(&s);
	}
	if (!md_parse_kvs(text, &k, err)) {
		md_kv_get(&k, "verdict");
		md_kv_num(&k, "kernel", &v, err);
		for (i = 0; i < MD_NR_COUNTERS; i++)	/* a check's keys of each counter */
			md_check_get(&k, md_counters[i], "verdict");
		for (i = 0; i < k.n; i++)
			md_event_total(&k, i, &v);
		md_free_kvs(&k);
	}
	if (!md_parse_probes(text, &p, err))
		md_free_probes(&p);
	if (!md_parse_domains(text, &d, err))
		md_free_domains(&d);
	if (!md_parse_events(text, &e, err)) {
		for (i = 0; i < md_nr_anomaly_kinds; i++)
			md_count_kind(&e, md_anomaly_kinds[i]);
		for (i = 0; i < e.n; i++) {
			md_event_is_new(&e.rows[i], i ? e.rows[i - 1].time : "");
			md_counter_index(e.rows[i].counter);
		}
		md_free_events(&e);
	}
	md_prom_validate(text, err);
	free(text);
	return 0;
}
