/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Change points in a series' history (cpd.c): e-divisive means to place
 * a step, an interval test against the floor to accept it.
 */
#ifndef KBSTAT_CPD_H
#define KBSTAT_CPD_H

#include <stddef.h>

/*
 * x: the log ratios of n revisions in order, se: their standard errors
 * (from the 95 % intervals); floor: the relative minimum effect; alpha:
 * the family-wise false-alarm level of one split. Sets change[i] = 1
 * when a step lies between revision i - 1 and i. Returns the count.
 */
int cpd_find(const double *x, const double *se, size_t n, double floor,
	     double alpha, int *change);

int cmd_changepoint(int argc, char **argv);

#endif
