#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Uncached buffered writes (pwritev2 RWF_DONTCACHE, 6.14 on; ext4 and xfs
# on 7.3): the folios are dirtied and counted as any write's, writeback
# starts before the write returns, and each folio leaves the page cache
# when its writeback ends (folio_end_dropbehind()), a removal the ledger
# must see as a clean one.  In md_dc, 1024 pages written so on the suite's
# disk (ext4) and, where MEMCG_DIRTY_XFS is set, on xfs (large folios), with
# audit_ms=200 audit_warn=1: every page counted dirtied; after sync, ledger,
# kernel and scan agree at 0, no more than a quarter of the file is still
# cached (the flag did drop it: the path ran), the audit never says a word.
# A kernel or filesystem that refuses the flag: SKIP, for that filesystem.
. ./lib.sh
md_require_writers
md_require_ko
md_unload || md_skip_all "memcg_dirty is loaded and cannot be unloaded"
md_load audit_ms=200 audit_warn=1 || md_skip_all "cannot load memcg_dirty with audit_ms=200 audit_warn=1"
mark=$(dmesg | wc -l)
md_mkcg md_dc
md_wait_dir md_dc
ran=0
for dir in "$MD_WORK" $(md_xfs_dir || true); do
	fs=$(awk -v d="$dir" 'd == $2 || index(d, $2 "/") == 1 { if (length($2) >= l) { l = length($2); t = $3 } }
		END { print t }' /proc/mounts)
	f=$dir/md_dc.$$
	d0=$(md_stat md_dc dirtied)
	md_in_cg md_dc mdfile dontcache "$f" 1024 2> "$MD_WORK/dc.err"
	rc=$?
	if [ $rc = 4 ]; then
		md_diag "$fs: $(cat "$MD_WORK/dc.err")"
		rm -f "$f"
		continue
	fi
	md_eq "$fs: 1024 pages written uncached" 0 $rc
	ran=$((ran + 1))
	md_check "$fs: every page counted dirtied" \
		test $(($(md_stat md_dc dirtied) - d0)) -ge 1024
	sync
	md_check "$fs: md_dc synced" md_wait_synced md_dc
	md_eq "$fs: md_dc: ok, no page dirty in any view" "ok 0 0 0" "$(md_views md_dc)"
	cached=$(mdfile folios "$f" | awk '$1 == "folios" { print $4 }')
	md_diag "$fs: $(mdfile folios "$f" | head -n 1)"
	md_check "$fs: at most 256 of the 1024 pages still cached (the folios were dropped)" \
		test "${cached:-1024}" -le 256
	rm -f "$f"
done
[ $ran -gt 0 ] || md_skip_all "no filesystem here takes RWF_DONTCACHE (6.14 on, ext4 and xfs)"
md_audits_pass 5
md_eq "the audit found nothing" 0 "$(md_audit bad_verdicts)"
md_eq "nothing on the console" 0 "$(dmesg | tail -n +$((mark + 1)) | grep -c 'memcg_dirty' || true)"
md_rmcg md_dc
md_check "rmmod" md_unload
md_check "dmesg is clean" md_dmesg_clean
md_finish
