// SPDX-License-Identifier: GPL-2.0
/*
 * kbstat: compare two kernels' raw samples of a kbench run.
 *
 *   kbstat compare RUN --base L --new L [--floor F] [--seed N] [--reps N] [--out F]
 *   kbstat compare RUN --kernel L --base-variant A --new-variant B [...]
 *   kbstat variants RUN             the variant comparisons a run holds
 *   kbstat cover RESULTS.json --run RUN [--format txt|md] [--workload W]
 *   kbstat answer RESULTS.json --run RUN [--variants VARIANTS.json]... [--width N]
 *   kbstat gate NEW-VS-OLD.json [--baseline J] [--series TSV] [--format txt|md]
 *   kbstat floor RUN --a L --b L [--seed N] [--reps N] [--out F]
 *   kbstat summary RESULTS.json [--format txt|md] [--run RUN] [--cover VARIANTS.json]...
 *   kbstat dump RUN                 validated samples as TSV
 *   kbstat table KIND ...           the report's chart and table data (table.c)
 *   kbstat calc median|quartiles|mwu|bh|bootci|fmt|fmtp|normal|t|chisq... ARGS
 *                                                         (for the unit tests)
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "absent.h"
#include "answer.h"
#include "fmt.h"
#include "gate.h"
#include "json.h"
#include "mail.h"
#include "model.h"
#include "raw.h"
#include "results.h"
#include "stats.h"
#include "cpd.h"
#include "seqcmd.h"
#include "table.h"
#include "util.h"
#include "variants.h"


static const char *usage_text =
	"usage:\n"
	"  kbstat compare RUN --base LABEL --new LABEL [--floor FLOOR.json]\n"
	"                 [--seed N] [--reps N] [--out RESULTS.json] [--workloads W,...]\n"
	"  kbstat compare RUN --kernel LABEL --base-variant A --new-variant B\n"
	"                 [--floor FLOOR.json] [--seed N] [--reps N] [--out RESULTS.json] [--workloads W,...]\n"
	"  kbstat variants RUN\n"
	"  kbstat cover RESULTS.json --run RUN [--format txt|md] [--workload W]\n"
	"  kbstat answer RESULTS.json --run RUN [--variants VARIANTS.json]... [--width N]\n"
	"  kbstat gate NEW-VS-OLD.json [--baseline NEW-VS-BASELINE.json]\n"
	"              [--series SERIES.tsv] [--format txt|md]\n"
	"  kbstat floor RUN --a LABEL --b LABEL [--seed N] [--reps N] [--out FLOOR.json]\n"
	"  kbstat summary RESULTS.json [--format txt|md] [--run RUN] [--cover VARIANTS.json]...\n"
	"  kbstat model RESULTS.json [--run RUN]\n"
	"  kbstat dump RUN\n"
	"  kbstat table ratio|scaling|primary|box|rows|profile ... (kbstat table for details)\n"
	"  kbstat sequential bounds|decide|sim ...  adaptive boots (seq.c)\n"
	"  kbstat changepoint [--floor F] [sim ...] < ROWS   a history's steps (cpd.c)\n"
	"  kbstat calc median|quartiles V...\n"
	"  kbstat calc mwu X... -- Y...\n"
	"  kbstat calc bh P...\n"
	"  kbstat calc fmt X [LO HI]     X at the digits [LO, HI] supports\n"
	"  kbstat calc fmtp P            a p-value as the report shows it\n"
	"  kbstat calc bootci [--seed N] [--reps N] V... [/ V...]...\n"
	"  kbstat calc normal Z | normal-q P   P(Z >= Z) | z with P(Z >= z) = P\n"
	"  kbstat calc t T DF | t-q P DF       P(|T| >= T) | t with P(T > t) = P\n"
	"  kbstat calc chisq X DF              P(chi-square >= X)\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

struct opts {
	const char *run, *base, *new, *floor, *out, *format, *rundir;
	/* variant against variant on one kernel; a workload filter */
	const char *kernel, *base_variant, *new_variant, *workloads;
	uint64_t seed;
	size_t reps;
};

static int parse_num(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return !*s || *end || !isfinite(*v) ? -1 : 0;
}

/* A decimal unsigned integer, whole string: "12x", "", "-1" are errors. */
static int parse_u64(const char *opt, const char *v, uint64_t *out)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (!*v || *end || errno || !isdigit((unsigned char)*v)) {
		fprintf(stderr, "kbstat: %s: '%s' is not a non-negative decimal integer\n",
			opt, v);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	o->seed = DEFAULT_SEED;
	o->reps = DEFAULT_REPS;
	o->format = "txt";
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-' || !a[1]) {
			if (o->run) {
				fprintf(stderr, "kbstat: unexpected argument '%s'\n", a);
				return -1;
			}
			o->run = a;
			continue;
		}
		if (!v) {
			fprintf(stderr, "kbstat: %s needs a value\n", a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--base") || !strcmp(a, "--a")) {
			o->base = v;
		} else if (!strcmp(a, "--new") || !strcmp(a, "--b")) {
			o->new = v;
		} else if (!strcmp(a, "--floor")) {
			o->floor = v;
		} else if (!strcmp(a, "--kernel")) {
			o->kernel = v;
		} else if (!strcmp(a, "--base-variant")) {
			o->base_variant = v;
		} else if (!strcmp(a, "--new-variant")) {
			o->new_variant = v;
		} else if (!strcmp(a, "--workloads")) {
			o->workloads = v;
		} else if (!strcmp(a, "--out")) {
			o->out = v;
		} else if (!strcmp(a, "--format")) {
			o->format = v;
		} else if (!strcmp(a, "--run")) {
			o->rundir = v;
		} else if (!strcmp(a, "--seed")) {
			if (parse_u64(a, v, &o->seed))
				return -1;
		} else if (!strcmp(a, "--reps")) {
			uint64_t r;

			if (parse_u64(a, v, &r))
				return -1;
			if (r < 100 || r > 10000000) {
				fprintf(stderr, "kbstat: --reps: %s is outside 100..10000000\n", v);
				return -1;
			}
			o->reps = (size_t)r;
		} else {
			fprintf(stderr, "kbstat: unknown option '%s'\n", a);
			return -1;
		}
	}
	return 0;
}

