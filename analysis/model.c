// SPDX-License-Identifier: GPL-2.0
/*
 * The report model: the method's prose, written from the constants a
 * run recorded in its results.json, and the cells of each row. Every
 * view (summary.md, summary.txt, index.html) takes both from here, so
 * a new constant or statistic is worded and formatted once.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "json.h"
#include "model.h"
#include "util.h"

void method_read(const json_t *j, struct method *m)
{
	static const struct method def = {
		.ci_level = CI_LEVEL, .decision_level = DECISION_LEVEL,
		.alpha = ALPHA, .boot_effect_p = BOOT_EFFECT_P,
		.boot_warn_p = BOOT_WARN_P, .boot_warn_spread = BOOT_WARN_SPREAD,
		.min_effect = MIN_EFFECT, .min_samples = MIN_SAMPLES,
		.min_boots = MIN_BOOTS, .seed = (double)DEFAULT_SEED,
		.reps = DEFAULT_REPS,
	};
	static const struct {
		const char *key;
		size_t off;
	} k[] = {
		{ "ci_level", offsetof(struct method, ci_level) },
		{ "decision_level", offsetof(struct method, decision_level) },
		{ "alpha", offsetof(struct method, alpha) },
		{ "boot_effect_p", offsetof(struct method, boot_effect_p) },
		{ "boot_warn_p", offsetof(struct method, boot_warn_p) },
		{ "boot_warn_spread", offsetof(struct method, boot_warn_spread) },
		{ "min_effect_default", offsetof(struct method, min_effect) },
		{ "min_samples", offsetof(struct method, min_samples) },
		{ "min_boots", offsetof(struct method, min_boots) },
		{ "seed", offsetof(struct method, seed) },
		{ "bootstrap_reps", offsetof(struct method, reps) },
	};
	size_t i;

	*m = def;
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		double v = json_num(j, k[i].key);

		if (!isnan(v))
			*(double *)((char *)m + k[i].off) = v;
	}
}

void method_ci(const struct method *m, char *b, size_t n)
{
	snprintf(b, n, "%g%% CI", m->ci_level * 100);
}

void method_ratio_head(const json_t *results, char *b, size_t n)
{
	struct method m;

	method_read(results, &m);
	snprintf(b, n, "ratio [%g%% CI]", m.ci_level * 100);
}

void method_test_text(char *b, size_t n, int paired)
{
	snprintf(b, n, "boot effect (Kruskal-Wallis across a side's boots p < %g): %s on the boot medians (log for ratios), else Mann-Whitney U on the samples; Benjamini-Hochberg across the report",
		 BOOT_EFFECT_P, paired ?
		 "paired t (both variants ran in each boot; Welch when fewer than 2 boots ran both)" :
		 "Welch t");
}

void method_rule_text(char *b, size_t n)
{
	snprintf(b, n, "better/worse: the %g%% interval wholly beyond +-min_effect and p_adj < %g; same: wholly inside; else inconclusive. Fewer than %d boots or %d samples a side: insufficient data",
		 DECISION_LEVEL * 100, ALPHA, MIN_BOOTS, MIN_SAMPLES);
}

void method_floor_text(char *b, size_t n)
{
	snprintf(b, n, "floor = max(%g, |effect|, |ci_lo effect|, |ci_hi effect|) of the A/A comparison (effect = ratio - 1, or difference / mean |x| on the difference scale; %g%% interval as kbstat compare computes it); null with fewer than %d boots or %d samples a side",
		 MIN_EFFECT, CI_LEVEL * 100, MIN_BOOTS, MIN_SAMPLES);
}

const char *method_boot_warning(void)
{
	static char b[160];

	if (!*b)
		snprintf(b, sizeof(b), "between-boot spread > %gx within-boot spread, Kruskal-Wallis p < %g across boots (boot effect: add boots)",
			 BOOT_WARN_SPREAD, BOOT_WARN_P);
	return b;
}

/* One note: a list item (md), a paragraph (html), wrapped at 80 (txt). */
static void note_out(FILE *f, enum view v, const char *s)
{
	const char *p;

	if (v == VIEW_TXT) {
		text_wrap(f, "", "  ", s, 80);
		return;
	}
	if (v == VIEW_MD) {
		fprintf(f, "- %s\n", s);
		return;
	}
	fputs("<p>", f);
	for (p = s; *p; p++) {
		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else
			fputc(*p, f);
	}
	fputs("</p>\n", f);
}

