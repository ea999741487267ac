#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The checker itself: each injected fault gives the right verdict, suspect
# and anomaly kind; a clean system gives ok everywhere after sync; bad
# commands are rejected with nothing changed.
. ./lib.sh
md_require_writers
md_require_ko
W=$MD_WORK

md_unload
md_load || exit 1
md_check "without fault_inject=1 there is no inject file" test ! -e "$MD/inject"
mark=$(dmesg | wc -l)
md_reload fault_inject=1 || exit 1
md_check "fault_inject=1 creates inject (0600)" test "$(stat -c %a "$MD/inject" 2>/dev/null)" = 600
md_check "dmesg says the kernel is tainted" sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'fault injection enabled.*tainted'"
md_check "the taint is set" test "$(cat /proc/sys/kernel/tainted)" != 0

before=$(md5sum < "$MD/inject")
for bad in "bogus" "drop nosuch 5" "drop dirtied 0" "drop dirtied -3" "drop dirtied 99999999" \
	"drop dirtied" "drop dirtied 5 /md_nonexistent" "drop dirtied 5 / extra" "miss dirtied 5 /" "skew /md_nonexistent 5" "skew / 0" "skew /" \
	"unskew" "replay42 maybe" "miss cleaned_io x"; do
	md_check "rejected: '$bad'" sh -c "! echo '$bad' > $MD/inject 2>/dev/null"
done
md_check "rejected: a 200-byte command" sh -c "! printf '%0200d\n' 0 > $MD/inject 2>/dev/null"
md_eq "nothing changed by rejected commands" "$before" "$(md5sum < "$MD/inject")"

md_mkcg md_ck md_ck/a md_ck/b md_ck/c
for c in md_ck md_ck/a md_ck/b md_ck/c; do md_wait_dir $c; done
sync
md_check "root synced" md_wait_synced ""
md_hold_writeback

# ledger side: the ledger misses 100 dirtyings
echo "drop dirtied 100 /md_ck/a" > "$MD/inject"
md_in_cg md_ck/a taskset -c 0 mdfile write "$W/a" 1024
md_eq "dropped dirtyings: mismatch, ledger suspect, 100 short" "mismatch ledger -100" "$(md_verdict md_ck/a)"
md_check "a mismatch event for md_ck/a" md_has_event mismatch "$(md_cgid md_ck/a)"

# kernel side: skew up, then back
md_in_cg md_ck/b mdfile write "$W/b" 512
md_eq "md_ck/b clean of faults: ok" ok "$(md_chk md_ck/b verdict)"
echo "skew /md_ck/b 7" > "$MD/inject"
md_eq "kernel skewed +7: mismatch, kernel suspect" "mismatch kernel 7" "$(md_verdict md_ck/b)"
echo "unskew /md_ck/b" > "$MD/inject"
md_eq "skew undone: ok" ok "$(md_chk md_ck/b verdict)"

# kernel negative on a clean cgroup
echo "skew /md_ck/c -5" > "$MD/inject"
md_eq "kernel at -5: underflow, kernel suspect" "underflow kernel -5" "$(md_verdict md_ck/c)"
md_check "a kernel_negative event for md_ck/c" md_has_event kernel_negative "$(md_cgid md_ck/c)"
md_eq "global check says underflow" underflow "$(awk '$1 == "verdict" { print $2 }' "$MD/check")"
echo "unskew /md_ck/c" > "$MD/inject"
md_eq "undone: ok" ok "$(md_chk md_ck/c verdict)"

# the ledger short by 100 goes negative once the pages are cleaned
md_release_writeback
sync
md_eq "after sync the short ledger underflows, ledger suspect" "underflow ledger -100" "$(md_verdict md_ck/a)"
md_check "a ledger_underflow event for md_ck/a" md_has_event ledger_underflow "$(md_cgid md_ck/a)"
md_check "events names the path" sh -c "grep -q ' /md_ck/a .* ledger_underflow ' $MD/events"

