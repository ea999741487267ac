#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-style runner: runs each test with the timeout from ./settings,
# nests its TAP output, and ends with kselftest's "# Totals:" line and
# "selftests: N passed, N failed, N skipped".
# usage: run_all.sh [TEST.sh...]   (default: TEST_PROGS of ./Makefile, in order)
#        run_all.sh --list VAR      print a test list of ./Makefile

cd "$(dirname "$0")" || exit 1
# md_list VAR: a test list of ./Makefile (a "VAR := ..." with \ continuations)
md_list() {
	awk -v v="$1" '$1 == v && $2 == ":=" { on = 1; $1 = $2 = "" }
		on { line = $0; sub(/\\$/, "", line); printf "%s ", line; if ($0 !~ /\\$/) exit }' Makefile
}
if [ "${1:-}" = --list ]; then
	md_list "$2"
	exit
fi
MD_TESTS=$(md_list TEST_PROGS)
[ -n "$MD_TESTS" ] || { echo "run_all.sh: no TEST_PROGS in $(pwd)/Makefile"; exit 1; }
tests=${*:-$MD_TESTS}
timeout=$(sed -n 's/^timeout=//p' settings)
pass=0 fail=0 skip=0 n=0
# each test's output, nested once it ends: a file of this run's own
out=$(mktemp "${TMPDIR:-/tmp}/md_test.XXXXXX") || { echo "run_all.sh: cannot make a temporary file"; exit 1; }
trap 'rm -f "$out"' EXIT
trap 'exit 130' INT TERM

echo "TAP version 13"
echo "1..$(echo $tests | wc -w)"
for t in $tests; do
	n=$((n + 1))
	echo "# selftests: memcg_dirty: $t"
	begun=$(date +%s)
	timeout "${timeout:-900}" sh "./$t" > "$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	# how long it took: what make check's time is spent on
	echo "# time: $t $(($(date +%s) - begun)) s"
	case $rc in
	0) pass=$((pass + 1)); echo "ok $n selftests: memcg_dirty: $t" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: memcg_dirty: $t # SKIP" ;;
	124|143) fail=$((fail + 1)); echo "not ok $n selftests: memcg_dirty: $t # TIMEOUT ${timeout}s" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: memcg_dirty: $t # exit=$rc" ;;
	esac
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
echo "selftests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
