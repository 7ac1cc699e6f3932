// SPDX-License-Identifier: GPL-2.0
/*
 * Change points of a metric across a series' revisions.
 *
 * The split is placed by e-divisive means (Matteson and James 2014, the
 * method Apache Otava uses; alpha = 1): the split of a segment that
 * maximises the scaled energy distance between its two sides. It is
 * accepted only when the two sides differ as a verdict would demand:
 * the inverse-variance weighted means differ by at least the floor, and
 * by more than z_{1 - alpha / (2 (n - 1))} standard errors (Bonferroni
 * over the n - 1 places a split could go). Accepted splits are searched
 * again on each side (binary segmentation). A permutation test, as in
 * e-divisive proper, cannot reject anything with 3 revisions (6
 * orders), so the rows' own intervals carry the significance.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpd.h"
#include "stats.h"
#include "util.h"

#define CPD_Z95 1.959963984540054



/* Mean |a_i - a_j| over pairs within [lo, hi); 0 with fewer than 2. */
static double within(const double *x, size_t lo, size_t hi)
{
	double s = 0;
	size_t i, j, m = hi - lo;

	if (m < 2)
		return 0;
	for (i = lo; i < hi; i++)
		for (j = i + 1; j < hi; j++)
			s += fabs(x[i] - x[j]);
	return s / ((double)m * (double)(m - 1) / 2);
}

/* Scaled energy distance of [lo, t) against [t, hi). */
static double energy(const double *x, size_t lo, size_t t, size_t hi)
{
	double m = (double)(t - lo), k = (double)(hi - t), s = 0;
	size_t i, j;

	for (i = lo; i < t; i++)
		for (j = t; j < hi; j++)
			s += fabs(x[i] - x[j]);
	return m * k / (m + k) *
	       (2 * s / (m * k) - within(x, lo, t) - within(x, t, hi));
}

/* Inverse-variance weighted mean of [lo, hi) and its variance. */
static void wmean(const double *x, const double *se, size_t lo, size_t hi,
		  double *mean, double *var)
{
	double sw = 0, sx = 0;
	size_t i;

	for (i = lo; i < hi; i++) {
		double w = 1 / (se[i] * se[i]);

		sw += w;
		sx += w * x[i];
	}
	*mean = sx / sw;
	*var = 1 / sw;
}

static int segment(const double *x, const double *se, size_t lo, size_t hi,
		   double lf, double zc, int *change)
{
	double best = -INFINITY, ml, vl, mr, vr;
	size_t t, bt = 0;

	if (hi - lo < 2)
		return 0;
	for (t = lo + 1; t < hi; t++) {
		double q = energy(x, lo, t, hi);

		if (q > best) {
			best = q;
			bt = t;
		}
	}
	wmean(x, se, lo, bt, &ml, &vl);
	wmean(x, se, bt, hi, &mr, &vr);
	if (fabs(mr - ml) < lf || fabs(mr - ml) < zc * sqrt(vl + vr))
		return 0;
	change[bt] = 1;
	return 1 + segment(x, se, lo, bt, lf, zc, change) +
	       segment(x, se, bt, hi, lf, zc, change);
}

int cpd_find(const double *x, const double *se, size_t n, double floor,
	     double alpha, int *change)
{
	double *s;
	size_t i;
	int r;

	memset(change, 0, n * sizeof(*change));
	if (n < 2)
		return 0;
	/* a zero-width interval still has the floor's resolution */
	s = xmalloc(n * sizeof(*s));
	for (i = 0; i < n; i++)
		s[i] = se[i] > 1e-9 ? se[i] : 1e-9;
	r = segment(x, s, 0, n, log1p(floor),
		    normal_upper_quantile(alpha / (2 * (double)(n - 1))), change);
	free(s);
	return r;
}


static const char cpd_usage[] =
	"usage:\n"
	"  kbstat changepoint [--floor F (0.01)] [--alpha A (0.05)] < ROWS\n"
	"      ROWS: one revision a line, in order: LABEL<TAB>RATIO<TAB>CI_LO<TAB>CI_HI (95 %)\n"
	"      prints LABEL<TAB>change|-\n"
	"  kbstat changepoint sim --revisions N --sd S [--step E --at K] [--runs N] [--seed N]\n"
	"      [--floor F] [--alpha A]    A/A-like noise: each revision's log ratio N(0, S),\n"
	"      its 95 % interval +-1.96 S; --step E from revision K (1-based) on\n";

static int cpd_bad(const char *what)
{
	fprintf(stderr, "kbstat: changepoint: bad %s\n%s", what, cpd_usage);
	return 2;
}

static int getnum(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) ? -1 : 0;
}

