// SPDX-License-Identifier: GPL-2.0
/*
 * mdfile: the file operations the memcg_dirty selftests need, each one a
 * distinct path through the kernel's dirty accounting.  Built statically so
 * that it runs in the busybox test VM.
 *
 *   mdfile write   FILE PAGES        buffered pwrite of PAGES fresh pages
 *   mdfile mmap    FILE PAGES        shared mapping, store to every page, msync
 *   mdfile mmapnosync FILE PAGES     shared mapping, store to every page, no msync
 *   mdfile fsync   FILE PAGES        buffered write, then fsync
 *   mdfile dsync   FILE PAGES        O_DSYNC write: each page written back
 *                                    as it is written (dirty count near 0)
 *   mdfile dontneed FILE             posix_fadvise(DONTNEED) over the file
 *   mdfile direct  FILE PAGES        O_DIRECT write over the first PAGES pages
 *   mdfile migrate FILE NODE         map the file, move_pages() it to NODE;
 *                                    prints "moved N of M"
 *   mdfile nodes   FILE              prints "nodeN=COUNT" for the mapped pages
 *   mdfile mapwait FILE PAGES SECS   dirty PAGES through a shared mapping, print
 *                                    "mapped", keep the mapping SECS seconds
 *   mdfile hog     MB                touch MB of anonymous memory, then exit
 *   mdfile readloop FILE SECS        keep FILE open, re-read it for SECS seconds;
 *                                    every read must be text or an error, never
 *                                    garbage; prints "reads N errors N"
 *   mdfile fifohog CPU BUSY_US IDLE_US SECS
 *                                    on CPU, as SCHED_FIFO: spin BUSY_US, sleep
 *                                    IDLE_US, for SECS seconds; its wake-ups
 *                                    preempt whatever runs there (a writer in
 *                                    the middle of its accounting); prints
 *                                    "rounds N"
 *   mdfile startwb FILE CPU FILE2 CPU2
 *                                    on CPU, start writeback of FILE
 *                                    (sync_file_range), then on CPU2 that of
 *                                    FILE2: one task cleaning both, in turn
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MPOL_MF_MOVE (1 << 1)

static long page_size;

static void die(const char *what, const char *file)
{
	fprintf(stderr, "mdfile: %s %s: %s\n", what, file, strerror(errno));
	exit(1);
}

static long parse_count(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "mdfile: '%s' is not a count\n", s);
		exit(2);
	}
	return v;
}

static void do_write(const char *file, long pages, int sync, int flags)
{
	char *buf = malloc(page_size);
	int fd = open(file, O_WRONLY | O_CREAT | flags, 0644);
	long i;

	if (fd < 0 || !buf)
		die("open", file);
	memset(buf, 0x5a, page_size);
	for (i = 0; i < pages; i++)
		if (pwrite(fd, buf, page_size, i * page_size) != page_size)
			die("pwrite", file);
	if (sync && fsync(fd))
		die("fsync", file);
	close(fd);
	free(buf);
}

static char *map_file(const char *file, long pages, int prot, int *fdp)
{
	int fd = open(file, O_RDWR | O_CREAT, 0644);
	char *p;

	if (fd < 0)
		die("open", file);
	if (pages < 0) {
		struct stat st;

		if (fstat(fd, &st))
			die("stat", file);
		pages = st.st_size / page_size;
	} else if (ftruncate(fd, pages * page_size)) {
		die("ftruncate", file);
	}
	p = mmap(NULL, pages * page_size, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap", file);
	*fdp = fd;
	return p;
}

static void do_mmap(const char *file, long pages, int msync_it)
{
	int fd;
	char *p = map_file(file, pages, PROT_READ | PROT_WRITE, &fd);
	long i;

	for (i = 0; i < pages; i++)
		p[i * page_size] = 0x6b;
	if (msync_it && msync(p, pages * page_size, MS_SYNC))
		die("msync", file);
	munmap(p, pages * page_size);
	close(fd);
}

static void do_dontneed(const char *file)
{
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		die("open", file);
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (errno)
		die("fadvise", file);
	close(fd);
}

static void do_direct(const char *file, long pages)
{
	int fd = open(file, O_WRONLY | O_DIRECT);
	void *buf;
	long i;

	if (fd < 0)
		die("open O_DIRECT", file);
	if (posix_memalign(&buf, page_size, page_size))
		die("posix_memalign", file);
	memset(buf, 0x3c, page_size);
	for (i = 0; i < pages; i++)
		if (pwrite(fd, buf, page_size, i * page_size) != page_size)
			die("pwrite O_DIRECT", file);
	close(fd);
	free(buf);
}

/*
 * Keep khugepaged off this process's mappings of the file, before it maps
 * it: with THP "always", 7.x's khugepaged collapses the page cache of any
 * mapped regular file whose mapping takes PMD-sized folios (xfs, ext4), and
 * collapse_file() starts writeback of the whole file when it meets a dirty
 * folio of a file not open for write; the pages under test would be
 * written back and refolded behind the test's back.  (6.1 collapses no
 * file pages: READ_ONLY_THP_FOR_FS is off in Debian's kernels.)
 */
