// SPDX-License-Identifier: GPL-2.0
/*
 * kbstat answer RESULTS.json --run RUN [--variants VARIANTS.json]... [--width N]
 *
 * The answer a report opens with: one line per claim of the run's
 * workload files (RUN/workloads/NAME.wl, file order, then claim order),
 *
 *   claim.<id> = FIELDS | DESCRIPTION | UPSTREAM
 *
 * FIELDS: compare=kernel|variant metric=M point=K=V;K=V [variant=V]
 * [base=A new=B kernel=LABEL]. Each claim's row comes from the kernel
 * comparison (RESULTS.json) or the variant comparison of its kernel
 * (kbstat compare --kernel, VARIANTS.json): its ratio with the 95 % CI,
 * the verdict as the comparison decided it, the clock, and upstream's
 * own figure. Then the primary rows that got worse, and how many stayed
 * undecided with the boots their reasons ask for. The text is the one
 * source: summary.txt, summary.md and index.html each include it.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "fmt.h"
#include "json.h"
#include "model.h"
#include "results.h"
#include "util.h"

#define MAX_VARIANTS 64
/* worse rows listed by name; the rest are counted (the details list them) */
#define MAX_WORSE 6
/* without claims, the primary rows listed; the rest counted */
#define MAX_PRIMARY 8

struct claim {
	const char *compare, *metric, *point, *variant, *base, *new, *kernel;
	char *desc, *up;
};

struct cell {
	char *desc, *ratio, *verdict, *clock, *up, *up_full;
	int span;		/* not run or n/a: one text across ratio and verdict */
	/* upstream's figure points the other way: the verdict it implies */
	const char *up_verdict;
};

static int answer_usage(void)
{
	fputs("usage: kbstat answer RESULTS.json --run RUN [--variants VARIANTS.json]... [--width N]\n",
	      stderr);
	return 2;
}

/*
 * Splits text (owned by the caller, modified) into c; an error names
 * the file and line. Returns -1 on an error.
 */
static int claim_parse(char *text, const struct wl_primary *w,
		       const struct wl_claim *wc, struct claim *c)
{
	char *part[3] = { text, NULL, NULL }, *sep, *tok, *save;
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 1; i < 3; i++) {
		sep = strstr(part[i - 1], " | ");
		if (!sep)
			break;
		*sep = 0;
		part[i] = sep + 3;
	}
	if (!part[1] || !*str_trim(part[1])) {
		fprintf(stderr, "kbstat: error: %s:%d: claim.%s: no description (FIELDS | DESCRIPTION [| UPSTREAM])\n",
			w->file, wc->line, wc->id);
		return -1;
	}
	c->desc = str_trim(part[1]);
	c->up = part[2] ? str_trim(part[2]) : "";
	for (tok = strtok_r(part[0], " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		static const char *const keys[] = { "compare", "metric", "point",
						     "variant", "base", "new",
						     "kernel" };
		const char **dst[] = { &c->compare, &c->metric, &c->point,
				       &c->variant, &c->base, &c->new,
				       &c->kernel };
		char *eq = strchr(tok, '=');
		size_t k;

		for (k = 0; eq && k < sizeof(keys) / sizeof(keys[0]); k++) {
			if (strlen(keys[k]) == (size_t)(eq - tok) &&
			    !strncmp(tok, keys[k], eq - tok))
				break;
		}
		if (!eq || !eq[1] || k == sizeof(keys) / sizeof(keys[0])) {
			fprintf(stderr, "kbstat: error: %s:%d: claim.%s: '%s' is not one of compare=, metric=, point=, variant=, base=, new=, kernel=\n",
				w->file, wc->line, wc->id, tok);
			return -1;
		}
		*dst[k] = eq + 1;
	}
	if (!c->compare || !c->metric || !c->point) {
		fprintf(stderr, "kbstat: error: %s:%d: claim.%s: needs compare=, metric= and point=\n",
			w->file, wc->line, wc->id);
		return -1;
	}
	if (!strcmp(c->compare, "variant")) {
		if (!c->base || !c->new) {
			fprintf(stderr, "kbstat: error: %s:%d: claim.%s: compare=variant needs base= and new=\n",
				w->file, wc->line, wc->id);
			return -1;
		}
	} else if (strcmp(c->compare, "kernel")) {
		fprintf(stderr, "kbstat: error: %s:%d: claim.%s: compare is kernel or variant, not '%s'\n",
			w->file, wc->line, wc->id, c->compare);
		return -1;
	}
	return 0;
}

