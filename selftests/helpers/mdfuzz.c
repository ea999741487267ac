// SPDX-License-Identifier: GPL-2.0
/*
 * mdfuzz: hostile writes to a memcg_dirty command file (control, inject).
 *
 *   mdfuzz FILE COUNT SEED
 *
 * Every input is built to be invalid: random bytes, overlong lines, several
 * lines at once, unknown verbs, points and cgroups, numbers out of range,
 * extra or missing arguments, split (partial) writes.  Each write must fail
 * with EINVAL, E2BIG or ENOENT; anything else, or a write that succeeds,
 * is reported and makes the exit status 1.  Prints "writes N rejected N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char * const bad_verbs[] = { "", "Scan", "scan scan", "resync now", "drop",
	"miss", "skew", "unskew", "replay42", "dropp", "scan\rscan", "resync\x01" };
static const char * const bad_args[] = {
	"drop dirtied 0", "drop dirtied -1", "drop dirtied 1000001", "drop nosuch 5",
	"drop dirtied 5 /md_no_such_cgroup", "drop dirtied 5 / extra",
	"drop dirtied 0x10", "drop dirtied 5e3", "miss cleaned_io 0",
	"miss cleaned_io 5 /", "miss nosuch 1", "skew / 0", "skew / 1048577",
	"skew / -1048577", "skew /md_no_such_cgroup 5", "skew / 5 6", "skew /",
	"unskew", "unskew / /", "unskew /md_no_such_cgroup", "replay42",
	"replay42 maybe", "replay42 on off", "drop  dirtied 5", " drop dirtied 5",
	"drop dirtied 99999999999999999999999",
};

static int one(int fd, const char *buf, size_t len, long i)
{
	ssize_t n = write(fd, buf, len);

	if (n >= 0) {
		fprintf(stderr, "mdfuzz: write %ld accepted (%zu bytes): '%.*s'\n", i, len,
			(int)len, buf);
		return 1;
	}
	if (errno != EINVAL && errno != E2BIG && errno != ENOENT) {
		fprintf(stderr, "mdfuzz: write %ld: unexpected %s\n", i, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char buf[512];
	long count, i, bad = 0;
	size_t len, j;
	int fd, kind;

	if (argc != 4) {
		fprintf(stderr, "usage: mdfuzz FILE COUNT SEED\n");
		return 2;
	}
	count = atol(argv[2]);
	srandom(atoi(argv[3]));
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	for (i = 0; i < count; i++) {
		kind = random() % 6;
		switch (kind) {
		case 0:	/* random bytes, always with a non-printable one */
			len = 1 + random() % 60;
			for (j = 0; j < len; j++)
				buf[j] = random();
			buf[0] = 1 + random() % 31;	/* survives a partial write */
			if (buf[len - 1] == '\n')
				buf[len - 1] = 2;
			break;
		case 1:	/* overlong */
			len = 64 + random() % 400;
			memset(buf, 'a' + random() % 26, len);
			break;
		case 2:	/* two lines in one write */
			len = snprintf(buf, sizeof(buf), "scan\nresync\n");
			break;
		case 3:
			len = snprintf(buf, sizeof(buf), "%s\n",
				       bad_verbs[random() % (sizeof(bad_verbs) / sizeof(*bad_verbs))]);
			break;
		default:
			len = snprintf(buf, sizeof(buf), "%s%s",
				       bad_args[random() % (sizeof(bad_args) / sizeof(*bad_args))],
				       random() % 2 ? "\n" : "");
			break;
		}
		/*
		 * A partial write: the first half alone, only of inputs none of
		 * whose prefixes is a valid command.
		 */
		if (kind < 4 && random() % 8 == 0 && len > 2)
			len = len / 2;
		bad += one(fd, buf, len, i);
	}
	printf("writes %ld rejected %ld\n", count, count - bad);
	return bad ? 1 : 0;
}
