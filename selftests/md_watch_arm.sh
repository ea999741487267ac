#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The watch's arming (watch.c), the side that takes debug registers:
#  - each CPU's start value is read on that CPU once its breakpoints are in
#    (a delay point holds the arming of a CPU open while a writer pinned
#    there dirties page after page): no first change is a sum of several,
#    none is mismatched with the one-page state change it trapped in;
#  - CPU hotplug is followed: CPU 1 taken offline and back is watched again
#    (a write there is seen), and the header says which CPUs are watched;
#  - a watch whose cgroup is removed stops by itself, releasing the
#    registers and the cgroup;
#  - a breakpoint that does not fire on a known write at arming (as when the
#    host takes the VM's debug registers: fault injection's "deaf") makes
#    the arming fail and says so, rather than a watch that sees nothing;
#  - debug registers taken by another user (mdbp, like gdb or perf mem:)
#    make the arming fail, reported on the console, with nothing left armed;
#  - the counter watched is dirty's by default, or the one named after the
#    path (writeback), in control and in the parameter, read back as written;
#  - the audit's own watch takes only the node it found apart, and stops by
#    itself after audit_watch_s, or once it has named the code (and is not
#    armed on that cgroup again).
. ./lib.sh
md_require_writers
md_require_ko
command -v mdbp > /dev/null || md_skip_all "no mdbp helper (make helpers)"
md_load_inject || md_skip_all "cannot load memcg_dirty with fault_inject=1"
P=/sys/module/memcg_dirty/parameters
W=$MD_WORK
cpu1=/sys/devices/system/cpu/cpu1/online

# md_hdr KEY: the word after KEY in the watch file's header
md_hdr() {
	head -n 1 "$MD/watch" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}
md_watching_nothing() {
	[ "$(cat "$MD/watch")" = "watching nothing (control: watch CGROUP)" ]
}
md_kmsg() {
	dmesg | grep -q -- "$1"
}

md_hold_writeback
md_mkcg md_wa md_wa2 md_wa3
for c in md_wa md_wa2 md_wa3; do
	md_wait_dir $c
done
[ -r "$cpu1" ] || md_skip_all "one CPU: the test needs CPU 1"
cpus=$(cat /sys/devices/system/cpu/online)
mems=$(cat /sys/devices/system/node/has_memory 2> /dev/null || echo 0)

# --- the start value of each CPU: a writer on CPU 1 while its arming is held
stop=$W/stop
md_in_cg md_wa taskset -c 1 sh -c \
	'i=0; while [ ! -e "$0" ]; do mdfile write "$1$i" 1; i=$((i + 1)); done' "$stop" "$W/a" &
sleep 1
md_inject delay watch_arm 1500000
md_check "watch /md_wa arms" sh -c "echo 'watch /md_wa' > $MD/control"
md_inject delay watch_arm 0
sleep 2
touch "$stop"
wait
md_check "the arming of a CPU was held open" test "$(md_delay_hits watch_arm)" -ge 2
md_diag "$(head -n 1 "$MD/watch")"
md_diag "$(grep '^1 ' "$MD/watch" | head -n 3 | tr '\n' ' ')"
md_check "the watch saw the writer on CPU 1" grep -Eq '^1 [0-9]+ [0-9]+ 1 ' "$MD/watch"
md_eq "no change of CPU 1 larger than the one page written" "" \
	"$(awk '$1 == 1 && ($4 > 1 || $4 < -1) { print; exit }' "$MD/watch")"
md_eq "none mismatched with its state change" 0 "$(md_hdr mismatched)"
md_eq "the header: nodes watched of the nodes with memory" "$mems of $mems" \
	"$(head -n 1 "$MD/watch" | sed -n 's/.* nodes \([^ ]*\) of \([^ ]*\) .*/\1 of \2/p')"

# --- CPU hotplug
echo "watch /md_wa" > "$MD/control"
md_eq "the header: every online CPU watched" "$cpus of $cpus" \
	"$(head -n 1 "$MD/watch" | sed -n 's/.* cpus \([^ ]*\) of \([^ ]*\) .*/\1 of \2/p')"
if echo 0 2> /dev/null > "$cpu1"; then
	md_eq "CPU 1 offline: the header says CPU 0 alone is watched" "0 of 0" \
		"$(head -n 1 "$MD/watch" | sed -n 's/.* cpus \([^ ]*\) of \([^ ]*\) .*/\1 of \2/p')"
	echo 1 > "$cpu1"
	md_eq "CPU 1 back: watched again" "$cpus of $cpus" \
		"$(head -n 1 "$MD/watch" | sed -n 's/.* cpus \([^ ]*\) of \([^ ]*\) .*/\1 of \2/p')"
	md_in_cg md_wa taskset -c 1 mdfile write "$W/h" 1
	md_check "a write on CPU 1 after it came back is seen" \
		md_poll 50 grep -Eq '^1 [0-9]+ [0-9]+ 1 ' "$MD/watch"
else
	md_skip "CPU hotplug" "CPU 1 cannot be taken offline"
fi