/* Every "k=v" of want (';'-separated) is a parameter of point. */
static int point_match(const char *point, const char *want)
{
	char *p = xmalloc(strlen(point) + 3), *kv = xmalloc(strlen(want) + 3);
	const char *s = want;
	int ok = 1;

	sprintf(p, ";%s;", point);
	while (ok && *s) {
		size_t l = strcspn(s, ";");

		if (l) {
			sprintf(kv, ";%.*s;", (int)l, s);
			ok = strstr(p, kv) != NULL;
		}
		s += l + (s[l] ? 1 : 0);
	}
	free(p);
	free(kv);
	return ok;
}

/* The first word of a space-separated list, in a static buffer. */
static const char *first_word(const char *list)
{
	static char b[256];
	size_t l;

	if (!list)
		return NULL;
	list += strspn(list, " \t");
	l = strcspn(list, " \t");
	if (!l || l >= sizeof(b))
		return NULL;
	memcpy(b, list, l);
	b[l] = 0;
	return b;
}

static const struct row *find_row(const struct results *rs, const char *w,
				   const char *variant, const char *metric,
				   const char *point)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];

		if (!strcmp(r->workload, w) && !strcmp(r->metric, metric) &&
		    (!variant || !strcmp(r->variant, variant)) &&
		    point_match(r->point, point))
			return r;
	}
	return NULL;
}

static int has_workload(const struct results *rs, const char *w)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->row[i].workload, w))
			return 1;
	return 0;
}

/*
 * Upstream's figure as the column shows it: the leading "NUMBERx" when
 * the text starts with one (the rest is said in full below the block),
 * else the text.
 */
static char *up_short(const char *up)
{
	const char *p = up;

	if (*p == '+' || *p == '-')
		p++;
	if (isdigit((unsigned char)*p)) {
		p += strspn(p, "0123456789.");
		if (*p == 'x' && (!p[1] || p[1] == ' ')) {
			char *s = xmalloc(p - up + 2);

			memcpy(s, up, p - up + 1);
			s[p - up + 1] = 0;
			return s;
		}
	}
	return xstrdup(up);
}

/* The verdict of row r as the answer shows it; n/a with the side. */
static char *verdict_of(const struct row *r)
{
	char b[256];

	if (!strcmp(r->verdict, "n/a") && r->why) {
		size_t l = strcspn(r->why, ":");

		snprintf(b, sizeof(b), "n/a (%.*s)", (int)l, r->why);
		return xstrdup(b);
	}
	return xstrdup(r->verdict);
}

/*
 * A ratio in the answer: three significant digits (the details below
 * carry every digit the interval supports), so that a claim's row fits
 * 80 columns.
 */
static void fmt_ratio3(char *b, size_t n, double est, double lo, double hi)
{
	if (isnan(est))
		snprintf(b, n, "-");
	else if (isnan(lo) || isnan(hi))
		snprintf(b, n, "%.3g", est);
	else
		snprintf(b, n, "%.3g [%.3g,%.3g]", est, lo, hi);
}

/* Fewer samples a side than this: the verdict column says n (reps_at) */
#define FEW_SAMPLES 10

