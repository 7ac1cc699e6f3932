// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: kbstat's raw sample reader (analysis/raw.c) on one CSV,
 * the input. The file's workload name (which every row must repeat) is
 * taken from the first field of the second line, so rows get past that
 * check and the later ones are fuzzed too.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/raw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	struct raw raw = { 0 };
	char stem[64] = "w";
	char *copy;
	FILE *fp;

	if (nl) {
		size_t off = (size_t)(nl + 1 - (const char *)data), n = 0;

		while (off + n < size && n < sizeof(stem) - 1 &&
		       data[off + n] != ',' && data[off + n] != '\n' && data[off + n])
			n++;
		memcpy(stem, data + off, n);
		stem[n] = '\0';
	}
	/* fmemopen wants a buffer of at least one byte */
	copy = malloc(size + 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	fp = fmemopen(copy, size ? size : 1, "r");
	if (!fp)
		abort();
	if (!size)
		fgetc(fp);	/* an empty file: at EOF from the start */
	raw_load_csv(&raw, fp, "fuzz.csv", stem, 0, 0);
	fclose(fp);
	raw_free(&raw);
	free(copy);
	return 0;
}
