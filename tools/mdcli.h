/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDCLI_H
#define MDCLI_H
#include <stdio.h>

/* The whole CLI, callable from tests: returns the exit status. */
int md_cli(int argc, char **argv, FILE *out, FILE *err);

#endif