static void fill_cell(struct cell *c, const struct row *r, const char *why_not)
{
	char e[256], b[300];

	if (!r) {
		c->span = 1;
		c->ratio = xstrdup(why_not);
		c->verdict = xstrdup("");
		c->clock = xstrdup("");
		return;
	}
	if (!strcmp(r->scale, "difference"))
		fmt_est(e, sizeof(e), json_num(r->r, "estimate"),
			json_num(r->r, "estimate_ci_lo"),
			json_num(r->r, "estimate_ci_hi"));
	else
		fmt_ratio3(e, sizeof(e), json_num(r->r, "estimate"),
			   json_num(r->r, "estimate_ci_lo"),
			   json_num(r->r, "estimate_ci_hi"));
	snprintf(b, sizeof(b), "%s%s",
		 !strcmp(r->scale, "difference") && strcmp(e, "-") ? "diff " : "", e);
	c->ratio = xstrdup(b);
	c->verdict = verdict_of(r);
	{
		/* a point run with fewer samples (reps_at) says how many */
		double nb = json_num(json_get(r->r, "base"), "n");
		double nn = json_num(json_get(r->r, "new"), "n");
		double nmin = isnan(nb) || (!isnan(nn) && nn < nb) ? nn : nb;

		if (!isnan(nmin) && nmin < FEW_SAMPLES &&
		    strncmp(c->verdict, "n/a", 3)) {
			snprintf(b, sizeof(b), "%s n=%.0f", c->verdict, nmin);
			free(c->verdict);
			c->verdict = xstrdup(b);
		}
	}
	c->clock = xstrdup(r->clock);
	if (!strncmp(c->verdict, "n/a", 3)) {
		/* no ratio: the verdict says why, across both columns */
		free(c->ratio);
		c->ratio = c->verdict;
		c->verdict = xstrdup("");
		c->span = 1;
	}
}

/*
 * The verdict upstream's "NUMBERx" implies for row r, when it is the
 * opposite of r's: a figure beyond the row's minimum effect on one side
 * of 1 (same direction as our ratio) where r is better or worse on the
 * other. NULL otherwise (same direction, within the minimum effect, a
 * difference, no figure).
 */
static const char *opposite_of(const struct row *r, const char *up)
{
	const char *up_verdict;
	char *end;
	double x, me;

	if (!r || !r->scale || strcmp(r->scale, "ratio") || !r->better ||
	    (strcmp(r->verdict, "better") && strcmp(r->verdict, "worse")))
		return NULL;
	x = strtod(up, &end);
	if (end == up || *end != 'x' || !(x > 0))
		return NULL;
	me = json_num(r->r, "min_effect");
	if (!(fabs(x - 1) > (isnan(me) ? 0 : me)))
		return NULL;
	up_verdict = (x > 1) == !strcmp(r->better, "higher") ? "better" : "worse";
	return strcmp(up_verdict, r->verdict) ? up_verdict : NULL;
}

/* The variant comparison of kernel k, base b, new n; NULL if none. */
static const struct results *find_vc(const struct results *vc, size_t nvc,
				     const char *k, const char *b, const char *n)
{
	size_t i;

	for (i = 0; i < nvc; i++)
		if (vc[i].kernel && !strcmp(vc[i].kernel, k) &&
		    !strcmp(vc[i].base, b) && !strcmp(vc[i].new, n))
			return &vc[i];
	return NULL;
}

static void claim_cell(struct cell *cl, const struct claim *c,
		       const struct wl_primary *w, const struct results *rs,
		       const struct results *vc, size_t nvc)
{
	const struct row *r = NULL;
	char why[256];

	cl->desc = xstrdup(c->desc);
	cl->up_full = xstrdup(c->up);
	cl->up = up_short(c->up);
	if (!has_workload(rs, w->workload)) {
		fill_cell(cl, NULL, "not run (workload not in this run)");
		return;
	}
	snprintf(why, sizeof(why), "not run (MATRIX=full)");
	if (!strcmp(c->compare, "kernel")) {
		const char *v = c->variant;

		if (!v)
			v = w->base_variant ? w->base_variant : first_word(w->variants);
		r = find_row(rs, w->workload, v, c->metric, c->point);
		/* a workload whose rows carry no variant name */
		if (!r && !c->variant)
			r = find_row(rs, w->workload, NULL, c->metric, c->point);
	} else {
		const char *k = c->kernel ? c->kernel : rs->new;
		const struct results *v = find_vc(vc, nvc, k, c->base, c->new);

		/* a regression check's kernels are old and new: its NEW */
		if (!v)
			v = find_vc(vc, nvc, rs->new, c->base, c->new);
		if (v)
			r = find_row(v, w->workload, NULL, c->metric, c->point);
		else
			snprintf(why, sizeof(why), "not run (no %s against %s on %s)",
				 c->new, c->base, k);
	}
	fill_cell(cl, r, why);
	cl->up_verdict = opposite_of(r, c->up);
}

