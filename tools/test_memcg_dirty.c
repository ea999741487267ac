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

/* The module's formats: file_dirty's keys, then file_writeback's (wb_* events). */
static const char *STAT =
	"dirty 10\ndirty_hier 10\nkernel_dirty 10\nkernel_dirty_hier 10\n"
	"dirty_node0 10\nkernel_dirty_node0 10\n"
	"writeback 2\nwriteback_hier 2\nkernel_writeback 2\nkernel_writeback_hier 2\n"
	"writeback_node0 2\nkernel_writeback_node0 2\ndirtied 100\ncleaned_io 90\n"
	"cancelled 0\nremoved_dirty 0\nmigrated 0\nmoved_in 0\nmoved_out 0\n"
	"wb_started 88\nwb_ended 86\nwb_moved_in 0\nwb_moved_out 0\n"
	"dirtied_uncharged 0\nsynced 1\ncarried 0\nkernel_carried 0\ncarried_writeback 0\n"
	"kernel_carried_writeback 0\nkernel_carried_unseen 0\nhier_settled 1\n";

static const char *CHECK_OK =
	"verdict ok\nkernel 10\nledger 10\nscan 10\nledger_known 1\nscan_age_ms 5\nsuspect none\n"
	"delta 0\nquiescent 1\nbound 0\nscan_busy 0\ncounter dirty\n"
	"dirty_verdict ok\ndirty_kernel 10\ndirty_ledger 10\ndirty_scan 10\ndirty_suspect none\n"
	"dirty_delta 0\nwriteback_verdict ok\nwriteback_kernel 2\nwriteback_ledger 2\n"
	"writeback_scan 2\nwriteback_suspect none\nwriteback_delta 0\n";

/*
 * A cgroup whose writeback counter is wrong and dirty is not: the keys
 * without a prefix are writeback's, the worst counter's.
 */
static const char *CHECK_WB_MISMATCH =
	"verdict mismatch\nkernel 7\nledger 2\nscan 2\nledger_known 1\nscan_age_ms 1\n"
	"suspect kernel\ndelta 5\nquiescent 1\nbound 0\nscan_busy 0\ncounter writeback\n"
	"dirty_verdict ok\ndirty_kernel 10\ndirty_ledger 10\ndirty_scan 10\ndirty_suspect none\n"
	"dirty_delta 0\nwriteback_verdict mismatch\nwriteback_kernel 7\nwriteback_ledger 2\n"
	"writeback_scan 2\nwriteback_suspect kernel\nwriteback_delta 5\n";

/* ... and its stat: writeback apart on node 1 only */
static const char *STAT_WB_MISMATCH =
	"dirty 10\ndirty_hier 10\nkernel_dirty 10\nkernel_dirty_hier 10\n"
	"dirty_node0 5\nkernel_dirty_node0 5\ndirty_node1 5\nkernel_dirty_node1 5\n"
	"writeback 2\nwriteback_hier 2\nkernel_writeback 7\nkernel_writeback_hier 7\n"
	"writeback_node0 1\nkernel_writeback_node0 1\nwriteback_node1 1\nkernel_writeback_node1 6\n"
	"writeback_synced 1\n"
	"dirtied 100\ncleaned_io 90\ncancelled 0\nremoved_dirty 0\nmigrated 0\nmoved_in 0\n"
	"moved_out 0\nwb_started 90\nwb_ended 88\nwb_moved_in 0\nwb_moved_out 0\nwb_ended_irq 9\n"
	"dirtied_uncharged 0\nsynced 1\nhier_settled 1\n";

/* An older module's files: file_dirty alone, no counter column or keys. */
static const char *OLD_STAT =
	"dirty 10\ndirty_hier 10\nkernel_dirty 10\nkernel_dirty_hier 10\n"
	"dirty_node0 10\nkernel_dirty_node0 10\ndirtied 100\ncleaned_io 90\n"
	"cancelled 0\nremoved_dirty 0\nmigrated 0\nmoved_in 0\nmoved_out 0\n"
	"dirtied_uncharged 0\nsynced 1\ncarried 0\nkernel_carried 0\nkernel_carried_unseen 0\n"
	"hier_settled 1\n";

static const char *OLD_CHECK_OK =
	"verdict ok\nkernel 10\nledger 10\nscan 10\nscan_age_ms 5\nsuspect none\n"
	"delta 0\nquiescent 1\nbound 0\nscan_busy 0\n";

