#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The zoo (selftests/zoo/md_zoo.ko) stages the known classes of bugs of the
# per-memcg dirty counter while the audit runs (audit_ms=200, audit_warn=1):
#   1 the 4.2 bug: a page made dirty without the increment, so that its
#     cleaning (here a truncation) takes the count below 0
#   2 a second decrement for one cleaning
#   3 an increment that lands on a sibling memcg
#   4 the count raised with no page changing state
#   5 a migration between nodes that moves PG_dirty but not the count
#   6 inside the kernel's own accounting, an increment twice the folio
#   7 inside it, an increment that lands on a sibling memcg
# and the writeback counter's (NR_WRITEBACK): raised with no folio under
# writeback (wb_phantom), and lowered below 0 (wb_lost); their lines and
# checks name the counter, and the dirty counter's verdict stays ok.  The
# watch of the writeback counter (watch CGROUP writeback) names the zoo's
# function outside the writeback accounting: an operator's on wb_phantom,
# the audit's own on wb_lost.
# For each: the audit's line comes within four audits and names the
# cgroup, the node, the three values and the suspect (the kernel), and the
# check agrees; each memcg raises exactly one WARN.  The watch (control:
# watch CGROUP) names the zoo's function that moved the counter, on the
# console and in the watch file, and lists the kernel's own changes as
# accounted; class 1 moved no counter, so there it shows the cleaning's
# decrement as the kernel's, and the shadow (track=1) names the page that
# was cleaned without ever being counted dirty: its inode and index.
# Classes 6 and 7 change the counter from the kernel's dirty accounting
# itself: the watch holds each change against the state change the probes
# saw begin there and names the disagreement, size or memcg.  With
# audit_watch (the default) the audit arms the watch on a memcg it finds
# bad, when nothing is watched, on the node it found apart: a bug that
# strikes again there is named with nobody writing control, and the watch
# then stops by itself, giving the debug registers back.  With the zoo's files written and no
# trigger pulled, nothing is reported.  Each bug is put right before the next
# (the zoo's undo), and the check says ok again.
. ./lib.sh
md_require_writers
md_require_ko
md_zoo_ready
md_load audit_ms=200 track=1 uncounted_ms=1000 ||
	md_skip_all "cannot load memcg_dirty with audit_ms=200 track=1 uncounted_ms=1000"
if ! md_check "md_zoo loads" insmod "$zoo_ko"; then
	md_unload
	md_finish
fi
P=/sys/module/memcg_dirty/parameters
Z=/sys/kernel/debug/md_zoo/trigger
W=$MD_WORK

zoo() {
	echo "$*" > "$Z"
}

# md_line VERDICT CGROUP_ID: the audit's first line for that memcg and verdict
md_line() {
	dmesg | grep -m 1 "memcg_dirty: $1 .* (id $2) node "
}

# md_line_says LINE: "NODE KERNEL LEDGER SCAN SUSPECT" from an audit line
md_line_says() {
	echo "$1" | sed -n 's/.* node \([0-9]*\): kernel \(-*[0-9]*\) ledger \(-*[0-9]*\) scan \(-*[0-9]*\), suspect \([a-z]*\)$/\1 \2 \3 \4 \5/p'
}

# md_caught CLASS VERDICT CGROUP AUDITS0: the audit reported VERDICT of CGROUP
# within four audits of AUDITS0, naming it; sets says to md_line_says.
md_caught() {
	id=$(stat -c %i "$CG/$3")
	took=$(md_reported_within "$2" "$id" "$4")
	md_diag "class $1: $2 of /$3 reported after $took audits"
	md_check "class $1: $2 of /$3 reported within 4 audits" test "$took" -le 4 2>/dev/null
	line=$(md_line "$2" "$id")
	md_diag "$line"
	md_check "class $1: the line names /$3 and its id" \
		sh -c "echo '$line' | grep -q 'memcg_dirty: $2 /$3 (id $id) node '"
	says=$(md_line_says "$line")
}

# a change listed by the watch file as outside the dirty accounting
md_outside='^[0-9]+ [0-9]+ [0-9]+ -?[0-9]+ outside '
# after a function's name: a GCC clone's suffix if any (.isra.0, .cold), then
# the offset; the watch takes a clone for its function
cl='(\.[a-z]+(\.[0-9]+)?)*\+'