static int cmp_file(const void *a, const void *b)
{
	const struct wl_primary *x = *(const struct wl_primary *const *)a;
	const struct wl_primary *y = *(const struct wl_primary *const *)b;

	return strcmp(x->file, y->file);
}

/* The largest N of "BOOTS=N" in s, or 0. */
static long boots_in(const char *s)
{
	long best = 0, n;

	while (s && (s = strstr(s, "BOOTS="))) {
		s += 6;
		n = strtol(s, NULL, 10);
		if (n > best)
			best = n;
	}
	return best;
}

/* The upstream column's width at most: a "NUMBERx" fits, a text is below. */
#define UP_COL 8
/* after upstream's figure where it points the other way (explained below) */
#define OPPOSITE " !"

static void print_claims(struct cell *cl, size_t n, size_t width, int clockcol,
			 const char *head)
{
	size_t wr = strlen(head), wv = strlen("verdict"), wc = 0,
	       wu = 0, wf = 0, wd = strlen("claim"), rest, i, mark = 0;

	for (i = 0; i < n; i++)
		if (cl[i].up_verdict)
			mark = strlen(OPPOSITE);
	for (i = 0; i < n; i++) {
		if (!cl[i].span) {
			wr = strlen(cl[i].ratio) > wr ? strlen(cl[i].ratio) : wr;
			wv = strlen(cl[i].verdict) > wv ? strlen(cl[i].verdict) : wv;
			wc = strlen(cl[i].clock) > wc ? strlen(cl[i].clock) : wc;
		}
		wu = strlen(cl[i].up) > wu ? strlen(cl[i].up) : wu;
		wf = strlen(cl[i].up_full) > wf ? strlen(cl[i].up_full) : wf;
		wd = strlen(cl[i].desc) > wd ? strlen(cl[i].desc) : wd;
	}
	if (clockcol && wc < strlen("clock"))
		wc = strlen("clock");
	rest = 2 + 2 + wr + 2 + wv + (clockcol ? 2 + wc : 0);
	if (wf && rest + wd + 2 + (wf + mark > 8 ? wf + mark : 8) <= width) {
		/* room for upstream's figures in full: no footnote needed */
		for (i = 0; i < n; i++) {
			free(cl[i].up);
			cl[i].up = xstrdup(cl[i].up_full);
		}
		wu = wf;
	} else if (wu) {
		wu = UP_COL;
		for (i = 0; i < n; i++) {
			if (strlen(cl[i].up) + (cl[i].up_verdict ? mark : 0) <= wu)
				continue;
			free(cl[i].up);
			cl[i].up = xstrdup("below");
		}
	}
	if (wu && wu < strlen("upstream"))
		wu = strlen("upstream");
	rest += wu ? 2 + wu : 0;
	/* the description column: what is left, a long one on its own line */
	if (rest + wd > width)
		wd = width > rest + 12 ? width - rest : 12;
	printf("  %-*s  %-*s  %-*s", (int)wd, "claim", (int)wr, head,
	       (int)wv, "verdict");
	if (clockcol)
		printf("  %-*s", (int)wc, "clock");
	if (wu)
		printf("  %s", "upstream");
	putchar('\n');
	for (i = 0; i < n; i++) {
		const struct cell *c = &cl[i];
		char line[1024];
		int len;

		if (strlen(c->desc) > wd) {
			text_wrap(stdout, "  ", "    ", c->desc, width);
			len = snprintf(line, sizeof(line), "  %-*s  ", (int)wd, "");
		} else {
			len = snprintf(line, sizeof(line), "  %-*s  ", (int)wd, c->desc);
		}
		if (c->span) {
			/* not run, or n/a: one text across ratio and verdict */
			len += snprintf(line + len, sizeof(line) - len, "%-*s",
					(int)(wr + 2 + wv + (clockcol ? 2 + wc : 0)),
					c->ratio);
		} else {
			len += snprintf(line + len, sizeof(line) - len, "%-*s  %-*s",
					(int)wr, c->ratio, (int)wv, c->verdict);
			if (clockcol)
				len += snprintf(line + len, sizeof(line) - len,
						"  %-*s", (int)wc, c->clock);
		}
		if (*c->up)
			snprintf(line + len, sizeof(line) - len, "  %s%s", c->up,
				 c->up_verdict ? OPPOSITE : "");
		/* no trailing blanks */
		len = strlen(line);
		while (len && line[len - 1] == ' ')
			line[--len] = 0;
		puts(line);
	}
}

