// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: kbbench's command-line parser, as "kbbench check" runs it
 * on the host for every point of a plan (bench/kbbench.c, built with its
 * main renamed kbbench_main, and the registered benches). The input is
 * the arguments after "check", one per line: the bench name first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS	64

int kbbench_main(int argc, char **argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *args[MAX_ARGS + 3], *p, *nl;
	int argc = 0;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	args[argc++] = "kbbench";
	args[argc++] = "check";
	/* one argument a line; a NUL ends the input like the end of argv */
	for (p = text; *p && argc < MAX_ARGS + 2; p = nl + 1) {
		nl = strchr(p, '\n');
		args[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
	}
	args[argc] = NULL;
	kbbench_main(argc, args);
	free(text);
	return 0;
}