# md_watch CGROUP: watch which code moves its counter (control)
md_watch() {
	echo "watch /$1" > "$MD/control"
}

# md_watched CLASS CGROUP FUNCTION: the watch reported a change of CGROUP's
# counter outside the dirty accounting, made through the zoo's FUNCTION;
# and every change it saw from the kernel's own code was accounted
md_watched() {
	md_poll 100 md_watch_reported "$2" "$3"
	wline=$(dmesg | grep -m 1 "memcg_dirty: watch /$2 (id [0-9]*) node [0-9]*: counter [-+][0-9]* outside the dirty accounting, at .*$3+")
	md_diag "$wline"
	md_check "class $1: the watch names $3 on the console" test -n "$wline"
	md_check "class $1: the watch file lists it as outside" grep -q "outside .*$3+" "$MD/watch"
	md_eq "class $1: no change from the kernel's own code listed as outside" "" \
		"$(grep -E "$md_outside" "$MD/watch" | grep -v 'md_zoo_' | head -n 1)"
	md_eq "class $1: none listed as mismatched with its state change" 0 \
		"$(grep -Ec '^[0-9]+ [0-9]+ [0-9]+ -?[0-9]+ mismatched ' "$MD/watch" || true)"
}
md_watch_reported() {
	dmesg | grep -q "memcg_dirty: watch /$1 (id [0-9]*) node .* outside the dirty accounting, at .*$2+"
}

# md_says LINE GREP_FLAG PATTERN: LINE matches PATTERN (grep -F or -E)
md_says() {
	echo "$1" | grep -q "$2" -- "$3"
}

# md_mismatched CLASS CGROUP CHANGE STATE: the watch reported a change of
# CGROUP's counter by CHANGE in the kernel's dirty accounting, whose state
# change was STATE ("N page(s) of cgroup id I (dirtied)")
md_mismatched() {
	md_poll 100 sh -c "dmesg | grep -q 'memcg_dirty: watch /$2 (id [0-9]*) node [0-9]*: counter $3 in the dirty accounting, but'"
	wline=$(dmesg | grep -m 1 "memcg_dirty: watch /$2 (id [0-9]*) node [0-9]*: counter $3 in the dirty accounting, but")
	md_diag "$wline"
	md_check "class $1: the watch says the kernel's change of $3 disagrees with its state change" \
		test -n "$wline"
	md_check "class $1: and names the state change: $4" md_says "$wline" -F "the state change there is $4, at "
	md_check "class $1: and the kernel's dirty accounting as where" \
		md_says "$wline" -E ", at (folio_account_dirtied|__folio_mark_dirty)$cl"
	md_check "class $1: the watch file lists it as mismatched" \
		grep -Eq "^[0-9]+ [0-9]+ [0-9]+ ${3#+} mismatched (folio_account_dirtied|__folio_mark_dirty)$cl" "$MD/watch"
	md_eq "class $1: nothing listed as outside" 0 "$(grep -Ec "$md_outside" "$MD/watch" || true)"
}

# md_settled CGROUP: its check says ok (read again while the audit runs)
md_settled() {
	md_poll 100 sh -c "[ \"\$(awk '\$1 == \"verdict\" { print \$2 }' $MD/cgroups/$1/check)\" = ok ]"
}

md_hold_writeback
# and no flusher at all: with dirty_writeback_centisecs 0 (md_hold_writeback)
# an inode dirtied on an idle writeback context wakes the flusher at once,
# whose background pass cleans it when that context's share of the limit
# is small (a new cgroup's); the zoo needs its pages to stay as they are
echo 360000 > /proc/sys/vm/dirty_writeback_centisecs
cgs="md_zoo1 md_zoo2 md_zoo3 md_zoo3b md_zoo4 md_zoo5 md_zoo6 md_zoo7 md_zoo7b md_zoo8 md_zoowb md_zoowl"
md_mkcg $cgs
for c in $cgs; do
	md_wait_dir $c
done

