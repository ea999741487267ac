// SPDX-License-Identifier: GPL-2.0
/* memcg-dirty: see memcg-dirty.8 and mdcli.c. */
#include "mdcli.h"

int main(int argc, char **argv)
{
	return md_cli(argc, argv, stdout, stderr);
}
