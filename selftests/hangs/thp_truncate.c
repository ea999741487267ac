// SPDX-License-Identifier: GPL-2.0
/*
 * thp_truncate: the khugepaged/truncate deadlock seen on Debian's 7.3.4
 * (../shared/kernel-notes.md, "Seen on 2026-12-06"), without fstests and
 * without memcg_dirty.
 *
 * The cycle it closes (7.3's mm/khugepaged.c, mm/readahead.c, fs/ext4/inode.c):
 * khugepaged's collapse_file() locks the range's page-cache folios one by one
 * and, at the first index with no folio, calls page_cache_sync_readahead(),
 * which takes the mapping's invalidate_lock shared (page_cache_ra_order() or
 * do_page_cache_ra()) with those folios still locked; ext4_setattr() takes the
 * invalidate_lock for write and then truncate_inode_pages_range() locks every
 * folio from the new size on.  A truncation that takes the lock while
 * khugepaged is in that loop waits for a folio khugepaged holds, and
 * khugepaged waits for the lock.  Before 7.2 khugepaged collapsed only files
 * not open for writing, and only with CONFIG_READ_ONLY_THP_FOR_FS (off in
 * Debian's 6.12, which collapses no ext4 file), so nothing could truncate the
 * range during the collapse.
 *
 * What the program does, in a child process: FILE (on ext4) is made 2 MiB
 * long, sparse, and mapped shared and writable, 2 MiB aligned, with
 * MADV_HUGEPAGE.  Each cycle truncates it to 0 and back to 2 MiB, reads every
 * other page of it (pread on a POSIX_FADV_RANDOM descriptor, so one small
 * folio a page), touches those pages through the mapping (read only), and
 * has the lru caches drained (POSIX_FADV_DONTNEED on a mapped page), so that
 * khugepaged finds a clean, collapsible range whose holes it must read in.
 * Then it waits (at most a second) for khugepaged to start a collapse (the
 * 2 MiB collapse_alloc counter moves; /proc/vmstat's thp_collapse_alloc where
 * there is none) and at once truncates the file down, to 0 or to 64 KiB by
 * turns.  Nothing is written: a dirty folio makes khugepaged give a writable
 * file's range up, and a fault on a hole under MADV_HUGEPAGE would read the
 * whole range in as one huge folio.
 *
 * The parent watches the cycles: if none ends for STALL seconds it prints
 * HANG, asks for the blocked tasks' stacks (sysrq w, when /proc/sysrq-trigger
 * is writable) and exits 2, the child left blocked.  After SECONDS without
 * that it prints the counts (cycles, collapses seen starting, khugepaged's
 * pages_collapsed, which also counts its visits to ranges already mapped by
 * a PMD) and exits 0.
 *
 * usage: thp_truncate FILE [SECONDS [STALL]]   (defaults 120 and 30)
 * Not part of make check: scripts/hang-thp-truncate boots it in the VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HPAGE		(2UL << 20)
#define PAGE		4096UL
#define KH		"/sys/kernel/mm/transparent_hugepage/khugepaged/"
/* 7.x; 6.12 has no per-size collapse counters, /proc/vmstat has the sum */
#define MTHP_ALLOC	"/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats/collapse_alloc"

/* shared with the watching parent: the child may never return */
static struct counters {
	atomic_ulong cycles, starts, waits;
	atomic_long last_size;
	atomic_int stop;
} *c;