# clean cached pages for classes 1 and 4, dirty ones for 2 and 3; one page
# per write, so one page per folio.  Class 1's two pages on node 0.
md_in_cg md_zoo1 taskset -c 0 dd if=/dev/zero of="$W/z1" bs=4096 count=1 2> /dev/null
md_in_cg md_zoo1 taskset -c 0 dd if=/dev/zero of="$W/z1" bs=4096 count=1 seek=1 conv=notrunc 2> /dev/null
md_in_cg md_zoo4 mdfile write "$W/z4" 1
md_in_cg md_zoo8 mdfile write "$W/z8" 1
md_in_cg md_zoowb mdfile write "$W/zwb" 1
md_in_cg md_zoowl mdfile write "$W/zwl" 1
sync
md_in_cg md_zoo2 mdfile write "$W/z2" 1
md_in_cg md_zoo3 mdfile write "$W/z3" 1
md_in_cg md_zoo3b mdfile write "$W/z3b" 1
md_in_cg md_zoo7b mdfile write "$W/z7b" 1
: > "$W/z6"
: > "$W/z7"

# no trigger, no verdict
md_check "audits run" md_audits_pass 4
md_eq "no trigger pulled: no line" 0 "$(dmesg | grep -c 'memcg_dirty: [a-z]* /md_zoo' || true)"
for c in md_zoo1 md_zoo2 md_zoo3 md_zoo3b md_zoo4 md_zoo7b md_zoo8 md_zoowb md_zoowl; do
	md_eq "no trigger pulled: $c checks ok" ok "$(md_chk $c verdict)"
done
echo scan > "$MD/control"
md_eq "no trigger pulled: folios lists no page on either side" "uncounted 0 uncleaned 0" \
	"$(awk '$1 == "uncounted" || $1 == "uncleaned" { printf "%s%s %s", s, $1, $2; s = " " }' "$MD/folios")"

echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg
echo 1 > $P/audit_warn

# --- class 1: dirty without the increment; the truncation underflows
zoo dirty_unaccounted "$W/z1" 1
md_audits_pass 3
md_eq "class 1: nothing to say while the page is dirty (the counts agree)" 0 \
	"$(md_lines underflow "$(stat -c %i "$CG/md_zoo1")")"
# but a scan finds the page dirty with no shadow bit (track=1), and never
# counted (no dirty tag) for uncounted_ms (1 s): folios lists it
echo scan > "$MD/control"
sleep 1.5
echo scan > "$MD/control"
md_diag "$(tr '\n' ' ' < "$MD/folios")"
md_check "class 1: folios lists the dirty page nobody counted (inode, index 1)" \
	grep -Eq "^$(stat -c %i "$CG/md_zoo1") 0 [0-9]+ [0-9]+:[0-9]+ $(stat -c %i "$W/z1") 1$" "$MD/folios"
md_eq "class 1: and only it" 1 "$(awk 'NR == 1 { print $2 }' "$MD/folios")"
md_watch md_zoo1
a0=$(md_audit audits)
truncate -s 4096 "$W/z1"
md_caught 1 underflow md_zoo1 "$a0"
# the bug changed no counter, so the watch can only show the cleaning
md_check "class 1: the watch saw the truncation's decrement, from the kernel's accounting" \
	grep -Eq "^[0-9]+ [0-9]+ 0 -1 accounted (folio_account_cleaned|__folio_cancel_dirty)$cl" "$MD/watch"
md_eq "class 1: and nothing outside it" 0 "$(grep -Ec "$md_outside" "$MD/watch" || true)"
# the shadow (track=1) names the page: a cleaning of a page never counted dirty
id1=$(stat -c %i "$CG/md_zoo1")
ino1=$(stat -c %i "$W/z1")
md_check "class 1: the shadow names the page (file, inode, index 1)" md_poll 100 sh -c \
	"dmesg | grep -Eq 'memcg_dirty: cleaned a page never counted dirty: cgroup $id1 node 0, file [0-9]+:[0-9]+ inode $ino1 index 1 \(cancelled\)'"
md_diag "$(dmesg | grep -m 1 'cleaned a page never counted dirty')"
md_check "class 1: and events logs cleaned_uncounted for md_zoo1" md_has_event cleaned_uncounted "$id1"
set -- $says
md_eq "class 1: node 0, kernel and ledger -1, scan 0, suspect kernel" "0 -1 -1 0 kernel" "$*"
md_eq "class 1: check says underflow, suspect kernel" "underflow kernel" \
	"$(md_chk md_zoo1 verdict) $(md_chk md_zoo1 suspect)"
