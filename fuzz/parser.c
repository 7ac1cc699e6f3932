// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: one program workload's output parser,
 * workloads/parsers/KB_PARSER.awk (fuzz.mk builds one harness a parser,
 * parse_<name>), on one sample's output (the input), through
 * workloads/parsers/parse.sh as the guest runner calls it
 * (fuzz/parser-driver.sh). Property: see sh.h; the driver adds that
 * every row printed is a whole kbbench CSV row.
 */
#include <stdio.h>

#include "sh.h"

#ifndef KB_PARSER
#error "KB_PARSER: the parser's name, as -DKB_PARSER='\"perf-bench\"'"
#endif

static char out[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(out, sizeof(out), "%s/output", sh_init("parse_" KB_PARSER));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *const argv[] = {
		"/bin/bash", KB_TOP "/fuzz/parser-driver.sh", KB_PARSER, out,
		NULL,
	};

	sh_write(out, data, size);
	sh_check(argv);
	return 0;
}