/* Output goes to a temp file renamed into place: never a half file. */
static FILE *out_open(const char *path, char **tmp)
{
	FILE *f;

	*tmp = NULL;
	if (!path || !strcmp(path, "-"))
		return stdout;
	*tmp = xmalloc(strlen(path) + 32);
	sprintf(*tmp, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(*tmp, "w");
	if (!f)
		fprintf(stderr, "kbstat: error: cannot write %s\n", *tmp);
	return f;
}

static int out_close(FILE *f, const char *path, char *tmp)
{
	int err = ferror(f);

	if (f == stdout)
		return fflush(f) || err ? -1 : 0;
	if (fclose(f) || err || rename(tmp, path)) {
		fprintf(stderr, "kbstat: error: cannot write %s\n", path);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static const struct raw *sort_raw;

/* Report order: workload, variant, point (natural order), metric. */
static int key_order(const struct key *a, const struct key *b)
{
	int c;

	if ((c = strcmp(a->workload, b->workload)))
		return c;
	if ((c = strcmp(a->variant, b->variant)))
		return c;
	if ((c = natcmp(a->point, b->point)))
		return c;
	return strcmp(a->metric, b->metric);
}

static int cmp_keys(const void *pa, const void *pb)
{
	return key_order(&sort_raw->keys[*(const size_t *)pa],
			 &sort_raw->keys[*(const size_t *)pb]);
}

static size_t *sorted_keys(const struct raw *raw)
{
	size_t *idx = xmalloc(raw->nkeys * sizeof(*idx)), i;

	for (i = 0; i < raw->nkeys; i++)
		idx[i] = i;
	sort_raw = raw;
	qsort(idx, raw->nkeys, sizeof(*idx), cmp_keys);
	return idx;
}

#define NO_KEY ((size_t)-1)

/*
 * One comparison: a key on two kernels, or two variants' keys on one
 * kernel; everything but the multiple-test correction.
 */
struct cmp {
	size_t key[2];		/* NO_KEY: that side has no samples at all */
	struct key id;		/* what the row shows (borrowed strings) */
	const char *absent;	/* "base", "new", "both" or NULL */
	const char *absent_reason;
	struct group_stats g[2];
	int diff_scale;		/* some sample <= 0: compare differences */
	int boot_unit;		/* decided on boot medians (boot effect) */
	double mag;		/* difference scale: max mean |x| of the sides */
	double est, lo, hi;	/* estimate and CI_LEVEL interval, in the scale */
	double dlo, dhi;	/* DECISION_LEVEL interval, in the scale */
	double ratio, r_lo, r_hi;	/* ratio scale only */
	int tested;		/* enough samples and boots for a verdict */
	double p, df;		/* df: Welch's, boot unit only */
	const char *p_method;
	double p_adj, min_effect;
	const char *floor_source, *verdict;
	char why[1024];		/* inconclusive / insufficient / n/a: why, what settles it */
};

/* Effect relative to the baseline, in the comparison's scale. */
static double rel(const struct cmp *c, double x)
{
	if (c->diff_scale)
		return c->mag > 0 ? x / c->mag : x == 0 ? 0 : copysign(INFINITY, x);
	return x - 1;
}

/* Per-boot medians, logged on the ratio scale. */
static double *boot_level(const struct boot_set *bs, int logged)
{
	double *m = xmalloc((bs->nboots + 1) * sizeof(*m));
	size_t b;

	for (b = 0; b < bs->nboots; b++) {
		m[b] = median_of(bs->val[b], bs->len[b]);
		if (logged)
			m[b] = log(m[b]);
	}
	return m;
}

/*
 * Medians of each boot of key k on kernel kern, and which boot each is
 * (raw->boots index); samples of a key are stored in boot order.
 */
static size_t boot_level_ids(const struct raw *raw, size_t k, size_t kern,
			     int logged, size_t **boot, double **med)
{
	size_t i, n = 0, len = 0, last = NO_KEY, end = raw->key_start[k + 1];
	double *v = xmalloc((end - raw->key_start[k] + 1) * sizeof(*v));

	*boot = xmalloc((end - raw->key_start[k] + 1) * sizeof(**boot));
	*med = xmalloc((end - raw->key_start[k] + 1) * sizeof(**med));
	for (i = raw->key_start[k]; i <= end; i++) {
		const struct sample *s = i < end ? &raw->samples[raw->order[i]] : NULL;

		if (s && s->kernel != kern)
			continue;
		if ((!s || s->boot != last) && len) {
			(*med)[n] = median_of(v, len);
			if (logged)
				(*med)[n] = log((*med)[n]);
			(*boot)[n++] = last;
			len = 0;
		}
		if (!s)
			break;
		last = s->boot;
		v[len++] = s->value;
	}
	free(v);
	return n;
}

/*
 * Variants compared on one kernel ran in the same boots: the per-boot
 * difference of their (logged) medians cancels what the boot shares.
 * Paired t on the boots that ran both; -1 when fewer than 2 did.
 */
static int paired_boots(const struct raw *raw, const size_t key[2],
			size_t kern, int logged, struct welch *w, size_t *npairs)
{
	size_t *bt[2], n[2], i, j, np = 0;
	double *m[2], *d, mean = 0, ss = 0;
	int s;

	for (s = 0; s < 2; s++)
		n[s] = boot_level_ids(raw, key[s], kern, logged, &bt[s], &m[s]);
	d = xmalloc((n[0] + 1) * sizeof(*d));
	for (i = 0; i < n[0]; i++)
		for (j = 0; j < n[1]; j++)
			if (bt[0][i] == bt[1][j])
				d[np++] = m[1][j] - m[0][i];
	*npairs = np;
	memset(w, 0, sizeof(*w));
	for (i = 0; i < np; i++)
		mean += d[i];
	if (np)
		mean /= (double)np;
	for (i = 0; i < np; i++)
		ss += (d[i] - mean) * (d[i] - mean);
	for (s = 0; s < 2; s++) {
		free(bt[s]);
		free(m[s]);
	}
	free(d);
	if (np < 2)
		return -1;
	w->diff = mean;
	w->se = sqrt(ss / ((double)np - 1) / (double)np);
	if (w->se == 0) {
		/* every boot gave the same difference: it is exact */
		w->df = INFINITY;
		w->p = w->diff == 0 ? 1 : 0;
		return 0;
	}
	w->df = (double)np - 1;
	w->p = t_p_two_sided(fabs(w->diff) / w->se, w->df);
	return 0;
}

/*
 * Side s is key[s] on kernel kern[s]: a key on two kernels, or (paired)
 * two variants' keys on one kernel, whose boots are then matched.
 */
static void compare_key(const struct raw *raw, const size_t key[2],
			const size_t kern[2], int paired, const struct opts *o,
			struct cmp *c)
{
	const struct key *kk = &raw->keys[key[0] != NO_KEY ? key[0] : key[1]];
	struct boot_set bs[2];
	double *bm[2] = { NULL, NULL }, sum[2] = { 0, 0 };
	struct rng rngs[2];
	size_t s, i, b, npairs = 0;

	memset(c, 0, sizeof(*c));
	c->key[0] = key[0];
	c->key[1] = key[1];
	c->id = *kk;
	c->est = c->lo = c->hi = c->dlo = c->dhi = NAN;
	c->ratio = c->r_lo = c->r_hi = c->p = c->df = c->p_adj = NAN;
	for (s = 0; s < 2; s++) {
		struct rng *r = &rngs[s];
		uint64_t h = hash_str(0, raw->kernels[kern[s]]);

		memset(&bs[s], 0, sizeof(bs[s]));
		if (key[s] != NO_KEY) {
			kk = &raw->keys[key[s]];
			/* seed per key and label: a result does not depend on what else is in the run */
			h = hash_str(h, kk->workload);
			h = hash_str(h, kk->variant);
			h = hash_str(h, kk->point);
			h = hash_str(h, kk->metric);
			rng_seed(r, o->seed ^ h);
			raw_boot_set(raw, key[s], kern[s], &bs[s]);
		}
		if (bs[s].n) {
			bm[s] = xmalloc(o->reps * sizeof(double));
			boot_medians(&bs[s], r, o->reps, bm[s]);
		}
		group_stats(&bs[s], bm[s], o->reps, &c->g[s]);
		for (b = 0; b < bs[s].nboots; b++) {
			for (i = 0; i < bs[s].len[b]; i++) {
				c->diff_scale |= !(bs[s].val[b][i] > 0);
				sum[s] += fabs(bs[s].val[b][i]);
			}
		}
	}
	if (!bs[0].n || !bs[1].n)
		goto out;
	c->mag = fmax(sum[0] / (double)bs[0].n, sum[1] / (double)bs[1].n);
	/* informational metrics are shown side by side, never tested */
	c->tested = c->id.better != BETTER_NONE &&
		    bs[0].n >= MIN_SAMPLES && bs[1].n >= MIN_SAMPLES &&
		    bs[0].nboots >= MIN_BOOTS && bs[1].nboots >= MIN_BOOTS;
	c->boot_unit = bs[0].nboots >= 2 && bs[1].nboots >= 2 &&
		       (c->g[0].boot_p < BOOT_EFFECT_P ||
			c->g[1].boot_p < BOOT_EFFECT_P);
	if (c->boot_unit) {
		struct welch w;

		if (paired && !paired_boots(raw, key, kern[0], !c->diff_scale,
					    &w, &npairs)) {
			/* the boots that ran both variants are the units */
			c->tested &= npairs >= MIN_BOOTS;
			c->p_method = "paired-t-boot-medians";
		} else {
			double *m0 = boot_level(&bs[0], !c->diff_scale);
			double *m1 = boot_level(&bs[1], !c->diff_scale);

			welch(m0, bs[0].nboots, m1, bs[1].nboots, &w);
			c->p_method = "welch-boot-medians";
			free(m0);
			free(m1);
		}
		c->est = w.diff;
		welch_ci(&w, CI_LEVEL, &c->lo, &c->hi);
		welch_ci(&w, DECISION_LEVEL, &c->dlo, &c->dhi);
		if (!c->diff_scale) {
			c->est = exp(c->est);
			c->lo = exp(c->lo);
			c->hi = exp(c->hi);
			c->dlo = exp(c->dlo);
			c->dhi = exp(c->dhi);
		}
		c->p = w.p;
		c->df = w.df;
	} else {
		double *x[2], *fm[2];
		struct mwu m;

		for (s = 0; s < 2; s++) {
			struct boot_set flat = { .nboots = 1, .n = bs[s].n };
			size_t n = 0;

			x[s] = xmalloc(bs[s].n * sizeof(double));
			for (b = 0; b < bs[s].nboots; b++)
				for (i = 0; i < bs[s].len[b]; i++)
					x[s][n++] = bs[s].val[b][i];
			/*
			 * No boot effect: the sample is the unit, and the
			 * interval resamples samples alone (resampling boots
			 * too would count the within-boot noise twice).
			 */
			flat.len = &n;
			flat.val = &x[s];
			fm[s] = xmalloc(o->reps * sizeof(double));
			boot_medians(&flat, &rngs[s], o->reps, fm[s]);
		}
		for (i = 0; i < o->reps; i++)
			fm[1][i] = c->diff_scale ? fm[1][i] - fm[0][i] :
						   fm[1][i] / fm[0][i];
		c->est = c->diff_scale ? c->g[1].median - c->g[0].median :
					 c->g[1].median / c->g[0].median;
		percentile_ci(fm[1], o->reps, CI_LEVEL, &c->lo, &c->hi);
		percentile_ci(fm[1], o->reps, DECISION_LEVEL, &c->dlo, &c->dhi);
		free(fm[0]);
		free(fm[1]);
		mwu_test(x[0], bs[0].n, x[1], bs[1].n, &m);
		c->p = m.p;
		c->p_method = m.exact ? "mwu-exact" : "mwu-normal";
		free(x[0]);
		free(x[1]);
	}
	if (!c->diff_scale) {
		c->ratio = c->est;
		c->r_lo = c->lo;
		c->r_hi = c->hi;
	}
	/* too few boots or samples: intervals are shown, no test is made */
	if (!c->tested) {
		c->p = c->df = NAN;
		c->p_method = NULL;
	}
out:
	for (s = 0; s < 2; s++) {
		free(bm[s]);
		boot_set_free(&bs[s]);
	}
}

/*
 * The boots that give both the boots and the samples a verdict needs,
 * at the samples per boot this run had: a per-run metric (perf stat of
 * the whole run) has one sample a boot, so it needs MIN_SAMPLES boots.
 */
static size_t boots_needed(const struct cmp *c)
{
	size_t need = MIN_BOOTS, i;

	for (i = 0; i < 2; i++) {
		size_t per = c->g[i].nboots ? c->g[i].n / c->g[i].nboots : 0;

		if (per && (MIN_SAMPLES + per - 1) / per > need)
			need = (MIN_SAMPLES + per - 1) / per;
	}
	return need;
}

/*
 * The verdict of one comparison, on the DECISION_LEVEL interval against
 * the floor f (relative): wholly beyond +-f and BH p_adj < ALPHA ->
 * better/worse; wholly inside -> same; otherwise inconclusive, with
 * the number of boots that would settle it if the estimate held.
 */
static void decide(struct cmp *c, const struct key *kk, const char *base,
		   const char *new)
{
	double lo = rel(c, c->dlo), hi = rel(c, c->dhi), e = rel(c, c->est);
	double f = c->min_effect, half = (hi - lo) / 2, gap;
	size_t nb = c->g[0].nboots < c->g[1].nboots ? c->g[0].nboots :
						       c->g[1].nboots;

	if (kk->better == BETTER_NONE) {
		c->verdict = "informational";
		return;
	}
	if (!c->g[0].n || !c->g[1].n) {
		c->verdict = "insufficient data";
		snprintf(c->why, sizeof(c->why), "no samples on %s",
			 c->g[0].n ? new : base);
		return;
	}
	if (!c->tested) {
		c->verdict = "insufficient data";
		snprintf(c->why, sizeof(c->why),
			 "%zu/%zu boots and %zu/%zu samples (%s/%s); a verdict needs %d boots and %d samples a side: run with BOOTS=%zu or more",
			 c->g[0].nboots, c->g[1].nboots, c->g[0].n, c->g[1].n,
			 base, new, MIN_BOOTS, MIN_SAMPLES, boots_needed(c));
		return;
	}
	if (isnan(lo) || isnan(hi)) {
		c->verdict = "inconclusive";
		snprintf(c->why, sizeof(c->why), "the interval is undefined");
		return;
	}
	if ((lo > f || hi < -f) && c->p_adj < ALPHA) {
		c->verdict = (lo > 0) == (kk->better == BETTER_HIGHER) ?
				     "better" : "worse";
		return;
	}
	if (lo >= -f && hi <= f) {
		c->verdict = "same";
		return;
	}
	c->verdict = "inconclusive";
	if (lo > f || hi < -f) {
		snprintf(c->why, sizeof(c->why),
			 "beyond the floor, but p_adj %.3g >= %g after Benjamini-Hochberg over the report: run with more boots (BOOTS=%zu)",
			 c->p_adj, ALPHA, 2 * nb);
		return;
	}
	/* the interval shrinks about as 1/sqrt(boots) */
	gap = fabs(fabs(e) - f);
	if (gap < half / 5) {
		snprintf(c->why, sizeof(c->why),
			 "%.0f%% interval [%+.2f%%, %+.2f%%] straddles the floor +-%.2f%% and the estimate sits on it: more boots will not settle it cheaply (BOOTS=%zu at least); an A/A floor (make calibrate) tells whether %.2f%% is noise",
			 DECISION_LEVEL * 100, lo * 100, hi * 100, f * 100,
			 25 * nb, fabs(e) * 100);
		return;
	}
	snprintf(c->why, sizeof(c->why),
		 "%.0f%% interval [%+.2f%%, %+.2f%%] straddles the floor +-%.2f%%: run with BOOTS=%.0f",
		 DECISION_LEVEL * 100, lo * 100, hi * 100, f * 100,
		 ceil((double)nb * (half / gap) * (half / gap)) + 1);
}

static void write_group(FILE *f, const char *name, const char *label,
			const struct group_stats *g)
{
	fprintf(f, "\"%s\":{", name);
	jw_kstr(f, "label", label);
	fprintf(f, ",\"n\":%zu,\"boots\":%zu,", g->n, g->nboots);
	jw_knum(f, "median", g->median);
	fputc(',', f);
	jw_knum(f, "q1", g->q1);
	fputc(',', f);
	jw_knum(f, "q3", g->q3);
	fputc(',', f);
	jw_knum(f, "iqr", g->q3 - g->q1);
	fputc(',', f);
	jw_knum(f, "ci_lo", g->ci_lo);
	fputc(',', f);
	jw_knum(f, "ci_hi", g->ci_hi);
	fputc(',', f);
	jw_knum(f, "within_boot_spread", g->within_spread);
	fputc(',', f);
	jw_knum(f, "between_boot_spread", g->between_spread);
	fputc(',', f);
	jw_knum(f, "boot_effect_p", g->boot_p);
	fprintf(f, ",\"boot_spread_warning\":%s}", g->boot_warning ? "true" : "false");
}

static void write_key(FILE *f, const struct key *k)
{
	jw_kstr(f, "workload", k->workload);
	fputc(',', f);
	jw_kstr(f, "variant", k->variant);
	fputc(',', f);
	jw_kstr(f, "point", k->point);
	fputc(',', f);
	jw_kstr(f, "metric", k->metric);
	fputc(',', f);
	jw_kstr(f, "unit", k->unit);
	fputc(',', f);
	jw_kstr(f, "better", better_name(k->better));
	fputc(',', f);
	jw_kstr(f, "clock", k->clock);
}

struct warnings {
	char **v;
	size_t n;
};

static void warn(struct warnings *w, const char *fmt, const struct key *k,
		 const char *label)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), fmt, k->workload, k->variant, k->point,
		 k->metric, label);
	fprintf(stderr, "kbstat: warning: %s\n", buf);
	w->v = xrealloc(w->v, (w->n + 1) * sizeof(*w->v));
	w->v[w->n++] = xstrdup(buf);
}

