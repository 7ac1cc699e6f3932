/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The regression check's verdict as its report's first lines (gate.c),
 * and the word wrap of the plain-text summaries.
 */
#ifndef KBSTAT_GATE_H
#define KBSTAT_GATE_H

#include <stddef.h>
#include <stdio.h>

/*
 * kbstat gate NEW-VS-OLD.json [--baseline NEW-VS-BASELINE.json]
 * [--series SERIES.tsv] [--format txt|md]: exit 0 PASS, 1 REGRESSION,
 * 2 on an error.
 */
int cmd_gate(int argc, char **argv);
/*
 * text at most width columns a line, broken at blanks; the first line
 * after first, the others after rest. A word longer than a line stays whole.
 */
void text_wrap(FILE *f, const char *first, const char *rest, const char *text,
	       size_t width);

#endif
