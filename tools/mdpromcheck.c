// SPDX-License-Identifier: GPL-2.0
/* mdpromcheck FILE: strict Prometheus text-format check, for the selftests. */
#include <stdio.h>
#include <stdlib.h>
#include "mdparse.h"

int main(int argc, char **argv)
{
	static char text[1 << 22];
	char err[MD_ERRLEN];
	size_t n;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: mdpromcheck FILE\n");
		return 2;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (md_prom_validate(text, err)) {
		printf("%s: %s\n", argv[1], err);
		return 1;
	}
	printf("%s: valid\n", argv[1]);
	return 0;
}