/* A side's boot effect (stats.c's boot_warning), as the method words it. */
static void boot_warn(struct warnings *w, const struct key *k, const char *label)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s: %s", label, method_boot_warning());
	warn(w, "%s/%s/%s/%s: %s", k, buf);
}

/* A primary metric no sample carries is a typo in the workload file. */
static void primary_check(const struct primary_tab *pt, const struct raw *raw,
			  struct warnings *w)
{
	size_t i, j, k;

	for (i = 0; i < pt->n; i++) {
		for (j = 0; j < pt->wl[i].n; j++) {
			struct key miss = { .workload = pt->wl[i].workload,
					    .variant = "", .point = "",
					    .metric = pt->wl[i].metric[j] };

			for (k = 0; k < raw->nkeys; k++)
				if (!strcmp(raw->keys[k].workload, miss.workload) &&
				    !strcmp(raw->keys[k].metric, miss.metric))
					break;
			if (k == raw->nkeys)
				warn(w, "%s%s%s/%s: primary metric of the workload file has no samples in this run%.0s",
				     &miss, "");
		}
	}
}

static int load_labels(const char *run, struct opts *o, struct raw *raw,
		       size_t kern[2], const char *what)
{
	const char *lab[2] = { o->base, o->new };
	size_t s, i;

	if (o->kernel || o->base_variant || o->new_variant) {
		/* variant against variant: both sides are one kernel's boots */
		if (strcmp(what, "compare") || !o->run || !o->kernel ||
		    !o->base_variant || !o->new_variant || o->base || o->new) {
			fprintf(stderr, "kbstat: %s: variant against variant needs RUN --kernel K --base-variant A --new-variant B (and no --base/--new)\n",
				what);
			return -1;
		}
		if (!strcmp(o->base_variant, o->new_variant)) {
			fprintf(stderr, "kbstat: compare: --base-variant and --new-variant are both '%s'\n",
				o->base_variant);
			return -1;
		}
		lab[0] = lab[1] = o->kernel;
	} else if (!o->run || !o->base || !o->new) {
		fprintf(stderr, "kbstat: %s needs RUN and two labels\n", what);
		return -1;
	}
	if (raw_load(run, raw))
		return -1;
	for (s = 0; s < 2; s++) {
		long k = raw_kernel(raw, lab[s]);

		if (k < 0) {
			fprintf(stderr, "kbstat: error: %s/raw/%s: no such kernel label; the run has:",
				run, lab[s]);
			for (i = 0; i < raw->nkernels; i++)
				fprintf(stderr, " %s", raw->kernels[i]);
			fputc('\n', stderr);
			return -1;
		}
		kern[s] = (size_t)k;
	}
	return 0;
}

