// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics core: quantiles, Mann-Whitney U, Benjamini-Hochberg and a
 * hierarchical (boot, then sample) bootstrap of the median.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

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
	/* multiply-high: bias below 2^-64 * n, far below bootstrap noise */
	return (size_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Standard normal deviate (Box-Muller, one of the pair). */
double rng_normal(struct rng *r)
{
	double u = ((double)(rng_next(r) >> 11) + 0.5) * 0x1p-53;
	double v = (double)(rng_next(r) >> 11) * 0x1p-53;

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/*
 * Binomial(n, p). Exact (Bernoulli sum, or inversion of the pmf when
 * n p (1 - p) is small); the normal approximation, rounded and clamped,
 * once n p (1 - p) >= 100, where its error in the bootstrap's order
 * statistics is far below the Monte Carlo error of the replicates.
 */
static size_t rng_binomial(struct rng *r, size_t n, double p)
{
	double q, npq, u, pk, ratio, x;
	size_t k, i, flip = 0;

	if (!n || p <= 0)
		return 0;
	if (p >= 1)
		return n;
	if (n <= 32) {
		for (k = i = 0; i < n; i++)
			k += (double)(rng_next(r) >> 11) * 0x1p-53 < p;
		return k;
	}
	if (p > 0.5) {
		p = 1 - p;
		flip = 1;
	}
	q = 1 - p;
	npq = (double)n * p * q;
	if (npq < 100) {
		u = (double)(rng_next(r) >> 11) * 0x1p-53;
		pk = exp((double)n * log1p(-p));
		ratio = p / q;
		for (k = 0; u > pk && k < n; k++) {
			u -= pk;
			pk *= ratio * (double)(n - k) / (double)(k + 1);
		}
	} else {
		x = floor((double)n * p + sqrt(npq) * rng_normal(r) + 0.5);
		k = x < 0 ? 0 : x > (double)n ? n : (size_t)x;
	}
	return flip ? n - k : k;
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

/* Puts the k-th smallest of v at v[k], smaller before, larger after. */
static void select_kth(double *v, size_t n, size_t k)
{
	long lo = 0, hi = (long)n - 1, kk = (long)k;

	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi], piv, t;
		long i = lo, j = hi;

		/* median of three as the pivot (Hoare partition) */
		piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		/* v[lo..j] <= piv <= v[i..hi]; between them, only piv */
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return;
	}
}

/* Quantile (R type 7) of unsorted v by selection, O(n); reorders v. */
static double quantile_select(double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q, f, next;
	size_t i, j;

	if (!n)
		return NAN;
	i = (size_t)floor(h);
	f = h - (double)i;
	select_kth(v, n, i);
	if (i + 1 >= n || f == 0)
		return v[i];
	next = v[i + 1];
	for (j = i + 2; j < n; j++)
		if (v[j] < next)
			next = v[j];
	return v[i] + f * (next - v[i]);
}

/* Median (R type 7) of v by selection, O(n); reorders v. */
double median_inplace(double *v, size_t n)
{
	size_t i, k;
	double m, next;

	if (!n)
		return NAN;
	k = (n - 1) / 2;
	select_kth(v, n, k);
	m = v[k];
	if (n % 2)
		return m;
	next = v[k + 1];
	for (i = k + 2; i < n; i++)
		if (v[i] < next)
			next = v[i];
	return m + 0.5 * (next - m);
}

double median_of(const double *v, size_t n)
{
	double *c, m;

	if (!n)
		return NAN;
	c = xmalloc(n * sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	m = median_inplace(c, n);
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

/*
 * The resample is never built or sorted. All samples are sorted once
 * into one array (with, per boot, the positions of its samples there); a
 * replicate picks boots and gives each picked boot len draws. Small
 * sets count the drawn positions and walk the counts to the median.
 * Large sets find the median's order statistics by halving the array:
 * the draws of boot b in the left half are Binomial(draws in the
 * segment, share of b's samples there), the same distribution as
 * drawing, in O(B log^2 n) a replicate.
 */
struct bigset {
	double *val;		/* all samples, sorted */
	size_t n, nboots;
	size_t **pos;		/* pos[b]: sorted positions of boot b's samples */
	size_t *len;
};

static size_t lower_pos(const size_t *p, size_t n, size_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct descent {
	size_t lo, hi, below;	/* segment [lo, hi) of val; draws left of lo */
	size_t *draws;		/* per boot, draws inside the segment */
};

/* Value of order statistic k (0-based) of the replicate; one more when
 * k2 != k (k2 = k + 1), sharing the draws above the split. */
static void descend(const struct bigset *g, struct rng *r, struct descent *d,
		    size_t *left, size_t k, size_t k2, double *vk, double *vk2)
{
	size_t b;

	while (d->hi - d->lo > 1) {
		size_t mid = d->lo + (d->hi - d->lo) / 2, nl = 0;
		int gk, gk2;

		for (b = 0; b < g->nboots; b++) {
			size_t a, m, e;

			left[b] = 0;
			if (!d->draws[b])
				continue;
			a = lower_pos(g->pos[b], g->len[b], d->lo);
			m = lower_pos(g->pos[b], g->len[b], mid);
			e = lower_pos(g->pos[b], g->len[b], d->hi);
			left[b] = rng_binomial(r, d->draws[b],
					       (double)(m - a) / (double)(e - a));
			nl += left[b];
		}
		gk = k < d->below + nl;
		gk2 = k2 < d->below + nl;
		if (gk != gk2) {
			/* k goes left, k2 right: finish each on its own copy */
			struct descent rd = *d;
			size_t *rdraws = xmalloc(g->nboots * sizeof(*rdraws));
			size_t *tmp = xmalloc(g->nboots * sizeof(*tmp));

			for (b = 0; b < g->nboots; b++) {
				rdraws[b] = d->draws[b] - left[b];
				d->draws[b] = left[b];
			}
			rd.draws = rdraws;
			rd.lo = mid;
			rd.below = d->below + nl;
			d->hi = mid;
			descend(g, r, d, tmp, k, k, vk, vk);
			descend(g, r, &rd, tmp, k2, k2, vk2, vk2);
			free(rdraws);
			free(tmp);
			return;
		}
		for (b = 0; b < g->nboots; b++) {
			if (gk)
				d->draws[b] = left[b];
			else
				d->draws[b] -= left[b];
		}
		if (gk) {
			d->hi = mid;
		} else {
			d->lo = mid;
			d->below += nl;
		}
	}
	*vk = g->val[d->lo];
	*vk2 = g->val[d->lo];
}

struct tagged {
	double v;
	size_t boot;
};

static int cmp_tagged(const void *a, const void *b)
{
	const struct tagged *x = a, *y = b;

	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return (x->boot > y->boot) - (x->boot < y->boot);
}

/* Value at rank k (0-based) of a replicate given as counts per position. */
static double rank_value(const struct bigset *g, const unsigned *cnt, size_t k,
			 size_t *from, size_t *cum)
{
	while (*cum + cnt[*from] <= k)
		*cum += cnt[(*from)++];
	return g->val[*from];
}

void boot_medians(const struct boot_set *bs, struct rng *r, size_t reps,
		  double *out)
{
	struct bigset g = { .n = bs->n, .nboots = bs->nboots, .len = bs->len };
	struct tagged *t = xmalloc((bs->n + 1) * sizeof(*t));
	size_t *fill = xmalloc(bs->nboots * sizeof(*fill));
	size_t *draws = xmalloc(bs->nboots * sizeof(*draws));
	size_t *left = xmalloc(bs->nboots * sizeof(*left));
	unsigned *cnt = NULL;
	size_t b, i, m = 0, rep;

	for (b = 0; b < bs->nboots; b++)
		for (i = 0; i < bs->len[b]; i++)
			t[m++] = (struct tagged){ bs->val[b][i], b };
	qsort(t, m, sizeof(*t), cmp_tagged);
	g.val = xmalloc((m + 1) * sizeof(*g.val));
	g.pos = xmalloc(bs->nboots * sizeof(*g.pos));
	for (b = 0; b < bs->nboots; b++) {
		g.pos[b] = xmalloc((bs->len[b] + 1) * sizeof(**g.pos));
		fill[b] = 0;
	}
	for (i = 0; i < m; i++) {
		g.val[i] = t[i].v;
		g.pos[t[i].boot][fill[t[i].boot]++] = i;
	}
	free(t);
	if (m <= BOOT_BIG)
		cnt = xmalloc((m + 1) * sizeof(*cnt));
	for (rep = 0; rep < reps; rep++) {
		size_t total = 0, k, k2;
		double a, c;

		for (b = 0; b < bs->nboots; b++)
			draws[b] = 0;
		for (b = 0; b < bs->nboots; b++) {
			size_t pick = rng_below(r, bs->nboots);

			draws[pick] += bs->len[pick];
			total += bs->len[pick];
		}
		k = (total - 1) / 2;
		k2 = total % 2 ? k : k + 1;
		if (cnt) {
			/* small sets: draw positions in the sorted array, count them */
			size_t from = 0, cum = 0;

			memset(cnt, 0, m * sizeof(*cnt));
			for (b = 0; b < bs->nboots; b++)
				for (i = 0; i < draws[b]; i++)
					cnt[g.pos[b][rng_below(r, bs->len[b])]]++;
			a = rank_value(&g, cnt, k, &from, &cum);
			c = rank_value(&g, cnt, k2, &from, &cum);
		} else {
			struct descent d = { .lo = 0, .hi = m, .below = 0,
					     .draws = draws };

			descend(&g, r, &d, left, k, k2, &a, &c);
		}
		out[rep] = a + 0.5 * (c - a);
	}
	for (b = 0; b < bs->nboots; b++)
		free(g.pos[b]);
	free(g.pos);
	free(g.val);
	free(cnt);
	free(fill);
	free(draws);
	free(left);
}

/*
 * Percentile interval of the given two-sided level; reorders v. A NaN
 * replicate is never sorted as a number: the interval is then NaN and
 * the function returns -1.
 */
int percentile_ci(double *v, size_t n, double level, double *lo, double *hi)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (isnan(v[i])) {
			*lo = *hi = NAN;
			return -1;
		}
	}
	*lo = quantile_select(v, n, (1 - level) / 2);
	*hi = quantile_select(v, n, 1 - (1 - level) / 2);
	return 0;
}

/*
 * The distributions' tails and quantiles are libgsl's; the normal's
 * upper tail is libm's erfc, as in mwu_test. tests/unit/analysis-special.t
 * checks each against published tables and Python's statistics module.
 */
double normal_upper(double z)
{
	return 0.5 * erfc(z / sqrt(2));
}

double normal_upper_quantile(double p)
{
	return gsl_cdf_ugaussian_Qinv(p);
}

/* P(|T| >= t) for Student's t with df degrees of freedom. */
double t_p_two_sided(double t, double df)
{
	if (isnan(t) || isnan(df))
		return NAN;
	if (isinf(t))
		return 0;
	/*
	 * I_x(df/2, 1/2) at x = df / (df + t^2): gsl_cdf_tdist_Q's series
	 * for df > 30 is off by 4e-9 (relative) at t = 10, df = 31
	 */
	return gsl_sf_beta_inc(df / 2, 0.5, df / (df + t * t));
}

/* q with P(T > q) = upper (0 < upper < 0.5). */
double t_quantile(double upper, double df)
{
	return gsl_cdf_tdist_Qinv(upper, df);
}

/* P(X >= x) for chi-square with df degrees of freedom; 1 for x <= 0. */
double chisq_upper(double x, double df)
{
	return gsl_cdf_chisq_Q(x, df);
}

/*
 * Welch's t on two groups of boot-level values (one value a boot):
 * difference of means y - x, its standard error and the Welch-
 * Satterthwaite degrees of freedom. -1 if a side has fewer than 2.
 */
int welch(const double *x, size_t nx, const double *y, size_t ny,
	  struct welch *w)
{
	double mx = 0, my = 0, vx = 0, vy = 0, ax, ay;
	size_t i;

	memset(w, 0, sizeof(*w));
	if (nx < 2 || ny < 2)
		return -1;
	for (i = 0; i < nx; i++)
		mx += x[i];
	for (i = 0; i < ny; i++)
		my += y[i];
	mx /= (double)nx;
	my /= (double)ny;
	for (i = 0; i < nx; i++)
		vx += (x[i] - mx) * (x[i] - mx);
	for (i = 0; i < ny; i++)
		vy += (y[i] - my) * (y[i] - my);
	ax = vx / ((double)nx - 1) / (double)nx;
	ay = vy / ((double)ny - 1) / (double)ny;
	w->diff = my - mx;
	w->se = sqrt(ax + ay);
	if (w->se == 0) {
		/* identical boots on both sides: the difference is exact */
		w->df = INFINITY;
		w->p = w->diff == 0 ? 1 : 0;
		return 0;
	}
	w->df = (ax + ay) * (ax + ay) /
		(ax * ax / ((double)nx - 1) + ay * ay / ((double)ny - 1));
	w->p = t_p_two_sided(fabs(w->diff) / w->se, w->df);
	return 0;
}

/* Two-sided interval of the given level around w's difference. */
void welch_ci(const struct welch *w, double level, double *lo, double *hi)
{
	double q = isinf(w->df) || w->se == 0 ? 0 :
		   t_quantile((1 - level) / 2, w->df);

	*lo = w->diff - q * w->se;
	*hi = w->diff + q * w->se;
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
	return chisq_upper(h, (double)bs->nboots - 1);
}

/*
 * Spreads, both relative to the median so metrics compare:
 * within  = median over boots of IQR(boot) / median(boot);
 * between = the within-boot relative IQR that the spread of the boot
 *           medians implies if boots were exchangeable:
 *           sd(boot medians) * sqrt(samples per boot) / 1.2533 (the
 *           asymptotic sd of a median, in sigmas) * 1.349 (IQR, in
 *           sigmas) / |median|.
 * Under "boots do not matter" the two agree; between > BOOT_WARN_SPREAD x
 * within, with Kruskal-Wallis p < BOOT_WARN_P across boots, means a boot effect: more
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
	    gs->between_spread > BOOT_WARN_SPREAD * gs->within_spread &&
	    gs->boot_p < BOOT_WARN_P)
		gs->boot_warning = 1;
	if (bmed && reps) {
		bm = xmalloc(reps * sizeof(*bm));
		memcpy(bm, bmed, reps * sizeof(*bm));
		percentile_ci(bm, reps, CI_LEVEL, &gs->ci_lo, &gs->ci_hi);
		free(bm);
	}
	free(all);
	free(rel);
	free(med);
}