# --- the cgroup removed: the watch stops by itself
echo "watch /md_wa2" > "$MD/control"
id2=$(stat -c %i "$CG/md_wa2")
md_rmcg md_wa2
md_check "md_wa2 removed: the watch stops by itself" md_poll 50 md_watching_nothing
md_check "and says so" md_kmsg "watch /md_wa2 (id $id2) stopped: its cgroup was removed"

# --- a breakpoint that never fires on a known write
md_inject deaf 1
md_check "a deaf breakpoint on CPU 1: the arming fails" \
	sh -c "! echo 'watch /md_wa' 2> /dev/null > $MD/control"
md_check "deaf off" md_inject deaf off
md_check "and says so" md_kmsg "watch /md_wa: CPU 1's breakpoint did not fire"
md_check "nothing is left armed" md_watching_nothing

# --- the debug registers taken by another user
echo "watch off" > "$MD/control"
mdbp 1 4 > "$W/bp" &
bp=$!
md_poll 50 grep -q '^got ' "$W/bp"
md_eq "mdbp holds CPU 1's four debug registers" "got 4" "$(cat "$W/bp")"
md_check "the registers taken: the arming fails" \
	sh -c "! echo 'watch /md_wa' 2> /dev/null > $MD/control"
md_check "and says so" md_kmsg "watch /md_wa: no hardware watchpoint for CPU 1: -28"
md_check "nothing is left armed" md_watching_nothing
kill $bp
wait $bp 2> /dev/null
mdbp 0 4 > "$W/bp0" &
bp=$!
md_poll 50 grep -q '^got ' "$W/bp0"
md_eq "the failed arming left CPU 0's registers free" "got 4" "$(cat "$W/bp0")"
kill $bp
wait $bp 2> /dev/null

# --- the counter watched: dirty by default, writeback when named after
# the path, in control and in the parameter, and read back as written
md_check "watch /md_wa3 writeback arms" sh -c "echo 'watch /md_wa3 writeback' > $MD/control"
md_eq "the header names the counter watched" "/md_wa3 writeback" "$(md_hdr watching) $(md_hdr counter)"
md_eq "the parameter reads it back as written" "/md_wa3 writeback" "$(cat $P/watch)"
md_check "the parameter arms the dirty counter by name" sh -c "echo '/md_wa3 dirty' > $P/watch"
md_eq "and reads back the path alone (dirty, the default)" "/md_wa3 dirty" "$(cat $P/watch) $(md_hdr counter)"
md_check "a counter named after a path that does not exist is refused" sh -c \
	"! echo 'watch /md_wa_none writeback' 2> /dev/null > $MD/control"
md_check "a last word that is no counter's is the path's: refused" sh -c \
	"! echo 'watch /md_wa3 bogus' 2> /dev/null > $MD/control"
md_eq "and the watch armed before is kept" "/md_wa3 dirty" "$(md_hdr watching) $(md_hdr counter)"
echo "watch off" > "$MD/control"

# --- the audit's own watch: one node, bounded in time, stopped once it names the code
id3=$(stat -c %i "$CG/md_wa3")
echo 3 > $P/audit_watch_s
echo 200 > $P/audit_ms
md_audits_pass 2
md_inject skew /md_wa3 1
md_check "the audit arms the watch on /md_wa3" \
	md_poll 300 grep -q "^watching /md_wa3 (id $id3) " "$MD/watch"
md_diag "$(head -n 1 "$MD/watch")"
md_eq "on node 0 alone, the one it found apart" "0" \
	"$(head -n 1 "$MD/watch" | sed -n 's/.* nodes \([^ ]*\) of .*/\1/p')"
md_eq "one breakpoint per CPU" "$(grep -c '^processor' /proc/cpuinfo)" "$(md_hdr breakpoints)"
md_eq "the header says the audit armed it" audit "$(md_hdr armed_by)"
md_check "it stops by itself after audit_watch_s" md_poll 100 md_watching_nothing
md_check "and says so" md_kmsg "watch /md_wa3 (id $id3) stopped: nothing named within audit_watch_s (3 s)"
echo 600 > $P/audit_watch_s
# shellcheck disable=SC2034 # not compared: the watch file shows the re-arming
a0=$(md_audit watches)
md_inject skew /md_wa3 1
md_check "the bug again: the audit arms the watch again" \
	md_poll 300 grep -q "^watching /md_wa3 (id $id3) " "$MD/watch"
md_inject skew /md_wa3 1
md_check "and again: the watch names the code" \
	md_poll 100 md_kmsg "watch /md_wa3 (id $id3) node 0: counter +1 outside the dirty accounting"
md_check "and stops once it has named it" md_poll 50 md_watching_nothing
md_check "saying so" md_kmsg "watch /md_wa3 (id $id3) stopped: it named the code"
md_inject skew /md_wa3 1
md_audits_pass 5
md_check "the bug again: the audit does not arm a watch whose code it named" md_watching_nothing
echo 0 > $P/audit_ms
md_inject unskew /md_wa3

rm -f "$W"/a* "$W"/h
md_check "dmesg is clean" md_dmesg_clean
md_release_writeback
md_rmcg md_wa3 md_wa
md_check "rmmod" md_unload
md_finish