struct floor_tab {
	const json_t *floors;	/* the floor file's array */
};

/*
 * Floor of one key: the entry for the same workload/variant/point/metric,
 * else the largest for the same workload/variant/metric at other points
 * (a quick A/A run may cover fewer points), else none.
 */
static double floor_lookup(const struct floor_tab *ft, const struct key *k,
			   const char **source)
{
	double best = NAN;
	size_t i;

	for (i = 0; ft && i < json_array_size(ft->floors); i++) {
		const json_t *e = json_array_get(ft->floors, i);
		const char *w = json_str(e, "workload"), *v = json_str(e, "variant");
		const char *p = json_str(e, "point"), *m = json_str(e, "metric");
		double fl = json_num(e, "floor");

		if (!w || !v || !p || !m || isnan(fl) || strcmp(w, k->workload) ||
		    strcmp(v, k->variant) || strcmp(m, k->metric))
			continue;
		if (!strcmp(p, k->point)) {
			*source = "floor file";
			return fl;
		}
		if (isnan(best) || fl > best)
			best = fl;
	}
	*source = isnan(best) ? "default" : "floor file (other points)";
	return best;
}

#define FAILED_HEADER "kernel\tboot\tvcpus\tattempt\texit\treason\tserial_log"
#define FAILED_FIELDS 7

/*
 * RUN/failed-boots.tsv (orchestrate/run.sh): every boot that panicked,
 * oopsed, hung or lost its QEMU. Copied into results.json for the two
 * labels compared: their samples are not in the statistics, and the
 * report and the regression gate must say so. Returns -1 after naming
 * file:line of a malformed line; a missing file is no failures.
 */
static int write_failed_boots(FILE *out, const char *run, const char *lab[2])
{
	char *path = xmalloc(strlen(run) + 32), *line = NULL, *f[FAILED_FIELDS];
	size_t cap = 0, lineno = 0, nout = 0;
	ssize_t len;
	FILE *fp;

	sprintf(path, "%s/failed-boots.tsv", run);
	fp = fopen(path, "r");
	fputs(",\"failed_boots\":[", out);
	while (fp && (len = getline(&line, &cap, fp)) >= 0) {
		size_t k;
		char *q = line;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (lineno == 1) {
			if (strcmp(line, FAILED_HEADER)) {
				fprintf(stderr, "kbstat: error: %s:1: header is not '%s'\n",
					path, FAILED_HEADER);
				goto bad;
			}
			continue;
		}
		if (strlen(line) != (size_t)len) {
			fprintf(stderr, "kbstat: error: %s:%zu: NUL byte inside the line\n",
				path, lineno);
			goto bad;
		}
		for (k = 1; *q; q++)
			k += *q == '\t';
		if (k != FAILED_FIELDS) {
			fprintf(stderr, "kbstat: error: %s:%zu: %zu fields, expected %d (%s)\n",
				path, lineno, k, FAILED_FIELDS, FAILED_HEADER);
			goto bad;
		}
		for (q = line, f[0] = q, k = 1; *q; q++) {
			if (*q == '\t') {
				*q = 0;
				f[k++] = q + 1;
			}
		}
		if (strcmp(f[0], lab[0]) && strcmp(f[0], lab[1]))
			continue;
		fputs(nout++ ? ",{" : "{", out);
		jw_kstr(out, "kernel", f[0]);
		fputc(',', out);
		jw_kstr(out, "boot", f[1]);
		fputc(',', out);
		jw_kstr(out, "vcpus", f[2]);
		fputc(',', out);
		jw_kstr(out, "attempt", f[3]);
		fputc(',', out);
		jw_kstr(out, "exit", f[4]);
		fputc(',', out);
		jw_kstr(out, "reason", f[5]);
		fputc(',', out);
		jw_kstr(out, "serial_log", f[6]);
		fputc('}', out);
	}
	fputc(']', out);
	if (fp)
		fclose(fp);
	free(line);
	free(path);
	return 0;
bad:
	fclose(fp);
	free(line);
	free(path);
	return -1;
}

/* ---- the rows of a comparison, n/a rows of absent variants included ---- */

struct row_set {
	const struct raw *raw;
	const struct absent *ab;
	size_t kern[2];
	int variants;		/* variant against variant on kern[0] */
	const char *var[2];	/* variants mode: base and new variant */
	const char *lab[2];	/* the sides as errors and warnings name them */
	struct warnings *w;
	struct cmp *c;
	size_t n, cap;
	/* pseudo keys of rows no metric stands for, owned here */
	struct key *pseudo;
	size_t npseudo;
};

/* Whether w is one of the comma-separated list (NULL: every workload). */
static int wl_wanted(const char *list, const char *w)
{
	size_t l = strlen(w);
	const char *p;

	if (!list)
		return 1;
	for (p = list; (p = strstr(p, w)); p++)
		if ((p == list || p[-1] == ',') && (p[l] == ',' || !p[l]))
			return 1;
	return 0;
}

static size_t key_of(const struct raw *raw, const char *w, const char *v,
		     const char *pt, const char *m)
{
	size_t k;

	for (k = 0; k < raw->nkeys; k++) {
		const struct key *kk = &raw->keys[k];

		if (!strcmp(kk->workload, w) && !strcmp(kk->variant, v) &&
		    !strcmp(kk->point, pt) && !strcmp(kk->metric, m))
			return k;
	}
	return NO_KEY;
}

/* Whether workload w ran, or was absent with, variant v anywhere in the run. */
static int wl_has_variant(const struct row_set *rs, const char *w,
			  const char *v)
{
	size_t i;

	for (i = 0; i < rs->raw->nkeys; i++)
		if (!strcmp(rs->raw->keys[i].workload, w) &&
		    !strcmp(rs->raw->keys[i].variant, v))
			return 1;
	for (i = 0; i < rs->ab->n; i++)
		if (!strcmp(rs->ab->v[i].workload, w) &&
		    !strcmp(rs->ab->v[i].variant, v))
			return 1;
	return 0;
}

static struct cmp *row_add(struct row_set *rs)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 64;
		rs->c = xrealloc(rs->c, rs->cap * sizeof(*rs->c));
	}
	return &rs->c[rs->n++];
}

/* The variant side s stands for. */
static const char *side_variant(const struct row_set *rs, const struct cmp *c,
				int s)
{
	return rs->variants ? rs->var[s] : c->id.variant;
}

/*
 * A side without samples whose point the kernel listed as absent is
 * "n/a", not missing data. Samples and an absent entry for one point
 * on one kernel contradict each other: the samples count, with a warning.
 */
