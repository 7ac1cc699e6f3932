// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive boots: a group-sequential rule for adding boot pairs.
 *
 * A point that is undecided after the planned boots gets one more boot
 * pair at a time, and is looked at after each. Looking after every pair
 * and stopping at the first interval that clears the floor is optional
 * stopping: with the fixed 90 % interval at every look the false
 * better/worse rate grows with the number of looks. Here look k is
 * passed only at the nominal level of an alpha-spending bound, so that
 * the chance of ever crossing it, summed over all looks, is alpha.
 */
#include <math.h>

#define SEQ_PI 3.14159265358979323846
#define SEQ_E 2.71828182845904523536
#include <stdlib.h>
#include <string.h>

#include "seq.h"
#include "stats.h"
#include "util.h"



/* Cumulative one-sided alpha spent at information fraction t. */
static double spend(enum seq_spend s, double alpha, double t)
{
	if (t <= 0)
		return 0;
	if (t >= 1)
		return alpha;
	if (s == SEQ_POCOCK)
		return alpha * log(1 + (SEQ_E - 1) * t);
	/* one-sided O'Brien-Fleming type: 1 - Phi(z_{1-alpha} / sqrt(t)) */
	return normal_upper(normal_upper_quantile(alpha) / sqrt(t));
}

int seq_spend_parse(const char *s, enum seq_spend *out)
{
	if (!strcmp(s, "obf"))
		*out = SEQ_OBF;
	else if (!strcmp(s, "pocock"))
		*out = SEQ_POCOCK;
	else
		return -1;
	return 0;
}

const char *seq_spend_name(enum seq_spend s)
{
	return s == SEQ_POCOCK ? "pocock" : "obf";
}

const char *seq_verdict_name(enum seq_verdict v)
{
	switch (v) {
	case SEQ_CONTINUE:
		return "continue";
	case SEQ_WORSE:
		return "worse";
	case SEQ_BETTER:
		return "better";
	case SEQ_SAME:
		return "same";
	case SEQ_INCONCLUSIVE:
		return "inconclusive";
	case SEQ_INSUFFICIENT:
		break;
	}
	return "insufficient data";
}

/*
 * Mass of S_k >= b that did not cross before: f is the sub-density of
 * S_{k-1} on the grid (spacing h), var the variance of the increment.
 */
static double cross_mass(const double *x, const double *f, size_t m,
			 double h, double var, double b)
{
	double sd = sqrt(var), sum = 0;
	size_t j;

	for (j = 0; j < m; j++)
		if (f[j] > 0)
			sum += f[j] * normal_upper((b - x[j]) / sd);
	return sum * h;
}

int seq_plan_init(struct seq_plan *p, int first, int max, double alpha,
		  enum seq_spend s)
{
	double *x, *f, *g, *kern, h, lim, prev = 0;
	size_t m, j, l, kw;
	int k;

	if (first < 2 || max < first || max - first + 1 > SEQ_MAX_LOOKS ||
	    !(alpha > 0 && alpha < 0.5))
		return -1;
	memset(p, 0, sizeof(*p));
	p->first = first;
	p->max = max;
	p->nlooks = max - first + 1;
	p->alpha = alpha;
	p->spend = s;

	/*
	 * S_n = Z_n sqrt(n) is a random walk with unit-variance steps (one
	 * per boot pair); its sub-density below the bounds is carried on a
	 * grid from look to look. The grid spans +-9 sd of the last look.
	 */
	h = 0.04;
	lim = 9 * sqrt((double)max);
	m = (size_t)(2 * lim / h) + 1;
	x = xmalloc(m * sizeof(*x));
	f = xmalloc(m * sizeof(*f));
	g = xmalloc(m * sizeof(*g));
	/* the step's normal density by grid offset, out to 9 sd */
	kw = (size_t)(9 / h);
	kern = xmalloc((kw + 1) * sizeof(*kern));
	for (j = 0; j <= kw; j++)
		kern[j] = exp(-(double)j * h * (double)j * h / 2) * h /
			  sqrt(2 * SEQ_PI);
	for (j = 0; j < m; j++) {
		x[j] = -lim + (double)j * h;
		/* the first look's S: N(0, first) */
		f[j] = exp(-x[j] * x[j] / (2 * first)) / sqrt(2 * SEQ_PI * first);
	}
	for (k = 0; k < p->nlooks; k++) {
		int n = first + k;
		double cum = spend(s, alpha, (double)n / max);
		double want = cum - prev, b, lo, hi;
		int it;

		if (k == 0) {
			b = normal_upper_quantile(cum) * sqrt((double)n);
		} else if (want <= 0) {
			b = INFINITY;
		} else {
			/* f holds S_{n-1} below its bound; one step of var 1 */
			lo = -lim;
			hi = lim;
			for (it = 0; it < 100; it++) {
				double mid = (lo + hi) / 2;

				if (cross_mass(x, f, m, h, 1, mid) > want)
					lo = mid;
				else
					hi = mid;
			}
			b = (lo + hi) / 2;
			/* the density after this step, before truncation */
			for (j = 0; j < m; j++) {
				size_t l0 = j > kw ? j - kw : 0;
				size_t l1 = j + kw < m ? j + kw : m - 1;
				double sum = 0;

				for (l = l0; l <= l1; l++)
					sum += f[l] * kern[j > l ? j - l : l - j];
				g[j] = sum;
			}
			memcpy(f, g, m * sizeof(*f));
		}
		p->z[k] = b / sqrt((double)n);
		p->level[k] = isinf(b) ? 0 : normal_upper(p->z[k]);
		p->spent[k] = cum;
		prev = cum;
		/* only the paths that have not crossed go on */
		for (j = 0; j < m; j++)
			if (x[j] >= b)
				f[j] = 0;
	}
	free(x);
	free(f);
	free(g);
	free(kern);
	return 0;
}