static const char *AUDIT =
	"audit_ms 1000\naudit_warn 1\naudits 3600\nlast_us 2143\nlast_wait_us 1876\n"
	"last_memcgs 7\ndiffered 4\nescalations 2\nbad_verdicts 2\nunconfirmed 1\nprinted 2\n"
	"printed_audit 3598\nsuppressed 0\nwarned 2\nuntrusted_printed 0\naudit_watch 1\n"
	"watches 1\naudit_unsynced_s 120\nlast_unsynced 1\nunsynced_long 1\n";

static const char *SUMMARY_HEAD =
	"id path state dirty kernel_dirty verdict writeback kernel_writeback\n";
static const char *EVENTS_HEAD =
	"time id path node kind probe pfn kernel ledger scan missed counter\n";

/* The summary header of this module, then @rows. */
static void put_summary(const char *rows)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "%s%s", SUMMARY_HEAD, rows);
	put("summary", buf);
}

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
	put_summary("1 / online 5 5 ok 1 1\n"
		    "10 /a online 10 10 ok 2 2\n"
		    "11 /a/b online 20 20 ok 3 3\n"
		    "12 /stat online 0 0 ok 0 0\n"
		    "13 /with\\040space online 1 1 ok 0 0\n"
		    "9 /gone dying 3 3 ok 0 0\n");
	put("check", "verdict ok\nok 6\nunsynced 0\nuntrusted 0\nmismatch 0\nunderflow 0\n"
		     "kernel_global 39\nkernel_sum 39\nsum_check ok\nhier_check unavailable\nhier_check_reason no_exported_rstat_flush\nnegative 0\n"
		     "scan_age_ms 40\nprobes_missed 0\nlost_events 0\ndirty_verdict ok\nwriteback_verdict ok\n");
	snprintf(cmd, sizeof(cmd), "dropped 0\n%s"
		 "12.000001 10 /a 0 mismatch - - 11 10 10 0 dirty\n"
		 "13.000001 - - -1 probe_missed dirtied - 0 0 0 3 -\n", EVENTS_HEAD);
	put("events", cmd);
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

/* The same tree as an older module writes it: file_dirty alone. */
static void fixture_old(void)
{
	fixture_good();
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
		      "12.000001 10 /a 0 mismatch - - 11 10 10 0\n"
		      "13.000001 - - -1 probe_missed dirtied - 0 0 0 3\n");
	put("cgroups/stat", OLD_STAT);
	put("cgroups/check", OLD_CHECK_OK);
	put("cgroups/a/stat", OLD_STAT);
	put("cgroups/a/check", OLD_CHECK_OK);
	put("cgroups/a/b/stat", OLD_STAT);
	put("cgroups/a/b/check", OLD_CHECK_OK);
	put("cgroups/%stat/stat", OLD_STAT);
	put("cgroups/%stat/check", OLD_CHECK_OK);
	put("cgroups/with space/stat", OLD_STAT);
	put("cgroups/with space/check", OLD_CHECK_OK);
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