static void mark_absent(struct row_set *rs, struct cmp *c)
{
	const struct absent_entry *e[2];
	int s;

	for (s = 0; s < 2; s++) {
		e[s] = absent_find(rs->ab, rs->kern[s], c->id.workload,
				   side_variant(rs, c, s), c->id.point);
		if (e[s] && c->g[s].n) {
			char buf[600];

			snprintf(buf, sizeof(buf),
				 "%%s/%%s/%%s/%%s: %%s: listed as absent at %.300s, yet other boots have samples (those are used)",
				 e[s]->where);
			warn(rs->w, buf, &c->id, rs->lab[s]);
			e[s] = NULL;
		}
	}
	if (!e[0] && !e[1])
		return;
	c->absent = e[0] && e[1] ? "both" : e[0] ? "base" : "new";
	c->absent_reason = (e[0] ? e[0] : e[1])->reason;
}

/* What lacks the point on side s: "absent on K" or "V absent on K". */
static void absent_who(char *buf, size_t size, const struct row_set *rs,
		       int s, int both)
{
	const char *k0 = rs->raw->kernels[rs->kern[0]];

	if (rs->variants && both)
		snprintf(buf, size, "%s and %s absent on %s", rs->var[0],
			 rs->var[1], k0);
	else if (rs->variants)
		snprintf(buf, size, "%s absent on %s", rs->var[s], k0);
	else if (both)
		snprintf(buf, size, "absent on %s and %s", rs->lab[0], rs->lab[1]);
	else
		snprintf(buf, size, "absent on %s", rs->lab[s]);
}

/* The verdict and why of a row with an absent side (after decide()). */
static void absent_verdict(struct cmp *c, const struct row_set *rs)
{
	const struct absent_entry *e[2];
	char who[600];
	size_t len;
	int s, same;

	if (!c->absent)
		return;
	c->verdict = "n/a";
	c->why[0] = 0;
	for (s = 0; s < 2; s++)
		e[s] = c->g[s].n ? NULL :
		       absent_find(rs->ab, rs->kern[s], c->id.workload,
				   side_variant(rs, c, s), c->id.point);
	same = e[0] && e[1] && !strcmp(e[0]->reason, e[1]->reason);
	for (s = 0; s < 2; s++) {
		len = strlen(c->why);
		if (s && same)
			break;
		if (e[s]) {
			absent_who(who, sizeof(who), rs, s, same);
			snprintf(c->why + len, sizeof(c->why) - len, "%s%s: %s",
				 len ? "; " : "", who, e[s]->reason);
		} else if (!c->g[s].n) {
			snprintf(c->why + len, sizeof(c->why) - len,
				 "%sno samples on %s", len ? "; " : "", rs->lab[s]);
		}
	}
}

/* A clock for a row no sample stands for: its workload's, if any. */
static const char *workload_clock(const struct raw *raw, const char *w)
{
	size_t k;

	for (k = 0; k < raw->nkeys; k++)
		if (!strcmp(raw->keys[k].workload, w))
			return raw->keys[k].clock;
	return "-";
}

/*
 * A point absent where no metric of it has samples on either side: one
 * row for the point, metric "-", so that it is listed all the same.
 */
static void pseudo_rows(struct row_set *rs, const struct opts *o)
{
	size_t i, r;

	rs->pseudo = xmalloc((rs->ab->n + 1) * sizeof(*rs->pseudo));
	for (i = 0; i < rs->ab->n; i++) {
		const struct absent_entry *e = &rs->ab->v[i];
		const char *v = rs->variants ? rs->var[1] : e->variant;
		struct key *pk;
		struct cmp *c;

		if ((e->kern != rs->kern[0] && e->kern != rs->kern[1]) ||
		    !wl_wanted(o->workloads, e->workload))
			continue;
		if (rs->variants && (strcmp(e->variant, rs->var[0]) &&
				     strcmp(e->variant, rs->var[1])))
			continue;
		if (rs->variants && (!wl_has_variant(rs, e->workload, rs->var[0]) ||
				     !wl_has_variant(rs, e->workload, rs->var[1])))
			continue;
		for (r = 0; r < rs->n; r++)
			if (!strcmp(rs->c[r].id.workload, e->workload) &&
			    !strcmp(rs->c[r].id.variant, v) &&
			    !strcmp(rs->c[r].id.point, e->point))
				break;
		if (r < rs->n)
			continue;
		pk = &rs->pseudo[rs->npseudo++];
		*pk = (struct key){ .workload = e->workload, .variant = (char *)v,
				    .point = e->point, .metric = "-", .unit = "",
				    .clock = (char *)workload_clock(rs->raw, e->workload),
				    .better = BETTER_NONE, .where = e->where };
		c = row_add(rs);
		memset(c, 0, sizeof(*c));
		c->key[0] = c->key[1] = NO_KEY;
		c->id = *pk;
		c->est = c->lo = c->hi = c->dlo = c->dhi = NAN;
		c->ratio = c->r_lo = c->r_hi = c->p = c->df = c->p_adj = NAN;
		c->g[0].median = c->g[1].median = NAN;
		c->g[0].q1 = c->g[0].q3 = c->g[1].q1 = c->g[1].q3 = NAN;
		c->g[0].ci_lo = c->g[0].ci_hi = c->g[1].ci_lo = c->g[1].ci_hi = NAN;
		c->g[0].within_spread = c->g[1].within_spread = NAN;
		c->g[0].between_spread = c->g[1].between_spread = NAN;
		c->g[0].boot_p = c->g[1].boot_p = NAN;
		mark_absent(rs, c);
	}
}

static int cmp_rows(const void *pa, const void *pb)
{
	return key_order(&((const struct cmp *)pa)->id,
			 &((const struct cmp *)pb)->id);
}

/*
 * Kernels: every key, on kern[0] against kern[1]. Variants: every
 * workload that has both variants, each point and metric, variant
 * var[1] against var[0] in the boots of kern[0]. Then the n/a rows of
 * points absent altogether. Sorted as the keys are.
 */
static int build_rows(struct row_set *rs, const struct opts *o)
{
	const struct raw *raw = rs->raw;
	size_t *idx = sorted_keys(raw), i;

	for (i = 0; i < raw->nkeys; i++) {
		const struct key *kk = &raw->keys[idx[i]];
		size_t key[2] = { idx[i], idx[i] };
		struct cmp *c;

		if (!wl_wanted(o->workloads, kk->workload))
			continue;
		if (rs->variants) {
			int s;

			if (!strcmp(kk->variant, rs->var[0]))
				s = 0;
			else if (!strcmp(kk->variant, rs->var[1]))
				s = 1;
			else
				continue;
			key[!s] = key_of(raw, kk->workload, rs->var[!s],
					 kk->point, kk->metric);
			/* a pair is visited from its base side */
			if (s == 1 && key[0] != NO_KEY)
				continue;
			if (!wl_has_variant(rs, kk->workload, rs->var[!s]))
				continue;
			if (key[0] != NO_KEY && key[1] != NO_KEY &&
			    (strcmp(raw->keys[key[0]].unit, raw->keys[key[1]].unit) ||
			     raw->keys[key[0]].better != raw->keys[key[1]].better)) {
				fprintf(stderr, "kbstat: error: %s: unit/better differ from %s: the variants' metrics cannot be compared\n",
					raw->keys[key[1]].where, raw->keys[key[0]].where);
				free(idx);
				return -1;
			}
		}
		c = row_add(rs);
		compare_key(raw, key, rs->kern, rs->variants, o, c);
		if (rs->variants)
			c->id.variant = (char *)rs->var[1];
		/* keys of other kernels only (e.g. an A/A pair in the same run) */
		if (!c->g[0].n && !c->g[1].n) {
			rs->n--;
			continue;
		}
		mark_absent(rs, c);
	}
	free(idx);
	pseudo_rows(rs, o);
	if (rs->n)
		qsort(rs->c, rs->n, sizeof(*rs->c), cmp_rows);
	return 0;
}

