// SPDX-License-Identifier: GPL-2.0
/*
 * mdbench: the timed parts of memcg_dirty's benchmarks (bench/guest.sh),
 * built statically for the busybox test VM.  Each call prints one sample.
 *
 *   mdbench time [-o OUT] CMD [ARG...]
 *                                run CMD (its stdout to OUT), print its wall
 *                                time in seconds
 *   mdbench read FILE            open and read FILE whole, print seconds
 *   mdbench write FILE TEXT      one write(2) of TEXT to FILE, print seconds
 *   mdbench fault read|write FILE [REPS]
 *                                map FILE shared and touch every page once;
 *                                print cycles per fault (rdtsc over the whole
 *                                loop / minor faults taken) and the faults.
 *                                The pages are in the page cache and clean
 *                                before the loop: no I/O is timed, a write
 *                                fault is page_mkwrite plus the dirtying.
 *   mdbench dirty FILE MIB [REPS]
 *                                pwrite MIB of fresh 4 KiB pages to a new
 *                                FILE, then truncate it: print ns per page
 *                                for each (dirtying and cancelling)
 * With REPS, the loop runs REPS times and the median is printed: one
 * sample that a host hiccup cannot move.
 *
 * Only ratios between runs with and without the module matter: in an
 * emulated guest rdtsc and the clock are not native time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define PAGE 4096L

static void die(const char *what, const char *file)
{
	fprintf(stderr, "mdbench: %s %s: %s\n", what, file, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t cycles(void)
{
	unsigned int aux;

	_mm_lfence();
	return __rdtscp(&aux);
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int do_time(char **argv)
{
	const char *out = NULL;
	double t0;
	int status;
	pid_t pid;

	if (!strcmp(argv[0], "-o") && argv[1] && argv[2]) {
		out = argv[1];
		argv += 2;
	}
	t0 = now();
	pid = fork();
	if (pid < 0)
		die("fork", argv[0]);
	if (!pid) {
		if (out && !freopen(out, "w", stdout))
			die("open", out);
		execvp(argv[0], argv);
		die("exec", argv[0]);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("wait", argv[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "mdbench: %s failed (status %#x)\n", argv[0], status);
		return 1;
	}
	printf("%.6f\n", now() - t0);
	return 0;
}

static int do_read(const char *file)
{
	static char buf[1 << 16];
	double t0 = now();
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		die("open", file);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		die("read", file);
	close(fd);
	printf("%.6f\n", now() - t0);
	return 0;
}

static int do_write(const char *file, const char *text)
{
	size_t len = strlen(text);
	double t0;
	int fd;

	fd = open(file, O_WRONLY);
	if (fd < 0)
		die("open", file);
	t0 = now();
	if (write(fd, text, len) != (ssize_t)len)
		die("write", file);
	printf("%.6f\n", now() - t0);
	close(fd);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int parse_reps(int argc, char **argv, int at)
{
	int reps = argc > at ? atoi(argv[at]) : 1;

	if (reps < 1 || reps > 1000) {
		fprintf(stderr, "mdbench: repetitions must be 1..1000\n");
		exit(2);
	}
	return reps;
}

/* one pass of the fault loop: cycles per fault, or -1 without a fault */
static double fault_pass(int fd, const char *file, long pages, int write, long *faults)
{
	volatile char *map;
	uint64_t c0, c1;
	long i, f0;
	char byte;

	/* every page cached and clean: the loop times faults, not I/O */
	for (i = 0; i < pages; i++)
		if (pread(fd, &byte, 1, i * PAGE) != 1)
			die("pread", file);
	if (fsync(fd))
		die("fsync", file);
	map = mmap(NULL, pages * PAGE, write ? PROT_READ | PROT_WRITE : PROT_READ,
		   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap", file);

	f0 = minor_faults();
	c0 = cycles();
	if (write)
		for (i = 0; i < pages; i++)
			map[i * PAGE] = 1;
	else
		for (i = 0; i < pages; i++)
			byte = map[i * PAGE];
	c1 = cycles();
	*faults = minor_faults() - f0;
	(void)byte;
	munmap((void *)map, pages * PAGE);
	return *faults > 0 ? (double)(c1 - c0) / *faults : -1;
}

static int do_fault(int argc, char **argv)
{
	const char *kind = argv[2], *file = argv[3];
	int write = !strcmp(kind, "write");
	int reps = parse_reps(argc, argv, 4), r;
	double v[1000];
	struct stat st;
	long pages, faults = 0;
	int fd;

	if (!write && strcmp(kind, "read")) {
		fprintf(stderr, "mdbench: fault takes read or write, not '%s'\n", kind);
		return 2;
	}
	fd = open(file, O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		die("open", file);
	pages = st.st_size / PAGE;
	if (!pages) {
		fprintf(stderr, "mdbench: %s is empty\n", file);
		return 2;
	}
	for (r = 0; r < reps; r++) {
		v[r] = fault_pass(fd, file, pages, write, &faults);
		if (v[r] < 0) {
			fprintf(stderr, "mdbench: no fault taken on %s\n", file);
			return 1;
		}
	}
	if (write && fsync(fd))	/* leave it clean */
		die("fsync", file);
	close(fd);
	printf("%.1f %ld\n", median(v, reps), faults);
	return 0;
}

static int do_dirty(int argc, char **argv)
{
	const char *file = argv[2];
	int reps = parse_reps(argc, argv, 4), r;
	double t0, t1, t2, wr[1000], tr[1000];
	static char buf[PAGE];
	long pages, i;
	char *end;
	int fd;

	pages = strtol(argv[3], &end, 10) * (1 << 20) / PAGE;
	if (*end || pages <= 0) {
		fprintf(stderr, "mdbench: '%s' is not a size in MiB\n", argv[3]);
		return 2;
	}
	memset(buf, 1, sizeof(buf));
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", file);
	for (r = 0; r < reps; r++) {
		t0 = now();
		for (i = 0; i < pages; i++)
			if (pwrite(fd, buf, PAGE, i * PAGE) != PAGE)
				die("pwrite", file);
		t1 = now();
		if (ftruncate(fd, 0))
			die("ftruncate", file);
		t2 = now();
		wr[r] = (t1 - t0) * 1e9 / pages;
		tr[r] = (t2 - t1) * 1e9 / pages;
	}
	close(fd);
	printf("%.1f %.1f\n", median(wr, reps), median(tr, reps));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return do_time(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "read"))
		return do_read(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "fault"))
		return do_fault(argc, argv);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "dirty"))
		return do_dirty(argc, argv);
	fprintf(stderr, "usage: mdbench time [-o OUT] CMD [ARG...] | read FILE | write FILE TEXT | fault read|write FILE [REPS] | dirty FILE MIB [REPS]\n");
	return 2;
}
