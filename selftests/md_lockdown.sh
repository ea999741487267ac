#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memcg_dirty under lockdown, as Debian's kernels take it under Secure Boot:
# the module loaded, a bug staged with fault injection, then lockdown
# raised at run time to the level given (integrity or confidentiality, as
# $1 or MEMCG_DIRTY_LOCKDOWN).  Lockdown refuses every debugfs file with a
# write bit (control, inject), and nothing else the module does: every
# read-only file reads; every command of memcg-dirty works, scan through
# the module parameter scan, and says what lockdown refuses where it
# cannot; the audit says the staged bug and arms the watch (hardware
# breakpoints: perf's kernel interface, which no lockdown level refuses);
# the parameters scan, resync and watch do what control did.
#
# Lockdown cannot be lowered, and refuses unsigned modules once raised:
# run it last in a boot, or in a boot of its own (scripts/vm-check gives
# each level its own).  Without a level it skips, so that run_tests on a
# real machine never locks it down; with lockdown already raised it skips
# with the level found.
. ./lib.sh
level=${1:-${MEMCG_DIRTY_LOCKDOWN:-}}
case $level in
integrity|confidentiality) ;;
"") md_skip_all "raises lockdown until the next boot: give the level (integrity or confidentiality) as \$1 or MEMCG_DIRTY_LOCKDOWN" ;;
*) md_skip_all "unknown lockdown level '$level' (integrity or confidentiality)" ;;
esac
md_require_writers
command -v memcg-dirty > /dev/null || md_skip_all "memcg-dirty is not built (make cli)"
md_require_ko
LD=/sys/kernel/security/lockdown
[ -e $LD ] || mount -t securityfs securityfs /sys/kernel/security 2> /dev/null
[ -r $LD ] || md_skip_all "no $LD: a kernel without the lockdown LSM"
now=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' $LD)
[ "$now" = none ] ||
	md_skip_all "lockdown is already at $now in this boot and cannot be lowered: run this test in a boot of its own"
P=/sys/module/memcg_dirty/parameters
W=$MD_WORK

# param NAME VALUE: one write to a parameter, its status
param() {
	echo "$2" 2> /dev/null > "$P/$1"
}

# --- before: the module, a writer's pages, a bug staged
md_load_inject audit_ms=200 track=1 || md_skip_all "cannot load memcg_dirty with fault_inject=1 audit_ms=200 track=1"
md_mkcg md_ld md_ld_bug
md_wait_dir md_ld
md_wait_dir md_ld_bug
sync
md_wait_synced "" > /dev/null
md_hold_writeback
md_in_cg md_ld mdfile write "$W/a" 64
bug=$(stat -c %i "$CG/md_ld_bug")
a0=$(md_audit audits)
md_inject skew /md_ld_bug 5

echo "$level" > $LD
md_eq "lockdown raised" "$level" "$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' $LD)"

# --- what lockdown refuses: the files with a write bit
md_check "control is refused" sh -c "! echo scan 2> /dev/null > $MD/control"
md_check "inject is refused" sh -c "! echo 'unskew /md_ld_bug' 2> /dev/null > $MD/inject"

# --- every read-only file reads
files=$(find "$MD" -type f ! -name control ! -name inject)
bad=
for f in $files; do
	cat "$f" > /dev/null 2>&1 || bad="$bad ${f#$MD/}"
done
md_eq "every read-only file reads ($(echo $files | wc -w) files)" "" "$bad"

# --- the audit: the staged bug reported, and the watch armed on it
took=$(md_reported_within mismatch "$bug" "$a0")
md_check "the audit says the staged mismatch (after $took audits)" test "$took" -le 4 2> /dev/null
md_diag "$(dmesg | grep -m 1 "memcg_dirty: mismatch .* (id $bug) node ")"
md_check "and arms the watch on it" md_poll 50 sh -c "[ \"\$(cat $P/watch)\" = /md_ld_bug ]"
md_check "the watch file says so" sh -c "head -n 1 $MD/watch | grep -q '^watching /md_ld_bug .* armed_by audit '"

# --- the parameters
s0=$(awk '$1 == "scans" { print $2 }' "$MD/version")
md_check "scan=1 scans" param scan 1
md_eq "one scan more" $((s0 + 1)) "$(awk '$1 == "scans" { print $2 }' "$MD/version")"
md_check "scan=0 is refused" sh -c "! echo 0 2> /dev/null > $P/scan"
md_check "resync=1" param resync 1
md_check "resync=x is refused" sh -c "! echo x 2> /dev/null > $P/resync"
md_check "watch=/md_ld replaces the audit's watch" param watch /md_ld
md_eq "watch reads the path" /md_ld "$(cat $P/watch)"
md_check "the watch file agrees" sh -c "head -n 1 $MD/watch | grep -q '^watching /md_ld .* armed_by control '"
md_in_cg md_ld mdfile write "$W/b" 4
md_check "it sees the writer's changes, accounted" md_poll 50 sh -c \
	"grep -Eq '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ accounted ' $MD/watch"
md_check "watch=/md_ld_none is refused (no such cgroup)" sh -c "! echo /md_ld_none 2> /dev/null > $P/watch"
md_check "watch=md_ld is refused (no path)" sh -c "! echo md_ld 2> /dev/null > $P/watch"
md_check "watch=off stops it" param watch off
md_eq "watch reads empty" "" "$(cat $P/watch)"
md_eq "the watch file agrees" "watching nothing (control: watch CGROUP)" "$(cat $MD/watch)"

# --- the CLI: every command, with its documented exit codes
memcg-dirty > /dev/null
md_eq "memcg-dirty: the table, exit 0" 0 $?
md_check "it lists /md_ld" sh -c "memcg-dirty | grep -q '^/md_ld '"
memcg-dirty --tree md_ld > /dev/null
md_eq "--tree: exit 0" 0 $?
memcg-dirty check /md_ld > /dev/null
md_eq "check of a clean cgroup: exit 0" 0 $?
memcg-dirty check /md_ld_bug > /dev/null
md_eq "check of the staged bug: exit 1" 1 $?
memcg-dirty check --json /md_ld_bug > /dev/null
md_eq "check --json: exit 1" 1 $?
memcg-dirty rates -n 0.1 -c 1 > /dev/null
md_eq "rates -c 1: exit 0" 0 $?
memcg-dirty events > /dev/null
md_eq "events: exit 0" 0 $?
memcg-dirty probes > /dev/null
md_eq "probes: exit 0" 0 $?
memcg-dirty --prometheus "$W/md.prom" --max-cgroups 50
md_eq "--prometheus: exit 0" 0 $?
s0=$(awk '$1 == "scans" { print $2 }' "$MD/version")
out=$(memcg-dirty scan 2>&1)
md_eq "scan: exit 0, through the parameter" 0 $?
md_diag "$out"
md_eq "one scan more" $((s0 + 1)) "$(awk '$1 == "scans" { print $2 }' "$MD/version")"
out=$(MEMCG_DIRTY_PARAMS=/nonexistent memcg-dirty scan 2>&1)
md_eq "scan without the parameter: exit 2" 2 $?
md_diag "$out"
md_check "and says what lockdown refuses" sh -c \
	"echo \"$out\" | grep -q 'lockdown ($level) refuses writing any debugfs file'"

# --- the unload: lockdown lets it, and the skew is undone with it
md_release_writeback
md_unload
md_check "the unload" test ! -d /sys/module/memcg_dirty
md_check "no kernel warning" md_dmesg_clean
md_finish
