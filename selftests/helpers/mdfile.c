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
 *   mdfile dontcache FILE PAGES      uncached buffered writes (pwritev2
 *                                    RWF_DONTCACHE, 6.14 on) of PAGES fresh
 *                                    pages, in writes of 16 pages: writeback
 *                                    starts at once and the folios leave the
 *                                    cache when it ends; exit 4 if the kernel
 *                                    or the filesystem refuses the flag
 *   mdfile syncrange FILE FIRST PAGES
 *                                    write back (and wait for) pages FIRST to
 *                                    FIRST+PAGES-1 of FILE alone
 *                                    (sync_file_range()), the rest left dirty
 *   mdfile wbtrunc FILE PAGES ROUNDS ROUNDS times: PAGES pages written,
 *                                    their writeback started (sync_file_range
 *                                    WRITE), the file truncated at once;
 *                                    prints "rounds N"
 *   mdfile churn   FILE STOP         until STOP exists or FILE is removed: a
 *                                    page of FILE written and the file
 *                                    truncated, over and over with no pause
 *                                    (its memcg is never still through a page
 *                                    scan); prints "rounds N"
 *   mdfile direct  FILE PAGES        O_DIRECT write over the first PAGES pages
 *   mdfile migrate FILE NODE         map the file, move_pages() it to NODE;
 *                                    prints "moved N of M"
 *   mdfile nodes   FILE              prints "nodeN=COUNT" for the mapped pages
 *   mdfile largedirty FILE PAGES     PAGES pages in large folios, dirty: write
 *                                    and fsync them, drop them from the cache,
 *                                    read them back (readahead allocates large
 *                                    folios where the filesystem allows them),
 *                                    then pwrite a byte to every page in place
 *   mdfile folios  FILE              how the file's cached pages lie in folios,
 *                                    measured in /proc/kpageflags (root):
 *                                    "folios N pages P large_folios L
 *                                    large_pages LP dirty_large_pages DP",
 *                                    "sizes PAGES:FOLIOS...",
 *                                    "dirty_large nodeN=PAGES..."
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
 *   mdfile catch CPU PID FUNC FLAG    on CPU, as SCHED_FIFO (above fifohog's
 *                                    and mapsync's priority), print
 *                                    "looking", then every 500 us
 *                                    wake, preempting PID there, and read its
 *                                    /proc stack; once FUNC is in it, print
 *                                    "caught after N looks" and spin while
 *                                    FLAG exists (PID stays where it was),
 *                                    60 s at most ("released after 60 s");
 *                                    "missed N looks" if PID ends first;
 *                                    PID is not kept where it would stop
 *                                    RCU's grace periods (let go, looked
 *                                    for again: "N in an RCU reader")
 *   mdfile catch CPU PID FUNC FLAG reader
 *                                    the same, but PID is kept only inside
 *                                    an RCU reader (no grace period ends
 *                                    while it is held), 10 s at most
 *   mdfile mapsync FILE MAPS CPU GO   map FILE shared MAPS times and fault every
 *                                    page in through each (each cleaning then
 *                                    walks MAPS mappings), print "ready", wait
 *                                    for GO to exist, then on CPU as SCHED_FIFO
 *                                    write FILE back and wait: sync_file_range
 *                                    in this task; print "synced"
 *   mdfile startwb FILE CPU FILE2 CPU2
 *                                    on CPU, start writeback of FILE
 *                                    (sync_file_range), then on CPU2 that of
 *                                    FILE2: one task cleaning both, in turn
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MPOL_MF_MOVE (1 << 1)
/* Documentation/admin-guide/mm/pagemap.rst */
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define KPF_DIRTY 4
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define MAX_NODES 64
#define NR_ORDERS 32

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

/*
 * ROUNDS times: PAGES fresh pages written at 0, their writeback started
 * (sync_file_range WRITE, no wait), the file truncated at once: truncation
 * waits for each folio's writeback to end, then frees it, as the end runs
 * (739f79fc9db1's race).  More pages than a CPU's LRU batch (15), so that
 * most are on the LRU, not held by a batch, when truncation frees them.
 */
static void do_wbtrunc(const char *file, long pages, long rounds)
{
	char *buf = malloc(page_size);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long r, i;

	if (fd < 0 || !buf)
		die("open", file);
	memset(buf, 0x5a, page_size);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < pages; i++)
			if (pwrite(fd, buf, page_size, i * page_size) != page_size)
				die("pwrite", file);
		if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE))
			die("sync_file_range", file);
		if (ftruncate(fd, 0))
			die("ftruncate", file);
	}
	printf("rounds %ld\n", rounds);
	close(fd);
	free(buf);
}

