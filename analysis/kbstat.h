/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbstat: statistics, comparisons and verdicts for kbench runs.
 * Shared declarations of the statistics core, the raw CSV loader and
 * the small JSON reader/writer.
 */
#ifndef KBSTAT_H
#define KBSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- statistics (stats.c) ---- */

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

/* The interval shown with every estimate. */
#define CI_LEVEL 0.95
/*
 * The interval a verdict is decided on: its ends are one-sided 95 %
 * bounds, so "worse than the floor" and "inside the floor" are each a
 * one-sided test at 5 % (as in an equivalence test, TOST).
 */
#define DECISION_LEVEL 0.90

int percentile_ci(double *v, size_t n, double level, double *lo, double *hi);

double t_p_two_sided(double t, double df);
double t_quantile(double upper, double df);

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

/* ---- raw samples (raw.c) ---- */

/* BETTER_NONE: informational (rows, bytes, counts): shown, never judged. */
enum better { BETTER_HIGHER, BETTER_LOWER, BETTER_NONE };

/* CSV/JSON name of a direction, and back (-1 if unknown). */
const char *better_name(enum better b);
int better_parse(const char *s);

struct key {
	char *workload, *variant, *point, *metric, *unit, *clock;
	enum better better;
	const char *where;	/* file:line of first sighting */
};

struct sample {
	size_t key, kernel, boot;	/* boot index is global */
	double value;
};

struct raw {
	struct key *keys;
	size_t nkeys;
	struct sample *samples;
	size_t nsamples;
	char **kernels;
	size_t nkernels;
	char **boots;		/* "kernel/boot" */
	size_t *boot_kernel;
	size_t nboots;
	size_t *ktab, ktab_size;	/* key lookup while loading */
	size_t *order, *key_start;	/* samples of key k: order[key_start[k]..] */
};

/* Returns 0, or -1 after printing an error naming the file and line. */
int raw_load(const char *run, struct raw *raw);
long raw_kernel(const struct raw *raw, const char *label);
/* Fills bs with the samples of key k on kernel kern; returns total n. */
size_t raw_boot_set(const struct raw *raw, size_t k, size_t kern,
		    struct boot_set *bs);
void boot_set_free(struct boot_set *bs);

/* ---- JSON (json.c) ---- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	double num;
	char *str;
	size_t n;
	struct jval *items;	/* array items or object values */
	char **names;		/* object member names */
};

struct jval *json_parse_file(const char *path);
const struct jval *json_get(const struct jval *obj, const char *name);
double json_num(const struct jval *obj, const char *name);
const char *json_str(const struct jval *obj, const char *name);

void jw_str(FILE *f, const char *s);
void jw_num(FILE *f, double x);
void jw_kstr(FILE *f, const char *k, const char *s);
void jw_knum(FILE *f, const char *k, double x);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
