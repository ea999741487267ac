// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of memcg-dirty against fixture directories that
 * mimic the debugfs tree, well-formed and malformed.  Ends with the line
 * "N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mdcli.h"
#include "mdparse.h"

static int passed, failed;
static char root[128];

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static const char *STAT =
	"dirty 10\ndirty_hier 10\nkernel_dirty 10\nkernel_dirty_hier 10\n"
	"dirty_node0 10\nkernel_dirty_node0 10\ndirtied 100\ncleaned_io 90\n"
	"cancelled 0\nremoved_dirty 0\nmigrated 0\nmoved_in 0\nmoved_out 0\n"
	"dirtied_uncharged 0\nsynced 1\ncarried 0\nkernel_carried 0\nkernel_carried_unseen 0\n"
	"hier_settled 1\n";

static const char *CHECK_OK =
	"verdict ok\nkernel 10\nledger 10\nscan 10\nscan_age_ms 5\nsuspect none\n"
	"delta 0\nquiescent 1\nbound 0\nscan_busy 0\n";

static const char *AUDIT =
	"audit_ms 1000\naudit_warn 1\naudits 3600\nlast_us 2143\nlast_wait_us 1876\n"
	"last_memcgs 7\ndiffered 4\nescalations 2\nbad_verdicts 2\nunconfirmed 1\nprinted 2\n"
	"printed_audit 3598\nsuppressed 0\nwarned 2\nuntrusted_printed 0\naudit_watch 1\n"
	"watches 1\naudit_unsynced_s 120\nlast_unsynced 1\nunsynced_long 1\n";

/* A healthy tree: root, /a, /a/b, /stat (escaped %stat), a dying /gone. */
static void fixture_good(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		exit(2);
	mkdir(root, 0755);
	put("version", "version 0.1.0\nkernel 6.1.0-57-amd64\nhierarchy v2\nnodes 1\n"
		       "scans 3\nscan_ms 12\nscan_dirty 30\nscan_busy 0\n");
	put("probes", "point symbol type status hits missed\n"
		      "dirtied writeback_dirty_folio tracepoint attached 100 0\n"
		      "cleaned_io folio_clear_dirty_for_io kretprobe attached 90 0\n");
	put("summary", "id path state dirty kernel_dirty verdict\n"
		       "1 / online 5 5 ok\n"
		       "10 /a online 10 10 ok\n"
		       "11 /a/b online 20 20 ok\n"
		       "12 /stat online 0 0 ok\n"
		       "13 /with\\040space online 1 1 ok\n"
		       "9 /gone dying 3 3 ok\n");
	put("check", "verdict ok\nok 6\nunsynced 0\nuntrusted 0\nmismatch 0\nunderflow 0\n"
		     "kernel_global 39\nkernel_sum 39\nsum_check ok\nhier_check unavailable\nhier_check_reason no_exported_rstat_flush\nnegative 0\n");
	put("events", "dropped 0\ntime id path node kind probe pfn kernel ledger scan missed\n"
		      "12.000001 10 /a 0 mismatch - - 11 10 10 0\n");
	put("control", "commands: scan resync\n");
	put("audit", AUDIT);
	put("cgroups/stat", STAT);
	put("cgroups/check", CHECK_OK);
	put("cgroups/a/stat", STAT);
	put("cgroups/a/check", CHECK_OK);
	put("cgroups/a/b/stat", STAT);
	put("cgroups/a/b/check", CHECK_OK);
	put("cgroups/%stat/stat", STAT);
	put("cgroups/%stat/check", CHECK_OK);
	put("cgroups/with space/stat", STAT);
	put("cgroups/with space/check", CHECK_OK);
}

/* Run the CLI; its stdout and stderr into buffers. */
static int run(char *out, size_t outlen, char *err, size_t errlen, ...)
{
	char *argv[16] = { "memcg-dirty" };
	int argc = 1, rc;
	va_list ap;
	FILE *o = fmemopen(out, outlen, "w"), *e = fmemopen(err, errlen, "w");
	const char *a;

	va_start(ap, errlen);
	while ((a = va_arg(ap, const char *)) && argc < 15)
		argv[argc++] = (char *)a;
	va_end(ap);
	memset(out, 0, outlen);
	memset(err, 0, errlen);
	rc = md_cli(argc, argv, o, e);
	fclose(o);
	fclose(e);
	return rc;
}

