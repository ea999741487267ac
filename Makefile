# SPDX-License-Identifier: GPL-2.0
# memcg_dirty: build, install, lint and test.  The kernel side is built by
# Kbuild (see ./Kbuild) in build/<kernel release>/, one tree per kernel, so
# several flavours can be built side by side.
#
#   make [KVER=... | KDIR=...]   build memcg_dirty.ko (and the CLI)
#   make demo                    boot the test VM and show the module at work
#   make check                   everything: builds, DKMS, lint, unit tests, packages, VM
#   make prom                    the Prometheus rules' tests and the textfile (promtool)
#   make install                 module, CLI, man page, selftests (PREFIX, DESTDIR)
#   make deb                     the Debian packages, in build/deb/ (scripts/deb)
#   make vm                      interactive shell in the test VM
#   make bench                   benchmarks in the VM (not part of check)
#   make check-debug             the suite on a KASAN/lockdep/kmemleak kernel and
#                                with preempt=full (not part of check)
#   make debug-kernel            just build that kernel (build/debug-kernel/)
#   make check-bugs              real dirty-accounting bugs put back into Debian's
#                                6.1 and 7.3: caught by the audit? (not part of check)
#   make check-system [DIST=trixie]  the packages in a full Debian 12 guest
#                                (Debian 13 with DIST=trixie), kernel upgrade
#                                included (not part of check)
#   make check-system-all        check-system on Debian 12, then on Debian 13
#   make check-secureboot        that guest under Secure Boot: shim, grub, the
#                                DKMS key enrolled as a MOK (not part of check)
#   make kernels                 the kernel matrix, and newer Debian kernels
#   make check-fstests [KVER=... FS=... TESTS=... BASELINE=1 COUNT=N]
#                                fstests with the audit on (or without the
#                                module), each test in a memcg of its own, in
#                                QEMU; resumes where the last part stopped
#                                (not part of check; docs/testing.md)

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
# Kernels with headers installed, newest last; the default is the running
# kernel when it has headers, else the newest installed (generic before -rt).
HOST_KVERS := $(shell ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' | sort -V)
NEWEST := $(lastword $(or $(filter-out %-rt-amd64,$(HOST_KVERS)),$(HOST_KVERS)))
KVER ?= $(if $(wildcard /lib/modules/$(shell uname -r)/build),$(shell uname -r),$(NEWEST))
KDIR ?= /lib/modules/$(KVER)/build
# Debian 13's kernels (7.x from trixie-backports): their headers need gcc-14
# and glibc 2.38, so they are built and unpacked in a Debian 13 root made on
# demand (scripts/kernel-root, build/roots/trixie/), never installed here.
# The matrix, those included, is scripts/kernels.list (make deps installs its
# host kernels, so HOST_KVERS above are they).
ROOT_KVERS ?= $(shell scripts/kernels-list where=root)
KVERS := $(HOST_KVERS) $(ROOT_KVERS)
# Flavours that can boot in the VM: headers and a kernel image.
VM_KVERS := $(foreach k,$(HOST_KVERS),$(if $(wildcard /boot/vmlinuz-$(k)),$(k))) $(ROOT_KVERS)
# make for kernel $(1): in the Debian 13 root for its kernels, else here
kmake = $(if $(filter %+deb13-amd64 %+deb13-rt-amd64,$(1)),scripts/kernel-root run $(1) make,$(MAKE))

B := build
# when this make began: check targets that pass write a line to
# docs/proofs.tsv (scripts/proof-record), read by make kernels
PROOF_T0 := $(shell date +%s)
MOD_SRC := Kbuild dkms.conf $(wildcard module/*.c module/*.h)
HELPERS := $(patsubst selftests/helpers/%.c,$(B)/helpers/%,$(wildcard selftests/helpers/*.c))
# the CLI's layers (docs/hacking.md, Layout), without main
CLI_C := tools/mdcli.c tools/mdmodel.c tools/mdemit.c tools/mdprom.c tools/mdparse.c
TOOL_SRC := $(CLI_C) tools/mdcli.h tools/mdmodel.h tools/mdemit.h tools/mdprom.h tools/mdparse.h
TOOL_CFLAGS := -O2 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2
# The test helpers are static for the VM's initramfs; packages link them
# dynamically (HELPER_LDFLAGS=).  CPPFLAGS, CFLAGS and LDFLAGS from the
# environment (dpkg-buildflags) come after ours.
HELPER_LDFLAGS ?= -static
USER_FLAGS = $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 30
CHECKPATCH := $(B)/checkpatch/scripts/checkpatch.pl
DKMS_SRC := /usr/src/memcg_dirty-$(VERSION)
W ?= 1
# Benchmarks: page-types and the kbuild stand-in's tree come from linux-source.
LINUX_SRC_TAR ?= $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
BENCH_SRC := $(B)/bench/linux

all: module cli

module: $(B)/$(KVER)/memcg_dirty.ko
	ln -sf $(B)/$(KVER)/memcg_dirty.ko memcg_dirty.ko

# One copy of the sources per kernel release: Kbuild writes objects next to them.
$(B)/%/memcg_dirty.ko: $(MOD_SRC)
	@if scripts/kernel-root known $*; then scripts/kernel-root ensure $*; \
	else test -d /lib/modules/$*/build || { echo "no headers for $*: apt-get install linux-headers-$*"; exit 1; }; fi
	scripts/stage-module $(B)/$*
	$(call kmake,$*) -C $(if $(filter $(KVER),$*),$(KDIR),/lib/modules/$*/build) M=$(CURDIR)/$(B)/$* W=$(W) \
		modules > $(B)/$*/build.log 2>&1 || { cat $(B)/$*/build.log; exit 1; }
	@cat $(B)/$*/build.log
	@! grep -E 'warning:|error:' $(B)/$*/build.log || { echo "build for $* is not warning-free"; exit 1; }

# The zoo (selftests/zoo/): accounting bugs staged for the selftests, built
# for each kernel beside the module, never installed or packaged.
$(B)/%/zoo/md_zoo.ko: selftests/zoo/md_zoo.c selftests/zoo/zoo_compat.h selftests/zoo/Kbuild
	@if scripts/kernel-root known $*; then scripts/kernel-root ensure $*; fi
	mkdir -p $(dir $@)
	cp selftests/zoo/md_zoo.c selftests/zoo/zoo_compat.h selftests/zoo/Kbuild $(dir $@)
	$(call kmake,$*) -C /lib/modules/$*/build M=$(CURDIR)/$(dir $@) W=$(W) modules \
		> $(dir $@)build.log 2>&1 || { cat $(dir $@)build.log; exit 1; }
	@! grep -E 'warning:|error:' $(dir $@)build.log || { echo "the zoo for $* is not warning-free"; exit 1; }

modules-all:
	@test -n "$(HOST_KVERS)" || { echo "no kernel headers installed: make deps"; exit 1; }
	@for k in $(KVERS); do $(MAKE) --no-print-directory $(B)/$$k/memcg_dirty.ko $(B)/$$k/zoo/md_zoo.ko || exit 1; done

helpers: $(HELPERS) $(B)/helpers/memcg-dirty $(B)/helpers/mdpromcheck
$(B)/helpers/%: selftests/helpers/%.c
	@mkdir -p $(B)/helpers
	$(CC) $(HELPER_LDFLAGS) -O2 -Wall -Wextra -Werror $(USER_FLAGS) -o $@ $<

# The CLI: dynamic for this machine, static copies for the test VM.
cli: $(B)/tools/memcg-dirty
$(B)/tools/memcg-dirty: tools/memcg-dirty.c $(TOOL_SRC)
	@mkdir -p $(B)/tools
	$(CC) $(TOOL_CFLAGS) $(USER_FLAGS) -o $@ tools/memcg-dirty.c $(CLI_C)
$(B)/helpers/memcg-dirty: tools/memcg-dirty.c $(TOOL_SRC)
	@mkdir -p $(B)/helpers
	$(CC) -static $(TOOL_CFLAGS) -o $@ tools/memcg-dirty.c $(CLI_C)
$(B)/helpers/mdpromcheck: tools/mdpromcheck.c tools/mdparse.c tools/mdparse.h
	@mkdir -p $(B)/helpers
	$(CC) $(HELPER_LDFLAGS) $(TOOL_CFLAGS) $(USER_FLAGS) -o $@ tools/mdpromcheck.c tools/mdparse.c

# Host unit tests of the CLI against fixture trees, under ASan and UBSan.
unit: $(TOOL_SRC) tools/test_memcg_dirty.c
	@mkdir -p $(B)/tools
	$(CC) -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $(B)/tools/test_memcg_dirty tools/test_memcg_dirty.c $(CLI_C)
	$(B)/tools/test_memcg_dirty
	@# the benchmark report's arithmetic and verdicts, on a fixture
	sh bench/tests/test_report.sh
	@# what the console and dmesg checks spare, on made-up logs
	sh selftests/vm/test-kmsg-filter

# libFuzzer on the parsers: FUZZ_SECONDS in make check, longer by hand.  It
# starts from the checked-in corpus (FUZZ_CORPUS: the fixture trees' files, the
# CLI's textfile of one, and what earlier runs found); what this run finds goes
# to $(B)/fuzz/corpus, and make fuzz-corpus merges what adds coverage into
# FUZZ_CORPUS, to be committed.
FUZZ_CORPUS := tools/fuzz-corpus
fuzz: tools/fuzz_mdparse.c tools/mdparse.c tools/mdparse.h tools/mdmodel.c tools/mdmodel.h
	@mkdir -p $(B)/fuzz/corpus
	clang -g -O1 -fsanitize=fuzzer,address,undefined -o $(B)/fuzz/fuzz_mdparse \
		tools/fuzz_mdparse.c tools/mdparse.c tools/mdmodel.c
	@$(B)/fuzz/fuzz_mdparse -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		$(B)/fuzz/corpus $(FUZZ_CORPUS) > $(B)/fuzz/log 2>&1; rc=$$?; \
		grep -E '^(Done|stat::number_of_executed_units)' $(B)/fuzz/log; \
		test $$rc = 0 || { tail -n 40 $(B)/fuzz/log; echo "fuzz: the parser failed"; exit 1; }

fuzz-long:
	$(MAKE) fuzz FUZZ_SECONDS=1800

# after make fuzz or fuzz-long: the inputs that reach code (edges, not hit
# counts, to keep it small) the checked-in corpus does not
fuzz-corpus:
	@test -x $(B)/fuzz/fuzz_mdparse || { echo "fuzz-corpus: make fuzz first"; exit 1; }
	$(B)/fuzz/fuzz_mdparse -merge=1 -use_counters=0 $(FUZZ_CORPUS) $(B)/fuzz/corpus > $(B)/fuzz/merge.log 2>&1 || \
		{ tail -n 20 $(B)/fuzz/merge.log; exit 1; }
	@grep '^MERGE-OUTER: .* new files' $(B)/fuzz/merge.log

# The Prometheus rules (packaging/prometheus/) and the CLI's textfile, with
# Debian's promtool: check rules, test rules (and that broken rules fail
# them), check metrics on fixture trees, 10,000 cgroups' size and time.
prom: cli
	@packaging/prometheus/tests/run $(B)/tools/memcg-dirty

clean:
	rm -rf $(B) memcg_dirty.ko

# make install: the module for KVER, and the tools.  PREFIX and DESTDIR
# are honoured; the packages' build uses install-tools (the module comes
# from DKMS there).
SELFTESTS_DIR = $(DESTDIR)$(PREFIX)/lib/memcg-dirty/selftests
install: install-module install-tools

install-module: module
	install -D -m 0644 $(B)/$(KVER)/memcg_dirty.ko $(DESTDIR)/lib/modules/$(KVER)/updates/memcg_dirty.ko
	$(if $(DESTDIR),@echo "install: into $(DESTDIR): depmod left to the package",depmod -a $(KVER))

# The CLI and the man pages (its own, and the module's interface); the
# Prometheus rules (share/memcg-dirty/prometheus); the selftests with their list (Makefile), their
# settings and their helpers (bin/, which lib.sh puts on PATH).
tools: cli $(HELPERS) $(B)/helpers/mdpromcheck

install-tools: tools
	install -D -m 0755 $(B)/tools/memcg-dirty $(DESTDIR)$(PREFIX)/sbin/memcg-dirty
	install -D -m 0644 tools/memcg-dirty.8 $(DESTDIR)$(PREFIX)/share/man/man8/memcg-dirty.8
	install -D -m 0644 tools/memcg_dirty.4 $(DESTDIR)$(PREFIX)/share/man/man4/memcg_dirty.4
	install -D -m 0644 packaging/prometheus/memcg-dirty.rules.yml \
		$(DESTDIR)$(PREFIX)/share/memcg-dirty/prometheus/memcg-dirty.rules.yml
	install -d $(SELFTESTS_DIR)/bin
	install -m 0755 selftests/*.sh $(SELFTESTS_DIR)/
	chmod 0644 $(SELFTESTS_DIR)/lib.sh
	install -m 0644 selftests/Makefile selftests/settings selftests/kmsg-filter.awk $(SELFTESTS_DIR)/
	install -m 0755 $(HELPERS) $(B)/helpers/mdpromcheck $(SELFTESTS_DIR)/bin/

deb:
	@scripts/deb

deps:
	@scripts/deps

# the kernel matrix, what its last runs proved, and newer kernels to prove
kernels:
	@scripts/kernels $(KVERS)

# DKMS: the source goes to /usr/src/memcg_dirty-VERSION; add, build, install.
dkms-install:
	rm -rf $(DKMS_SRC) && scripts/stage-module $(DKMS_SRC)
	dkms status -m memcg_dirty -v $(VERSION) | grep -q . || dkms add -m memcg_dirty -v $(VERSION)
	dkms build -m memcg_dirty -v $(VERSION) -k $(KVER)
	dkms install -m memcg_dirty -v $(VERSION) -k $(KVER) --force

dkms-uninstall:
	-dkms remove -m memcg_dirty -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# add -> build -> install -> modinfo -> remove for every installed flavour,
# without loading anything on this machine.
dkms-check:
	@scripts/dkms-check $(HOST_KVERS)
	@# Debian 13's kernels: the same round trip, in their root, with its dkms
	@for k in $(ROOT_KVERS); do scripts/kernel-root ensure $$k || exit 1; done
	@$(if $(ROOT_KVERS),scripts/kernel-root run $(firstword $(ROOT_KVERS)) \
		$(CURDIR)/scripts/dkms-check $(ROOT_KVERS))

$(CHECKPATCH):
	@test -r /usr/src/linux-source-6.1.tar.xz || { echo "lint needs linux-source-6.1: make deps"; exit 1; }
	mkdir -p $(B)/checkpatch
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C $(B)/checkpatch --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	touch $@

# The shell scripts, with shellcheck at warning level: -x follows what a
# script sources (selftests' lib.sh, bench's defaults.sh), found beside it.
SH_SCRIPTS := $(filter-out scripts/kernels.list scripts/fstests.list scripts/boot-runner,$(wildcard scripts/*)) $(wildcard selftests/*.sh selftests/vm/* bench/run bench/steps bench/*.sh \
	bench/tests/*.sh packaging/prometheus/tests/run packaging/prometheus/tests/fixture)
lint-sh:
	@command -v shellcheck > /dev/null || { echo "lint needs shellcheck: make deps"; exit 1; }
	@echo "shellcheck -x -P SCRIPTDIR -S warning: $(words $(SH_SCRIPTS)) scripts"
	@shellcheck -x -P SCRIPTDIR -S warning $(SH_SCRIPTS)

# checkpatch --strict on every module source, sparse on every flavour, the
# IBT rule (no call through a looked-up pointer) on every build, and the
# module's files depending in one direction, and no loop counting node ids;
# and the shell scripts (lint-sh).
lint: lint-sh $(CHECKPATCH) modules-all
	$(CHECKPATCH) --no-tree --strict --quiet --show-types --ignore FILE_PATH_CHANGES \
		-f $(filter-out module/compat.%,$(wildcard module/*.c module/*.h)) bench/floor/md_floor.c \
		selftests/zoo/md_zoo.c
	@# the compat layers are where LINUX_VERSION_CODE belongs, by design
	$(CHECKPATCH) --no-tree --strict --quiet --show-types --ignore FILE_PATH_CHANGES \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f module/compat.c module/compat.h \
		selftests/zoo/zoo_compat.h
	@scripts/sparse-check $(KVERS)
	@scripts/ibt-check $(foreach k,$(KVERS),$(B)/$(k)/memcg_dirty.ko $(B)/$(k)/zoo/md_zoo.ko)
	@scripts/layers-check
	@scripts/nodes-check

vm-check: modules-all helpers
	@scripts/vm-check $(VM_KVERS)

# the parallel-boot runner of vm-check, check-audit and check-debug, with a
# stub in place of selftests/vm/run: no VM (not part of check)
test-boot-runner:
	@selftests/vm/test-boot-runner

# The audit's ten-minute false-alarm run (selftests/md_audit_soak.sh with
# MD_SOAK_S=600) on every kernel, two at a time.  Not part of check.
check-audit: modules-all helpers
	@scripts/check-audit $(VM_KVERS)
	@scripts/proof-record check-audit $(PROOF_T0) $(VM_KVERS)

# where make check's time goes: each step's header says how far in it starts
CHECK_AT = at $$(($$(date +%s) - $(PROOF_T0))) s

check: deps
	@echo "== build (W=1) for: $(KVERS) ($(CHECK_AT))"
	@$(MAKE) --no-print-directory modules-all helpers
	@echo "== lint ($(CHECK_AT))"
	@$(MAKE) --no-print-directory lint
	@echo "== unit tests and fuzzing of the CLI ($(CHECK_AT))"
	@$(MAKE) --no-print-directory cli unit fuzz
	@echo "== Prometheus: the rules' tests, the textfile (promtool) ($(CHECK_AT))"
	@$(MAKE) --no-print-directory prom
	@echo "== dkms ($(CHECK_AT))"
	@$(MAKE) --no-print-directory dkms-check
	@echo "== Debian packages (lintian-clean) ($(CHECK_AT))"
	@$(MAKE) --no-print-directory deb
	@echo "== selftests in the VM ($(CHECK_AT))"
	@$(MAKE) --no-print-directory vm-check
	@echo "== make check: all passed ($(CHECK_AT))"
	@scripts/proof-record check $(PROOF_T0) $(VM_KVERS)

# The debug kernel (scripts/debug-kernel: KASAN, lockdep, kmemleak, ... from
# linux-source-6.1, cached under build/debug-kernel/, never installed), and the
# whole suite on it and on the generic 6.1 booted with preempt=full
# (scripts/check-debug).  Not part of check: about an hour on 2 cores.
DEBUG_KERNEL_DEPS := bc bison flex libelf-dev libssl-dev
debug-kernel:
	@scripts/deps $(DEBUG_KERNEL_DEPS)
	@scripts/debug-kernel

# The operator's path in a full Debian guest (scripts/check-system): the
# packages installed with apt, DKMS, modprobe, a systemd scope's check, the
# installed selftests, the textfile service, a kernel upgrade and a reboot
# into it, apt purge.  DIST: bookworm (Debian 12, 6.1 then 6.12; the
# default) or trixie (Debian 13, 6.12 then 7.3); the releases and their
# kernels are in scripts/system-dist.  check-system-all runs both, one after
# the other, and fails if either does.  Not part of check (docs/testing.md).
DIST ?= bookworm
check-system: deb
	@scripts/check-system --dist $(DIST)
	@scripts/proof-record check-system-$(DIST) $(PROOF_T0) $$(scripts/system-dist $(DIST) | awk '{ print $$2, $$3 }')

check-system-all: deb
	@rc=0; for d in $$(scripts/system-dist); do t0=$$(date +%s); \
		echo "== check-system on $$d"; \
		if scripts/check-system --dist $$d; then scripts/proof-record check-system-$$d $$t0 \
			$$(scripts/system-dist $$d | awk '{ print $$2, $$3 }'); else rc=1; fi; done; exit $$rc

# The guest of check-system booted by OVMF's Secure Boot firmware through
# Debian's signed shim, grub and 6.1 kernel, the DKMS key enrolled as a MOK
# in the variable store (scripts/check-secureboot): lockdown, the packages,
# DKMS's signature, modprobe, a key not enrolled refused, the audit on a bug
# staged by the zoo.  virt-fw-vars (python3-virt-firmware) comes from
# bookworm-backports: the script installs that one package.  Not part of
# check (docs/testing.md).
SECUREBOOT_DEPS := ovmf dosfstools mtools fdisk
check-secureboot: deb
	@scripts/deps $(SECUREBOOT_DEPS)
	@scripts/check-secureboot
	@scripts/proof-record check-secureboot $(PROOF_T0) $$(scripts/system-dist bookworm | awk '{ print $$2 }')

check-debug:
	@scripts/deps $(DEBUG_KERNEL_DEPS)
	@$(MAKE) --no-print-directory helpers
	@scripts/check-debug
	@scripts/proof-record check-debug $(PROOF_T0) 6.1-debug-kernel 6.1-preempt=full

# The bug kernels (scripts/kernel-build bugs: linux-source-6.1, and 7.3 in
# the Debian 13 root, with kernels/bugs/LINE/*.patch; cached under
# build/bugs-kernel/, never installed) and one boot per bug of
# kernels/bugs/list plus a control per kernel (scripts/check-bugs).
# Not part of check: see docs/ci.md and docs/testing.md for its time.
check-bugs:
	@scripts/deps $(DEBUG_KERNEL_DEPS) patch
	@$(MAKE) --no-print-directory helpers
	@scripts/check-bugs
	@scripts/proof-record check-bugs $(PROOF_T0) $$(awk '/^[^#]/ && NF { n = split($$2, l, ","); for (i = 1; i <= n; i++) print l[i] "-bugs" }' kernels/bugs/list | sort -u)

# The filesystems' regression suite with the audit on (scripts/check-fstests):
# the module for each kernel asked for (KVER=, default 6.1.0-57-amd64; all:
# the matrix), unless BASELINE=1 or MD_BUILD= names another build, and the
# CLI; the script's own variables pass through.  Not part of check: hours
# under TCG, run in parts (docs/testing.md, docs/field.md).
FSTESTS_VARS := FS TESTS LONG BASELINE COUNT LIMIT FRESH FSTESTS MODARGS HUNG MD_BUILD MEM SMP
from_user = $(filter command line environment%,$(origin $(1)))
check-fstests:
	@kv="$(if $(call from_user,KVER),$(KVER),6.1.0-57-amd64)"; \
	[ "$$kv" != all ] || kv=$$(scripts/kernels-list | tr '\n' ' '); \
	if [ "$(BASELINE)" != 1 ] && [ -z "$(MD_BUILD)" ]; then \
		for k in $$kv; do $(MAKE) --no-print-directory $(B)/$$k/memcg_dirty.ko || exit 1; done; fi; \
	$(MAKE) --no-print-directory $(B)/helpers/memcg-dirty && \
	scripts/check-fstests KVER="$$kv" $(foreach v,$(FSTESTS_VARS),$(if $(call from_user,$(v)),'$(v)=$($(v))'))

# deps first, then a new make: KVER is only known once headers are installed
demo: deps
	@$(MAKE) --no-print-directory demo-run
demo-run:
	@mkdir -p $(B)/vm/$(KVER)
	@echo "demo: building memcg_dirty.ko for $(KVER) (log: $(B)/demo-build.log)"
	@$(MAKE) --no-print-directory module helpers > $(B)/demo-build.log 2>&1 || \
		{ cat $(B)/demo-build.log; exit 1; }
	@echo "demo: booting $(KVER) in the test VM (about a minute under TCG; console: $(B)/vm/$(KVER)/demo.log)"
	@selftests/vm/run --kver $(KVER) --brief --timeout 600 --log $(B)/vm/$(KVER)/demo.log -- sh ./demo.sh

vm: module helpers
	selftests/vm/run --kver $(KVER) --shell

# --- benchmarks (bench/README.md); bench/run boots each flavour once
BENCH_TOOLS := $(B)/bench/mdbench $(B)/bench/page-types $(B)/bench/kbuild.tar
bench: deps modules-all helpers bench-tools $(foreach k,$(VM_KVERS),$(B)/bench/floor-$(k)/md_floor.ko)
	@scripts/deps gnuplot-nox gdb
	bench/run $(BENCH_ARGS)

bench-tools: $(BENCH_TOOLS)

$(B)/bench/mdbench: bench/mdbench.c
	@mkdir -p $(B)/bench
	$(CC) -static -O2 -Wall -Wextra -Werror -o $@ $<

# the probe points with empty (or counting-only) handlers: the floor the
# module is measured against; it shares the module's compat layer
$(B)/bench/floor-%/md_floor.ko: bench/floor/md_floor.c bench/floor/Kbuild module/compat.h
	mkdir -p $(dir $@)
	cp bench/floor/md_floor.c bench/floor/Kbuild module/compat.h $(dir $@)
	$(call kmake,$*) -C /lib/modules/$*/build M=$(CURDIR)/$(dir $@) W=$(W) modules > $(dir $@)build.log 2>&1 || \
		{ cat $(dir $@)build.log; exit 1; }
	@! grep -E 'warning:|error:' $(dir $@)build.log

# tools/ and include/ of the kernel source: page-types and the tree unpacked
$(BENCH_SRC)/.extracted:
	@test -n "$(LINUX_SRC_TAR)" || { echo "no /usr/src/linux-source-*.tar.xz: make deps"; exit 1; }
	rm -rf $(BENCH_SRC) && mkdir -p $(BENCH_SRC)
	tar -xJf $(LINUX_SRC_TAR) -C $(BENCH_SRC) --strip-components=1 \
		$(basename $(basename $(notdir $(LINUX_SRC_TAR))))/tools \
		$(basename $(basename $(notdir $(LINUX_SRC_TAR))))/include
	touch $@

# the kernel's own page-types, static for the busybox guest
$(B)/bench/page-types: $(BENCH_SRC)/.extracted
	env -u MAKEFLAGS -u MFLAGS $(MAKE) -s -C $(BENCH_SRC)/tools/vm page-types \
		LDFLAGS='../lib/api/libapi.a -static' > $(B)/bench/page-types.log 2>&1 || \
		{ cat $(B)/bench/page-types.log; exit 1; }
	cp $(BENCH_SRC)/tools/vm/page-types $@

# a file-creation-heavy stand-in for kbuild: include/ (about 6,000 files),
# as a tar the guest reads from a raw disk; a whole number of MiB
$(B)/bench/kbuild.tar: $(BENCH_SRC)/.extracted
	tar -cf $@ -C $(BENCH_SRC) include
	truncate -s %1M $@

.PHONY: kernels bench bench-tools all module modules-all helpers cli unit fuzz fuzz-long fuzz-corpus prom clean install deps \
	install-module install-tools tools deb dkms-install dkms-uninstall \
	dkms-check lint lint-sh vm-check check demo demo-run vm debug-kernel check-debug check-bugs check-audit \
	check-secureboot check-system check-system-all test-boot-runner check-fstests
