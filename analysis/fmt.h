/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers as a report shows them (fmt.c): no more digits than the
 * confidence interval supports, p-values to two significant digits.
 */
#ifndef KBSTAT_FMT_H
#define KBSTAT_FMT_H

#include <stddef.h>
#include <stdio.h>

/* Below this a p-value is shown as "< 1e-6": the tails are not that exact. */
#define P_FLOOR 1e-6

/* x rounded to what [lo, hi] supports; "-" for NaN. */
void fmt_ci(char *b, size_t n, double x, double lo, double hi);
/*
 * Two medians of one row (base, new), both at the digits the wider of
 * their intervals supports: "908" beside "1012", not "1012.0".
 */
void fmt_pair(char *a, char *b, size_t n, const double x[2],
	      const double lo[2], const double hi[2]);
/* fmt_pair with each side's interval: "x [lo, hi]" at the pair's digits */
void fmt_pair_est(char *a, char *b, size_t n, const double x[2],
		  const double lo[2], const double hi[2]);
/* "x [lo, hi]", all three at the precision the interval supports. */
void fmt_est(char *b, size_t n, double x, double lo, double hi);
/* "< 1e-6", or two significant digits ("0.012", "3.4e-5"); "-" for NaN. */
void fmt_p(char *b, size_t n, double p);

/*
 * text at most width columns a line, broken at blanks; the first line
 * after first, the others after rest. A word longer than a line stays whole.
 */
void text_wrap(FILE *f, const char *first, const char *rest, const char *text,
	       size_t width);

#endif