static void die(const char *what)
{
	fprintf(stderr, "thp_truncate: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(const char *path, const char *val)
{
	int f = open(path, O_WRONLY);

	if (f < 0)
		return;
	if (write(f, val, strlen(val)) < 0)
		fprintf(stderr, "thp_truncate: %s: %s\n", path, strerror(errno));
	close(f);
}

static long get(const char *path)
{
	char buf[32] = "";
	int f = open(path, O_RDONLY);
	ssize_t n;

	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* khugepaged's collapse allocations: its collapse_file() has just begun */
static int alloc_fd = -1, alloc_vmstat;

static long collapse_allocs(void)
{
	static char buf[16384];
	ssize_t n = pread(alloc_fd, buf, sizeof(buf) - 1, 0);
	char *p;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!alloc_vmstat)
		return strtol(buf, NULL, 10);
	p = strstr(buf, "\nthp_collapse_alloc ");
	return p ? strtol(p + 20, NULL, 10) : -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cut(int fd, off_t size)
{
	atomic_store(&c->last_size, size);
	if (ftruncate(fd, size))
		die("ftruncate");
}

static void child(const char *path)
{
	static char buf[PAGE];
	volatile char sink = 0;
	char *area, *map;
	int fd, rfd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	rfd = open(path, O_RDONLY);
	if (fd < 0 || rfd < 0)
		die(path);
	/* one small folio a page read, no readahead window */
	if (posix_fadvise(rfd, 0, 0, POSIX_FADV_RANDOM))
		die("posix_fadvise(RANDOM)");
	cut(fd, HPAGE);
	/* a 2 MiB aligned window, so that khugepaged takes the range */
	area = mmap(NULL, 2 * HPAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		die("mmap");
	area = (char *)(((uintptr_t)area + HPAGE - 1) & ~(HPAGE - 1));
	map = mmap(area, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap file");
	if (madvise(map, HPAGE, MADV_HUGEPAGE))
		fprintf(stderr, "thp_truncate: madvise(MADV_HUGEPAGE): %s\n", strerror(errno));

	while (!atomic_load(&c->stop)) {
		unsigned long n = atomic_load(&c->cycles);
		long a0, a;
		double end;

		/* the range emptied, every other page read back in */
		cut(fd, 0);
		cut(fd, HPAGE);
		for (unsigned long off = 0; off < HPAGE; off += 2 * PAGE)
			if (pread(rfd, buf, PAGE, off) != (ssize_t)PAGE)
				die("pread");
		/* mapped: khugepaged unmaps each folio it isolates */
		for (unsigned long off = 0; off < HPAGE; off += 2 * PAGE)
			sink += map[off];
		/* page 0 is mapped, so this drains every cpu's lru cache */
		posix_fadvise(rfd, 0, PAGE, POSIX_FADV_DONTNEED);

		/* the truncation meets the collapse's locking loop */
		a0 = collapse_allocs();
		end = now() + 1.0;
		do
			a = collapse_allocs();
		while (a == a0 && now() < end);
		if (a != a0)
			atomic_fetch_add(&c->starts, 1);
		else
			atomic_fetch_add(&c->waits, 1);
		cut(fd, n % 2 ? 16 * PAGE : 0);
		atomic_fetch_add(&c->cycles, 1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned long n0 = 0, n;
	int secs = argc > 2 ? atoi(argv[2]) : 120;
	int stall = argc > 3 ? atoi(argv[3]) : 30;
	long pc0;
	int el, still = 0, status;
	pid_t pid;

	if (argc < 2 || secs <= 0 || stall <= 0) {
		fprintf(stderr, "usage: thp_truncate FILE [SECONDS [STALL]]\n");
		return 2;
	}
	alloc_fd = open(MTHP_ALLOC, O_RDONLY);
	if (alloc_fd < 0) {
		alloc_fd = open("/proc/vmstat", O_RDONLY);
		alloc_vmstat = 1;
	}
	if (alloc_fd < 0 || collapse_allocs() < 0)
		fprintf(stderr, "thp_truncate: no collapse_alloc counter: truncating blind\n");
	/* khugepaged at its busiest, as the hang was met under load */
	put(KH "scan_sleep_millisecs", "10");
	put(KH "alloc_sleep_millisecs", "10");
	pc0 = get(KH "pages_collapsed");
	printf("thp_truncate: THP %s, pages_collapsed %ld at start, collapse starts from %s\n",
	       pc0 < 0 ? "absent" : "present", pc0, alloc_vmstat ? "/proc/vmstat" : MTHP_ALLOC);
	fflush(stdout);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		die("mmap counters");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child(argv[1]);
	for (el = 1; el <= secs; el++) {
		sleep(1);
		if (waitpid(pid, &status, WNOHANG) == pid) {
			fprintf(stderr, "thp_truncate: the child ended (status %#x)\n", status);
			return 1;
		}
		n = atomic_load(&c->cycles);
		still = n == n0 ? still + 1 : 0;
		n0 = n;
		if (still >= stall) {
			printf("thp_truncate: HANG: no cycle for %d s at %d s, in ftruncate to %ld (%lu cycles, %lu collapse starts met, pages_collapsed %ld)\n",
			       stall, el, atomic_load(&c->last_size), n,
			       atomic_load(&c->starts), get(KH "pages_collapsed"));
			fflush(stdout);
			put("/proc/sysrq-trigger", "w");
			sleep(2);
			return 2;
		}
	}
	atomic_store(&c->stop, 1);
	waitpid(pid, &status, 0);
	printf("thp_truncate: no hang in %d s: %lu cycles, %lu collapse starts met, %lu waits without one, pages_collapsed %ld\n",
	       secs, n0, atomic_load(&c->starts), atomic_load(&c->waits), get(KH "pages_collapsed"));
	return 0;
}