# a clean module on a clean system: ok everywhere it can tell.  On a full
# system (check-system's Debian guest) a memcg the test does not own may
# stay too busy for the still scan a resync needs: unsynced is no fault.
md_reload fault_inject=1 || exit 1
sync
md_check "root synced after reload" md_wait_synced ""
for c in md_ck md_ck/a md_ck/b md_ck/c; do md_wait_synced $c; done
g=$(cat "$MD/check")
md_diag "$(echo "$g" | tr '\n' ' ')"
awk 'NR > 1 && $6 == "unsynced" && $2 !~ /^\/md_ck/ { print "# unsynced, not owned by the test: " $0 }' "$MD/summary"
v=$(echo "$g" | awk '$1 == "verdict" { print $2 }')
bad=$(echo "$g" | awk '$1 == "untrusted" || $1 == "mismatch" || $1 == "underflow" { n += $2 } END { print n + 0 }')
mine=$(awk 'NR > 1 && $2 ~ /^\/md_ck/ && $6 != "ok"' "$MD/summary" | wc -l)
[ "$v" != unsynced ] || [ "$bad" != 0 ] || [ "$mine" != 0 ] || v=ok
md_eq "clean: global verdict ok (or unsynced, for memcgs not the test's)" ok "$v"
md_eq "clean: kernel sum equals global NR_FILE_DIRTY" ok "$(echo "$g" | awk '$1 == "sum_check" { print $2 }')"
# no kernel exports an rstat flush, and the unexported one may not be called (IBT)
md_eq "hier_check is off and says why" "unavailable no_exported_rstat_flush" \
	"$(echo "$g" | awk '$1 == "hier_check" || $1 == "hier_check_reason" { printf "%s%s", s, $2; s = " " }')"
md_eq "clean: no negative counter" 0 "$(echo "$g" | awk '$1 == "negative" { print $2 }')"
md_eq "clean: every summary line ok (or unsynced, not the test's)" 0 \
	"$(awk 'NR > 1 && $6 != "ok" && !($6 == "unsynced" && $2 !~ /^\/md_ck/)' "$MD/summary" | wc -l)"

# a busy cgroup read in a loop never gives a false mismatch
md_writer "$W/stop" "$W/busy" 256 3
echo $! > "$CG/md_ck/a/cgroup.procs"
bad=0 n=0
while [ $n -lt 40 ]; do
	v=$(md_chk md_ck/a verdict)
	case $v in mismatch|underflow) bad=$((bad + 1)); md_diag "$(cat "$MD/cgroups/md_ck/a/check" | tr '\n' ' ')" ;; esac
	n=$((n + 1))
done
touch "$W/stop"
wait
md_eq "40 checks during writes: no mismatch or underflow" 0 $bad

# loaded while a cgroup is busy: unsynced until it is still, then ok
# two writers, so that one writes while the other execs rm and mdfile: with
# one, a scan sometimes fell into such a gap and (rightly) synced the memcg
md_mkcg md_ck/u
md_writer "$W/stopu" "$W/u" 64 0
upid=$!
echo $upid > "$CG/md_ck/u/cgroup.procs"
md_writer "$W/stopu" "$W/v" 64 0
upid2=$!
echo $upid2 > "$CG/md_ck/u/cgroup.procs"
sleep 0.5
md_reload fault_inject=1 || exit 1
md_wait_dir md_ck/u
# (on a slow machine a scan may still fall into a moment when neither
# writes, and sync the memcg rightly: then its verdict must be ok)
v=$(md_chk md_ck/u verdict)
[ "$v" = unsynced ] || md_diag "md_ck/u synced in a quiet moment: $v"
md_check "loaded while md_ck/u writes: unsynced, or synced and ok ($v)" \
	test "$v" = unsynced -o "$v" = ok
touch "$W/stopu"
wait $upid $upid2
sync
md_check "md_ck/u resyncs once still" md_wait_synced md_ck/u
md_eq "md_ck/u then ok" ok "$(md_chk md_ck/u verdict)"

# misses make every verdict untrusted
echo "miss cleaned_io 3" > "$MD/inject"
md_eq "probe misses: untrusted" untrusted "$(md_chk md_ck/b verdict)"
md_check "a probe_missed event" md_has_event probe_missed ""
md_check "probes shows the misses" test "$(awk '$1 == "cleaned_io" { print $6 }' "$MD/probes")" -ge 3

md_unload
rm -rf "$W"
sync
md_rmcg md_ck/a md_ck/b md_ck/c md_ck/u md_ck
md_finish