/* The summary and events of the module that audits file_writeback, and an older one's. */
static void test_parsers_writeback(void)
{
	char e[MD_ERRLEN], text[512];
	struct md_summary s;
	struct md_events ev;

	snprintf(text, sizeof(text), "%s1 / online 5 5 ok 2 3\n7 /x dying 1 1 mismatch 0 -1\n",
		 SUMMARY_HEAD);
	CHECK(!md_parse_summary(text, &s, e), "summary with writeback: %s", e);
	CHECK(s.writeback && s.n == 2 && s.rows[0].known && s.rows[0].wb_known &&
	      s.rows[0].writeback == 2 && s.rows[0].kernel_wb == 3 && s.rows[1].kernel_wb == -1 &&
	      !strcmp(s.rows[1].verdict, "mismatch"), "writeback columns read");
	md_free_summary(&s);
	CHECK(!md_parse_summary("id path state dirty kernel_dirty verdict\n1 / online 5 5 ok\n", &s, e) &&
	      !s.writeback && s.n == 1 && s.rows[0].known && !s.rows[0].wb_known,
	      "an older module's summary: writeback unknown: %s", e);
	md_free_summary(&s);
	/* a memcg without a ledger entry: no figure, untrusted */
	snprintf(text, sizeof(text), "%s4 /n online - - untrusted - -\n", SUMMARY_HEAD);
	CHECK(!md_parse_summary(text, &s, e) && s.n == 1 && !s.rows[0].known && !s.rows[0].wb_known &&
	      !strcmp(s.rows[0].verdict, "untrusted"), "no entry: - - untrusted - -: %s", e);
	md_free_summary(&s);
	CHECK(!md_parse_summary("id path state dirty kernel_dirty verdict\n4 /n online - - untrusted\n",
				&s, e) && s.n == 1 && !s.rows[0].known, "no entry, older module: %s", e);
	md_free_summary(&s);
	snprintf(text, sizeof(text), "%s4 /n online - - ok - -\n", SUMMARY_HEAD);
	CHECK(md_parse_summary(text, &s, e), "no figure but untrusted rejected");
	snprintf(text, sizeof(text), "%s4 /n online 5 - untrusted 0 0\n", SUMMARY_HEAD);
	CHECK(md_parse_summary(text, &s, e), "half a pair rejected");
	snprintf(text, sizeof(text), "%s1 / online 5 5 ok\n", SUMMARY_HEAD);
	CHECK(md_parse_summary(text, &s, e), "the new header with an old line rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict\n1 / online 5 5 ok 1 1\n", &s, e),
	      "the old header with a new line rejected");
	CHECK(md_parse_summary("id path state dirty kernel_dirty verdict writeback\n1 / online 5 5 ok 1\n",
			       &s, e), "an unknown header rejected");

	snprintf(text, sizeof(text), "dropped 2\n%s1.5 3 /a 0 mismatch - - 7 2 2 0 writeback\n"
		 "1.6 - - -1 probe_missed dirtied - 0 0 0 1 -\n", EVENTS_HEAD);
	CHECK(!md_parse_events(text, &ev, e) && ev.n == 2 && ev.dropped == 2 &&
	      !strcmp(ev.rows[0].counter, "writeback") && !strcmp(ev.rows[1].counter, "-"),
	      "events with a counter column: %s", e);
	md_free_events(&ev);
	CHECK(!md_parse_events("dropped 0\ntime id path node kind probe pfn kernel ledger scan missed\n"
			       "1.5 3 /a 0 mismatch - - 7 2 2 0\n1.6 - - -1 probe_missed dirtied - 0 0 0 1\n",
			       &ev, e) && ev.n == 2 && !strcmp(ev.rows[0].counter, "dirty") &&
	      !strcmp(ev.rows[1].counter, "-"),
	      "an older module's events: dirty, none for a probe's own: %s", e);
	md_free_events(&ev);
	snprintf(text, sizeof(text), "dropped 0\n%s1.5 3 /a 0 mismatch - - 7 2 2 0\n", EVENTS_HEAD);
	CHECK(md_parse_events(text, &ev, e), "a line without its counter rejected");
	snprintf(text, sizeof(text), "dropped 0\n%s1.5 3 /a 0 mismatch - - 7 2 2 0 Dirty!\n", EVENTS_HEAD);
	CHECK(md_parse_events(text, &ev, e), "a counter that is no name rejected");
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

	CHECK(strstr(out, "WRITEBACK") && strstr(out, "KERNEL_WB") &&
	      strstr(out, "KERNEL_WB VERDICT"), "WRITEBACK and KERNEL_WB before VERDICT:\n%s", out);
	CHECK(strstr(out, "12.0 KiB     12.0 KiB ok"), "/a/b's 3 pages under writeback:\n%s", out);

	rc = run(out, sizeof(out), err, sizeof(err), "--tree", NULL);
	CHECK(rc == 0 && strstr(out, "120.0 KiB"), "tree: /a subtree is 30 pages = 120 KiB:\n%s", out);
	CHECK(strstr(out, "20.0 KiB     20.0 KiB ok"), "tree: /a's writeback is 5 pages:\n%s", out);

	rc = run(out, sizeof(out), err, sizeof(err), "--json", "/sys/fs/cgroup/a", NULL);
	CHECK(rc == 0 && strstr(out, "\"path\":\"/a\"") && strstr(out, "\"path\":\"/a/b\"") &&
	      !strstr(out, "\"path\":\"/\""), "json restricted to /a's subtree:\n%s", out);
	CHECK(strstr(out, "\"dirty_bytes\":40960"), "json bytes:\n%s", out);
	CHECK(strstr(out, "\"dirty_bytes\":40960,\"kernel_dirty_bytes\":40960,\"verdict\":\"ok\","
			  "\"writeback_bytes\":8192,\"kernel_writeback_bytes\":8192}"),
	      "json: writeback after the verdict:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "--json", "--tree", "/a", NULL);
	CHECK(rc == 0 && strstr(out, "\"writeback_hier_bytes\":20480,\"kernel_writeback_hier_bytes\":20480"),
	      "json --tree: writeback subtree totals:\n%s", out);

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
	CHECK(strstr(out, "\"missed\":0,\"counter\":\"dirty\"}") &&
	      strstr(out, "\"missed\":3,\"counter\":\"-\"}"), "events json: the counter:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "events", NULL);
	CHECK(rc == 0 && strstr(out, "missed 0 counter dirty\n") && strstr(out, "missed 3 counter -\n"),
	      "events: the counter last:\n%s", out);
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
	CHECK(rc == 0 && strstr(out, "(global) ok (dirty ok, writeback ok)\n"),
	      "clean check exits 0, every counter's verdict (%d):\n%s%s", rc, out, err);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", "stat", NULL);
	CHECK(rc == 0 && strstr(out, "/stat ok"), "named cgroups, escaped dir (%d):\n%s%s", rc, out, err);
	CHECK(strstr(out, "/stat ok (kernel 10 ledger 10 scan 10 suspect none delta 0) counter dirty "
			  "(dirty ok, writeback ok)\n"), "a cgroup's counter and verdicts:\n%s", out);

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
	CHECK(strstr(text, "memcg_dirty_check_suspect{cgroup=\"/u\",suspect=\"kernel\",numa_node=\"1\",counter=\"dirty\"} 1"),
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

/*
 * A cgroup whose writeback counter is wrong, its dirty counter right: the
 * same exit as a dirty mismatch, and the counter named.
 */
static void test_writeback(void)
{
	char path[300], *text;
	int rc;

	fixture_good();
	put_summary("1 / online 5 5 ok 1 1\n"
		    "10 /a online 10 10 ok 2 2\n"
		    "15 /w online 10 10 mismatch 2 7\n");
	put("cgroups/w/stat", STAT_WB_MISMATCH);
	put("cgroups/w/check", CHECK_WB_MISMATCH);
	put("check", "verdict mismatch\nok 2\nunsynced 0\nuntrusted 0\nmismatch 1\nunderflow 0\n"
		     "kernel_global 25\nkernel_sum 25\nsum_check ok\nhier_check unavailable\n"
		     "hier_check_reason no_exported_rstat_flush\nnegative 0\nscan_age_ms 40\n"
		     "probes_missed 0\nlost_events 0\ndirty_verdict ok\nwriteback_verdict mismatch\n");

	rc = run(out, sizeof(out), err, sizeof(err), "check", "/w", NULL);
	CHECK(rc == 1, "a writeback mismatch exits 1, as a dirty one (%d):\n%s%s", rc, out, err);
	CHECK(strstr(out, "/w mismatch (kernel 7 ledger 2 scan 2 suspect kernel delta 5) counter writeback "
			  "(dirty ok, writeback mismatch)\n"),
	      "check /w names the counter, its views and every counter's verdict:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 1 && strstr(out, "(global) mismatch (dirty ok, writeback mismatch)\n") &&
	      strstr(out, "/w mismatch\n"), "global check: exit 1, the counter, the cgroup (%d):\n%s%s",
	      rc, out, err);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "--json", "/w", NULL);
	CHECK(rc == 1 && strstr(out, "\"counter\":\"writeback\"") &&
	      strstr(out, "\"writeback_verdict\":\"mismatch\"") && strstr(out, "\"dirty_verdict\":\"ok\"") &&
	      strstr(out, "\"writeback_delta\":5") && strstr(out, "\"exit\":1"),
	      "check --json: every key, the counter's included:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "--strict", "/w", NULL);
	CHECK(rc == 1, "--strict: still 1 (%d)", rc);
	/* unsure and bad, of different counters: the worst decides, as always */
	put("cgroups/a/check", "verdict unsynced\nkernel 10\nledger 10\nscan 10\nledger_known 0\n"
			       "scan_age_ms 1\nsuspect none\ndelta 0\nquiescent 0\nbound 0\nscan_busy 0\n"
			       "counter dirty\ndirty_verdict unsynced\ndirty_kernel 10\ndirty_ledger 10\n"
			       "dirty_scan 10\ndirty_suspect none\ndirty_delta 0\nwriteback_verdict ok\n"
			       "writeback_kernel 2\nwriteback_ledger 2\nwriteback_scan 2\n"
			       "writeback_suspect none\nwriteback_delta 0\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", "/w", NULL);
	CHECK(rc == 1 && strstr(out, "/a unsynced") && strstr(out, "counter dirty (dirty unsynced, writeback ok)"),
	      "unsynced dirty and a writeback mismatch: 1 (%d):\n%s", rc, out);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", NULL);
	CHECK(rc == 3, "unsynced alone: 3 (%d)", rc);

	/* the table and the textfile */
	rc = run(out, sizeof(out), err, sizeof(err), "/w", NULL);
	CHECK(rc == 0 && strstr(out, "8.0 KiB") && strstr(out, "28.0 KiB mismatch\n"),
	      "the table: /w's writeback, ledger 8 KiB and kernel 28 KiB:\n%s", out);
	snprintf(path, sizeof(path), "%s/out.prom", root);
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	text = slurp(path);
	CHECK(rc == 0 && strstr(text, "memcg_dirty_check_status{cgroup=\"/w\",verdict=\"mismatch\"} 1\n"),
	      "the cgroup's verdict: the worst counter's (%d): %s\n%s", rc, err, text);
	CHECK(strstr(text, "memcg_dirty_check_verdict{cgroup=\"/w\",counter=\"dirty\",verdict=\"ok\"} 1\n") &&
	      strstr(text, "memcg_dirty_check_verdict{cgroup=\"/w\",counter=\"writeback\",verdict=\"mismatch\"} 1\n"),
	      "each counter's verdict:\n%s", text);
	CHECK(strstr(text, "memcg_dirty_check_suspect{cgroup=\"/w\",suspect=\"kernel\",numa_node=\"1\",counter=\"writeback\"} 1\n"),
	      "the suspect, the node where writeback's kernel and ledger differ, the counter:\n%s", text);
	CHECK(strstr(text, "memcg_dirty_writeback_bytes{cgroup=\"/w\",source=\"ledger\"} 8192\n") &&
	      strstr(text, "memcg_dirty_writeback_bytes{cgroup=\"/w\",source=\"kernel\"} 28672\n") &&
	      strstr(text, "memcg_dirty_writeback_bytes{cgroup=\"/w\",source=\"scan\"} 8192\n"),
	      "writeback bytes by view:\n%s", text);
	/* the check's scan key is writeback's here: the dirty scan is dirty_scan */
	CHECK(strstr(text, "memcg_dirty_bytes{cgroup=\"/w\",source=\"scan\"} 40960\n"),
	      "dirty bytes of the scan: dirty's, not the worst counter's:\n%s", text);
	CHECK(strstr(text, "memcg_dirty_global_check_verdict{counter=\"dirty\",verdict=\"ok\"} 1\n") &&
	      strstr(text, "memcg_dirty_global_check_verdict{counter=\"writeback\",verdict=\"mismatch\"} 1\n") &&
	      strstr(text, "memcg_dirty_global_check_status{verdict=\"mismatch\"} 1\n"),
	      "the global verdict of each counter:\n%s", text);
	CHECK(strstr(text, "memcg_dirty_event_bytes_total{cgroup=\"/w\",event=\"wb_started\"} 368640\n") &&
	      strstr(text, "event=\"wb_moved_out\"") && !strstr(text, "event=\"writeback") &&
	      !strstr(text, "event=\"kernel_writeback") && !strstr(text, "event=\"carried_writeback\"") &&
	      !strstr(text, "event=\"wb_ended_irq\"") &&
	      !strstr(text, "event=\"kernel_carried_writeback\""),
	      "writeback's events are events, its page counts are not:\n%s", text);
	CHECK(strstr(text, "memcg_dirty_omitted_writeback_bytes{source=\"ledger\"} 0\n"),
	      "the omitted cgroups' writeback bytes:\n%s", text);
	free(text);
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, "--max-cgroups", "1", NULL);
	text = slurp(path);
	CHECK(rc == 0 && lines_with(text, "memcg_dirty_check_status{cgroup=\"/w\"") == 1 &&
	      strstr(text, "memcg_dirty_omitted_writeback_bytes{source=\"ledger\"} 12288\n") &&
	      strstr(text, "memcg_dirty_omitted_writeback_bytes{source=\"kernel\"} 12288\n"),
	      "--max-cgroups 1: /w first, the others' writeback summed:\n%s", text);
	free(text);

	/* ok verdicts, kernel and ledger apart: the wider gap, of either counter, first */
	put_summary("1 / online 5 5 ok 1 1\n"
		    "10 /a online 10 11 ok 2 2\n"
		    "15 /w online 10 10 ok 2 6\n");
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, "--max-cgroups", "1", NULL);
	text = slurp(path);
	CHECK(rc == 0 && strstr(text, "memcg_dirty_check_status{cgroup=\"/w\"") &&
	      lines_with(text, "memcg_dirty_check_status{") == 1,
	      "--max-cgroups 1: writeback 4 apart before dirty 1 apart:\n%s", text);
	free(text);
}

/* An older module's files: read, writeback unknown, the dirty counter's figures. */
static void test_old_module(void)
{
	char path[300], *text;
	int rc;

	fixture_old();
	rc = run(out, sizeof(out), err, sizeof(err), NULL);
	CHECK(rc == 0 && strstr(out, "80.0 KiB") && strstr(out, "           -            - ok\n"),
	      "table: writeback '-' (%d): %s\n%s", rc, err, out);
	rc = run(out, sizeof(out), err, sizeof(err), "--json", "/a/b", NULL);
	CHECK(rc == 0 && strstr(out, "\"verdict\":\"ok\",\"writeback_bytes\":null,\"kernel_writeback_bytes\":null}"),
	      "json: writeback null:\n%s", out);
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 0 && strstr(out, "(global) ok\n"), "check: as before (%d):\n%s%s", rc, out, err);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", NULL);
	CHECK(rc == 0 && strstr(out, "/a ok (kernel 10 ledger 10 scan 10 suspect none delta 0)\n"),
	      "check /a: as before (%d):\n%s%s", rc, out, err);
	put("cgroups/a/check", "verdict mismatch\nkernel 11\nledger 10\nscan 10\nscan_age_ms 1\n"
			       "suspect kernel\ndelta 1\nquiescent 1\nbound 0\nscan_busy 0\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", NULL);
	CHECK(rc == 1, "an older module's mismatch exits 1 (%d)", rc);
	rc = run(out, sizeof(out), err, sizeof(err), "events", "--json", NULL);
	CHECK(rc == 0 && strstr(out, "\"counter\":\"dirty\"") && strstr(out, "\"counter\":\"-\""),
	      "events: the dirty counter, none for probe_missed:\n%s", out);

	snprintf(path, sizeof(path), "%s/out.prom", root);
	put("summary", "id path state dirty kernel_dirty verdict\n1 / online 5 5 ok\n"
		       "10 /a online 10 11 mismatch\n4 /n online - - untrusted\n");
	rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, NULL);
	text = slurp(path);
	CHECK(rc == 0 && !strstr(text, "writeback_bytes") &&
	      strstr(text, "memcg_dirty_check_verdict{cgroup=\"/a\",counter=\"dirty\",verdict=\"mismatch\"} 1\n") &&
	      !strstr(text, "counter=\"writeback\"") &&
	      strstr(text, "memcg_dirty_check_suspect{cgroup=\"/a\",suspect=\"kernel\",numa_node=\"unknown\",counter=\"dirty\"} 1\n") &&
	      strstr(text, "memcg_dirty_global_check_verdict{counter=\"dirty\",verdict=\"ok\"} 1\n"),
	      "textfile: no writeback series, the dirty counter's (%d): %s\n%s", rc, err, text);
	CHECK(strstr(text, "memcg_dirty_check_status{cgroup=\"/n\",verdict=\"untrusted\"} 1\n") &&
	      !strstr(text, "memcg_dirty_bytes{cgroup=\"/n\",source=\"ledger\"}"),
	      "a memcg without an entry: its verdict, no bytes:\n%s", text);
	free(text);
	/* a memcg without an entry, in the table */
	rc = run(out, sizeof(out), err, sizeof(err), "/n", NULL);
	CHECK(rc == 0 && strstr(out, "/n ") && strstr(out, "untrusted\n"), "no entry: a row of '-' (%d):\n%s%s",
	      rc, out, err);
	rc = run(out, sizeof(out), err, sizeof(err), "--json", "/n", NULL);
	CHECK(rc == 0 && strstr(out, "\"dirty_bytes\":null,\"kernel_dirty_bytes\":null"), "no entry: json null:\n%s",
	      out);
	put("summary", "id path state dirty kernel_dirty verdict\n1 / online 5 5 ok\n"
		       "4 /n online - - untrusted\n");
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 3 && strstr(out, "/n untrusted"), "no entry: check exits 3 (%d):\n%s%s", rc, out, err);
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