# put right on node 0: page 0 made dirty (counted), then clean uncounted
md_in_cg md_zoo1 dd if=/dev/zero of="$W/z1" bs=4096 count=1 conv=notrunc 2> /dev/null
zoo clean_unaccounted "$W/z1" 0
md_check "class 1 put right: check says ok" md_settled md_zoo1
# which left page 0 counted dirty by the ledger, and clean: folios says so
echo scan > "$MD/control"
md_diag "$(sed -n '/^uncleaned /,$p' "$MD/folios" | tr '\n' ' ')"
md_check "class 1 put right: folios lists the clean page still counted (inode, index 0)" sh -c \
	"sed -n '/^uncleaned /,\$p' $MD/folios | grep -Eq '^$id1 [0-9]+ [0-9]+ [0-9]+:[0-9]+ $ino1 0\$'"
md_eq "class 1 put right: and only it" 1 "$(awk '$1 == "uncleaned" { print $2 }' "$MD/folios")"

# --- class 2: one cleaning, two decrements
md_watch md_zoo2
md_in_cg md_zoo2 mdfile write "$W/z2w" 1
md_check "class 2: the watch lists a write's increment as accounted" \
	md_poll 50 grep -Eq "^[0-9]+ [0-9]+ [0-9]+ 1 accounted (__folio_mark_dirty|folio_account_dirtied)$cl" "$MD/watch"
a0=$(md_audit audits)
zoo clean_twice "$W/z2" 0
md_caught 2 mismatch md_zoo2 "$a0"
set -- $says
md_eq "class 2: kernel one under ledger and scan, suspect kernel" "1 0 kernel" \
	"$(($3 - $2)) $(($4 - $3)) $5"
md_watched 2 md_zoo2 md_zoo_clean_twice
zoo undo
md_check "class 2 put right: check says ok" md_settled md_zoo2

# --- class 3: the increment lands on a sibling
for c in md_zoo3 md_zoo3b; do
	md_diag "$c before: $(awk '{ printf "%s %s ", $1, $2 }' "$MD/cgroups/$c/stat" | cut -c 1-80)"
done
md_watch md_zoo3
a0=$(md_audit audits)
zoo wrong_memcg "$W/z3" 0 "$W/z3b" 0
md_caught 3 mismatch md_zoo3 "$a0"
set -- $says
md_eq "class 3: kernel one under ledger and scan, suspect kernel" "1 0 kernel" \
	"$(($3 - $2)) $(($4 - $3)) $5"
md_caught 3 mismatch md_zoo3b "$a0"
set -- $says
md_eq "class 3: the sibling's kernel one over ledger and scan, suspect kernel" "1 0 kernel" \
	"$(($2 - $3)) $(($4 - $3)) $5"
md_watched 3 md_zoo3 md_zoo_wrong_memcg
zoo undo
md_check "class 3 put right: check says ok" md_settled md_zoo3
md_check "class 3 put right: the sibling's check says ok" md_settled md_zoo3b

# --- class 4: the count raised, no page changed
md_watch md_zoo4
a0=$(md_audit audits)
zoo phantom "$W/z4" 0
md_caught 4 mismatch md_zoo4 "$a0"
set -- $says
md_eq "class 4: kernel 1, ledger and scan 0, suspect kernel" "1 0 0 kernel" "$2 $3 $4 $5"
md_watched 4 md_zoo4 md_zoo_phantom_dirty
zoo undo
md_check "class 4 put right: check says ok" md_settled md_zoo4

