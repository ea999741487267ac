#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The watch judges a reparenting.  From 7.1 the offlining of a removed
# cgroup gives its local counts to its parent with
# reparent_memcg_lruvec_state_local(), taking them from the child on each
# node first.  A change of the watched parent's counter made there is
# right only if the child gave up as many pages on that node.
#
# On a bug kernel booted with md_bug=reparent_dirty (kernels/bugs/7.3/
# 0003-memcontrol-reparent_dirty.patch) the dirty count is reparented and
# the child's half of the move skipped: the parent is given pages the
# child still holds.  With audit_ms=200 audit_warn=1, rmdir of one dirty
# child makes the parent's unit (kernel above ledger) found by the audit,
# which arms the watch on the parent for that node; rmdir of the next dirty
# child must then be reported as mismatched, naming the function, the parent,
# the child's id, the node and the pages, and the audit's watch stops
# having named it.  A watch armed from control on the parent then lists a
# third child's reparenting as mismatched.
#
# Without the bug (a 7.x kernel booted without md_bug=reparent_dirty):
# rmdir of dirty children with the watch armed on the parent gives no
# mismatched change.  Before 7.1 nothing reparents: SKIP.
. ./lib.sh
md_require_writers
md_require_ko
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
on=$(sed -n 's/.*md_bug=\([^ ]*\).*/\1/p' /proc/cmdline)
bug=0
case ",$on," in *,reparent_dirty,*) bug=1 ;; esac
if [ $bug = 1 ]; then
	md_load audit_ms=200 audit_warn=1 ||
		md_skip_all "cannot load memcg_dirty with audit_ms=200 audit_warn=1"
else
	md_load || md_skip_all "cannot load memcg_dirty"
fi
st=$(md_probe_status reparent)
[ "$st" != unused:no_reparenting ] || md_skip_all "kernel $(uname -r) does not reparent (7.1 on)"
[ "$st" = attached ] ||
	md_skip_all "the reparent probe is $st: reparent_memcg_lruvec_state_local cannot be followed"
W=$MD_WORK
P=md_wrp
md_mkcg $P
md_wait_dir $P
pid=$(stat -c %i "$CG/$P")
sync
md_hold_writeback

# md_hdr KEY: the word after KEY in the watch file's header
md_hdr() {
	head -n 1 "$MD/watch" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

# child NAME: a new cgroup P/NAME with at least 256 of 1024 pages still
# dirty, written on CPU 0 (node 0's memory, with --numa); sets cid to its id
child() {
	md_mkcg "$P/$1"
	md_wait_dir "$P/$1"
	cid=$(stat -c %i "$CG/$P/$1")
	i=0
	while [ $i -lt 5 ]; do
		md_in_cg "$P/$1" taskset -c 0 mdfile write "$W/$1.$i" 1024
		i=$((i + 1))
		[ "$(md_stat "$P/$1" dirty)" -ge 256 ] && break
	done
	md_check "$1 (id $cid): dirty pages ($(md_stat "$P/$1" dirty))" \
		test "$(md_stat "$P/$1" dirty)" -ge 256
}

# gone NAME: rmdir P/NAME and wait until its memcg is offline (the
# offlining reparents: memcg_offline's hits count it), and a little more
gone() {
	o0=$(md_probe_hits memcg_offline)
	rmdir "$CG/$P/$1"
	md_check "$1: rmdir, its memcg offline" \
		md_poll 100 sh -c "[ \$(awk '\$1 == \"memcg_offline\" { print \$5 }' $MD/probes) -gt $o0 ]"
	sleep 1
}

if [ $bug = 0 ]; then
	md_diag "no md_bug=reparent_dirty (cmdline: $(cat /proc/cmdline)): the right reparenting only"
	echo "watch /$P" > "$MD/control"
	child c1
	child c2
	gone c1
	gone c2
	md_diag "$(head -n 1 "$MD/watch")"
	md_eq "the watch on $P: nothing mismatched" 0 "$(md_hdr mismatched)"
	md_eq "no change listed mismatched" 0 \
		"$(grep -Ec '^[0-9]+ [0-9]+ [0-9]+ -?[0-9]+ mismatched ' "$MD/watch" || true)"
	md_eq "nothing reported on the console" "" \
		"$(dmesg | grep -m 1 "memcg_dirty: watch /$P (id $pid)")"
	md_diag "reparent hits (calls that move NR_FILE_DIRTY): $(md_probe_hits reparent)"
	echo "watch off" > "$MD/control"
	md_skip "the watch names a wrong reparenting" "needs a kernel booted with md_bug=reparent_dirty"
	rm -rf "$W"
	sync
	md_rmcg $P
	md_check "rmmod" md_unload
	md_check "dmesg is clean" md_dmesg_clean
	md_finish
fi

dmesg | grep -q "md_bug: switched on: .*reparent_dirty" ||
	md_skip_all "md_bug=reparent_dirty on the command line, but the kernel did not switch it on"
echo "memcg_dirty selftest: expected audit warnings begin" > /dev/kmsg

# 1) the first dirty child removed: the bug puts the parent's unit apart,
# the audit finds it and arms the watch on the parent
child c1
id1=$cid
r0=$(md_probe_hits reparent)
gone c1
md_check "the reparent probe saw the dirty count reparented" test "$(md_probe_hits reparent)" -gt "$r0"
md_check "the kernel took the bug" sh -c "dmesg | grep -q 'md_bug: reparent_dirty taken'"
md_check "the audit arms the watch on $P" \
	md_poll 600 sh -c "head -n 1 $MD/watch | grep -q '^watching /$P (id $pid) .* armed_by audit'"
md_diag "$(dmesg | grep -m 1 "memcg_dirty: [a-z]* /$P (id $pid) node ")"
md_diag "$(head -n 1 "$MD/watch")"
node=$(head -n 1 "$MD/watch" | sed -n 's/.* nodes \([^ ]*\) of .*/\1/p')
case $node in *[!0-9]* | "") node='[0-9]+' ;; esac	# not one node alone

