// SPDX-License-Identifier: GPL-2.0
/*
 * thp_truncate: the khugepaged/truncate deadlock seen on Debian's 7.3.4
 * (../shared/kernel-notes.md, "Seen on 2026-12-06"), without fstests and
 * without memcg_dirty.  A file of FILE's filesystem (ext4) is mapped shared
 * and writable, 2 MiB aligned, with MADV_HUGEPAGE so that khugepaged
 * collapses it (THP "always" or "madvise"); a thread writes through the
 * mapping, another truncates the file down and up again and writes it with
 * pwrite, over and over.  The main thread watches both: if neither moved
 * for STALL seconds it says so, asks for the blocked tasks' stacks (sysrq w,
 * when /proc/sysrq-trigger is writable) and exits 2; the threads run in a
 * child process, left blocked.  After SECONDS without that it prints
 * khugepaged's pages_collapsed and exits 0.
 *
 * usage: thp_truncate FILE [SECONDS [STALL]]   (defaults 120 and 30)
 * Not part of make check: scripts/hang-thp-truncate boots it in the VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
#define FILE_SIZE	(4 * HPAGE)	/* two huge pages' worth mapped, two more */
#define MAP_SIZE	(2 * HPAGE)
#define SHORT_SIZE	(HPAGE + HPAGE / 2)
#define KH		"/sys/kernel/mm/transparent_hugepage/khugepaged/"

static int fd;
static char *map;
/* shared with the watching parent: the child's threads may never return */
static struct counters {
	atomic_ulong faults, truncs;
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

/* writes through the shared mapping, a byte a page; SIGBUS past EOF is avoided
 * by keeping to the part no truncation removes */
static void *writer(void *arg)
{
	unsigned long i = 0;

	(void)arg;
	while (!atomic_load(&c->stop)) {
		map[(i * 4096) % SHORT_SIZE] = (char)i;
		if (++i % 64 == 0)
			atomic_fetch_add(&c->faults, 1);
	}
	return NULL;
}

/* the file truncated down into the second huge page and up again, and part
 * of the tail written with pwrite: truncate_inode_pages_range() under the
 * invalidate_lock, beside khugepaged's collapse of that huge page, whose
 * holes (the last quarter) it must read in (page_cache_sync_readahead()) */
static void *truncator(void *arg)
{
	static char buf[HPAGE];
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	(void)arg;
	memset(buf, 'x', sizeof(buf));
	while (!atomic_load(&c->stop)) {
		if (ftruncate(fd, SHORT_SIZE) || ftruncate(fd, FILE_SIZE))
			die("ftruncate");
		if (pwrite(fd, buf, HPAGE / 4, SHORT_SIZE) < 0)
			die("pwrite");
		atomic_fetch_add(&c->truncs, 1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long f0 = 0, t0 = 0, f, t;
	int secs = argc > 2 ? atoi(argv[2]) : 120;
	int stall = argc > 3 ? atoi(argv[3]) : 30;
	pthread_t w, tr;
	char *area;
	int el, still = 0, status;
	pid_t pid;
	static char buf[HPAGE];

	if (argc < 2 || secs <= 0 || stall <= 0) {
		fprintf(stderr, "usage: thp_truncate FILE [SECONDS [STALL]]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(argv[1]);
	memset(buf, 'a', sizeof(buf));
	for (unsigned long off = 0; off < FILE_SIZE; off += HPAGE)
		if (pwrite(fd, buf, HPAGE, off) != (ssize_t)HPAGE)
			die("pwrite");
	fsync(fd);
	/* a 2 MiB aligned window, so that khugepaged can map a PMD there */
	area = mmap(NULL, MAP_SIZE + HPAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		die("mmap");
	area = (char *)(((uintptr_t)area + HPAGE - 1) & ~(HPAGE - 1));
	map = mmap(area, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap file");
	if (madvise(map, MAP_SIZE, MADV_HUGEPAGE))
		fprintf(stderr, "thp_truncate: madvise(MADV_HUGEPAGE): %s\n", strerror(errno));
	/* khugepaged at its busiest, as the hang was met under load */
	put(KH "scan_sleep_millisecs", "10");
	put(KH "alloc_sleep_millisecs", "10");
	printf("thp_truncate: THP %s, pages_collapsed %ld at start\n",
	       get(KH "pages_collapsed") < 0 ? "absent" : "present", get(KH "pages_collapsed"));
	fflush(stdout);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		die("mmap counters");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (pthread_create(&w, NULL, writer, NULL) || pthread_create(&tr, NULL, truncator, NULL))
			die("pthread_create");
		pthread_join(w, NULL);
		pthread_join(tr, NULL);
		_exit(0);
	}
	for (el = 1; el <= secs; el++) {
		sleep(1);
		f = atomic_load(&c->faults);
		t = atomic_load(&c->truncs);
		still = (f == f0 && t == t0) ? still + 1 : 0;
		f0 = f;
		t0 = t;
		if (still >= stall) {
			printf("thp_truncate: HANG: no write and no truncation for %d s at %d s (%lu truncations, pages_collapsed %ld)\n",
			       stall, el, t, get(KH "pages_collapsed"));
			fflush(stdout);
			put("/proc/sysrq-trigger", "w");
			sleep(2);
			return 2;
		}
	}
	atomic_store(&c->stop, 1);
	waitpid(pid, &status, 0);
	printf("thp_truncate: no hang in %d s: %lu truncations, pages_collapsed %ld\n",
	       secs, t0, get(KH "pages_collapsed"));
	return 0;
}