/*
 * The claims whose upstream figure points the other way: both numbers
 * can be right, and the reader is told why in plain words, per clock.
 */
static void print_opposite(const struct cell *cl, size_t n, size_t width)
{
	char line[1024], *up;
	size_t i, k, head = 0;

	for (i = 0; i < n; i++) {
		if (!cl[i].up_verdict)
			continue;
		/* once per clock, before its first row */
		for (k = 0; k < i && !(cl[k].up_verdict && !strcmp(cl[k].clock, cl[i].clock)); k++)
			;
		if (k == i && !strcmp(cl[i].clock, "icount"))
			snprintf(line, sizeof(line), "%supstream's figure points the other way, and both can stand: this run's clock is icount, the count of instructions the guest ran (one nanosecond each, whatever it costs: no cache or TLB misses, no slow instructions), where upstream timed real hardware. An ACCEL=kvm run (hardware time) is the one to set against upstream; CLOCK=wall under emulation at least counts time:",
				 head++ ? "" : "! ");
		else if (k == i)
			snprintf(line, sizeof(line), "%supstream's figure points the other way: this run's clock is %s, where upstream timed real hardware, and the two disagree on:",
				 head++ ? "" : "! ", cl[i].clock);
		if (k == i)
			text_wrap(stdout, "", "  ", line, width);
		/* the verdict's word (not its n=), upstream's NUMBERx */
		up = up_short(cl[i].up_full);
		snprintf(line, sizeof(line), "%s: %.*s here (%s), %s upstream (%s)",
			 cl[i].desc, (int)strcspn(cl[i].verdict, " "), cl[i].verdict,
			 cl[i].ratio, cl[i].up_verdict, up);
		free(up);
		text_wrap(stdout, "  ", "    ", line, width);
	}
}

/* one primary row as the answer lists it: WORKLOAD[/VARIANT] POINT METRIC RATIO VERDICT */
static void print_row(const struct row *r, bool verdict, size_t width)
{
	char line[2048], e[256];

	fmt_est(e, sizeof(e), json_num(r->r, "estimate"),
		json_num(r->r, "estimate_ci_lo"), json_num(r->r, "estimate_ci_hi"));
	snprintf(line, sizeof(line), "%s%s%s %s %s %s%s%s%s", r->workload,
		 *r->variant ? "/" : "", r->variant, r->point, r->metric,
		 !strcmp(r->scale, "difference") ? "diff " : "", e,
		 verdict ? " " : "", verdict ? r->verdict : "");
	text_wrap(stdout, "  ", "    ", line, width);
}

/*
 * A run whose workload files make no claim (a program workload, a
 * series not ours) still opens with its answer: its primary rows, by
 * workload and metric, each point with its ratio and verdict.
 */