static char out[65536], err[4096];

static void test_parsers(void)
{
	char e[MD_ERRLEN];
	struct md_summary s;
	struct md_kvs k;
	long long v;

	CHECK(!md_parse_summary("id path state dirty kernel_dirty verdict\n1 / online 5 -3 underflow\n", &s, e),
	      "good summary: %s", e);
	CHECK(s.n == 1 && s.rows[0].kernel == -3 && !strcmp(s.rows[0].verdict, "underflow"), "row values");
	md_free_summary(&s);
	CHECK(md_parse_summary("", &s, e), "empty summary rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 / online 5\n", &s, e),
	      "short line rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 / online 5 5 ok", &s, e),
	      "unterminated line rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\nx / online 5 5 ok\n", &s, e),
	      "non-numeric id rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 / sleepy 5 5 ok\n", &s, e),
	      "unknown state rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 / online 5 5 great\n", &s, e),
	      "unknown verdict rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 /a\\9 online 5 5 ok\n", &s, e),
	      "bad escape rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 /a\\000 online 5 5 ok\n", &s, e),
	      "escaped NUL rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 / online 99999999999999999999 5 ok\n",
			       &s, e), "overflowing number rejected");
	CHECK(!md_parse_kvs("a 1\nb -2\n", &k, e) && !md_kv_num(&k, "b", &v, e) && v == -2, "kv");
	CHECK(md_kv_num(&k, "c", &v, e), "missing key reported");
	md_free_kvs(&k);
	CHECK(md_parse_kvs("a 1 2\n", &k, e), "three fields rejected");
	CHECK(md_parse_kvs("a\n", &k, e), "one field rejected");
}