static int cmd_compare(int argc, char **argv)
{
	struct opts o = { 0 };
	struct raw raw;
	struct floor_tab ft = { 0 }, *ftp = NULL;
	json_t *fj = NULL;
	struct warnings w = { 0 };
	struct primary_tab pt;
	struct absent ab;
	struct row_set set = { 0 };
	struct cmp *c;
	size_t kern[2], i, ntest = 0, j;
	double *p, *adj;
	char *tmp, lab[2][256], text[1024];
	FILE *f;

	if (parse_opts(argc, argv, &o) || load_labels(o.run, &o, &raw, kern, "compare"))
		return o.run ? 1 : usage();
	if (o.kernel) {
		/* the sides are named by their variants */
		o.base = o.base_variant;
		o.new = o.new_variant;
	}
	if (o.floor) {
		const json_t *fl;

		fj = json_parse_file(o.floor);
		if (!fj)
			return 1;
		fl = json_get(fj, "floors");
		if (!json_str(fj, "kind") || strcmp(json_str(fj, "kind"), "kbench-floor") ||
		    !json_is_array(fl)) {
			fprintf(stderr, "kbstat: error: %s: not a kbstat floor file (kind kbench-floor, floors[])\n",
				o.floor);
			return 1;
		}
		ft = (struct floor_tab){ fl };
		ftp = &ft;
	}
	if (primary_load(o.run, &pt))
		return 1;
	primary_check(&pt, &raw, &w);
	if (absent_load(o.run, &raw, &ab))
		return 1;
	set.raw = &raw;
	set.ab = &ab;
	set.kern[0] = kern[0];
	set.kern[1] = kern[1];
	set.variants = o.kernel != NULL;
	set.var[0] = o.base_variant;
	set.var[1] = o.new_variant;
	set.w = &w;
	if (set.variants) {
		snprintf(lab[0], sizeof(lab[0]), "%s on %s", o.base_variant, o.kernel);
		snprintf(lab[1], sizeof(lab[1]), "%s on %s", o.new_variant, o.kernel);
	} else {
		snprintf(lab[0], sizeof(lab[0]), "%s", o.base);
		snprintf(lab[1], sizeof(lab[1]), "%s", o.new);
	}
	set.lab[0] = lab[0];
	set.lab[1] = lab[1];
	if (build_rows(&set, &o))
		return 1;
	c = set.c;
	j = set.n;
	p = xmalloc((j + 1) * sizeof(*p));
	adj = xmalloc((j + 1) * sizeof(*adj));
	for (i = 0; i < j; i++) {
		const struct key *kk = &c[i].id;

		if (!c[i].absent && (!c[i].g[0].n || !c[i].g[1].n))
			warn(&w, "%s/%s/%s/%s: no samples on %s", kk,
			     c[i].g[0].n ? set.lab[1] : set.lab[0]);
		if (kk->better != BETTER_NONE && c[i].g[0].boot_warning)
			boot_warn(&w, kk, set.lab[0]);
		if (kk->better != BETTER_NONE && c[i].g[1].boot_warning)
			boot_warn(&w, kk, set.lab[1]);
		if (!strcmp(kk->clock, "mixed"))
			warn(&w, "%s/%s/%s/%s: samples from both clocks (icount and wall)%.0s",
			     kk, "");
		/* n/a rows have a side without samples: never tested, never in BH */
		if (c[i].tested && !isnan(c[i].p))
			p[ntest++] = c[i].p;
	}
	bh_adjust(p, adj, ntest);
	for (i = ntest = 0; i < j; i++) {
		double fl = NAN, f1;
		int s;

		/* a variant comparison is held to the larger floor of its two variants */
		for (s = 0; s < 2; s++) {
			const char *src;

			if (c[i].key[s] == NO_KEY)
				continue;
			f1 = floor_lookup(ftp, &raw.keys[c[i].key[s]], &src);
			if (!isnan(f1) && (isnan(fl) || f1 > fl)) {
				fl = f1;
				c[i].floor_source = src;
			}
			if (!c[i].floor_source)
				c[i].floor_source = src;
		}
		if (!c[i].floor_source)
			c[i].floor_source = "default";
		c[i].min_effect = isnan(fl) || fl < MIN_EFFECT ? MIN_EFFECT : fl;
		if (c[i].tested && !isnan(c[i].p))
			c[i].p_adj = adj[ntest++];
		decide(&c[i], &c[i].id, set.lab[0], set.lab[1]);
		absent_verdict(&c[i], &set);
	}

	f = out_open(o.out, &tmp);
	if (!f)
		return 1;
	fputs("{\"kind\":\"kbench-results\",\"version\":1,", f);
	jw_kstr(f, "run", o.run);
	fputc(',', f);
	jw_kstr(f, "base", o.base);
	fputc(',', f);
	jw_kstr(f, "new", o.new);
	fputc(',', f);
	jw_kstr(f, "compare", o.kernel ? "variants" : "kernels");
	fputc(',', f);
	jw_kstr(f, "kernel", o.kernel);
	fprintf(f, ",\"seed\":%llu,\"bootstrap_reps\":%zu,\"bootstrap\":\"hierarchical (boots, then samples within boots), percentile\",",
		(unsigned long long)o.seed, o.reps);
	method_test_text(text, sizeof(text), o.kernel != NULL);
	jw_kstr(f, "test", text);
	fputc(',', f);
	method_rule_text(text, sizeof(text));
	jw_kstr(f, "rule", text);
	fputc(',', f);
	jw_knum(f, "ci_level", CI_LEVEL);
	fputc(',', f);
	jw_knum(f, "decision_level", DECISION_LEVEL);
	fputc(',', f);
	jw_knum(f, "boot_effect_p", BOOT_EFFECT_P);
	fputc(',', f);
	jw_knum(f, "alpha", ALPHA);
	fputc(',', f);
	jw_knum(f, "min_effect_default", MIN_EFFECT);
	fprintf(f, ",\"min_samples\":%d,\"min_boots\":%d,", MIN_SAMPLES,
		MIN_BOOTS);
	jw_kstr(f, "floor_file", o.floor);
	fputs(",\"results\":[", f);
	for (i = 0; i < j; i++) {
		const struct key *kk = &c[i].id;

		fputs(i ? ",\n{" : "\n{", f);
		write_key(f, kk);
		fputc(',', f);
		if (o.kernel) {
			jw_kstr(f, "base_variant", o.base_variant);
			fputc(',', f);
		}
		jw_kstr(f, "absent", c[i].absent);
		fputc(',', f);
		jw_kstr(f, "absent_reason", c[i].absent_reason);
		fputc(',', f);
		write_group(f, "base", o.base, &c[i].g[0]);
		fputc(',', f);
		write_group(f, "new", o.new, &c[i].g[1]);
		fputc(',', f);
		jw_kstr(f, "scale", c[i].diff_scale ? "difference" : "ratio");
		fputc(',', f);
		jw_kstr(f, "decision_unit", c[i].boot_unit ? "boot" : "sample");
		fputc(',', f);
		jw_knum(f, "estimate", c[i].est);
		fputc(',', f);
		jw_knum(f, "estimate_ci_lo", c[i].lo);
		fputc(',', f);
		jw_knum(f, "estimate_ci_hi", c[i].hi);
		fputc(',', f);
		jw_knum(f, "decision_ci_lo", c[i].dlo);
		fputc(',', f);
		jw_knum(f, "decision_ci_hi", c[i].dhi);
		fputc(',', f);
		jw_knum(f, "effect", rel(&c[i], c[i].est));
		fputc(',', f);
		jw_knum(f, "ratio", c[i].ratio);
		fputc(',', f);
		jw_knum(f, "ratio_ci_lo", c[i].r_lo);
		fputc(',', f);
		jw_knum(f, "ratio_ci_hi", c[i].r_hi);
		fputc(',', f);
		jw_knum(f, "p", c[i].p);
		fputc(',', f);
		jw_kstr(f, "p_method", c[i].p_method);
		fputc(',', f);
		jw_knum(f, "welch_df", c[i].df);
		fputc(',', f);
		jw_knum(f, "p_adj", c[i].p_adj);
		fputc(',', f);
		jw_knum(f, "min_effect", c[i].min_effect);
		fputc(',', f);
		jw_kstr(f, "floor_source", c[i].floor_source);
		fputc(',', f);
		jw_kstr(f, "verdict", c[i].verdict);
		fputc(',', f);
		jw_kstr(f, "why", c[i].why[0] ? c[i].why : NULL);
		/* the report leads with these (RUN/workloads/NAME.wl "primary =") */
		fprintf(f, ",\"primary\":%s}",
			primary_is(&pt, kk->workload, kk->metric,
				   kk->better != BETTER_NONE) ? "true" : "false");
	}
	fputs("\n]", f);
	{
		const char *lab[2] = { o.base, o.new };

		if (o.kernel)
			lab[0] = lab[1] = o.kernel;
		if (write_failed_boots(f, o.run, lab)) {
			out_close(f, o.out, tmp);
			if (o.out)
				unlink(o.out);
			return 1;
		}
	}
	fputs(",\"warnings\":[", f);
	for (i = 0; i < w.n; i++) {
		if (i)
			fputc(',', f);
		jw_str(f, w.v[i]);
	}
	fputs("]}\n", f);
	return out_close(f, o.out, tmp) ? 1 : 0;
}

