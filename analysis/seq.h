/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adaptive boots (seq.c): a group-sequential rule for adding boot pairs
 * to an undecided point, whose false-verdict rate holds however often
 * the data is looked at (analysis/README.md, "Adaptive boots").
 */
#ifndef KBSTAT_SEQ_H
#define KBSTAT_SEQ_H

#include <stddef.h>

#define SEQ_MAX_LOOKS 256

enum seq_spend {
	SEQ_OBF,	/* Lan-DeMets O'Brien-Fleming type */
	SEQ_POCOCK,	/* Lan-DeMets Pocock type */
};

/*
 * The bounds of one plan: a look after every boot pair from `first` to
 * `max` boots a side; look i (n = first + i boots a side) is passed at
 * the one-sided nominal level level[i] (z bound z[i]). The levels are
 * those of a one-sided test at `alpha` spent by `spend` over the
 * information fraction n / max, computed exactly for the Brownian-motion
 * approximation (the recursion of Armitage, McPherson and Rowe).
 */
struct seq_plan {
	int first, max, nlooks;
	double alpha;
	enum seq_spend spend;
	double z[SEQ_MAX_LOOKS];
	double level[SEQ_MAX_LOOKS];
	double spent[SEQ_MAX_LOOKS];	/* cumulative alpha at each look */
};

int seq_plan_init(struct seq_plan *p, int first, int max, double alpha,
		  enum seq_spend spend);
int seq_spend_parse(const char *s, enum seq_spend *out);
const char *seq_spend_name(enum seq_spend s);

enum seq_verdict {
	SEQ_CONTINUE,		/* add a boot pair */
	SEQ_WORSE,
	SEQ_BETTER,
	SEQ_SAME,
	SEQ_INCONCLUSIVE,	/* max boots reached, undecided */
	SEQ_INSUFFICIENT,	/* fewer than `first` boots a side */
};

const char *seq_verdict_name(enum seq_verdict v);

struct seq_result {
	enum seq_verdict verdict;
	int n;			/* boots a side the look used */
	double level;		/* one-sided nominal level of this look */
	double est, lo, hi;	/* log ratio new/base and its interval */
};

/*
 * Decide a point after n boots a side: base and new are the logged
 * boot medians, floor the relative minimum effect, lower_better the
 * metric's direction. With more boots on one side, the look is at the
 * smaller count (every boot is still used in the estimate).
 */
enum seq_verdict seq_decide(const struct seq_plan *p, const double *base,
			    size_t nb, const double *new, size_t nn,
			    double floor, int lower_better,
			    struct seq_result *out);

/* The seeded simulation of README's table (kbstat sequential sim). */
struct seq_sim {
	double effect, boot_sd, cv, floor;
	int samples, runs;
	unsigned long long seed;
	int naive;		/* the fixed 90 % interval at every look */
};

struct seq_sim_out {
	int worse, better, same, inconclusive;
	double median_boots, mean_boots;
};

int seq_simulate(const struct seq_plan *p, const struct seq_sim *s,
		 struct seq_sim_out *o);

#endif