# --- the writeback counter: raised with no folio under writeback, then
# lowered below 0; the audit's line ends with the counter's name.  The
# watch follows that counter: an operator's on wb_phantom's memcg, the
# audit's own on wb_lost's
md_wb_caught() {
	md_caught "$1" "$4" "$2" "$a0"
	md_check "$1: kernel $5, ledger and scan 0, suspect kernel, counter writeback" \
		md_says "$line" -E ": kernel $5 ledger 0 scan 0, suspect kernel, counter writeback$"
	md_eq "$1: check: counter writeback, its verdict $4, dirty's ok" "writeback $4 ok" \
		"$(awk '{ v[$1] = $2 } END { print v["counter"], v["writeback_verdict"], v["dirty_verdict"] }' \
			"$MD/cgroups/$2/check")"
	md_check "$1: the WARN says to watch the writeback counter" sh -c \
		"dmesg | grep -q 'memcg_dirty: audit found $4 in memory cgroup /$2 (id [0-9]*): .*; \"watch /$2 writeback\" in its control file'"
}
# md_wb_watched CLASS CGROUP FUNCTION: the watch of CGROUP's writeback
# counter named the zoo's FUNCTION as outside the writeback accounting
md_wb_watched() {
	md_poll 100 sh -c "dmesg | grep -q 'memcg_dirty: watch /$2 (id [0-9]*) node [0-9]*: counter [-+]1 outside the writeback accounting, at .*$3+'"
	md_diag "$(dmesg | grep -m 1 "memcg_dirty: watch /$2 (id [0-9]*) node [0-9]*: counter")"
	md_check "$1: the watch names $3 on the console, outside the writeback accounting" sh -c \
		"dmesg | grep -q 'memcg_dirty: watch /$2 (id [0-9]*) node [0-9]*: counter [-+]1 outside the writeback accounting, at .*$3+'"
	md_eq "$1: nothing else reported outside any accounting" 0 \
		"$(dmesg | grep "memcg_dirty: watch /$2 (id [0-9]*) node .* outside the" | grep -vc 'md_zoo_' || true)"
}

md_watch "md_zoowb writeback"
md_check "wb_phantom: the watch file names the counter watched" \
	grep -Eq "^watching /md_zoowb \(id [0-9]+\) .* counter writeback$" "$MD/watch"
md_eq "wb_phantom: the watch parameter reads it back" "/md_zoowb writeback" "$(cat $P/watch)"
a0=$(md_audit audits)
zoo wb_phantom "$W/zwb" 0
md_wb_caught wb_phantom md_zoowb zwb mismatch 1
md_wb_watched wb_phantom md_zoowb md_zoo_wb_phantom
md_check "wb_phantom: the watch file lists it as outside" grep -q "outside .*md_zoo_wb_phantom+" "$MD/watch"
zoo undo
md_check "wb_phantom put right: check says ok" md_settled md_zoowb

echo "watch off" > "$MD/control"
w0=$(md_audit watches)
idwl=$(stat -c %i "$CG/md_zoowl")
a0=$(md_audit audits)
zoo wb_lost "$W/zwl" 0
md_wb_caught wb_lost md_zoowl zwl underflow -1
md_check "wb_lost: the audit armed the watch on /md_zoowl's writeback counter" \
	md_poll 50 grep -Eq "^watching /md_zoowl \(id $idwl\) .* counter writeback$" "$MD/watch"
md_check "wb_lost: and said so on the console" sh -c \
	"dmesg | grep -q 'memcg_dirty: watch /md_zoowl (id $idwl) armed by the audit: a change of its counter outside the writeback accounting'"
md_eq "wb_lost: one more watch armed by the audit" $((w0 + 1)) "$(md_audit watches)"
# the bug strikes again, with nobody reading
zoo wb_lost "$W/zwl" 0
md_wb_watched wb_lost md_zoowl md_zoo_wb_lost
md_check "wb_lost: the audit's watch stops once it has named the code" md_poll 50 sh -c \
	"[ \"\$(cat $MD/watch)\" = 'watching nothing (control: watch CGROUP)' ]"
zoo undo
md_check "wb_lost put right: check says ok" md_settled md_zoowl

# --- class 6: the kernel's own increment, twice the folio
md_watch md_zoo6
a0=$(md_audit audits)
zoo site_size "$W/z6"
md_in_cg md_zoo6 mdfile write "$W/z6" 1
md_eq "class 6: the zoo altered one increment of the kernel's" "site off fired 1" \
	"$(grep '^site ' "$Z")"
md_caught 6 mismatch md_zoo6 "$a0"
set -- $says
md_eq "class 6: kernel one over ledger and scan, suspect kernel" "1 0 kernel" \
	"$(($2 - $3)) $(($4 - $3)) $5"