static const char *DOMAINS_OK =
	"verdict ok\njudged yes\ndomains 9\nshown 2\nunseen 0\n"
	"bdi 254:0 cgroup / id 1 reclaimable kernel 3 scan 3 writeback kernel 1 scan 1 verdict ok\n"
	"bdi 254:0 cgroup /with\\040space id 13 reclaimable kernel 512 scan 512 writeback kernel 0 scan 0 verdict ok\n";

/* The writeback domains: the file, the command, and their part in check. */
static void test_domains(void)
{
	struct md_domains d;
	char e[MD_ERRLEN], text[1024];
	int rc;

	CHECK(!md_parse_domains(DOMAINS_OK, &d, e) && d.n == 2 && d.judged && d.domains == 9 &&
	      !strcmp(d.rows[1].cgroup, "/with space") && d.rows[1].reclaimable_kernel == 512 &&
	      d.rows[0].writeback_judged && !strcmp(d.rows[0].verdict, "ok"),
	      "domains parse: %s", e);
	md_free_domains(&d);
	CHECK(!md_parse_domains("verdict unavailable\nreason bdi_list_not_found\n", &d, e) &&
	      !strcmp(d.verdict, "unavailable") && !strcmp(d.reason, "bdi_list_not_found"),
	      "domains parse: unavailable: %s", e);
	md_free_domains(&d);
	CHECK(!md_parse_domains("verdict busy\njudged no\ndomains 1\nshown 1\nunseen 4\n"
				"bdi 0:45 cgroup /f id 7 reclaimable kernel 2 scan 1 writeback kernel 9 scan - verdict busy\n",
				&d, e) && !d.judged && d.unseen == 4 && !d.rows[0].writeback_judged,
	      "domains parse: busy, writeback not judged: %s", e);
	md_free_domains(&d);
	CHECK(md_parse_domains("verdict ok\njudged yes\ndomains 1\nshown 2\nunseen 0\n"
			       "bdi 254:0 cgroup / id 1 reclaimable kernel 3 scan 3 writeback kernel 1 scan 1 verdict ok\n",
			       &d, e) && strstr(e, "line 4"), "domains parse: shown and rows apart (%s)", e);
	CHECK(md_parse_domains("verdict ok\njudged yes\ndomains 1\nshown 1\nunseen 0\n"
			       "bdi 254:0 cgroup / id 1 reclaimable kernel x scan 3 writeback kernel 1 scan 1 verdict ok\n",
			       &d, e) && strstr(e, "line 6"), "domains parse: a bad count (%s)", e);
	CHECK(md_parse_domains("verdict fine\njudged yes\ndomains 0\nshown 0\nunseen 0\n", &d, e),
	      "domains parse: an unknown verdict");
	CHECK(md_parse_domains("verdict ok\njudged yes\n", &d, e), "domains parse: a short head");

	fixture_good();
	rc = run(out, sizeof(out), err, sizeof(err), "domains", NULL);
	CHECK(rc == 2 && strstr(err, "domains"), "domains without the file: exit 2 (%d): %s", rc, err);
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 0 && !strstr(out, "writeback domains"),
	      "check without the domains file (an older module): as before (%d):\n%s%s", rc, out, err);
	put("domains", DOMAINS_OK);
	rc = run(out, sizeof(out), err, sizeof(err), "domains", NULL);
	CHECK(rc == 0 && strstr(out, "writeback domains: ok, judged") && strstr(out, "/with space") &&
	      strstr(out, "512"), "domains: ok exits 0 (%d):\n%s%s", rc, out, err);
	rc = run(out, sizeof(out), err, sizeof(err), "domains", "--json", NULL);
	CHECK(rc == 0 && strstr(out, "\"cgroup\":\"/with space\"") &&
	      strstr(out, "\"reclaimable_scan\":512") && strstr(out, "\"exit\":0"),
	      "domains --json (%d):\n%s", rc, out);
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 0 && !strstr(out, "writeback domains"), "check with ok domains (%d):\n%s", rc, out);
	put("domains", "verdict busy\njudged no\ndomains 1\nshown 0\nunseen 0\n");
	rc = run(out, sizeof(out), err, sizeof(err), "domains", NULL);
	CHECK(rc == 0 && strstr(out, "not all judged"), "domains: busy exits 0 (%d):\n%s", rc, out);
	rc = run(out, sizeof(out), err, sizeof(err), "domains", "--strict", NULL);
	CHECK(rc == 3, "domains --strict: busy exits 3 (%d)", rc);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "--strict", NULL);
	CHECK(rc == 3, "check --strict: busy domains exit 3 (%d):\n%s", rc, out);
	snprintf(text, sizeof(text), "verdict underflow\njudged yes\ndomains 2\nshown 2\nunseen 0\n"
		 "bdi 254:16 cgroup /a id 10 reclaimable kernel 891 scan 0 writeback kernel 0 scan 0 verdict mismatch\n"
		 "bdi 254:16 cgroup /a/b id 11 reclaimable kernel -891 scan 0 writeback kernel 0 scan 0 verdict underflow\n");
	put("domains", text);
	rc = run(out, sizeof(out), err, sizeof(err), "domains", NULL);
	CHECK(rc == 1 && strstr(out, "-891") && strstr(out, "underflow"),
	      "domains: a bad domain exits 1 (%d):\n%s", rc, out);
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 1 && strstr(out, "(writeback domains) underflow (memcg-dirty domains)"),
	      "check: a bad domain exits 1, and says where to look (%d):\n%s", rc, out);
	rc = run(out, sizeof(out), err, sizeof(err), "check", "/a", NULL);
	CHECK(rc == 0, "check CGROUP: a cgroup's own counters only (%d):\n%s", rc, out);
	{
		char path[300], *prom;
		FILE *f;

		snprintf(path, sizeof(path), "%s/out.prom", root);
		rc = run(out, sizeof(out), err, sizeof(err), "--prometheus", path, "--max-cgroups", "1",
			 NULL);
		prom = calloc(1, 1 << 16);
		f = fopen(path, "r");
		if (f && prom) {
			size_t n = fread(prom, 1, (1 << 16) - 1, f);

			prom[n] = '\0';
		}
		if (f)
			fclose(f);
		CHECK(rc == 0 && prom && !md_prom_validate(prom, e) &&
		      strstr(prom, "memcg_dirty_domains_status{verdict=\"underflow\"} 1") &&
		      strstr(prom, "memcg_dirty_domain_bytes{bdi=\"254:16\",cgroup=\"/a/b\",id=\"11\",counter=\"reclaimable\",view=\"kernel\"} -3649536") &&
		      strstr(prom, "memcg_dirty_domain_verdict{bdi=\"254:16\",cgroup=\"/a\",id=\"10\",verdict=\"mismatch\"} 1"),
		      "textfile: the domains, bad ones past --max-cgroups (%d, %s):\n%s%s", rc, e,
		      prom ? prom : "", err);
		free(prom);
	}
	put("domains", "verdict unavailable\nreason bdi_list_not_found\n");
	rc = run(out, sizeof(out), err, sizeof(err), "domains", NULL);
	CHECK(rc == 3 && strstr(out, "unavailable (bdi_list_not_found)"),
	      "domains: unavailable exits 3 (%d):\n%s", rc, out);
	put("domains", "verdict ok\njudged\n");
	rc = run(out, sizeof(out), err, sizeof(err), "domains", NULL);
	CHECK(rc == 2 && strstr(err, "domains"), "domains: garbled exits 2 (%d): %s", rc, err);
	rc = run(out, sizeof(out), err, sizeof(err), "check", NULL);
	CHECK(rc == 2 && strstr(err, "domains"), "check: garbled domains exit 2 (%d): %s", rc, err);
	rc = run(out, sizeof(out), err, sizeof(err), "domains", "/a", NULL);
	CHECK(rc == 2, "domains takes no cgroup (%d)", rc);
	fixture_good();
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
	test_parsers_writeback();
	test_views();
	test_check();
	test_prometheus();
	test_prometheus_top();
	test_writeback();
	test_old_module();
	test_lockdown();
	test_domains();
	test_not_loaded();
	snprintf(out, sizeof(out), "rm -rf %s", root);
	if (system(out))
		failed++;
	printf("memcg-dirty: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