static void test_views(void)
{
	int rc;

	fixture_good();
	rc = run(out, sizeof(out), err, sizeof(err), NULL);
	CHECK(rc == 0, "table exits 0 (%d): %s", rc, err);
	CHECK(strstr(out, "/a/b") && strstr(out, "80.0 KiB"), "table shows /a/b at 80 KiB:\n%s", out);
	CHECK(strstr(out, "/a/b") < strstr(out, "/a "), "sorted by dirty bytes:\n%s", out);
	CHECK(strstr(out, "/gone (dying)"), "dying cgroups marked:\n%s", out);
	CHECK(strstr(out, "/with space"), "escaped path shown unescaped:\n%s", out);

	rc = run(out, sizeof(out), err, sizeof(err), "--tree", NULL);
	CHECK(rc == 0 && strstr(out, "120.0 KiB"), "tree: /a subtree is 30 pages = 120 KiB:\n%s", out);

	rc = run(out, sizeof(out), err, sizeof(err), "--json", "/sys/fs/cgroup/a", NULL);
	CHECK(rc == 0 && strstr(out, "\"path\":\"/a\"") && strstr(out, "\"path\":\"/a/b\"") &&
	      !strstr(out, "\"path\":\"/\""), "json restricted to /a's subtree:\n%s", out);
	CHECK(strstr(out, "\"dirty_bytes\":40960"), "json bytes:\n%s", out);

	rc = run(out, sizeof(out), err, sizeof(err), "a/b", NULL);
	CHECK(rc == 0 && strstr(out, "/a/b") && !strstr(out, "/gone"), "relative path accepted:\n%s", out);

	rc = run(out, sizeof(out), err, sizeof(err), "/nope", NULL);
	CHECK(rc == 2 && strstr(err, "unknown cgroup '/nope'"), "unknown cgroup: %d %s", rc, err);

	rc = run(out, sizeof(out), err, sizeof(err), "probes", NULL);
	CHECK(rc == 0 && strstr(out, "writeback_dirty_folio"), "probes:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "probes", "--json", NULL);
	CHECK(rc == 0 && strstr(out, "\"hits\":100"), "probes json:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "events", "--json", NULL);
	CHECK(rc == 0 && strstr(out, "\"kind\":\"mismatch\"") && strstr(out, "\"dropped\":0"),
	      "events json:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "--bogus", NULL);
	CHECK(rc == 2, "unknown option exits 2");
	rc = run(out, sizeof(out), err, sizeof(err), "--follow", NULL);
	CHECK(rc == 2 && strstr(err, "--follow goes with 'events'"), "--follow alone: %s", err);
	rc = run(out, sizeof(out), err, sizeof(err), "rates", "-n", "0.1", "-c", "1", NULL);
	CHECK(rc == 0 && strstr(out, "dirtied="), "rates, not a tty: plain lines:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "rates", "-n", "zero", NULL);
	CHECK(rc == 2, "rates -n zero rejected");
	rc = run(out, sizeof(out), err, sizeof(err), "rates", "/a", NULL);
	CHECK(rc == 2 && strstr(err, "'rates' takes no cgroup arguments"), "rates /a: %s", err);
	/* watch: the old name of rates, kept for one release */
	rc = run(out, sizeof(out), err, sizeof(err), "watch", "-n", "0.1", "-c", "1", NULL);
	CHECK(rc == 0 && strstr(out, "dirtied=") && !*err, "watch, the old name: as rates:\n%s%s", out, err);
	rc = run(out, sizeof(out), err, sizeof(err), "watch", "-n", "zero", NULL);
	CHECK(rc == 2, "watch -n zero rejected");
	rc = run(out, sizeof(out), err, sizeof(err), "--help", NULL);
	CHECK(rc == 0 && strstr(out, "memcg-dirty rates [-n SECONDS]") &&
	      strstr(out, "watch: the old name of rates"), "--help names rates, and watch as its old name:\n%s", out);
}

static void test_check(void)
{
	int rc;

	fixture_good();
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 0 && strstr(out, "(global) ok"), "clean check exits 0 (%d):\n%s%s", rc, out, err);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", "stat", NULL);
	CHECK(rc == 0 && strstr(out, "/stat ok"), "named cgroups, escaped dir (%d):\n%s%s", rc, out, err);

	put("cgroups/a/check", "verdict mismatch\nkernel 11\nledger 10\nscan 10\nscan_age_ms 1\n"
			       "suspect kernel\ndelta 1\nquiescent 1\nbound 0\nscan_busy 0\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", NULL);
	CHECK(rc == 1 && strstr(out, "suspect kernel"), "mismatch exits 1 (%d):\n%s", rc, out);
	put("cgroups/a/check", "verdict unsynced\nkernel 11\nledger 10\nscan 10\nscan_age_ms 1\n"
			       "suspect none\ndelta 1\nquiescent 0\nbound 0\nscan_busy 0\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", NULL);
	CHECK(rc == 3, "unsynced exits 3 (%d)", rc);
	put("cgroups/a/check", CHECK_OK);
	put("cgroups/a/b/check", "verdict ok\nkernel 11\nledger 10\nscan 10\nscan_age_ms 1\n"
				 "suspect none\ndelta 1\nquiescent 0\nbound 2\nscan_busy 0\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a/b", NULL);
	CHECK(rc == 0, "bounded ok exits 0 (%d)", rc);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "--strict", "/a/b", NULL);
	CHECK(rc == 3, "--strict: bounded ok exits 3 (%d)", rc);
	put("summary", "id path state dirty kernel_dirty verdict\n1 / online 5 5 ok\n"
		       "10 /a online 10 -1 underflow\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 1 && strstr(out, "/a underflow"), "global: an underflowing cgroup exits 1 (%d):\n%s",
	      rc, out);

	/* malformed trees: an error and exit 2, never a crash */
	fixture_good();
	put("cgroups/a/check", "verdict\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", NULL);
	CHECK(rc == 2 && strstr(err, "malformed"), "truncated check file (%d): %s", rc, err);
	put("summary", "id path state dirty kernel_dirty verdict\n10 /a online 10");
	rc = run(out, sizeof(out), err, sizeof(err), NULL);
	CHECK(rc == 2 && strstr(err, "not text"), "truncated summary (%d): %s", rc, err);
	put("summary", "garbage\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 2 && strstr(err, "header"), "garbled summary (%d): %s", rc, err);
	fixture_good();
	put("probes", "point symbol\n");
	rc = run(out, sizeof(out), err, sizeof(err), "probes", NULL);
	CHECK(rc == 2, "garbled probes exits 2 (%d)", rc);
	unlink(strcat(strcpy(out, root), "/events"));
	rc = run(out, sizeof(out), err, sizeof(err), "events", NULL);
	CHECK(rc == 2 && strstr(err, "events"), "missing events file (%d): %s", rc, err);
}

static void test_prometheus(void)
{
	char path[300], e[MD_ERRLEN], *text;
	struct stat st;
	FILE *f;
	int rc;

	fixture_good();
	snprintf(path, sizeof(path), "%s/out.prom", root);
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	CHECK(rc == 0, "textfile written (%d): %s", rc, err);
	f = fopen(path, "r");
	text = calloc(1, 1 << 16);
	if (f) {
		size_t n = fread(text, 1, (1 << 16) - 1, f);

		text[n] = '\0';
		fclose(f);
	}
	CHECK(!md_prom_validate(text, e), "textfile parses: %s", e);
	CHECK(strstr(text, "memcg_dirty_bytes{cgroup=\"/a/b\",source=\"ledger\"} 81920"),
	      "ledger bytes of /a/b:\n%s", text);
	CHECK(strstr(text, "memcg_dirty_bytes{cgroup=\"/a\",source=\"scan\"} 40960"), "scan bytes");
	CHECK(strstr(text, "memcg_dirty_event_bytes_total{cgroup=\"/a\",event=\"dirtied\"} 409600"),
	      "event counter in bytes");
	CHECK(strstr(text, "memcg_dirty_probe_missed_total{point=\"dirtied\"} 0"), "probe misses");
	CHECK(strstr(text, "memcg_dirty_anomalies_logged{kind=\"mismatch\"} 1"), "anomalies");
	CHECK(!strstr(text, "event=\"carried\"") && !strstr(text, "event=\"kernel_carried\"") &&
	      !strstr(text, "event=\"kernel_carried_unseen\"") &&
	      !strstr(text, "event=\"hier_settled\""), "states and carried pages are no events");
	free(text);

	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, "--max-cgroups", "2", NULL);
	f = fopen(path, "r");
	text = calloc(1, 1 << 16);
	if (f) {
		size_t n = fread(text, 1, (1 << 16) - 1, f);

		text[n] = '\0';
		fclose(f);
	}
	CHECK(rc == 0 && strstr(text, "memcg_dirty_cgroups_omitted 4") &&
	      !strstr(text, "cgroup=\"/stat\""), "--max-cgroups caps the labels:\n%s", text);
	free(text);

	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", "/nonexistent/dir/x.prom", NULL);
	CHECK(rc == 2 && strstr(err, "cannot write"), "unwritable path (%d): %s", rc, err);
	/* a failure half way leaves the old file, no partial one, no temporary */
	put("events", "junk\n");
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	CHECK(rc == 2, "a garbled file fails the textfile (%d)", rc);
	CHECK(!stat(path, &st) && st.st_size > 100, "the previous textfile is intact");
	snprintf(e, sizeof(e), "ls %s | grep -q tmp", root);
	CHECK(system(e) != 0, "no temporary file left behind");

	CHECK(md_prom_validate("a{b=\"c\"} 1\n", e) == 0, "validator accepts a sample");
	CHECK(md_prom_validate("a{b=\"c} 1\n", e) != 0, "validator: unterminated label");
	CHECK(md_prom_validate("1a 1\n", e) != 0, "validator: bad name");
	CHECK(md_prom_validate("a 1x\n", e) != 0, "validator: bad value");
	CHECK(md_prom_validate("# TYPE a gauges\n", e) != 0, "validator: bad type");
}

/* The textfile at @path, read whole into a buffer the caller frees. */
static char *slurp(const char *path)
{
	char *text = calloc(1, 1 << 20);
	FILE *f = fopen(path, "r");

	if (f) {
		size_t n = fread(text, 1, (1 << 20) - 1, f);

		text[n] = '\0';
		fclose(f);
	}
	return text;
}

/* How many lines of @text start with @prefix. */
static int lines_with(const char *text, const char *prefix)
{
	const char *p = text;
	int n = 0;

	while (p && *p) {
		n += !strncmp(p, prefix, strlen(prefix));
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return n;
}

/* The top N: found wrong first, then not sure, then furthest apart, then most dirty. */
static void test_prometheus_top(void)
{
	char path[300], e[MD_ERRLEN], *text;
	int rc, i;

	fixture_good();
	snprintf(path, sizeof(path), "%s/out.prom", root);
	/* /u: an underflow with nothing dirty; /a: unsynced; /a/b: ok but apart by 2 */
	put("summary", "id path state dirty kernel_dirty verdict\n"
		       "1 / online 500 500 ok\n"
		       "10 /a online 1 1 unsynced\n"
		       "11 /a/b online 20 22 ok\n"
		       "12 /stat online 300 300 ok\n"
		       "14 /u online 0 -3 underflow\n");
	put("cgroups/u/stat", "dirty 0\ndirty_hier 0\nkernel_dirty -3\nkernel_dirty_hier -3\n"
			      "dirty_node0 0\nkernel_dirty_node0 0\ndirty_node1 0\nkernel_dirty_node1 -3\n"
			      "dirtied 0\ncleaned_io 0\nsynced 1\nhier_settled 1\n");
	put("cgroups/u/check", "verdict underflow\nkernel -3\nledger 0\nscan 0\nscan_age_ms 1\n"
			       "suspect kernel\ndelta -3\nquiescent 1\nbound 0\nscan_busy 0\n");
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, "--max-cgroups", "1", NULL);
	text = slurp(path);
	CHECK(rc == 0 && strstr(text, "memcg_dirty_check_status{cgroup=\"/u\",verdict=\"underflow\"} 1") &&
	      lines_with(text, "memcg_dirty_check_status{") == 1,
	      "--max-cgroups 1 keeps the underflow, not the dirtiest (%d):\n%s%s", rc, text, err);
	CHECK(strstr(text, "memcg_dirty_check_suspect{cgroup=\"/u\",suspect=\"kernel\",numa_node=\"1\"} 1"),
	      "the suspect and the node where kernel and ledger differ:\n%s", text);
	CHECK(strstr(text, "memcg_dirty_cgroups{verdict=\"ok\"} 3") &&
	      strstr(text, "memcg_dirty_cgroups{verdict=\"unsynced\"} 1") &&
	      strstr(text, "memcg_dirty_cgroups{verdict=\"underflow\"} 1") &&
	      strstr(text, "memcg_dirty_cgroups{verdict=\"mismatch\"} 0") &&
	      strstr(text, "memcg_dirty_cgroups_omitted 4"), "verdict counts cover the omitted:\n%s", text);
	/* 500 + 1 + 20 + 300 ledger pages, 500 + 1 + 22 + 300 kernel pages */
	CHECK(strstr(text, "memcg_dirty_omitted_bytes{source=\"ledger\"} 3362816") &&
	      strstr(text, "memcg_dirty_omitted_bytes{source=\"kernel\"} 3371008"),
	      "the omitted cgroups' bytes:\n%s", text);
	free(text);
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, "--max-cgroups", "3", NULL);
	text = slurp(path);
	CHECK(rc == 0 && strstr(text, "cgroup=\"/u\",verdict") &&
	      strstr(text, "cgroup=\"/a\",verdict=\"unsynced\"") &&
	      strstr(text, "cgroup=\"/a/b\",verdict=\"ok\"") && !strstr(text, "cgroup=\"/stat\""),
	      "then the unsure, then the ok furthest apart:\n%s", text);
	CHECK(lines_with(text, "memcg_dirty_check_suspect{") == 1, "a suspect only for a bad verdict:\n%s",
	      text);
	free(text);

	/* a service restarted: its old cgroup dying beside the new one of the same path */
	fixture_good();
	put("summary", "id path state dirty kernel_dirty verdict\n"
		       "10 /a online 10 10 ok\n"
		       "77 /a dying 3 3 ok\n");
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	text = slurp(path);
	CHECK(rc == 0 && strstr(text, "memcg_dirty_check_status{cgroup=\"/a\",verdict=\"ok\"} 1") &&
	      strstr(text, "memcg_dirty_check_status{cgroup=\"/a@77\",verdict=\"ok\"} 1") &&
	      strstr(text, "memcg_dirty_bytes{cgroup=\"/a@77\",source=\"ledger\"} 12288") &&
	      lines_with(text, "memcg_dirty_bytes{cgroup=\"/a\",") == 3,
	      "a dying cgroup is PATH@ID, no series twice (%d):\n%s", rc, text);
	free(text);

	/* the default: 50 cgroups */
	fixture_good();
	{
		static char sum[8192];
		size_t o = snprintf(sum, sizeof(sum), "id path state dirty kernel_dirty verdict\n");

		for (i = 0; i < 60; i++)
			o += snprintf(sum + o, sizeof(sum) - o, "%d /c%d online %d %d ok\n", 100 + i, i, i, i);
		put("summary", sum);
	}
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	text = slurp(path);
	CHECK(rc == 0 && lines_with(text, "memcg_dirty_check_status{") == 50 &&
	      strstr(text, "memcg_dirty_cgroups_omitted 10") && !strstr(text, "cgroup=\"/c9\""),
	      "50 cgroups by default, the dirtiest (%d): %s", rc, err);
	CHECK(!md_prom_validate(text, e), "the capped textfile parses: %s", e);
	free(text);

	/* the audit's state */
	fixture_good();
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	text = slurp(path);
	CHECK(rc == 0 && strstr(text, "memcg_dirty_audit_passes_total 3600\n") &&
	      strstr(text, "memcg_dirty_audit_last_pass_seconds 0.002143\n") &&
	      strstr(text, "memcg_dirty_audit_period_seconds 1.000000\n") &&
	      strstr(text, "memcg_dirty_audit_bad_verdicts_total 2\n") &&
	      strstr(text, "memcg_dirty_audit_unconfirmed_total 1\n") &&
	      strstr(text, "memcg_dirty_audit_warnings_total 2\n") &&
	      strstr(text, "memcg_dirty_audit_last_unsynced_cgroups 1\n") &&
	      strstr(text, "memcg_dirty_audit_unsynced_long_total 1\n") &&
	      strstr(text, "memcg_dirty_module_loaded 1\n"), "the audit's state, in seconds:\n%s", text);
	free(text);
	put("audit", "audit_ms 1000\naudits 3\n");
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	text = slurp(path);
	CHECK(rc == 2 && strstr(err, "audit_warn") && strstr(text, "memcg_dirty_audit_passes_total 3600"),
	      "an audit file without a key fails, the old textfile stays (%d): %s", rc, err);
	free(text);

	/* not loaded: a textfile that says so, and exit 2 */
	setenv("MEMCG_DIRTY_DEBUGFS", "/nonexistent/memcg_dirty", 1);
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	setenv("MEMCG_DIRTY_DEBUGFS", root, 1);
	text = slurp(path);
	CHECK(rc == 2 && !strcmp(text, "# HELP memcg_dirty_module_loaded 1 when memcg_dirty's files were read, 0 when the module is not loaded.\n"
				       "# TYPE memcg_dirty_module_loaded gauge\nmemcg_dirty_module_loaded 0\n"),
	      "not loaded: only memcg_dirty_module_loaded 0 (%d): %s\n%s", rc, err, text);
	free(text);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "--prometheus", path, NULL);
	CHECK(rc == 2 && strstr(err, "no command"), "--prometheus with a command (%d): %s", rc, err);
}

