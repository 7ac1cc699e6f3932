/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Variant against variant (variants.c): which comparisons a run holds
 * (kbstat variants) and the cover-letter table of one (kbstat cover).
 */
#ifndef KBSTAT_VARIANTS_H
#define KBSTAT_VARIANTS_H

#include <stdio.h>

/*
 * kbstat variants RUN: one line per kernel and pair of variants,
 * "kernel<TAB>base<TAB>new<TAB>workload,...", for every workload with
 * two or more variants and every kernel that has samples of both.
 */
int cmd_variants(int argc, char **argv);
/*
 * kbstat cover RESULTS.json --run RUN [--format txt|md]: the table a
 * workload file's "table =" names, of a variant comparison.
 */
int cmd_cover(int argc, char **argv);

/*
 * The cover table of workload w in rs (a variant comparison), if its
 * workload file names a "table =": returns whether it printed one.
 */
struct results;
struct primary_tab;
int cover_print(FILE *f, const struct results *rs, const struct primary_tab *pt,
		const char *w, int md);

#endif