md_mismatched 6 md_zoo6 +2 "1 page of cgroup id $(stat -c %i "$CG/md_zoo6") (dirtied)"
zoo undo
md_check "class 6 put right: check says ok" md_settled md_zoo6

# --- class 7: the kernel's own increment, on a sibling's counter
md_watch md_zoo7b
a0=$(md_audit audits)
zoo site_memcg "$W/z7" "$W/z7b" 0
md_in_cg md_zoo7 mdfile write "$W/z7" 1
md_eq "class 7: the zoo altered one increment of the kernel's" "site off fired 2" \
	"$(grep '^site ' "$Z")"
md_caught 7 mismatch md_zoo7 "$a0"
set -- $says
md_eq "class 7: kernel one under ledger and scan, suspect kernel" "1 0 kernel" \
	"$(($3 - $2)) $(($4 - $3)) $5"
md_caught 7 mismatch md_zoo7b "$a0"
set -- $says
md_eq "class 7: the sibling's kernel one over ledger and scan, suspect kernel" "1 0 kernel" \
	"$(($2 - $3)) $(($4 - $3)) $5"
md_mismatched 7 md_zoo7b +1 "1 page of cgroup id $(stat -c %i "$CG/md_zoo7") (dirtied)"
zoo undo
md_check "class 7 put right: check says ok" md_settled md_zoo7
md_check "class 7 put right: the sibling's check says ok" md_settled md_zoo7b

zoos="md_zoo1 md_zoo2 md_zoo3 md_zoo3b md_zoo4 md_zoowb md_zoowl md_zoo6 md_zoo7 md_zoo7b"

# --- class 5: a migration moves PG_dirty, not the count; on xfs, which
# migrates dirty folios as they are (7.x's ext4 may write them back first)
if [ ! -d /sys/devices/system/node/node1 ]; then
	md_skip "class 5" "one NUMA node: nothing to migrate between"
elif ! X=$(md_xfs_dir); then
	md_skip "class 5" "no xfs mounted (MEMCG_DIRTY_XFS) to migrate dirty pages on"
else
	F5=$X/md_zoo5.$$
	md_in_cg md_zoo5 mdfile write "$F5" 4
	mdfile migrate "$F5" 0 > /dev/null
	md_settled md_zoo5
	md_watch md_zoo5
	a0=$(md_audit audits)
	zoo migrate_keep "$F5"
	md_diag "node0 -> node1: $(mdfile migrate "$F5" 1)"
	zoo migrate_keep off
	kept=$(awk 'NR == 1 { print $4 }' "$Z")
	md_check "class 5: migrations left their count behind" test "$kept" -gt 0
	md_caught 5 mismatch md_zoo5 "$a0"
	set -- $says
	md_eq "class 5: node 0's kernel holds what moved away, suspect kernel" "0 $kept 0 kernel" \
		"$1 $(($2 - $3)) $(($4 - $3)) $5"
	md_check "class 5: the WARN names node 0 and its figures, not the totals alone" sh -c \
		"dmesg | grep -q 'memcg_dirty: audit found mismatch in memory cgroup /md_zoo5 (id $id): .* pages in all, on node 0 kernel $2 ledger $3 scan $4, suspect kernel'"
	md_watched 5 md_zoo5 md_zoo_migrate_keep_count
	md_check "class 5: the watch lists the kernel's own move as accounted" \
		grep -Eq " accounted (__folio_migrate_mapping|folio_migrate_mapping|__migrate_folio)$cl" "$MD/watch"
	zoo undo
	md_check "class 5 put right: check says ok" md_settled md_zoo5
	rm -f "$F5"
	zoos="$zoos md_zoo5"
fi

echo "watch off" > "$MD/control"
md_eq "watch off: the watch file says so" "watching nothing (control: watch CGROUP)" "$(cat "$MD/watch")"
md_check "watch of a cgroup that does not exist is refused" sh -c "! echo 'watch /md_zoo_none' 2> /dev/null > $MD/control"

# --- the audit arms the watch by itself, on the memcg it finds bad
md_eq "audit_watch is on by default" 1 "$(md_audit audit_watch)"
md_eq "the audit armed no watch while one was armed (but wb_lost's)" 1 "$(md_audit watches)"
id8=$(stat -c %i "$CG/md_zoo8")
a0=$(md_audit audits)
zoo phantom "$W/z8" 0
md_caught 8 mismatch md_zoo8 "$a0"
md_check "class 8: the audit armed the watch on /md_zoo8" \
	md_poll 50 grep -q "^watching /md_zoo8 (id $id8) " "$MD/watch"