static void print_primary(const struct results *rs, size_t width)
{
	const struct row *prev = NULL;
	char line[2048], e[256];
	size_t i, n = 0, shown = 0, wp = 0, we = 0, wv = 0;

	/* the points and ratios in columns, as wide as the widest shown */
	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];

		if (r->sec != SEC_PRIMARY || n++ >= MAX_PRIMARY)
			continue;
		fmt_est(e, sizeof(e), json_num(r->r, "estimate"),
			json_num(r->r, "estimate_ci_lo"), json_num(r->r, "estimate_ci_hi"));
		wp = strlen(r->point) > wp ? strlen(r->point) : wp;
		we = strlen(e) > we ? strlen(e) : we;
		wv = strlen(r->verdict) > wv ? strlen(r->verdict) : wv;
	}
	/* columns only where a row fits the width: else one space apart */
	if (4 + wp + 2 + we + 2 + wv > width)
		wp = we = 0;
	/* n counted every primary row, those past MAX_PRIMARY too */
	if (!n) {
		puts("  no claims (claim.<id> = ... in a workload file), and no primary rows");
		return;
	}
	printf("  no claims (claim.<id> = ... in a workload file); the %zu primary row%s:\n",
	       n, n == 1 ? "" : "s");
	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];

		if (r->sec != SEC_PRIMARY)
			continue;
		if (shown++ == MAX_PRIMARY) {
			printf("  and %zu more (every row is in the details below)\n",
			       n - MAX_PRIMARY);
			break;
		}
		if (!prev || strcmp(prev->workload, r->workload) ||
		    strcmp(prev->variant, r->variant) || strcmp(prev->metric, r->metric)) {
			snprintf(line, sizeof(line), "%s%s%s %s%s:", r->workload,
				 *r->variant ? "/" : "", r->variant, r->metric,
				 !strcmp(r->scale, "difference") ? " (difference)" : "");
			text_wrap(stdout, "  ", "    ", line, width);
		}
		prev = r;
		fmt_est(e, sizeof(e), json_num(r->r, "estimate"),
			json_num(r->r, "estimate_ci_lo"), json_num(r->r, "estimate_ci_hi"));
		snprintf(line, sizeof(line), "%-*s %s%-*s %s%s", (int)wp, r->point,
			 wp ? " " : "", (int)we, e, we ? " " : "", r->verdict);
		text_wrap(stdout, "    ", "      ", line, width);
	}
}

static void print_worse(const struct results *rs, size_t width)
{
	size_t i, n = 0, shown = 0;

	for (i = 0; i < rs->n; i++)
		n += rs->row[i].sec == SEC_PRIMARY && !strcmp(rs->row[i].verdict, "worse");
	if (!n) {
		printf("worse: none of the primary rows of %s against %s\n", rs->new, rs->base);
		return;
	}
	printf("worse: %zu primary row%s of %s against %s:\n", n, n == 1 ? "" : "s",
	       rs->new, rs->base);
	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];

		if (r->sec != SEC_PRIMARY || strcmp(r->verdict, "worse"))
			continue;
		if (shown++ == MAX_WORSE) {
			printf("  and %zu more (every row is in the details below)\n",
			       n - MAX_WORSE);
			break;
		}
		print_row(r, false, width);
	}
}

static void print_undecided(const struct results *rs, size_t width)
{
	size_t i, inc = 0, ins = 0;
	long boots = 0, b;
	int unsure = 0;
	char line[1024];

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];

		if (r->sec != SEC_PRIMARY || !row_undecided(r))
			continue;
		if (!strncmp(r->verdict, "inconclusive", 12))
			inc++;
		else
			ins++;
		b = boots_in(r->why);
		if (!b)
			unsure = 1;
		if (b > boots)
			boots = b;
	}
	if (!inc && !ins) {
		printf("undecided: none of the primary rows\n");
		return;
	}
	snprintf(line, sizeof(line), "undecided: %zu primary row%s (%zu inconclusive, %zu insufficient data)",
		 inc + ins, inc + ins == 1 ? "" : "s", inc, ins);
	if (boots)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "; BOOTS=%ld would settle %s (the most their reasons ask for)",
			 boots, unsure ? "those with a count" : inc + ins == 1 ? "it" : "them");
	snprintf(line + strlen(line), sizeof(line) - strlen(line),
		 "; each row's reason is under \"undecided\" below");
	text_wrap(stdout, "", "  ", line, width);
}

