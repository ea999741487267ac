#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Repeated load/unload while a writer dirties pages and the files are read.
. ./lib.sh
md_require_root
md_require_debugfs
md_require_disk
md_require_ko
cycles=${MD_RELOAD_CYCLES:-10}

md_writer "$MD_WORK/stop" "$MD_WORK/w" 1024 4
writer=$!
md_unload
ok=0
for i in $(seq "$cycles"); do
	md_load || break
	cat "$MD/probes" "$MD/summary" "$MD/cgroups/stat" > /dev/null || break
	md_unload || break
	ok=$((ok + 1))
done
touch "$MD_WORK/stop"
wait $writer
md_eq "load/read/unload cycles completed while writing" "$cycles" "$ok"
md_check "module left unloaded" test ! -e "$MD"
md_check "no kernel warnings" md_dmesg_clean
rm -rf "$MD_WORK"
md_finish