# 2) the next dirty child removed: its reparenting is reported as mismatched
child c2
id2=$cid
gone c2
line="memcg_dirty: watch /$P \\(id $pid\\) node $node: counter \\+[0-9]+ in the dirty accounting, but reparenting took 0 of them from cgroup id $id2, which still holds [0-9]+, at reparent_memcg_lruvec_state_local\\+"
md_check "the watch says the reparenting of c2 (id $id2) mismatched" \
	md_poll 100 sh -c "dmesg | grep -Eq '$line'"
reported=$(dmesg | grep -E "memcg_dirty: watch /$P \(id $pid\)" | grep -m 1 reparent_memcg_lruvec_state_local)
md_diag "$reported"
n=$(echo "$reported" | sed -n 's/.* counter +\([0-9]*\) .*/\1/p')
held=$(echo "$reported" | sed -n 's/.* which still holds \([0-9]*\),.*/\1/p')
md_check "the pages given are the pages c2 still holds ($n, $held)" test -n "$n" -a "$n" = "$held"
md_check "the audit's watch stops, having named the code" md_poll 50 sh -c \
	"dmesg | grep -q 'watch /$P (id $pid) stopped: it named the code'"
md_eq "reported once" 1 "$(dmesg | grep -c "memcg_dirty: watch /$P (id $pid) node .*reparent_memcg_lruvec_state_local" || true)"

# 3) a watch from control on the parent lists a third child's reparenting
echo "watch /$P" > "$MD/control"
child c3
id3=$cid
gone c3
md_poll 100 grep -Eq '^[0-9]+ [0-9]+ [0-9]+ -?[0-9]+ mismatched ' "$MD/watch"
grep -v '^watching \|^cpu ' "$MD/watch" | while read -r l; do md_diag "$l"; done
md_check "the watch file lists it mismatched, at reparent_memcg_lruvec_state_local" \
	grep -Eq '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ mismatched reparent_memcg_lruvec_state_local\+' "$MD/watch"
md_check "the header counts it" test "$(md_hdr mismatched)" -ge 1
md_eq "no reparenting of it counted right" 0 "$(md_hdr reparented)"
md_eq "none unpaired" 0 "$(md_hdr unpaired)"
md_check "the console names c3 (id $id3)" \
	sh -c "dmesg | grep -q 'reparenting took 0 of them from cgroup id $id3, which still holds'"
echo "watch off" > "$MD/control"
md_diag "the first child was c1 (id $id1)"

echo "memcg_dirty selftest: expected audit warnings end" > /dev/kmsg
md_check "outside the expected ones, dmesg is clean" md_dmesg_clean
md_release_writeback
rm -rf "$W"
sync
md_rmcg $P
md_check "rmmod" md_unload
md_finish