static void no_collapse(void)
{
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

/* Fault in every page of the file read-only; returns the page addresses. */
static void **map_pages(const char *file, long *countp)
{
	struct stat st;
	void **addrs;
	char *p;
	long i, n;
	int fd = open(file, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die("open", file);
	n = st.st_size / page_size;
	no_collapse();
	p = mmap(NULL, n * page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap", file);
	addrs = calloc(n, sizeof(*addrs));
	if (!addrs)
		die("calloc", file);
	for (i = 0; i < n; i++) {
		addrs[i] = p + i * page_size;
		(void)*(volatile char *)addrs[i];
	}
	*countp = n;
	return addrs;
}

static void do_migrate(const char *file, int node)
{
	long i, n, moved = 0;
	void **addrs = map_pages(file, &n);
	int *nodes = calloc(n, sizeof(int)), *status = calloc(n, sizeof(int));

	if (!nodes || !status)
		die("calloc", file);
	for (i = 0; i < n; i++)
		nodes[i] = node;
	if (syscall(SYS_move_pages, 0, n, addrs, nodes, status, MPOL_MF_MOVE) < 0)
		die("move_pages", file);
	for (i = 0; i < n; i++)
		moved += status[i] == node;
	printf("moved %ld of %ld\n", moved, n);
}

static void do_nodes(const char *file)
{
	long i, n, count[64] = { 0 };
	void **addrs = map_pages(file, &n);
	int *status = calloc(n, sizeof(int));

	if (!status)
		die("calloc", file);
	if (syscall(SYS_move_pages, 0, n, addrs, NULL, status, 0) < 0)
		die("move_pages", file);
	for (i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] < 64)
			count[status[i]]++;
	for (i = 0; i < 64; i++)
		if (count[i])
			printf("node%ld=%ld\n", i, count[i]);
}

static void do_mapwait(const char *file, long pages, long secs)
{
	int fd;
	char *p = map_file(file, pages, PROT_READ | PROT_WRITE, &fd);
	long i;

	for (i = 0; i < pages; i++)
		p[i * page_size] = 0x4d;
	printf("mapped\n");
	fflush(stdout);
	sleep(secs);
}

static void do_hog(long mb)
{
	long i, n = mb << 20;
	volatile char *p = malloc(n);	/* volatile: the stores must happen */

	if (!p)
		die("malloc", "anonymous memory");
	for (i = 0; i < n; i += page_size)
		p[i] = 1;
	free((void *)p);
}

/* Text: printable ASCII, tabs and newlines, ending in a newline. */
static int is_text(const char *buf, ssize_t n)
{
	ssize_t i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if ((buf[i] < 0x20 || buf[i] > 0x7e) && buf[i] != '\n' && buf[i] != '\t')
			return 0;
	return buf[n - 1] == '\n';
}

static void do_readloop(const char *file, long secs)
{
	static char buf[1 << 20];
	long reads = 0, errors = 0;
	time_t end = time(NULL) + secs;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		die("open", file);
	while (time(NULL) < end) {
		ssize_t n, total = 0;

		if (lseek(fd, 0, SEEK_SET) < 0) {
			errors++;
			continue;
		}
		while ((n = read(fd, buf + total, sizeof(buf) - 1 - total)) > 0)
			total += n;
		if (n < 0) {
			errors++;
			continue;
		}
		reads++;
		if (!is_text(buf, total)) {
			printf("garbage after %ld reads\n", reads);
			exit(1);
		}
	}
	printf("reads %ld errors %ld\n", reads, errors);
}

static void pin_to(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity", "");
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void do_fifohog(long cpu, long busy_us, long idle_us, long secs)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct timespec idle = { idle_us / 1000000, idle_us % 1000000 * 1000 };
	long end = now_us() + secs * 1000000L, rounds = 0, t;

	pin_to(cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler", "SCHED_FIFO");
	while ((t = now_us()) < end) {
		while (now_us() < t + busy_us)
			;
		nanosleep(&idle, NULL);
		rounds++;
	}
	printf("rounds %ld\n", rounds);
}

static void start_wb_on(const char *file, long cpu)
{
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		die("open", file);
	pin_to(cpu);
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE))
		die("sync_file_range", file);
	close(fd);
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	if (argc == 4 && !strcmp(argv[1], "write"))
		do_write(argv[2], parse_count(argv[3]), 0, 0);
	else if (argc == 4 && !strcmp(argv[1], "fsync"))
		do_write(argv[2], parse_count(argv[3]), 1, 0);
	else if (argc == 4 && !strcmp(argv[1], "dsync"))
		do_write(argv[2], parse_count(argv[3]), 0, O_DSYNC);
	else if (argc == 4 && !strcmp(argv[1], "mmap"))
		do_mmap(argv[2], parse_count(argv[3]), 1);
	else if (argc == 4 && !strcmp(argv[1], "mmapnosync"))
		do_mmap(argv[2], parse_count(argv[3]), 0);
	else if (argc == 3 && !strcmp(argv[1], "dontneed"))
		do_dontneed(argv[2]);
	else if (argc == 4 && !strcmp(argv[1], "direct"))
		do_direct(argv[2], parse_count(argv[3]));
	else if (argc == 4 && !strcmp(argv[1], "migrate"))
		do_migrate(argv[2], (int)parse_count(argv[3]));
	else if (argc == 3 && !strcmp(argv[1], "nodes"))
		do_nodes(argv[2]);
	else if (argc == 5 && !strcmp(argv[1], "mapwait"))
		do_mapwait(argv[2], parse_count(argv[3]), parse_count(argv[4]));
	else if (argc == 3 && !strcmp(argv[1], "hog"))
		do_hog(parse_count(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "readloop"))
		do_readloop(argv[2], parse_count(argv[3]));
	else if (argc == 6 && !strcmp(argv[1], "fifohog"))
		do_fifohog(parse_count(argv[2]), parse_count(argv[3]), parse_count(argv[4]),
			   parse_count(argv[5]));
	else if (argc == 6 && !strcmp(argv[1], "startwb")) {
		start_wb_on(argv[2], parse_count(argv[3]));
		start_wb_on(argv[4], parse_count(argv[5]));
	} else {
		fprintf(stderr, "usage: mdfile write|fsync|dsync|mmap|mmapnosync FILE PAGES |\n"
				"       dontneed FILE | direct FILE PAGES | migrate FILE NODE |\n"
				"       nodes FILE | mapwait FILE PAGES SECS | hog MB |\n"
				"       readloop FILE SECS | fifohog CPU BUSY_US IDLE_US SECS |\n"
				"       startwb FILE CPU FILE2 CPU2\n");
		return 2;
	}
	return 0;
}
