// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: kbstat changepoint's row reader (analysis/cpd.c,
 * cpd_read) on the input, then the change-point search on what it read.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/cpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy: fmemopen of a zero-length buffer is undefined */
	char *buf = malloc(size + 1);
	struct cpd_rows r;
	FILE *in;
	int *ch;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	in = size ? fmemopen(buf, size, "r") : NULL;
	if (!in) {
		free(buf);
		return 0;
	}
	if (!cpd_read(in, "fuzz", &r)) {
		ch = malloc((r.n ? r.n : 1) * sizeof(*ch));
		if (!ch)
			abort();
		cpd_find(r.x, r.se, r.n, 0.01, 0.05, ch);
		free(ch);
		cpd_rows_free(&r);
	}
	fclose(in);
	free(buf);
	return 0;
}