void method_notes(FILE *f, const struct results *rs, enum view v)
{
	struct method m;
	const char *floor_file = json_str(rs->j, "floor_file");
	char ci[32], fl[64], dflt[64], b[2048];
	double fmin = NAN, fmax = NAN;
	size_t i, tested = 0;

	method_read(rs->j, &m);
	method_ci(&m, ci, sizeof(ci));
	snprintf(b, sizeof(b), "ratio = median(%s) / median(%s)%s%s%s with a %s; where boots differ (Kruskal-Wallis across boots p < %g) the boot is the unit: %s; else the sample is: bootstrap of the samples (seed %.0f) and Mann-Whitney U. Metrics with zero or negative samples compare the difference instead. Numbers carry the digits their %s supports.",
		 rs->new, rs->base, rs->kernel ? " (both on " : "",
		 rs->kernel ? rs->kernel : "", rs->kernel ? ")" : "", ci,
		 m.boot_effect_p, rs->kernel ?
		 "both variants ran in every boot, so a paired t on the per-boot ratio of their medians, ratio = its geometric mean" :
		 "Welch t on the boot medians, ratio = geometric mean of their ratio",
		 m.seed, ci);
	note_out(f, v, b);
	for (i = 0; i < rs->n; i++) {
		double me = json_num(rs->row[i].r, "min_effect");

		tested += !isnan(json_num(rs->row[i].r, "p_adj"));
		if (!isnan(me) && rs->row[i].sec != SEC_INFO) {
			fmin = isnan(fmin) || me < fmin ? me : fmin;
			fmax = isnan(fmax) || me > fmax ? me : fmax;
		}
	}
	snprintf(b, sizeof(b), "p: Benjamini-Hochberg adjusted over the %zu tested rows (not the informational ones)%s.",
		 tested, v == VIEW_TXT ? "; p-values are in summary.md" : "");
	note_out(f, v, b);
	if (isnan(fmin))
		fmin = fmax = m.min_effect;
	snprintf(fl, sizeof(fl), "%.1f%%", fmin * 100);
	if (fmax > fmin)
		snprintf(fl + strlen(fl), sizeof(fl) - strlen(fl), " to %.1f%%", fmax * 100);
	snprintf(dflt, sizeof(dflt), "none, default %g%%", m.min_effect * 100);
	snprintf(b, sizeof(b), "verdict: better/worse only if the %g%% interval lies wholly beyond the noise floor (%s, never below %g%%; floor from %s) and p (BH) < %g; same if it lies wholly inside; otherwise inconclusive. Fewer than %.0f boots or %.0f samples a side: insufficient data.",
		 m.decision_level * 100, fl, m.min_effect * 100,
		 floor_file ? floor_file : dflt, m.alpha, m.min_boots, m.min_samples);
	note_out(f, v, b);
}

void row_cells(const struct row *r, struct cells *c)
{
	const json_t *g0 = json_get(r->r, "base"), *g1 = json_get(r->r, "new");
	char e[160];

	snprintf(c->n, sizeof(c->n), "%.0f/%.0f", json_num(g0, "n"), json_num(g1, "n"));
	fmt_pair_est(c->base, c->new, sizeof(c->base), r->med, r->lo, r->hi);
	fmt_pair(c->base_med, c->new_med, sizeof(c->base_med), r->med, r->lo, r->hi);
	fmt_est(e, sizeof(e), json_num(r->r, "estimate"),
		json_num(r->r, "estimate_ci_lo"), json_num(r->r, "estimate_ci_hi"));
	snprintf(c->est, sizeof(c->est), "%s%s",
		 !strcmp(r->scale, "difference") && strcmp(e, "-") ? "diff " : "", e);
	fmt_p(c->p, sizeof(c->p), json_num(r->r, "p"));
	fmt_p(c->p_adj, sizeof(c->p_adj), json_num(r->r, "p_adj"));
	if (isnan(json_num(r->r, "min_effect")))
		snprintf(c->min_effect, sizeof(c->min_effect), "-");
	else
		snprintf(c->min_effect, sizeof(c->min_effect), "%.3g%%",
			 json_num(r->r, "min_effect") * 100);
}

