// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics core: quantiles, Mann-Whitney U, Benjamini-Hochberg and a
 * hierarchical (boot, then sample) bootstrap of the median.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kbstat.h"

/* splitmix64: tiny, seedable, and the same on every host. */
void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

size_t rng_below(struct rng *r, size_t n)
{
	/* 53 random bits scaled: bias is far below bootstrap noise */
	return (size_t)((double)(rng_next(r) >> 11) * 0x1p-53 * (double)n);
}

/* FNV-1a, to derive a per-comparison seed independent of report order. */
uint64_t hash_str(uint64_t h, const char *s)
{
	if (!h)
		h = 0xcbf29ce484222325ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	/* separator, so ("ab","c") and ("a","bc") differ */
	h ^= 0xff;
	h *= 0x100000001b3ULL;
	return h;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double quantile_sorted(const double *v, size_t n, double q)
{
	double h, f;
	size_t i;

	if (!n)
		return NAN;
	h = (double)(n - 1) * q;
	i = (size_t)floor(h);
	f = h - (double)i;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + f * (v[i + 1] - v[i]);
}

double median_of(const double *v, size_t n)
{
	double *c, m;

	if (!n)
		return NAN;
	c = xmalloc(n * sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	sort_doubles(c, n);
	m = quantile_sorted(c, n, 0.5);
	free(c);
	return m;
}

struct ranked {
	double v;
	int from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v,
			  &((const struct ranked *)b)->v);
}

/*
 * P(U <= u) under H0 with no ties, by counting arrangements:
 * c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u). Counts stay below
 * C(40, 20) < 2^53, so doubles are exact.
 */
static double mwu_exact_cdf(size_t nx, size_t ny, size_t u)
{
	size_t umax = nx * ny, m, n, k, sz = umax + 1;
	double *c, total = 0, below = 0;

	c = xmalloc((nx + 1) * (ny + 1) * sz * sizeof(*c));
#define C(m, n, k) c[((m) * (ny + 1) + (n)) * sz + (k)]
	for (m = 0; m <= nx; m++) {
		for (n = 0; n <= ny; n++) {
			for (k = 0; k <= umax; k++) {
				double s;

				if (!m || !n) {
					C(m, n, k) = k == 0;
					continue;
				}
				s = C(m, n - 1, k);
				if (k >= n)
					s += C(m - 1, n, k - n);
				C(m, n, k) = s;
			}
		}
	}
	for (k = 0; k <= umax; k++) {
		total += C(nx, ny, k);
		if (k <= u)
			below += C(nx, ny, k);
	}
#undef C
	free(c);
	return below / total;
}

int mwu_test(const double *x, size_t nx, const double *y, size_t ny,
	     struct mwu *out)
{
	size_t n = nx + ny, i, j;
	struct ranked *r;
	double rx = 0, ties = 0, mu, var, u2;
	int tied = 0;

	memset(out, 0, sizeof(*out));
	if (!nx || !ny)
		return -1;
	r = xmalloc(n * sizeof(*r));
	for (i = 0; i < nx; i++)
		r[i] = (struct ranked){ x[i], 1 };
	for (i = 0; i < ny; i++)
		r[nx + i] = (struct ranked){ y[i], 0 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	/* average ranks over tie runs; collect sum(t^3 - t) */
	for (i = 0; i < n; i = j) {
		double avg, t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		avg = ((double)i + 1 + (double)j) / 2;
		if (t > 1) {
			tied = 1;
			ties += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (r[k].from_x)
				rx += avg;
	}
	free(r);
	out->u1 = rx - (double)nx * ((double)nx + 1) / 2;
	u2 = (double)nx * (double)ny - out->u1;
	out->u = out->u1 < u2 ? out->u1 : u2;
	if (!tied && nx <= MWU_EXACT_MAX && ny <= MWU_EXACT_MAX) {
		out->exact = 1;
		out->z = NAN;
		out->p = 2 * mwu_exact_cdf(nx, ny, (size_t)out->u);
		if (out->p > 1)
			out->p = 1;
		return 0;
	}
	/* normal approximation, tie-corrected variance, continuity 0.5 */
	mu = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 *
	      (((double)n + 1) - ties / ((double)n * ((double)n - 1)));
	if (var <= 0) {
		/* every value tied: no evidence of a difference */
		out->z = 0;
		out->p = 1;
		return 0;
	}
	out->z = (fabs(out->u1 - mu) - 0.5) / sqrt(var);
	if (out->z < 0)
		out->z = 0;
	out->p = erfc(out->z / sqrt(2));
	return 0;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

/* Benjamini-Hochberg step-up: adj(i) = min over rank >= i of p * m / rank. */
void bh_adjust(const double *p, double *adj, size_t n)
{
	struct pidx *s;
	double run = 1;
	size_t k;

	if (!n)
		return;
	s = xmalloc(n * sizeof(*s));
	for (k = 0; k < n; k++)
		s[k] = (struct pidx){ p[k], k };
	qsort(s, n, sizeof(*s), cmp_pidx);
	for (k = n; k-- > 0;) {
		double v = s[k].p * (double)n / (double)(k + 1);

		if (v < run)
			run = v;
		adj[s[k].i] = run;
	}
	free(s);
}

void boot_medians(const struct boot_set *bs, struct rng *r, size_t reps,
		  double *out)
{
	size_t maxlen = 0, b, rep;
	double *buf;

	for (b = 0; b < bs->nboots; b++)
		if (bs->len[b] > maxlen)
			maxlen = bs->len[b];
	buf = xmalloc((bs->nboots * maxlen + 1) * sizeof(*buf));
	for (rep = 0; rep < reps; rep++) {
		size_t m = 0;

		for (b = 0; b < bs->nboots; b++) {
			size_t pick = rng_below(r, bs->nboots), i;

			for (i = 0; i < bs->len[pick]; i++)
				buf[m++] = bs->val[pick][rng_below(r, bs->len[pick])];
		}
		sort_doubles(buf, m);
		out[rep] = quantile_sorted(buf, m, 0.5);
	}
	free(buf);
}

/* Percentile interval; sorts v. */
void percentile_ci(double *v, size_t n, double *lo, double *hi)
{
	sort_doubles(v, n);
	*lo = quantile_sorted(v, n, 0.025);
	*hi = quantile_sorted(v, n, 0.975);
}

/* Regularized upper incomplete gamma Q(a, x), series or continued fraction. */
static double gamma_q(double a, double x)
{
	double gln = lgamma(a), sum, del, ap, b, c, d, h, an;
	int i;

	if (x <= 0)
		return 1;
	if (x < a + 1) {
		ap = a;
		sum = del = 1 / a;
		for (i = 0; i < 500; i++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabs(del) < fabs(sum) * 1e-15)
				break;
		}
		return 1 - sum * exp(-x + a * log(x) - gln);
	}
	b = x + 1 - a;
	c = 1 / 1e-300;
	d = 1 / b;
	h = d;
	for (i = 1; i < 500; i++) {
		an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = b + an / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return exp(-x + a * log(x) - gln) * h;
}

/*
 * Kruskal-Wallis across boots (tie-corrected H, chi-square k - 1 df):
 * is there a boot effect at all? Gates the spread warning, which with
 * three boots would otherwise fire on chance alone.
 */
static double boot_effect_p(const struct boot_set *bs)
{
	struct ranked *r;
	double *rsum, h = 0, ties = 0, n = (double)bs->n;
	size_t b, i, j, m = 0;

	if (bs->nboots < 2 || bs->n < 3)
		return NAN;
	r = xmalloc(bs->n * sizeof(*r));
	rsum = xmalloc(bs->nboots * sizeof(*rsum));
	for (b = 0; b < bs->nboots; b++) {
		rsum[b] = 0;
		for (i = 0; i < bs->len[b]; i++)
			r[m++] = (struct ranked){ bs->val[b][i], (int)b };
	}
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (i = 0; i < m; i = j) {
		double t;

		for (j = i + 1; j < m && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		ties += t * t * t - t;
		for (size_t k = i; k < j; k++)
			rsum[r[k].from_x] += ((double)i + 1 + (double)j) / 2;
	}
	for (b = 0; b < bs->nboots; b++)
		if (bs->len[b])
			h += rsum[b] * rsum[b] / (double)bs->len[b];
	h = 12 / (n * (n + 1)) * h - 3 * (n + 1);
	free(r);
	free(rsum);
	if (ties >= n * n * n - n)
		return 1;
	h /= 1 - ties / (n * n * n - n);
	return gamma_q(((double)bs->nboots - 1) / 2, h / 2);
}

/*
 * Spreads, both relative to the median so metrics compare:
 * within  = median over boots of IQR(boot) / median(boot);
 * between = the within-boot relative IQR that the spread of the boot
 *           medians implies if boots were exchangeable:
 *           sd(boot medians) * sqrt(samples per boot) / 1.2533 (the
 *           asymptotic sd of a median, in sigmas) * 1.349 (IQR, in
 *           sigmas) / |median|.
 * Under "boots do not matter" the two agree; between > 2 x within, with
 * a Kruskal-Wallis p < 0.01 across boots, means a boot effect: more
 * boots (not more samples) are needed.
 */
void group_stats(const struct boot_set *bs, const double *bmed, size_t reps,
		 struct group_stats *gs)
{
	double *all, *rel, *med, *bm, mean = 0, ss = 0, len = 0;
	size_t b, m = 0, nrel = 0;

	memset(gs, 0, sizeof(*gs));
	gs->n = bs->n;
	gs->nboots = bs->nboots;
	gs->within_spread = gs->between_spread = gs->boot_p = NAN;
	gs->median = gs->q1 = gs->q3 = gs->ci_lo = gs->ci_hi = NAN;
	if (!bs->n)
		return;
	all = xmalloc(bs->n * sizeof(*all));
	rel = xmalloc((bs->nboots + 1) * sizeof(*rel));
	med = xmalloc((bs->nboots + 1) * sizeof(*med));
	for (b = 0; b < bs->nboots; b++) {
		double *c = xmalloc((bs->len[b] + 1) * sizeof(*c));

		memcpy(c, bs->val[b], bs->len[b] * sizeof(*c));
		memcpy(all + m, c, bs->len[b] * sizeof(*c));
		m += bs->len[b];
		sort_doubles(c, bs->len[b]);
		med[b] = quantile_sorted(c, bs->len[b], 0.5);
		if (bs->len[b] >= 2 && med[b] != 0)
			rel[nrel++] = (quantile_sorted(c, bs->len[b], 0.75) -
				       quantile_sorted(c, bs->len[b], 0.25)) /
				      fabs(med[b]);
		free(c);
	}
	sort_doubles(all, m);
	gs->median = quantile_sorted(all, m, 0.5);
	gs->q1 = quantile_sorted(all, m, 0.25);
	gs->q3 = quantile_sorted(all, m, 0.75);
	if (nrel)
		gs->within_spread = median_of(rel, nrel);
	if (bs->nboots >= 2 && gs->median != 0) {
		for (b = 0; b < bs->nboots; b++) {
			mean += med[b];
			len += (double)bs->len[b];
		}
		mean /= (double)bs->nboots;
		len /= (double)bs->nboots;
		for (b = 0; b < bs->nboots; b++)
			ss += (med[b] - mean) * (med[b] - mean);
		gs->between_spread = sqrt(ss / (double)(bs->nboots - 1)) *
				     sqrt(len) / 1.2533 * 1.349 /
				     fabs(gs->median);
	}
	gs->boot_p = boot_effect_p(bs);
	if (!isnan(gs->within_spread) && !isnan(gs->between_spread) &&
	    gs->between_spread > 2 * gs->within_spread && gs->boot_p < 0.01)
		gs->boot_warning = 1;
	if (bmed && reps) {
		bm = xmalloc(reps * sizeof(*bm));
		memcpy(bm, bmed, reps * sizeof(*bm));
		percentile_ci(bm, reps, &gs->ci_lo, &gs->ci_hi);
		free(bm);
	}
	free(all);
	free(rel);
	free(med);
}
