// SPDX-License-Identifier: GPL-2.0
/*
 * mdbp: hold hardware data watchpoints, as a debugger or "perf record -e
 * mem:" would, so that a selftest can see what the watch does when the
 * debug registers are taken.  Built statically for the busybox test VM.
 *
 *   mdbp CPU N    open up to N pinned write watchpoints bound to CPU, print
 *                 "got K" (how many perf gave), and hold them until killed
 */
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long watched[8];

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	int cpu, n, got = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: mdbp CPU N\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	n = atoi(argv[2]);
	if (n < 0 || n > 8) {
		fprintf(stderr, "mdbp: N is 0 to 8\n");
		return 2;
	}
	for (; got < n; got++) {
		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_BREAKPOINT;
		attr.size = sizeof(attr);
		attr.pinned = 1;
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		attr.bp_type = HW_BREAKPOINT_W;
		attr.bp_addr = (unsigned long)&watched[got];
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		if (syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0) < 0)
			break;
	}
	printf("got %d\n", got);
	fflush(stdout);
	for (;;)
		pause();
}