/*
 * A/A noise floor of a key: the largest deviation from 1 of the ratio
 * and of both ends of its 95 % CI. Two boots sets of one kernel differ
 * by this much by chance, so a smaller effect is not evidence.
 */
static int cmd_floor(int argc, char **argv)
{
	struct opts o = { 0 };
	struct raw raw;
	struct cmp c;
	size_t kern[2], *idx, i, nout = 0;
	char *tmp, def[512];
	FILE *f;

	if (parse_opts(argc, argv, &o) || load_labels(o.run, &o, &raw, kern, "floor"))
		return o.run ? 1 : usage();
	idx = sorted_keys(&raw);
	f = out_open(o.out, &tmp);
	if (!f)
		return 1;
	fputs("{\"kind\":\"kbench-floor\",\"version\":1,", f);
	jw_kstr(f, "run", o.run);
	fputc(',', f);
	jw_kstr(f, "a", o.base);
	fputc(',', f);
	jw_kstr(f, "b", o.new);
	fprintf(f, ",\"seed\":%llu,\"bootstrap_reps\":%zu,",
		(unsigned long long)o.seed, o.reps);
	method_floor_text(def, sizeof(def));
	jw_kstr(f, "definition", def);
	fputs(",\"floors\":[", f);
	for (i = 0; i < raw.nkeys; i++) {
		const struct key *kk = &raw.keys[idx[i]];
		double fl = NAN;

		/* informational metrics are never judged: no floor */
		if (kk->better == BETTER_NONE)
			continue;
		compare_key(&raw, (size_t[2]){ idx[i], idx[i] }, kern, 0, &o, &c);
		if (!c.g[0].n && !c.g[1].n)
			continue;
		if (c.tested) {
			fl = fmax(fabs(rel(&c, c.est)),
				  fmax(fabs(rel(&c, c.lo)), fabs(rel(&c, c.hi))));
			/* NaN never passes as a number: fmax would drop it */
			if (!isnan(fl))
				fl = fmax(fl, MIN_EFFECT);
		}
		fputs(nout++ ? ",\n{" : "\n{", f);
		write_key(f, kk);
		fprintf(f, ",\"n_a\":%zu,\"n_b\":%zu,\"boots_a\":%zu,\"boots_b\":%zu,",
			c.g[0].n, c.g[1].n, c.g[0].nboots, c.g[1].nboots);
		jw_kstr(f, "scale", c.diff_scale ? "difference" : "ratio");
		fputc(',', f);
		jw_kstr(f, "decision_unit", c.boot_unit ? "boot" : "sample");
		fputc(',', f);
		jw_knum(f, "ratio", c.est);
		fputc(',', f);
		jw_knum(f, "ci_lo", c.lo);
		fputc(',', f);
		jw_knum(f, "ci_hi", c.hi);
		fputc(',', f);
		jw_knum(f, "p", c.tested ? c.p : NAN);
		fputc(',', f);
		jw_knum(f, "floor", fl);
		fputc('}', f);
		if (isnan(fl))
			fprintf(stderr, c.tested ?
				"kbstat: warning: %s/%s/%s/%s: no floor: the A/A interval is undefined\n" :
				"kbstat: warning: %s/%s/%s/%s: no floor: fewer than %d boots or %d samples a side (run the A/A with BOOTS=%d or more)\n",
				kk->workload, kk->variant, kk->point, kk->metric,
				MIN_BOOTS, MIN_SAMPLES, MIN_BOOTS);
	}
	fputs("\n]}\n", f);
	return out_close(f, o.out, tmp) ? 1 : 0;
}

/* ---- summary tables ---- */

/* summary.md's table t (model.c's columns) of the rows ord[from, to). */
static void md_table(const struct results *rs, const size_t *ord, size_t from,
		     size_t to, unsigned t)
{
	const struct column **col;
	char b[512];
	size_t i, k, n = 0;

	for (k = 0; columns[k].key; k++)
		;
	col = xmalloc(k * sizeof(*col));
	for (k = 0; columns[k].key; k++)
		if (column_shown(&columns[k], t, rs))
			col[n++] = &columns[k];
	for (k = 0; k < n; k++) {
		column_head(col[k], t, rs, b, sizeof(b));
		printf("| %s ", b);
	}
	puts("|");
	for (k = 0; k < n; k++)
		printf("|%s", col[k]->num ? "---:" : "---");
	puts("|");
	for (i = from; i < to; i++) {
		for (k = 0; k < n; k++)
			printf("| %s ", column_cell(col[k], &rs->row[ord[i]], b, sizeof(b)));
		puts("|");
	}
	free(col);
}

#define MAX_COVERS 16

static int cmd_summary(int argc, char **argv)
{
	struct opts o = { 0 };
	const json_t *warns, *fails;
	struct results rs;
	size_t nsec[4] = { 0 }, i, c, nclock = 0, *ord;
	const char *clocks[4];
	int md, sec;

	struct results covers[MAX_COVERS];
	struct primary_tab pt = { 0 };
	char **args = xmalloc((argc + 1) * sizeof(*args));
	size_t ncover = 0;
	int nargs = 0, a;

	/* --cover VARIANTS.json (repeatable): the cover tables of the headline */
	for (a = 0; a < argc; a++) {
		if (strcmp(argv[a], "--cover")) {
			args[nargs++] = argv[a];
		} else if (a + 1 == argc || ncover == MAX_COVERS) {
			free(args);
			return usage();
		} else if (results_load(argv[++a], NULL, &covers[ncover++])) {
			free(args);
			return 1;
		}
	}
	if (parse_opts(nargs, args, &o) || !o.run) {
		free(args);
		return usage();
	}
	free(args);
	md = !strcmp(o.format, "md");
	if (!md && strcmp(o.format, "txt")) {
		fprintf(stderr, "kbstat: --format is txt or md\n");
		return 2;
	}
	if (results_load(o.run, o.rundir, &rs) || (o.rundir && primary_load(o.rundir, &pt)))
		return 1;
	for (i = 0; i < rs.n; i++) {
		const struct row *r = &rs.row[i];
		size_t k;

		nsec[r->sec]++;
		for (k = 0; k < nclock && strcmp(clocks[k], r->clock); k++)
			;
		if (k == nclock && nclock < 4)
			clocks[nclock++] = r->clock;
	}

	ord = results_order(&rs);
	if (!md) {
		summary_mail(&rs, covers, ncover, &pt);
		goto notes;
	}
	if (rs.kernel)
		printf("## kbench: variant %s vs %s on %s\n\n", rs.new, rs.base, rs.kernel);
	else
		printf("## kbench: %s vs %s\n\n", rs.new, rs.base);
	/*
	 * Primary metrics (the workload files' "primary =") first, then the
	 * variant comparisons' cover tables, then the other judged ones; a
	 * title only when there are both.
	 */
	for (sec = SEC_PRIMARY, i = 0; sec <= SEC_JUDGED; sec++) {
		size_t end = i + nsec[sec];

		if (!nsec[sec] && (sec == SEC_JUDGED || nsec[SEC_JUDGED]))
			continue;
		if (nsec[SEC_PRIMARY] && nsec[SEC_JUDGED])
			printf("### %s:\n\n", sec == SEC_PRIMARY ? "primary metrics" : "other metrics");
		md_table(&rs, ord, i, end, T_MD);
		i = end;
		putchar('\n');
		for (c = 0; sec == SEC_PRIMARY && c < ncover; c++) {
			size_t k;

			for (k = 0; k < covers[c].n; k++)
				if (!k || strcmp(covers[c].row[k - 1].workload,
						 covers[c].row[k].workload))
					cover_print(stdout, &covers[c], &pt,
						    covers[c].row[k].workload, 1);
		}
	}
	/* informational metrics: both kernels' medians, after the verdicts */
	if (nsec[SEC_INFO]) {
		puts("informational (medians side by side, never judged):\n");
		md_table(&rs, ord, i, i + nsec[SEC_INFO], T_MD_INFO);
		putchar('\n');
	}
	i += nsec[SEC_INFO];
	/* n/a: a kernel lacks the variant; listed with why, never judged */
	if (nsec[SEC_NA]) {
		puts("### n/a (a kernel lacks the variant: not a failure, never tested):\n");
		md_table(&rs, ord, i, rs.n, T_MD_NA);
		putchar('\n');
	}
notes:
	method_notes(stdout, &rs, md ? VIEW_MD : VIEW_TXT);
	if (!md)
		goto out;
	for (i = 0; i < rs.n; i++) {
		const struct row *r = &rs.row[ord[i]];

		if (r->why && r->sec != SEC_NA)
			printf("- %s: %s%s%s %s %s: %s\n", r->verdict, r->workload,
			       *r->variant ? "/" : "", r->variant, r->point, r->metric, r->why);
	}
	fputs("- clock:", stdout);
	for (i = 0; i < nclock; i++)
		printf(" %s", clocks[i]);
	printf("%s\n", nclock ? "" : " (none)");
	warns = json_get(rs.j, "warnings");
	for (i = 0; i < json_array_size(warns); i++)
		if (json_is_string(json_array_get(warns, i)))
			printf("- warning: %s\n", json_string_value(json_array_get(warns, i)));
	fails = json_get(rs.j, "failed_boots");
	for (i = 0; i < json_array_size(fails); i++) {
		const json_t *fb = json_array_get(fails, i);

		if (!i)
			puts("\nfailed boots (their samples are not in the statistics, which use the complete boots only):");
		printf("- FAILED %s %s (vcpus %s, attempt %s): %s; serial log %s\n",
		       json_str(fb, "kernel"), json_str(fb, "boot"),
		       json_str(fb, "vcpus"), json_str(fb, "attempt"),
		       json_str(fb, "reason"), json_str(fb, "serial_log"));
	}
out:
	for (c = 0; c < ncover; c++)
		results_free(&covers[c]);
	primary_free(&pt);
	free(ord);
	return 0;
}