static void test_lockdown(void)
{
	char mode[32];

	CHECK(!md_parse_lockdown("none [integrity] confidentiality\n", mode, sizeof(mode)) &&
	      !strcmp(mode, "integrity"), "lockdown: the mode in brackets");
	CHECK(!md_parse_lockdown("[none] integrity confidentiality\n", mode, sizeof(mode)) &&
	      !strcmp(mode, "none"), "lockdown: none");
	CHECK(md_parse_lockdown("none integrity confidentiality\n", mode, sizeof(mode)),
	      "lockdown: no brackets");
	CHECK(md_parse_lockdown("[none] [integrity]\n", mode, sizeof(mode)), "lockdown: two modes");
	CHECK(md_parse_lockdown("[no ne]\n", mode, sizeof(mode)), "lockdown: a space inside");
	CHECK(md_parse_lockdown("[]\n", mode, sizeof(mode)), "lockdown: empty");
	CHECK(md_parse_lockdown("[confidentiality]\n", mode, 8), "lockdown: too long for the buffer");
}

static void test_not_loaded(void)
{
	int rc;

	setenv("MEMCG_DIRTY_DEBUGFS", "/nonexistent/memcg_dirty", 1);
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 2 && strstr(err, "/nonexistent/memcg_dirty"), "missing tree (%d): %s", rc, err);
	setenv("MEMCG_DIRTY_DEBUGFS", root, 1);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/md_cli_test.%d", (int)getpid());
	setenv("MEMCG_DIRTY_DEBUGFS", root, 1);
	test_parsers();
	test_views();
	test_check();
	test_prometheus();
	test_prometheus_top();
	test_lockdown();
	test_not_loaded();
	snprintf(out, sizeof(out), "rm -rf %s", root);
	if (system(out))
		failed++;
	printf("memcg-dirty: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