static const char *const sec_names[] = {
	[SEC_PRIMARY] = "primary",
	[SEC_JUDGED] = "judged",
	[SEC_INFO] = "informational",
	[SEC_NA] = "n/a",
};

const char *section_name(enum section s)
{
	return sec_names[s];
}

/* The notes as JSON strings: the md view's words, one a string. */
static json_t *notes_json(const struct results *rs)
{
	json_t *a = json_array();
	char *buf = NULL, *p, *nl;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return a;
	method_notes(mem, rs, VIEW_MD);
	fclose(mem);
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(p, "- ", 2))
			json_array_append_new(a, json_string(p + 2));
	}
	free(buf);
	return a;
}

static json_t *method_json(const struct results *rs)
{
	struct method m;
	char ci[32], t[1024];

	method_read(rs->j, &m);
	method_ci(&m, ci, sizeof(ci));
	method_test_text(t, sizeof(t), rs->kernel != NULL);
	return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o}",
			 "ci", ci, "ci_level", m.ci_level,
			 "decision_level", m.decision_level, "alpha", m.alpha,
			 "boot_effect_p", m.boot_effect_p, "boot_warn_p", m.boot_warn_p,
			 "boot_warn_spread", m.boot_warn_spread,
			 "min_effect_default", m.min_effect, "min_samples", m.min_samples,
			 "min_boots", m.min_boots, "seed", m.seed,
			 "bootstrap_reps", m.reps, "p_floor", P_FLOOR,
			 "notes", notes_json(rs));
}

/*
 * A row's fields in the model, in the order of kbstat table rows' TSV
 * columns (report.sh's awk reads them by the header's names).
 */
const char *const model_columns[] = {
	"section", "workload", "variant", "point", "metric", "unit", "better",
	"n", "base", "new", "estimate", "p", "p_adj", "min_effect",
	"floor_source", "verdict", "why", "clock", "base_median", "new_median",
	NULL
};

json_t *model_row(const struct row *r)
{
	struct cells c;
	const char *fs = json_str(r->r, "floor_source");
	const char *v[sizeof(model_columns) / sizeof(model_columns[0])];
	json_t *o = json_object();
	size_t i;

	row_cells(r, &c);
	i = 0;
	v[i++] = section_name(r->sec);
	v[i++] = r->workload;
	v[i++] = r->variant;
	v[i++] = r->point;
	v[i++] = r->metric;
	v[i++] = r->unit;
	v[i++] = r->better;
	v[i++] = c.n;
	v[i++] = c.base;
	v[i++] = c.new;
	v[i++] = c.est;
	v[i++] = c.p;
	v[i++] = c.p_adj;
	v[i++] = c.min_effect;
	v[i++] = fs;
	v[i++] = r->verdict;
	v[i++] = r->why;
	v[i++] = r->clock;
	v[i++] = c.base_med;
	v[i++] = c.new_med;
	for (i = 0; model_columns[i]; i++)
		json_object_set_new(o, model_columns[i], json_string(v[i] ? v[i] : ""));
	return o;
}

int cmd_model(int argc, char **argv)
{
	struct results rs;
	const char *run = NULL;
	json_t *m, *rows;
	size_t *o, i;
	int rc;

	if (argc == 3 && !strcmp(argv[1], "--run"))
		run = argv[2];
	else if (argc != 1) {
		fputs("usage: kbstat model RESULTS.json [--run RUN]\n", stderr);
		return 2;
	}
	if (results_load(argv[0], run, &rs))
		return 1;
	rows = json_array();
	o = results_order(&rs);
	for (i = 0; i < rs.n; i++)
		json_array_append_new(rows, model_row(&rs.row[o[i]]));
	free(o);
	m = json_pack("{s:s, s:i, s:s, s:s, s:s?, s:o, s:o}",
		      "kind", "kbench-report-model", "version", 1,
		      "base", rs.base, "new", rs.new, "kernel", rs.kernel,
		      "method", method_json(&rs), "rows", rows);
	rc = !m || json_dumpf(m, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) || puts("") == EOF;
	json_decref(m);
	results_free(&rs);
	return rc || fflush(stdout) ? 1 : 0;
}
