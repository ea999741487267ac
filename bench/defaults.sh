# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The benchmarks' defaults, in one place: sourced by bench/run on the host
# and by bench/guest.sh in the guest (bench/run ships this file beside it,
# selftests/vm/run --add), so POSIX sh for the guest's busybox.  bench/run's
# options and the environment (BENCH_PAIRS, BENCH_WORKLOADS) override them;
# bench/run --help and bench/README.md quote the numbers.
# shellcheck disable=SC2034	# read by the scripts that source this

# off/on pairs per workload (rounds of three in the floor; runs of scan and scale)
BENCH_DEFAULT_PAIRS=10
# write faults single-stepped per variant in the steps section (bench/steps)
BENCH_DEFAULT_FAULTS=15
# cgroup counts of the scale section (summary, check, rmmod, memory)
BENCH_DEFAULT_SCALE="10 100 1000 10000"
# the workloads of the 4.2 commit's table, all that --workloads may name
BENCH_DEFAULT_WORKLOADS="dd100 dd200 dd1000 kbuild read_fault write_fault dirty writeback"
# pages the writeback workload writes with 4 KiB pwrites, then fsyncs
BENCH_WB_PAGES=8192
# MiB of the RAM disk (brd) the workloads' ext4 is on under --icount
BENCH_RAM_MB=768
