// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: kbstat's JSON reader (analysis/json.c) on the input, and
 * what kbstat summary and kbstat table read from a results file
 * (results_rows, results_order in analysis/results.c) when it parses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/json.h"
#include "../analysis/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly the input and its NUL: a read past it is caught */
	char *text = malloc(size + 1);
	struct results rs;
	json_t *j;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	j = json_parse(text, "fuzz.json");
	free(text);
	if (!j)
		return 0;
	/* the floor file's checks (kbstat compare --floor) */
	if (json_str(j, "kind"))
		(void)strlen(json_str(j, "kind"));
	(void)json_num(j, "seed");
	if (!results_rows(&rs, j, "fuzz.json", NULL))
		free(results_order(&rs));
	results_free(&rs);
	return 0;
}