static int cpd_sim(double fl, double alpha, int argc, char **argv)
{
	double sd = NAN, step = 0, nrev = 0, at = 0, runs = 2000, seed = 1;
	double *x, *se;
	int *ch, r, a, hit = 0, exact = 0, i, n;
	struct rng rng;

	for (a = 0; a + 1 < argc; a += 2) {
		double *d = !strcmp(argv[a], "--revisions") ? &nrev :
			    !strcmp(argv[a], "--sd") ? &sd :
			    !strcmp(argv[a], "--step") ? &step :
			    !strcmp(argv[a], "--at") ? &at :
			    !strcmp(argv[a], "--runs") ? &runs :
			    !strcmp(argv[a], "--seed") ? &seed : NULL;

		if (!d || getnum(argv[a + 1], d))
			return cpd_bad(argv[a]);
	}
	if (a != argc || nrev < 2 || nrev > 1000 || !(sd > 0) || runs < 1 ||
	    (step != 0 && (at < 2 || at > nrev)))
		return cpd_bad("sim arguments");
	n = (int)nrev;
	x = xmalloc((size_t)n * sizeof(*x));
	se = xmalloc((size_t)n * sizeof(*se));
	ch = xmalloc((size_t)n * sizeof(*ch));
	rng_seed(&rng, (uint64_t)seed);
	for (r = 0; r < (int)runs; r++) {
		int k;

		for (i = 0; i < n; i++) {
			x[i] = sd * rng_normal(&rng) +
			       (step != 0 && i + 1 >= (int)at ? log1p(step) : 0);
			se[i] = sd;
		}
		k = cpd_find(x, se, (size_t)n, fl, alpha, ch);
		hit += k > 0;
		exact += step != 0 && k == 1 && ch[(int)at - 1];
	}
	printf("revisions=%d sd=%g step=%g at=%g floor=%g alpha=%g runs=%d seed=%g\n",
	       n, sd, step, at, fl, alpha, (int)runs, seed);
	printf("any_change=%d exact=%d\n", hit, exact);
	free(x);
	free(se);
	free(ch);
	return 0;
}

void cpd_rows_free(struct cpd_rows *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->label[i]);
	free(r->label);
	free(r->x);
	free(r->se);
	memset(r, 0, sizeof(*r));
}

int cpd_read(FILE *in, const char *name, struct cpd_rows *r)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ln = 0;

	memset(r, 0, sizeof(*r));
	while ((len = getline(&line, &cap, in)) >= 0) {
		char *f[4], *p = line, *end;
		double v[3];
		int k;

		ln++;
		if (strlen(line) != (size_t)len) {
			fprintf(stderr, "kbstat: changepoint: %s:%d: a NUL byte\n",
				name, ln);
			goto bad;
		}
		line[strcspn(line, "\r\n")] = 0;
		for (k = 0; k < 4; k++) {
			f[k] = p;
			p = k < 3 ? strchr(p, '\t') : NULL;
			if (k < 3 && !p) {
				fprintf(stderr, "kbstat: changepoint: %s:%d: want LABEL<TAB>RATIO<TAB>CI_LO<TAB>CI_HI\n",
					name, ln);
				goto bad;
			}
			if (p)
				*p++ = 0;
		}
		for (k = 0; k < 3; k++) {
			errno = 0;
			v[k] = strtod(f[k + 1], &end);
			if (errno || end == f[k + 1] || *end || !(v[k] > 0) ||
			    !isfinite(v[k])) {
				fprintf(stderr, "kbstat: changepoint: %s:%d: '%s' is not a ratio > 0\n",
					name, ln, f[k + 1]);
				goto bad;
			}
		}
		if (!(v[1] <= v[0] && v[0] <= v[2])) {
			fprintf(stderr, "kbstat: changepoint: %s:%d: the ratio is not inside its interval\n",
				name, ln);
			goto bad;
		}
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 16;
			r->x = xrealloc(r->x, r->cap * sizeof(*r->x));
			r->se = xrealloc(r->se, r->cap * sizeof(*r->se));
			r->label = xrealloc(r->label, r->cap * sizeof(*r->label));
		}
		r->x[r->n] = log(v[0]);
		r->se[r->n] = (log(v[2]) - log(v[1])) / (2 * CPD_Z95);
		r->label[r->n] = xstrdup(f[0]);
		r->n++;
	}
	free(line);
	return 0;
bad:
	free(line);
	cpd_rows_free(r);
	return -1;
}

int cmd_changepoint(int argc, char **argv)
{
	double fl = 0.01, alpha = 0.05;
	struct cpd_rows rows;
	size_t i;
	int *ch, a;

	for (a = 0; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--floor")) {
			if (getnum(argv[a + 1], &fl) || fl < 0 || fl >= 1)
				return cpd_bad("--floor");
		} else if (!strcmp(argv[a], "--alpha")) {
			if (getnum(argv[a + 1], &alpha) || !(alpha > 0 && alpha < 1))
				return cpd_bad("--alpha");
		} else {
			break;
		}
	}
	if (a < argc && !strcmp(argv[a], "sim"))
		return cpd_sim(fl, alpha, argc - a - 1, argv + a + 1);
	if (a != argc)
		return cpd_bad("argument");
	if (cpd_read(stdin, "stdin", &rows))
		return 1;
	ch = xmalloc((rows.n ? rows.n : 1) * sizeof(*ch));
	cpd_find(rows.x, rows.se, rows.n, fl, alpha, ch);
	for (i = 0; i < rows.n; i++)
		printf("%s\t%s\n", rows.label[i], ch[i] ? "change" : "-");
	cpd_rows_free(&rows);
	free(ch);
	return 0;
}
