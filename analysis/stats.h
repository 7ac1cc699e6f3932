/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbstat statistics core (stats.c): quantiles, rank tests, Welch,
 * Benjamini-Hochberg and the hierarchical bootstrap of the median.
 */
#ifndef KBSTAT_STATS_H
#define KBSTAT_STATS_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s;
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
size_t rng_below(struct rng *r, size_t n);
uint64_t hash_str(uint64_t h, const char *s);

/* Sorts v in place. */
void sort_doubles(double *v, size_t n);
/* Quantile of sorted v, linear interpolation (R type 7). */
double quantile_sorted(const double *v, size_t n, double q);
/* Median of unsorted v (copies). */
double median_of(const double *v, size_t n);
/* Median of v by selection; reorders v. */
double median_inplace(double *v, size_t n);

struct mwu {
	double u1;	/* U of the first sample: pairs x > y, ties count 1/2 */
	double u;	/* min(U1, U2) */
	double p;	/* two-sided */
	int exact;	/* 1: exact null distribution, 0: normal approximation */
	double z;	/* normal approximation only */
};

#define MWU_EXACT_MAX 20

int mwu_test(const double *x, size_t nx, const double *y, size_t ny,
	     struct mwu *out);
void bh_adjust(const double *p, double *adj, size_t n);

/* One kernel's samples for one key, grouped by boot. */
struct boot_set {
	size_t nboots;
	size_t *len;		/* samples per boot */
	double **val;		/* val[b][i] */
	size_t n;		/* total */
	size_t *cap;		/* allocated per boot (raw_boot_set) */
};

/* Hierarchical bootstrap: resample boots, then samples within each. */
void boot_medians(const struct boot_set *bs, struct rng *r, size_t reps,
		  double *out);
/* Above this many samples the bootstrap draws order statistics only. */
#ifndef BOOT_BIG
#define BOOT_BIG 20000
#endif

/* CI_LEVEL, DECISION_LEVEL and the other constants of the method */
#include "method.h"

int percentile_ci(double *v, size_t n, double level, double *lo, double *hi);

/* P(Z >= z), and z with P(Z >= z) = p (0 < p < 1), standard normal. */
double normal_upper(double z);
double normal_upper_quantile(double p);
/* A standard normal draw (Box-Muller). */
double rng_normal(struct rng *r);

/* P(|T| >= t), and t with P(T > t) = upper, Student's t with df. */
double t_p_two_sided(double t, double df);
double t_quantile(double upper, double df);
/* P(X >= x), chi-square with df degrees of freedom. */
double chisq_upper(double x, double df);

struct welch {
	double diff;	/* mean(y) - mean(x) */
	double se, df;	/* df is INFINITY when se is 0 */
	double p;	/* two-sided */
};

int welch(const double *x, size_t nx, const double *y, size_t ny,
	  struct welch *w);
void welch_ci(const struct welch *w, double level, double *lo, double *hi);

struct group_stats {
	size_t n, nboots;
	double median, q1, q3;
	double ci_lo, ci_hi;
	double within_spread, between_spread;	/* NAN when undefined */
	double boot_p;		/* Kruskal-Wallis across boots */
	int boot_warning;
};

void group_stats(const struct boot_set *bs, const double *bmed, size_t reps,
		 struct group_stats *gs);

#endif