md_check "class 8: and reported so on the console" sh -c \
	"dmesg | grep -q 'memcg_dirty: watch /md_zoo8 (id $id8) armed by the audit'"
md_eq "class 8: one more watch armed by the audit" 2 "$(md_audit watches)"
md_eq "class 8: the audit's watch takes one node's breakpoints" "$(grep -c '^processor' /proc/cpuinfo)" \
	"$(head -n 1 "$MD/watch" | awk '{ for (i = 1; i < NF; i++) if ($i == "breakpoints") print $(i + 1) }')"
# the bug strikes again, with nobody reading
zoo phantom "$W/z8" 0
md_poll 100 md_watch_reported md_zoo8 md_zoo_phantom_dirty
md_diag "$(dmesg | grep -m 1 "memcg_dirty: watch /md_zoo8 (id [0-9]*) node [0-9]*: counter")"
md_check "class 8: the watch names md_zoo_phantom_dirty on the console" \
	md_watch_reported md_zoo8 md_zoo_phantom_dirty
md_eq "class 8: nothing else reported outside the dirty accounting" 0 \
	"$(dmesg | grep "memcg_dirty: watch /md_zoo8 (id [0-9]*) node .* outside the dirty accounting" | grep -vc 'md_zoo_' || true)"
# the registers are the machine's: the audit's watch stops once it has named the code
md_check "class 8: the audit's watch stops once it has named the code" md_poll 50 sh -c \
	"[ \"\$(cat $MD/watch)\" = 'watching nothing (control: watch CGROUP)' ]"
md_check "class 8: and says so" sh -c \
	"dmesg | grep -q 'memcg_dirty: watch /md_zoo8 (id $id8) stopped: it named the code'"
zoo undo
md_check "class 8 put right: check says ok" md_settled md_zoo8
echo "watch off" > "$MD/control"
zoos="$zoos md_zoo8"
md_audits_pass 3
echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
n=0
for c in $zoos; do
	md_eq "exactly one WARN for $c" 1 \
		"$(dmesg | grep -c "memcg_dirty: audit found .* in memory cgroup /$c (id $(stat -c %i "$CG/$c"))" || true)"
	n=$((n + 1))
done
# class 1's folio, made dirty with nothing counted, takes its writeback
# domain's WB_RECLAIMABLE below 0 too when it is cleaned, unless class 1
# is put right first: the domains' audit may report that (once), and
# nothing else of the zoo's
# (within this test's markers: md_domains.sh's own come before)
doms=$(md_marked_lines "memcg_dirty: audit found .* in the writeback domain of memory cgroup")
md_eq "the writeback domains' WARNs: class 1's alone" "$doms" \
	"$(md_marked_lines "memcg_dirty: audit found underflow in the writeback domain of memory cgroup /md_zoo1 ")"
md_check "at most one of them" test "$doms" -le 1
md_eq "one kernel warning per memcg in all, and class 1's domain's" "$((n + doms))" "$(md_marked_warnings)"
md_eq "the shadow reported one page in all (class 1's)" 1 "$(awk '$1 == "shadow_reported" { print $2 }' "$MD/version")"
md_diag "shadow: $(awk '$1 ~ /^shadow_/ { printf "%s %s ", $1, $2 }' "$MD/version")($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) kB of memory)"
md_eq "the zoo was left with nothing to undo" "class cgroup_id node pages" \
	"$(sed -n '/^class /,$p' "$Z" | grep -v '^refused')"
echo 0 > $P/audit_warn

rm -f "$W"/z*
sync
md_check "rmmod md_zoo" rmmod md_zoo
md_check "outside the expected warnings, dmesg is clean" md_dmesg_clean
md_release_writeback
md_rmcg md_zoowl md_zoowb md_zoo8 md_zoo7b md_zoo7 md_zoo6 md_zoo5 md_zoo4 md_zoo3b md_zoo3 md_zoo2 md_zoo1
md_check "rmmod" md_unload
md_finish