/*
 * Whether a churn goes on: STOP not there and FILE still linked (a test
 * that ended early and removed its directory stops it too).
 */
static int churn_goes_on(int fd, const char *stop)
{
	struct stat st;

	return access(stop, F_OK) && !fstat(fd, &st) && st.st_nlink;
}

/*
 * Asked every 64 rounds: the gap a round leaves between its truncation and
 * the next write stays a few system calls long.
 */
static void do_churn(const char *file, const char *stop)
{
	char *buf = malloc(page_size);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long rounds = 0;

	if (fd < 0 || !buf)
		die("open", file);
	memset(buf, 0x5a, page_size);
	while (rounds % 64 || churn_goes_on(fd, stop)) {
		if (pwrite(fd, buf, page_size, 0) != page_size)
			die("pwrite", file);
		if (ftruncate(fd, 0))
			die("ftruncate", file);
		rounds++;
	}
	printf("rounds %ld\n", rounds);
	close(fd);
	free(buf);
}

static void do_syncrange(const char *file, long first, long pages)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0)
		die("open", file);
	if (sync_file_range(fd, first * page_size, pages * page_size,
			    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
			    SYNC_FILE_RANGE_WAIT_AFTER))
		die("sync_file_range", file);
	close(fd);
}

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE	0x00000080	/* include/uapi/linux/fs.h, 6.14 */
#endif

static void do_dontcache(const char *file, long pages)
{
	const long chunk = 16;
	struct iovec iov;
	long i, n;
	int fd = open(file, O_WRONLY | O_CREAT, 0644);

	iov.iov_len = chunk * page_size;
	iov.iov_base = malloc(iov.iov_len);
	if (fd < 0 || !iov.iov_base)
		die("open", file);
	memset(iov.iov_base, 0x5a, iov.iov_len);
	for (i = 0; i < pages; i += chunk) {
		n = pages - i < chunk ? pages - i : chunk;
		iov.iov_len = n * page_size;
		if (pwritev2(fd, &iov, 1, i * page_size, RWF_DONTCACHE) == (ssize_t)iov.iov_len)
			continue;
		if (errno == EOPNOTSUPP || errno == EINVAL) {
			fprintf(stderr, "mdfile: RWF_DONTCACHE refused on %s: %s\n", file,
				strerror(errno));
			exit(4);
		}
		die("pwritev2 RWF_DONTCACHE", file);
	}
	close(fd);
	free(iov.iov_base);
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

static void do_largedirty(const char *file, long pages)
{
	const off_t chunk = 1 << 20;
	char *buf = malloc(chunk);
	off_t size = pages * page_size, off;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || !buf)
		die("open", file);
	memset(buf, 0x5a, chunk);
	for (off = 0; off < size; off += chunk) {
		off_t n = size - off < chunk ? size - off : chunk;

		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			die("pwrite", file);
	}
	if (fsync(fd))
		die("fsync", file);
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (errno)
		die("fadvise DONTNEED", file);
	/* SEQUENTIAL doubles the readahead window: larger folios */
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (errno)
		die("fadvise SEQUENTIAL", file);
	for (off = 0; off < size; off += chunk)
		if (pread(fd, buf, chunk, off) < 0)
			die("pread", file);
	for (off = 0; off < size; off += page_size)
		if (pwrite(fd, "d", 1, off) != 1)
			die("pwrite", file);
	close(fd);
	free(buf);
}

/* The flags of page frame PFN, from /proc/kpageflags. */
static uint64_t kpageflags(int fd, uint64_t pfn)
{
	uint64_t flags;

	if (pread(fd, &flags, sizeof(flags), pfn * sizeof(flags)) != sizeof(flags))
		die("read", "/proc/kpageflags");
	return flags;
}

/* mdfile folios: the counts, and the addresses of the dirty large pages */
struct folio_count {
	long folios, pages, large_folios, large_pages, dirty_large;
	long by_order[NR_ORDERS];
	void **dirty_addrs;
	/* the large folio being walked */
	long head, nr;
	uint64_t head_pfn;
	int head_dirty;
};

static void end_folio(struct folio_count *c)
{
	int order = 0;

	if (!c->nr)
		return;
	while ((1L << order) < c->nr && order < NR_ORDERS - 1)
		order++;
	c->by_order[order]++;
	c->nr = 0;
}

