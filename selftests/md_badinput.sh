#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input: 10,000 hostile writes to each command file (random bytes,
# overlong lines, partial writes, two writers at once, numbers out of range,
# unknown cgroups and points).  Every one is rejected with EINVAL, E2BIG or
# ENOENT, nothing changes, and the warnings stay ratelimited.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_ko
N=${MD_FUZZ_WRITES:-10000}
md_reload fault_inject=1 || exit 1
before=$(md5sum < "$MD/inject")
lines=$(dmesg | wc -l)
for f in control inject; do
	mdfuzz "$MD/$f" $((N / 2)) 1 > /tmp/md_fuzz.1 2>&1 &
	p1=$!
	mdfuzz "$MD/$f" $((N / 2)) 2 > /tmp/md_fuzz.2 2>&1
	r2=$?
	wait $p1
	r1=$?
	md_diag "$f: $(cat /tmp/md_fuzz.1) / $(cat /tmp/md_fuzz.2)"
	md_check "$f: all $N writes from two writers rejected" test $r1 = 0 -a $r2 = 0
	[ $r1 = 0 ] && [ $r2 = 0 ] || head -n 5 /tmp/md_fuzz.1 /tmp/md_fuzz.2 | sed 's/^/# /'
done
md_eq "inject state unchanged" "$before" "$(md5sum < "$MD/inject")"
new=$(($(dmesg | wc -l) - lines))
md_check "warnings ratelimited: $new dmesg lines for $((2 * N)) rejects" test $new -lt 200
md_check "still working: control accepts scan" sh -c "echo scan > $MD/control"
md_unload
md_finish
