// SPDX-License-Identifier: GPL-2.0
/*
 * Number formatting for the summary, the tables and the headline.
 * A median of 1234.5678 with a 95 % CI of +-4.6 is "1234.6": the CI's
 * half-width has its leading digit in the units, one more digit is
 * shown, and the rest is noise a reader should not have to skip.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

/* Never more significant digits than this, whatever the interval. */
#define MAX_SIG 8
/* No interval: as many digits as the old tables had. */
#define NO_CI_SIG 5

/* "1.2e-05" -> "1.2e-5", "3e+12" -> "3e12": shorter, same value. */
static void compact_exp(char *b)
{
	char *e = strchr(b, 'e'), *d;

	if (!e)
		return;
	d = e + 1;
	if (*d == '+')
		memmove(d, d + 1, strlen(d));
	else if (*d == '-')
		d++;
	while (d[0] == '0' && d[1])
		memmove(d, d + 1, strlen(d));
}

/* A rounded zero has no sign: "-0.00" -> "0.00". */
static void drop_neg_zero(char *b)
{
	const char *s;

	if (b[0] != '-')
		return;
	for (s = b + 1; *s; s++)
		if (*s != '0' && *s != '.')
			return;
	memmove(b, b + 1, strlen(b));
}

/* x rounded to a multiple of 10^q. */
static void fmt_at(char *b, size_t n, double x, int q)
{
	int mag = x != 0 ? (int)floor(log10(fabs(x))) : 0;

	if (x != 0 && (fabs(x) < 1e-3 || fabs(x) >= 1e12)) {
		int sig = mag - q + 1;

		if (sig < 1)
			sig = 1;
		snprintf(b, n, "%.*e", sig - 1, x);
		compact_exp(b);
	} else if (q >= 0) {
		double s = pow(10, q);

		snprintf(b, n, "%.0f", round(x / s) * s);
	} else {
		snprintf(b, n, "%.*f", -q, x);
	}
	drop_neg_zero(b);
}

/*
 * The exponent to round to: one digit below the leading digit of the
 * interval's half-width, but never beyond MAX_SIG significant digits of
 * x. Returns 0 when the interval gives no precision (undefined or zero
 * width): the caller falls back to NO_CI_SIG digits.
 */
static int ci_quantum(double x, double lo, double hi, int *q)
{
	double h = (hi - lo) / 2;

	if (!isfinite(h) || h <= 0 || !isfinite(x))
		return 0;
	*q = (int)floor(log10(h)) - 1;
	if (x != 0 && *q < (int)floor(log10(fabs(x))) - (MAX_SIG - 1))
		*q = (int)floor(log10(fabs(x))) - (MAX_SIG - 1);
	return 1;
}

static void fmt_plain(char *b, size_t n, double x)
{
	if (isnan(x)) {
		snprintf(b, n, "-");
		return;
	}
	snprintf(b, n, "%.*g", NO_CI_SIG, x);
	compact_exp(b);
}

void fmt_ci(char *b, size_t n, double x, double lo, double hi)
{
	int q;

	if (isnan(x) || !ci_quantum(x, lo, hi, &q))
		fmt_plain(b, n, x);
	else
		fmt_at(b, n, x, q);
}

/*
 * The digits of a row's two medians: the coarser of their intervals'
 * quanta (no digit one side's interval does not support). Returns 0
 * when a side has no usable interval.
 */
static int pair_quantum(const double x[2], const double lo[2],
			const double hi[2], int *q)
{
	int qs[2], k;

	for (k = 0; k < 2; k++)
		if (isnan(x[k]) || !ci_quantum(x[k], lo[k], hi[k], &qs[k]))
			return 0;
	*q = qs[1] > qs[0] ? qs[1] : qs[0];
	return 1;
}

/* "x [lo, hi]" at the digits q */
static void fmt_est_at(char *b, size_t n, double x, double lo, double hi, int q)
{
	char v[64], l[64], h[64];

	fmt_at(v, sizeof(v), x, q);
	fmt_at(l, sizeof(l), lo, q);
	fmt_at(h, sizeof(h), hi, q);
	snprintf(b, n, "%s [%s, %s]", v, l, h);
}

/* A row's two medians, with their intervals if ci, at the pair's digits. */
static void pair(char *ab[2], size_t n, const double x[2], const double lo[2],
		 const double hi[2], int ci)
{
	int q = 0, k, both = pair_quantum(x, lo, hi, &q);

	for (k = 0; k < 2; k++) {
		if (both && ci)
			fmt_est_at(ab[k], n, x[k], lo[k], hi[k], q);
		else if (both)
			fmt_at(ab[k], n, x[k], q);
		else if (ci)
			fmt_est(ab[k], n, x[k], lo[k], hi[k]);
		else
			fmt_ci(ab[k], n, x[k], lo[k], hi[k]);
	}
}

void fmt_pair(char *a, char *b, size_t n, const double x[2],
	      const double lo[2], const double hi[2])
{
	pair((char *[2]){ a, b }, n, x, lo, hi, 0);
}

void fmt_pair_est(char *a, char *b, size_t n, const double x[2],
		  const double lo[2], const double hi[2])
{
	pair((char *[2]){ a, b }, n, x, lo, hi, 1);
}

void fmt_est(char *b, size_t n, double x, double lo, double hi)
{
	char v[64], l[64], h[64];
	int q;

	if (isnan(x)) {
		snprintf(b, n, "-");
		return;
	}
	if (ci_quantum(x, lo, hi, &q)) {
		fmt_est_at(b, n, x, lo, hi, q);
		return;
	}
	fmt_plain(v, sizeof(v), x);
	fmt_plain(l, sizeof(l), lo);
	fmt_plain(h, sizeof(h), hi);
	if (isnan(lo) && isnan(hi))
		snprintf(b, n, "%s", v);
	else
		snprintf(b, n, "%s [%s, %s]", v, l, h);
}

void fmt_p(char *b, size_t n, double p)
{
	if (isnan(p)) {
		snprintf(b, n, "-");
	} else if (p < P_FLOOR) {
		snprintf(b, n, "< %g", P_FLOOR);
		compact_exp(b);
	} else {
		/* '#' keeps the trailing zero: 0.50 has two digits, 0.5 one */
		snprintf(b, n, "%#.2g", p);
		compact_exp(b);
	}
}

void text_wrap(FILE *f, const char *first, const char *rest, const char *text,
	       size_t width)
{
	const char *p = text, *ind = first;

	while (*p) {
		size_t room = width > strlen(ind) + 20 ? width - strlen(ind) : 20;
		size_t len = strlen(p), cut = len;

		if (len > room) {
			for (cut = room; cut > 0 && p[cut] != ' '; cut--)
				;
			if (!cut)	/* one long word: cut it at the first blank after */
				for (cut = room; p[cut] && p[cut] != ' '; cut++)
					;
		}
		fprintf(f, "%s%.*s\n", ind, (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		ind = rest;
	}
	if (!*text)
		fprintf(f, "%s\n", first);
}