/*
 * Walk the file's cached pages by index.  A large folio's pages lie at
 * consecutive indices and page frames, its head first.  6.1 reports
 * kpageflags from the page itself, and only the head carries PG_dirty, so
 * a tail takes the dirty state of the head it follows.
 */
static void do_folios(const char *file)
{
	struct folio_count c = { 0 };
	long i, n, node[MAX_NODES] = { 0 };
	int fd = open(file, O_RDONLY), pmfd, kfd, *status;
	unsigned char *vec;
	struct stat st;
	uint64_t *pm;
	char *p = MAP_FAILED;

	if (fd < 0 || fstat(fd, &st))
		die("open", file);
	pmfd = open("/proc/self/pagemap", O_RDONLY);
	kfd = open("/proc/kpageflags", O_RDONLY);
	if (pmfd < 0 || kfd < 0)
		die("open", "/proc/self/pagemap, /proc/kpageflags");
	n = (st.st_size + page_size - 1) / page_size;
	no_collapse();
	if (n)
		p = mmap(NULL, n * page_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(n + 1);
	pm = calloc(n + 1, sizeof(*pm));
	c.dirty_addrs = calloc(n + 1, sizeof(void *));
	status = calloc(n + 1, sizeof(int));
	if ((n && p == MAP_FAILED) || !vec || !pm || !c.dirty_addrs || !status)
		die("mmap", file);
	/* fault in only what is cached: the walk must not read pages in */
	if (n && mincore(p, n * page_size, vec))
		die("mincore", file);
	for (i = 0; i < n; i++)
		if (vec[i] & 1)
			(void)*(volatile char *)(p + i * page_size);
	if (n && pread(pmfd, pm, n * sizeof(*pm), (uintptr_t)p / page_size * sizeof(*pm)) !=
		 (ssize_t)(n * sizeof(*pm)))
		die("read", "/proc/self/pagemap");
	for (i = 0; i < n; i++) {
		uint64_t pfn = pm[i] & PM_PFN_MASK, f;

		if (!(vec[i] & 1) || !(pm[i] & PM_PRESENT))
			continue;
		if (!pfn) {
			fprintf(stderr, "mdfile: pagemap shows no page frames (needs root)\n");
			exit(1);
		}
		f = kpageflags(kfd, pfn);
		c.pages++;
		if ((f & (1ULL << KPF_COMPOUND_TAIL)) && c.nr &&
		    i - c.head == c.nr && pfn - c.head_pfn == (uint64_t)c.nr) {
			c.nr++;
			c.large_pages++;
			if (c.head_dirty)
				c.dirty_addrs[c.dirty_large++] = p + i * page_size;
			continue;
		}
		end_folio(&c);
		c.folios++;
		if (!(f & (1ULL << KPF_COMPOUND_HEAD))) {
			/* a small folio, or a tail whose head is not mapped here */
			c.by_order[0]++;
			continue;
		}
		c.large_folios++;
		c.large_pages++;
		c.head = i;
		c.head_pfn = pfn;
		c.nr = 1;
		c.head_dirty = !!(f & (1ULL << KPF_DIRTY));
		if (c.head_dirty)
			c.dirty_addrs[c.dirty_large++] = p + i * page_size;
	}
	end_folio(&c);
	printf("folios %ld pages %ld large_folios %ld large_pages %ld dirty_large_pages %ld\n",
	       c.folios, c.pages, c.large_folios, c.large_pages, c.dirty_large);
	printf("sizes");
	for (i = 0; i < NR_ORDERS; i++)
		if (c.by_order[i])
			printf(" %ld:%ld", 1L << i, c.by_order[i]);
	/* where the dirty large pages are: move_pages(2) without nodes asks */
	if (c.dirty_large &&
	    syscall(SYS_move_pages, 0, c.dirty_large, c.dirty_addrs, NULL, status, 0) < 0)
		die("move_pages", file);
	for (i = 0; i < c.dirty_large; i++)
		if (status[i] >= 0 && status[i] < MAX_NODES)
			node[status[i]]++;
	printf("\ndirty_large");
	for (i = 0; i < MAX_NODES; i++)
		if (node[i])
			printf(" node%ld=%ld", i, node[i]);
	printf("\n");
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

static void set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler", "SCHED_FIFO");
}

/* Whether @pid's kernel stack names @func (a frame "func+0x..."). */
static int in_stack(const char *path, const char *func, int *gone)
{
	char buf[4096], want[128];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		*gone = 1;
		return 0;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	snprintf(want, sizeof(want), "] %s+", func);
	return strstr(buf, want) != NULL;
}

/* membarrier(2)'s command that waits for an RCU grace period */
#define MEMBARRIER_CMD_GLOBAL 1

/*
 * A child, on a CPU other than the held one, waits for an RCU grace period
 * whenever asked (a byte on gp_ask), and answers (a byte on gp_answer: 0
 * ended, 1 refused): membarrier(MEMBARRIER_CMD_GLOBAL) is
 * synchronize_rcu().  Started before the catcher turns SCHED_FIFO on the
 * held CPU: a child forked there later would never run to move away.
 */
static int gp_ask, gp_answer;

static void start_grace_periods(long held_cpu)
{
	int ask[2], answer[2];
	pid_t child;
	char c;

	if (pipe(ask) || pipe(answer))
		die("pipe", "");
	child = fork();
	if (child < 0)
		die("fork", "");
	if (child == 0) {
		close(ask[1]);
		close(answer[0]);
		pin_to(held_cpu ? 0 : 1);
		while (read(ask[0], &c, 1) == 1) {
			c = syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) ? 1 : 0;
			if (write(answer[1], &c, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(ask[0]);
	close(answer[1]);
	gp_ask = ask[1];
	gp_answer = answer[0];
}

/* The answer to the last question: 0 ended, 1 refused, -1 not yet. */
static int grace_period_end(int wait)
{
	struct pollfd pfd = { .fd = gp_answer, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, wait ? -1 : 0) == 0)
		return -1;
	return read(gp_answer, &c, 1) == 1 ? c : 1;
}

static void refused(void)
{
	printf("missed: membarrier cannot wait for an RCU grace period\n");
	exit(0);
}

static void ask_grace_period(void)
{
	if (write(gp_ask, "?", 1) != 1)
		die("write", "grace period pipe");
}

/* How long a grace period takes here, nothing held: microseconds. */
static long grace_period_us(void)
{
	long t = now_us();

	ask_grace_period();
	if (grace_period_end(1))
		refused();
	return now_us() - t;
}

/*
 * Whether the held task holds up RCU's grace periods: one does not end
 * within @limit_us, this CPU kept.  It was preempted inside an RCU
 * read-side critical section (preemptible RCU: in pte_offset_map_lock(),
 * say).  Kept there, it stalls every grace period, and with them a removed
 * memcg's offlining; kept there 21 s, the console reports an RCU stall.
 * If so, the question stays open until the task goes on (wait_grace_period()).
 */
static int holds_grace_periods(long limit_us)
{
	long end = now_us() + limit_us;
	int r;

	ask_grace_period();
	while ((r = grace_period_end(0)) < 0 && now_us() < end)
		;
	if (r > 0)
		refused();
	return r < 0;
}

/* Let the task go on, out of its reader: until the grace period ends. */
static void wait_grace_period(void)
{
	if (grace_period_end(1) > 0)
		refused();
}

/*
 * The longest catch holds its task: a test that never lets go (its flag's
 * removal stuck behind the held task, say) fails instead of hanging.  One
 * held inside an RCU reader, well before RCU's stall warning (21 s).
 */
#define CATCH_HOLD_MAX_S 60
#define CATCH_READER_HOLD_MAX_S 10

static void do_catch(long cpu, long pid, const char *func, const char *flag,
		     int want_reader)
{
	int max_s = want_reader ? CATCH_READER_HOLD_MAX_S : CATCH_HOLD_MAX_S;
	struct timespec tick = { 0, 500 * 1000 };
	char path[64];
	long looks = 0, in_reader = 0, outside = 0, end, limit_us;
	int gone = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stack", pid);
	/*
	 * Above PID before on its CPU: pinned there first, a SCHED_OTHER
	 * catcher waited for the SCHED_FIFO task to sleep, and looked only
	 * once its work was done.
	 */
	start_grace_periods(cpu);
	set_fifo(20);
	pin_to(cpu);
	/* well above what a grace period takes when nothing stalls it */
	limit_us = 1000000 + 20 * grace_period_us();
	printf("looking\n");
	fflush(stdout);
	while (!gone) {
		nanosleep(&tick, NULL);
		looks++;
		if (!in_stack(path, func, &gone))
			continue;
		if (holds_grace_periods(limit_us)) {
			in_reader++;
			if (!want_reader) {
				wait_grace_period();
				continue;
			}
		} else {
			outside++;
			if (want_reader)
				continue;
		}
		printf("caught after %ld looks (%ld in an RCU reader, %ld outside)\n",
		       looks, in_reader, outside);
		fflush(stdout);
		end = now_us() + max_s * 1000000L;
		while (!access(flag, F_OK))
			if (now_us() > end) {
				printf("released after %d s: %s still there\n", max_s, flag);
				return;
			}
		return;
	}
	printf("missed %ld looks (%ld in an RCU reader, %ld outside)\n", looks, in_reader,
	       outside);
}

static void do_mapsync(const char *file, long maps, long cpu, const char *go)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	volatile char sum = 0;
	long pages = -1, m, i;
	int fd;

	for (m = 0; m < maps; m++) {
		char *p = map_file(file, -1, PROT_READ, &fd);
		struct stat st;

		if (fstat(fd, &st))
			die("stat", file);
		pages = st.st_size / page_size;
		for (i = 0; i < pages; i++)
			sum += p[i * page_size];
		if (m < maps - 1)
			close(fd);
	}
	printf("ready %ld pages %ld maps\n", pages, maps);
	fflush(stdout);
	while (access(go, F_OK))
		nanosleep(&tick, NULL);
	pin_to(cpu);
	set_fifo(5);
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
			    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER))
		die("sync_file_range", file);
	printf("synced\n");
	close(fd);
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
	else if (argc == 5 && !strcmp(argv[1], "syncrange"))
		do_syncrange(argv[2], parse_count(argv[3]), parse_count(argv[4]));
	else if (argc == 5 && !strcmp(argv[1], "wbtrunc"))
		do_wbtrunc(argv[2], parse_count(argv[3]), parse_count(argv[4]));
	else if (argc == 4 && !strcmp(argv[1], "churn"))
		do_churn(argv[2], argv[3]);
	else if (argc == 4 && !strcmp(argv[1], "dontcache"))
		do_dontcache(argv[2], parse_count(argv[3]));
	else if (argc == 4 && !strcmp(argv[1], "direct"))
		do_direct(argv[2], parse_count(argv[3]));
	else if (argc == 4 && !strcmp(argv[1], "migrate"))
		do_migrate(argv[2], (int)parse_count(argv[3]));
	else if (argc == 3 && !strcmp(argv[1], "nodes"))
		do_nodes(argv[2]);
	else if (argc == 4 && !strcmp(argv[1], "largedirty"))
		do_largedirty(argv[2], parse_count(argv[3]));
	else if (argc == 3 && !strcmp(argv[1], "folios"))
		do_folios(argv[2]);
	else if (argc == 5 && !strcmp(argv[1], "mapwait"))
		do_mapwait(argv[2], parse_count(argv[3]), parse_count(argv[4]));
	else if (argc == 3 && !strcmp(argv[1], "hog"))
		do_hog(parse_count(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "readloop"))
		do_readloop(argv[2], parse_count(argv[3]));
	else if (argc == 6 && !strcmp(argv[1], "fifohog"))
		do_fifohog(parse_count(argv[2]), parse_count(argv[3]), parse_count(argv[4]),
			   parse_count(argv[5]));
	else if (argc == 6 && !strcmp(argv[1], "catch"))
		do_catch(parse_count(argv[2]), parse_count(argv[3]), argv[4], argv[5], 0);
	else if (argc == 7 && !strcmp(argv[1], "catch") && !strcmp(argv[6], "reader"))
		do_catch(parse_count(argv[2]), parse_count(argv[3]), argv[4], argv[5], 1);
	else if (argc == 6 && !strcmp(argv[1], "mapsync"))
		do_mapsync(argv[2], parse_count(argv[3]), parse_count(argv[4]), argv[5]);
	else if (argc == 6 && !strcmp(argv[1], "startwb")) {
		start_wb_on(argv[2], parse_count(argv[3]));
		start_wb_on(argv[4], parse_count(argv[5]));
	} else {
		fprintf(stderr, "usage: mdfile write|fsync|dsync|mmap|mmapnosync FILE PAGES |\n"
				"       dontneed FILE | dontcache FILE PAGES | direct FILE PAGES |\n"
				"       wbtrunc FILE PAGES ROUNDS | churn FILE STOP |\n"
				"       syncrange FILE FIRST PAGES |\n"
				"       migrate FILE NODE |\n"
				"       nodes FILE | largedirty FILE PAGES | folios FILE |\n"
				"       mapwait FILE PAGES SECS | hog MB |\n"
				"       readloop FILE SECS | fifohog CPU BUSY_US IDLE_US SECS |\n"
				"       catch CPU PID FUNC FLAG [reader] |\n"
				"       mapsync FILE MAPS CPU GO | startwb FILE CPU FILE2 CPU2\n");
		return 2;
	}
	return 0;
}
