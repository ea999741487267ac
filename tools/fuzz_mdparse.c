// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: every memcg-dirty parser on the same arbitrary input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mdparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[MD_ERRLEN];
	struct md_summary s;
	struct md_kvs k;
	struct md_probes p;
	struct md_events e;
	long long v;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!md_parse_summary(text, &s, err))
		md_free_summary(&s);
	if (!md_parse_kvs(text, &k, err)) {
		md_kv_get(&k, "verdict");
		md_kv_num(&k, "kernel", &v, err);
		md_free_kvs(&k);
	}
	if (!md_parse_probes(text, &p, err))
		md_free_probes(&p);
	if (!md_parse_events(text, &e, err))
		md_free_events(&e);
	md_prom_validate(text, err);
	free(text);
	return 0;
}