static int cmd_dump(int argc, char **argv)
{
	struct raw raw;
	size_t i;

	if (argc != 1)
		return usage();
	if (raw_load(argv[0], &raw))
		return 1;
	puts("kernel\tboot\tworkload\tvariant\tpoint\tmetric\tunit\tbetter\tclock\tvalue");
	for (i = 0; i < raw.nsamples; i++) {
		const struct sample *s = &raw.samples[i];
		const struct key *k = &raw.keys[s->key];

		printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.12g\n",
		       raw.kernels[s->kernel], raw.boots[s->boot], k->workload,
		       k->variant, k->point, k->metric, k->unit,
		       better_name(k->better), k->clock,
		       s->value);
	}
	return fflush(stdout) ? 1 : 0;
}

/* Small entry points to the statistics, for hand-checked unit tests. */
static int cmd_calc(int argc, char **argv)
{
	double *v = xmalloc((size_t)(argc + 1) * sizeof(*v));
	size_t n = 0, split = 0, i;
	struct opts o = { .seed = DEFAULT_SEED, .reps = DEFAULT_REPS };
	const char *what;
	int a;

	if (argc < 1)
		return usage();
	what = argv[0];
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seed") && a + 1 < argc) {
			if (parse_u64("--seed", argv[++a], &o.seed))
				return 2;
		} else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
			uint64_t r;

			if (parse_u64("--reps", argv[++a], &r) || r < 1)
				return 2;
			o.reps = (size_t)r;
		} else if (!strcmp(argv[a], "--") || !strcmp(argv[a], "/")) {
			v[n++] = NAN;	/* group separator */
			split++;
		} else if (parse_num(argv[a], &v[n++])) {
			fprintf(stderr, "kbstat: '%s' is not a number\n", argv[a]);
			return 2;
		}
	}
	if (!strcmp(what, "median") && !split && n) {
		printf("%.12g\n", median_of(v, n));
	} else if (!strcmp(what, "quartiles") && !split && n) {
		sort_doubles(v, n);
		printf("%.12g %.12g %.12g\n", quantile_sorted(v, n, 0.25),
		       quantile_sorted(v, n, 0.5), quantile_sorted(v, n, 0.75));
	} else if (!strcmp(what, "mwu") && split == 1) {
		struct mwu m;

		for (i = 0; !isnan(v[i]); i++)
			;
		if (mwu_test(v, i, v + i + 1, n - i - 1, &m))
			return usage();
		printf("U=%.12g U1=%.12g p=%.12g method=%s\n", m.u, m.u1, m.p,
		       m.exact ? "exact" : "normal");
	} else if (!strcmp(what, "fmt") && !split && (n == 1 || n == 3)) {
		char b[128];

		if (n == 1)
			fmt_ci(b, sizeof(b), v[0], NAN, NAN);
		else
			fmt_est(b, sizeof(b), v[0], v[1], v[2]);
		puts(b);
	} else if (!strcmp(what, "fmtp") && !split && n == 1) {
		char b[64];

		fmt_p(b, sizeof(b), v[0]);
		puts(b);
	} else if (!strcmp(what, "bh") && !split && n) {
		double *adj = xmalloc(n * sizeof(*adj));

		bh_adjust(v, adj, n);
		for (i = 0; i < n; i++)
			printf("%s%.12g", i ? " " : "", adj[i]);
		putchar('\n');
	} else if (!strcmp(what, "normal") && !split && n == 1) {
		printf("%.17g\n", normal_upper(v[0]));
	} else if (!strcmp(what, "normal-q") && !split && n == 1) {
		printf("%.17g\n", normal_upper_quantile(v[0]));
	} else if (!strcmp(what, "t") && !split && n == 2) {
		printf("%.17g\n", t_p_two_sided(v[0], v[1]));
	} else if (!strcmp(what, "t-q") && !split && n == 2) {
		printf("%.17g\n", t_quantile(v[0], v[1]));
	} else if (!strcmp(what, "chisq") && !split && n == 2) {
		printf("%.17g\n", chisq_upper(v[0], v[1]));
	} else if (!strcmp(what, "bootci") && n) {
		struct boot_set bs = { 0 };
		struct group_stats gs;
		struct rng r;
		double *bm;

		/* boots separated by "/": the separators are NAN in v */
		bs.nboots = split + 1;
		bs.len = xmalloc(bs.nboots * sizeof(*bs.len));
		bs.val = xmalloc(bs.nboots * sizeof(*bs.val));
		bs.len[0] = 0;
		bs.val[0] = v;
		for (i = 0, a = 0; i < n; i++) {
			if (isnan(v[i])) {
				a++;
				bs.len[a] = 0;
				bs.val[a] = v + i + 1;
				continue;
			}
			bs.len[a]++;
			bs.n++;
		}
		rng_seed(&r, o.seed);
		bm = xmalloc(o.reps * sizeof(*bm));
		boot_medians(&bs, &r, o.reps, bm);
		group_stats(&bs, bm, o.reps, &gs);
		printf("median=%.12g ci_lo=%.12g ci_hi=%.12g within=%.6g between=%.6g\n",
		       gs.median, gs.ci_lo, gs.ci_hi, gs.within_spread,
		       gs.between_spread);
	} else {
		return usage();
	}
	return 0;
}

int main(int argc, char **argv)
{
	/*
	 * libgsl's default on a domain error or an underflow is abort(): a
	 * tail too small for a double is 0, and a NaN statistic is shown as
	 * undefined.
	 */
	gsl_set_error_handler_off();
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "compare"))
		return cmd_compare(argc - 2, argv + 2);
	if (!strcmp(argv[1], "floor"))
		return cmd_floor(argc - 2, argv + 2);
	if (!strcmp(argv[1], "summary"))
		return cmd_summary(argc - 2, argv + 2);
	if (!strcmp(argv[1], "dump"))
		return cmd_dump(argc - 2, argv + 2);
	if (!strcmp(argv[1], "calc"))
		return cmd_calc(argc - 2, argv + 2);
	if (!strcmp(argv[1], "model"))
		return cmd_model(argc - 2, argv + 2);
	if (!strcmp(argv[1], "table"))
		return cmd_table(argc - 2, argv + 2);
	if (!strcmp(argv[1], "variants"))
		return cmd_variants(argc - 2, argv + 2);
	if (!strcmp(argv[1], "cover"))
		return cmd_cover(argc - 2, argv + 2);
	if (!strcmp(argv[1], "answer"))
		return cmd_answer(argc - 2, argv + 2);
	if (!strcmp(argv[1], "gate"))
		return cmd_gate(argc - 2, argv + 2);
	if (!strcmp(argv[1], "changepoint"))
		return cmd_changepoint(argc - 2, argv + 2);
	if (!strcmp(argv[1], "sequential"))
		return cmd_sequential(argc - 2, argv + 2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	return usage();
}
