#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The debugfs files: present, readable, root-only, and saying true things.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_module

for f in version probes summary cgroups/stat; do
	md_check "$f is readable" sh -c "cat '$MD/$f' > /dev/null"
	mode=$(stat -c %a "$MD/$f")
	md_eq "$f is root-only" 400 "$mode"
done
md_eq "control is root-only" 600 "$(stat -c %a "$MD/control")"
for f in check events; do
	md_eq "$f is root-only" 400 "$(stat -c %a "$MD/$f")"
	md_check "$f is readable" sh -c "cat '$MD/$f' > /dev/null"
done
md_eq "cgroups/check is root-only" 400 "$(stat -c %a "$MD/cgroups/check")"
md_check "control rejects an unknown command" sh -c "! echo bogus > $MD/control"
md_check "control accepts scan" sh -c "echo scan > $MD/control"
md_check "a scan was recorded" test "$(awk '$1 == "scans" { print $2 }' "$MD/version")" -ge 1
md_eq "version file carries the kernel release" "$(uname -r)" "$(awk '$1 == "kernel" { print $2 }' "$MD/version")"
ver=$(awk '$1 == "version" { print $2 }' "$MD/version")
modver=$(cat /sys/module/memcg_dirty/version 2>/dev/null)
md_eq "version file matches the module's version" "$modver" "$ver"
md_eq "probes has a header and one line per point" 13 "$(wc -l < "$MD/probes")"
for p in dirtied cleaned_io cancelled migrated memcg_free; do
	st=$(md_probe_status $p)
	md_eq "required probe point $p attached" attached "$st"
done
md_check "summary lists the root cgroup" sh -c "awk '\$2 == \"/\"' $MD/summary | grep -q online"
md_check "no kernel addresses in any file" sh -c "! cat $MD/version $MD/probes $MD/summary $MD/check $MD/events $MD/cgroups/stat $MD/cgroups/check | grep -Eqi 'ffff[0-9a-f]{12}'"
md_finish
