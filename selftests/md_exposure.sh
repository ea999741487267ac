#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Exposure: every file is root-only, a non-root user gets EACCES, and no
# output anywhere contains a kernel virtual address.  A selftest run as a
# non-root user skips with the reason.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_module
grep -q '^nobody:' /etc/passwd || md_skip_all "needs a nobody user"
# as_nobody COMMAND-LINE: run a shell command line as nobody
as_nobody() { su nobody -s /bin/sh -c "$1"; }

files=$(find "$MD" -type f)
n=0 open=0 wide=0
for f in $files; do
	# a dying cgroup's directory can go while we look: skip what is gone
	mode=$(stat -c %a "$f" 2>/dev/null) || continue
	n=$((n + 1))
	as_nobody "cat '$f'" > /dev/null 2>&1 && open=$((open + 1))
	case $mode in 400|600) ;; *) wide=$((wide + 1)); md_diag "$f: $mode" ;; esac
done
md_eq "$n files: none readable by nobody" 0 $open
md_eq "$n files: all 0400 or 0600" 0 $wide
err=$(as_nobody "cat '$MD/version'" 2>&1)
case $err in *"Permission denied"*) md_ok "the error is EACCES ($err)" ;; *) md_not_ok "the error is EACCES: $err" ;; esac
leak=$(for f in $files; do [ -r "$f" ] && case $f in */control|*/inject) ;; *) cat "$f" 2>/dev/null ;; esac; done |
	grep -Eoi 'ffff[0-9a-f]{12}' | head -n 3)
md_eq "no kernel virtual address in any output" "" "$leak"
out=$(as_nobody "cd '$PWD' && sh ./md_debugfs.sh" 2>&1)
rc=$?
md_eq "a selftest run as nobody skips (exit 4)" 4 $rc
case $out in *"SKIP must run as root"*) md_ok "and says why" ;; *) md_not_ok "and says why: $out" ;; esac
md_finish
