/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Variant against variant (variants.c): which comparisons a run holds
 * (kbstat variants) and the cover-letter table of one (kbstat cover).
 */
#ifndef KBSTAT_VARIANTS_H
#define KBSTAT_VARIANTS_H

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

#endif