int cmd_answer(int argc, char **argv)
{
	const char *file = NULL, *run = NULL, *vfile[MAX_VARIANTS];
	struct results rs, vc[MAX_VARIANTS];
	struct method m;
	char ci[32], head[64];
	struct primary_tab pt = { 0 };
	const struct wl_primary **wl;
	struct cell *cl = NULL;
	size_t nv = 0, ncl = 0, width = 80, i, j, nclock = 0;
	const char *clocks[4];
	char line[1024];
	int a, ret = 1, icount = 0;

	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "--run") && a + 1 < argc) {
			run = argv[++a];
		} else if (!strcmp(argv[a], "--variants") && a + 1 < argc) {
			if (nv == MAX_VARIANTS)
				return answer_usage();
			vfile[nv++] = argv[++a];
		} else if (!strcmp(argv[a], "--width") && a + 1 < argc) {
			char *end;

			width = strtoul(argv[++a], &end, 10);
			if (*end || width < 60 || width > 1000)
				return answer_usage();
		} else if (argv[a][0] != '-' && !file) {
			file = argv[a];
		} else {
			return answer_usage();
		}
	}
	if (!file || !run)
		return answer_usage();
	if (results_load(file, run, &rs))
		return 1;
	for (i = 0; i < nv; i++) {
		if (results_load(vfile[i], run, &vc[i])) {
			nv = i;
			goto out;
		}
		if (!vc[i].kernel) {
			fprintf(stderr, "kbstat: error: %s: not a variant comparison (no \"kernel\")\n",
				vfile[i]);
			nv = i + 1;
			goto out;
		}
	}
	if (primary_load(run, &pt))
		goto out;
	/* workload file order: by file name */
	wl = xmalloc((pt.n + 1) * sizeof(*wl));
	for (i = 0; i < pt.n; i++)
		wl[i] = &pt.wl[i];
	if (pt.n)
		qsort(wl, pt.n, sizeof(*wl), cmp_file);
	for (i = 0; i < pt.n; i++) {
		for (j = 0; j < wl[i]->nclaim; j++) {
			char *text = xstrdup(wl[i]->claim[j].text);
			struct claim c;

			if (claim_parse(text, wl[i], &wl[i]->claim[j], &c)) {
				free(text);
				free(wl);
				goto out_cells;
			}
			cl = xrealloc(cl, (ncl + 1) * sizeof(*cl));
			memset(&cl[ncl], 0, sizeof(*cl));
			claim_cell(&cl[ncl++], &c, wl[i], &rs, vc, nv);
			free(text);
		}
	}
	free(wl);
	for (i = 0; i < ncl; i++) {
		if (cl[i].span)
			continue;
		icount |= !strcmp(cl[i].clock, "icount");
		for (j = 0; j < nclock && strcmp(clocks[j], cl[i].clock); j++)
			;
		if (j == nclock && nclock < 4)
			clocks[nclock++] = cl[i].clock;
	}
	/* without claims, the clocks of the primary rows the answer lists */
	for (i = 0; !ncl && i < rs.n; i++) {
		const char *c = rs.row[i].clock;

		if (rs.row[i].sec != SEC_PRIMARY || !c || !*c)
			continue;
		icount |= !strcmp(c, "icount");
		for (j = 0; j < nclock && strcmp(clocks[j], c); j++)
			;
		if (j == nclock && nclock < 4)
			clocks[nclock++] = c;
	}
	snprintf(line, sizeof(line), "kbench: what the series does, %s against %s", rs.new, rs.base);
	text_wrap(stdout, "", "  ", line, width);
	method_read(rs.j, &m);
	method_ci(&m, ci, sizeof(ci));
	method_ratio_head(rs.j, head, sizeof(head));
	snprintf(line, sizeof(line), "ratio new/base [%s]", ci);
	if (nclock == 1 && icount)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "; clock icount: instruction count, not a hardware figure");
	else if (nclock == 1)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "; clock %s", clocks[0]);
	else if (icount)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "; icount: instruction count, not a hardware figure");
	text_wrap(stdout, "", "  ", line, width);
	if (ncl) {
		print_claims(cl, ncl, width, nclock > 1, head);
		print_opposite(cl, ncl, width);
	} else
		print_primary(&rs, width);
	print_worse(&rs, width);
	print_undecided(&rs, width);
	/* upstream's figures in full, where the column shows only the ratio */
	for (i = j = 0; i < ncl; i++) {
		if (!strcmp(cl[i].up, cl[i].up_full))
			continue;
		if (!j++)
			puts("upstream, in full:");
		snprintf(line, sizeof(line), "%s: %s", cl[i].desc, cl[i].up_full);
		text_wrap(stdout, "  ", "    ", line, width);
	}
	ret = 0;
out_cells:
	for (i = 0; i < ncl; i++) {
		free(cl[i].desc);
		free(cl[i].ratio);
		free(cl[i].verdict);
		free(cl[i].clock);
		free(cl[i].up);
		free(cl[i].up_full);
	}
	free(cl);
	primary_free(&pt);
out:
	for (i = 0; i < nv; i++)
		results_free(&vc[i]);
	results_free(&rs);
	return ret;
}
