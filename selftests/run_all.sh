#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-style runner: runs each test with the timeout from ./settings,
# nests its TAP output, and ends with "selftests: N passed, N failed, N skipped".
# usage: run_all.sh [TEST.sh...]   (default: all of MD_TESTS, in order)

cd "$(dirname "$0")" || exit 1
MD_TESTS="md_load.sh md_debugfs.sh md_probes.sh md_reload_write.sh md_ledger.sh md_events.sh
	md_numa.sh md_xfs.sh md_cgroups.sh md_scale.sh md_v1.sh md_check.sh md_fix43.sh
	md_loadwrite.sh md_unload_load.sh md_churn.sh md_misses.sh md_oom.sh md_badinput.sh
	md_exposure.sh md_v1_move.sh md_cli.sh"
tests=${*:-$MD_TESTS}
timeout=$(sed -n 's/^timeout=//p' settings)
pass=0 fail=0 skip=0 n=0

echo "TAP version 13"
echo "1..$(echo $tests | wc -w)"
for t in $tests; do
	n=$((n + 1))
	echo "# selftests: memcg_dirty: $t"
	timeout "${timeout:-900}" sh "./$t" > /tmp/md_test.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/md_test.out
	case $rc in
	0) pass=$((pass + 1)); echo "ok $n selftests: memcg_dirty: $t" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: memcg_dirty: $t # SKIP" ;;
	124|143) fail=$((fail + 1)); echo "not ok $n selftests: memcg_dirty: $t # TIMEOUT ${timeout}s" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: memcg_dirty: $t # exit=$rc" ;;
	esac
done
echo "selftests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
