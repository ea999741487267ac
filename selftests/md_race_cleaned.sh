#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Defect: the kernel decrements in folio_clear_dirty_for_io() before our
# return handler counts, and nothing showed that window: a check in it saw
# kernel == scan != ledger with a still sequence and blamed the ledger.  A
# delay point holds each return handler 300 ms while writeback cleans the
# pages, file by file (each sync -d leaves the CPU between files, so the
# spinning never stalls RCU); checks taken
# meanwhile must never say mismatch (nor underflow), and once writeback is
# done all three views agree.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
md_mkcg md_rc
md_wait_dir md_rc
sync
md_hold_writeback
# ext4 sometimes writes a fresh file back at once, even after the check
# saw its pages: write until the check itself sees pages that stay
i=0
while [ $i -lt 5 ]; do
	md_in_cg md_rc mdfile write "$W/f$i" 8
	i=$((i + 1))
	v=$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"], v["ledger"] }' "$MD/cgroups/md_rc/check")
	[ "${v% *}" = "ok 1" ] && [ "${v##* }" -ge 4 ] && break
done
md_check "md_rc: dirty pages, check ok ($v)" test "${v% *}" = "ok 1" -a "${v##* }" -ge 4
md_inject delay cleaned_io 300000
# every page still dirty once the delay is armed passes through it
pages=$(md_stat md_rc dirty)
md_in_cg md_rc sh -c "for f in $W/f*; do sync -d \$f; done" &
syncer=$!
bad=0 n=0 inwin=0
while md_running $syncer; do
	v=$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"], v["ledger"], v["scan"], v["quiescent"] }' \
		"$MD/cgroups/md_rc/check")
	n=$((n + 1))
	set -- $v
	[ "$2" != "$3" ] && inwin=$((inwin + 1))
	case $1 in mismatch|underflow) bad=$((bad + 1)); md_diag "check: $v" ;; esac
done
wait $syncer
md_inject delay cleaned_io 0
md_diag "$n checks during writeback, $inwin saw kernel != ledger"
md_check "the return handlers were held ($(md_delay_hits cleaned_io))" test "$(md_delay_hits cleaned_io)" -ge "$pages"
md_check "checks ran while the windows were open" test $n -ge 2
md_eq "no check reported mismatch or underflow" 0 $bad
md_eq "after writeback: ok, kernel = ledger = scan" "ok 1 1" \
	"$(awk '{ v[$1] = $2 } END { print v["verdict"], v["kernel"] == v["ledger"], v["ledger"] == v["scan"] }' "$MD/cgroups/md_rc/check")"
md_release_writeback
rm -rf "$W"
md_rmcg md_rc
md_check "rmmod" md_unload
md_finish
