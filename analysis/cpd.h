/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Change points in a series' history (cpd.c): e-divisive means to place
 * a step, an interval test against the floor to accept it.
 */
#ifndef KBSTAT_CPD_H
#define KBSTAT_CPD_H

#include <stddef.h>
#include <stdio.h>

/*
 * x: the log ratios of n revisions in order, se: their standard errors
 * (from the 95 % intervals); floor: the relative minimum effect; alpha:
 * the family-wise false-alarm level of one split. Sets change[i] = 1
 * when a step lies between revision i - 1 and i. Returns the count.
 */
int cpd_find(const double *x, const double *se, size_t n, double floor,
	     double alpha, int *change);

/* The rows of kbstat changepoint: one revision each, in order. */
struct cpd_rows {
	size_t n, cap;
	char **label;
	double *x, *se;	/* log ratio, its standard error */
};

/*
 * Reads LABEL<TAB>RATIO<TAB>CI_LO<TAB>CI_HI lines (ratios > 0, the 95 %
 * interval). On bad input: a message naming NAME:line on stderr, -1.
 */
int cpd_read(FILE *in, const char *name, struct cpd_rows *r);
void cpd_rows_free(struct cpd_rows *r);

int cmd_changepoint(int argc, char **argv);

#endif