enum seq_verdict seq_decide(const struct seq_plan *p, const double *base,
			    size_t nb, const double *new, size_t nn,
			    double floor, int lower_better,
			    struct seq_result *out)
{
	size_t n = nb < nn ? nb : nn;
	double up = log1p(floor), down = log1p(-floor), q;
	struct welch w;
	int look;

	memset(out, 0, sizeof(*out));
	out->n = (int)n;
	if (n < (size_t)p->first || welch(base, nb, new, nn, &w)) {
		out->verdict = SEQ_INSUFFICIENT;
		return out->verdict;
	}
	look = (int)n - p->first;
	if (look >= p->nlooks)
		look = p->nlooks - 1;
	out->level = p->level[look];
	if (out->level <= 0)
		q = INFINITY;
	else if (isinf(w.df) || w.se == 0)
		q = 0;
	else
		q = t_quantile(out->level, w.df);
	out->est = w.diff;
	out->lo = w.se == 0 ? w.diff : w.diff - q * w.se;
	out->hi = w.se == 0 ? w.diff : w.diff + q * w.se;
	if (out->lo > up)
		out->verdict = lower_better ? SEQ_WORSE : SEQ_BETTER;
	else if (out->hi < down)
		out->verdict = lower_better ? SEQ_BETTER : SEQ_WORSE;
	else if (out->lo > down && out->hi < up)
		out->verdict = SEQ_SAME;
	else if ((int)n >= p->max)
		out->verdict = SEQ_INCONCLUSIVE;
	else
		out->verdict = SEQ_CONTINUE;
	return out->verdict;
}


static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * s->runs synthetic points, as synth.pl draws them: every boot has a
 * multiplicative offset 1 + boot_sd N(0,1), every sample 1 + cv N(0,1)
 * on top, around 1000 (base) and 1000 (1 + effect) (new); lower is
 * better. Boots are added a pair at a time until the rule stops.
 */
int seq_simulate(const struct seq_plan *plan, const struct seq_sim *s,
		 struct seq_sim_out *o)
{
	struct seq_plan naive;
	const struct seq_plan *p = plan;
	double *bm[2], *smp;
	int *used, r, side, b, i;
	long long total = 0;
	struct rng rng;

	if (s->runs < 1 || s->samples < 1)
		return -1;
	if (s->naive) {
		naive = *plan;
		for (i = 0; i < naive.nlooks; i++)
			naive.level[i] = (1 - DECISION_LEVEL) / 2;
		p = &naive;
	}
	memset(o, 0, sizeof(*o));
	rng_seed(&rng, s->seed);
	bm[0] = xmalloc((size_t)p->max * sizeof(double));
	bm[1] = xmalloc((size_t)p->max * sizeof(double));
	smp = xmalloc((size_t)s->samples * sizeof(double));
	used = xmalloc((size_t)s->runs * sizeof(int));
	for (r = 0; r < s->runs; r++) {
		struct seq_result res;
		enum seq_verdict v = SEQ_CONTINUE;
		int n;

		/* interleaved: base boot b, then new boot b */
		for (b = 0; b < p->max; b++) {
			for (side = 0; side < 2; side++) {
				double mu = 1000 * (side ? 1 + s->effect : 1);
				double off = 1 + s->boot_sd * rng_normal(&rng);

				for (i = 0; i < s->samples; i++)
					smp[i] = mu * off *
						 (1 + s->cv * rng_normal(&rng));
				bm[side][b] = log(median_inplace(smp,
						(size_t)s->samples));
			}
		}
		for (n = p->first; n <= p->max; n++) {
			v = seq_decide(p, bm[0], (size_t)n, bm[1], (size_t)n,
				       s->floor, 1, &res);
			if (v != SEQ_CONTINUE)
				break;
		}
		if (n > p->max)
			n = p->max;
		used[r] = n;
		total += n;
		switch (v) {
		case SEQ_WORSE:
			o->worse++;
			break;
		case SEQ_BETTER:
			o->better++;
			break;
		case SEQ_SAME:
			o->same++;
			break;
		default:
			o->inconclusive++;
			break;
		}
	}
	qsort(used, (size_t)s->runs, sizeof(int), cmp_int);
	o->median_boots = s->runs % 2 ? used[s->runs / 2] :
			  (used[s->runs / 2 - 1] + used[s->runs / 2]) / 2.0;
	o->mean_boots = (double)total / s->runs;
	free(bm[0]);
	free(bm[1]);
	free(smp);
	free(used);
	return 0;
}
