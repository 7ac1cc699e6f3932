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

/* What a clock's figures are, in words a reviewer reads once. */
static void clock_words(char *b, size_t n, const char *clock)
{
	if (!strcmp(clock, "icount"))
		snprintf(b, n, "Clock: icount. A guest's time is the count of instructions it ran (QEMU -icount, 1 ns an instruction), not time on hardware: a busy host does not disturb it, but it sees no cache or TLB misses and gives every instruction the same cost. A ns figure here is an instruction count, and a gain or loss made of memory behaviour does not show in it: an ACCEL=kvm run (hardware time) shows it, CLOCK=wall under emulation some of it.");
	else if (!strcmp(clock, "wall"))
		snprintf(b, n, "Clock: wall. The host's time of the guest: real time, of an emulated CPU (QEMU TCG) unless the fingerprint says kvm, and host load adds to it.");
	else if (!strcmp(clock, "model"))
		snprintf(b, n, "Clock: model. Figures the kbcache model computes (model/README.md), not a measured time.");
	else
		snprintf(b, n, "Clock: %s.", clock);
}

void method_notes(FILE *f, const struct results *rs, enum view v)
{
	struct method m;
	const char *floor_file = json_str(rs->j, "floor_file");
	char ci[32], fl[64], src[1024], b[2048];
	double fmin = NAN, fmax = NAN;
	size_t i, k, tested = 0;

	method_read(rs->j, &m);
	method_ci(&m, ci, sizeof(ci));
	/* each clock of the rows, once, in the order they come */
	for (i = 0; i < rs->n; i++) {
		const char *c = rs->row[i].clock;

		for (k = 0; k < i && strcmp(rs->row[k].clock ? rs->row[k].clock : "", c ? c : ""); k++)
			;
		if (k < i || !c || !*c)
			continue;
		clock_words(b, sizeof(b), c);
		note_out(f, v, b);
	}
	for (i = 0; i < rs->n; i++) {
		double me = json_num(rs->row[i].r, "min_effect");

		tested += !isnan(json_num(rs->row[i].r, "p_adj"));
		if (!isnan(me) && rs->row[i].sec != SEC_INFO) {
			fmin = isnan(fmin) || me < fmin ? me : fmin;
			fmax = isnan(fmax) || me > fmax ? me : fmax;
		}
	}
	if (isnan(fmin))
		fmin = fmax = m.min_effect;
	snprintf(fl, sizeof(fl), "%.1f%%", fmin * 100);
	if (fmax > fmin)
		snprintf(fl + strlen(fl), sizeof(fl) - strlen(fl), " to %.1f%%", fmax * 100);
	if (floor_file)
		snprintf(src, sizeof(src), "the noise an A/A run of two identical kernels measured, %s, never below %g%%",
			 floor_file, m.min_effect * 100);
	else
		snprintf(src, sizeof(src), "the default: no A/A floor file, which make calibrate measures");
	snprintf(b, sizeof(b), "verdict: the minimum effect is %s (%s). better or worse: the change is larger than the minimum effect, in that direction, and not chance: the %g%% interval lies wholly beyond it and p (BH) < %g; same: the change is smaller than the minimum effect (the %g%% interval lies wholly inside it).",
		 fl, src, m.decision_level * 100, m.alpha, m.decision_level * 100);
	note_out(f, v, b);
	snprintf(b, sizeof(b), "inconclusive: this run cannot tell; the interval lies partly inside the minimum effect and partly beyond it, or p (BH) is not below %g. The row's reason says what would settle it: BOOTS=N (the interval narrows as 1/sqrt(boots)), or an A/A floor (make calibrate) when the ratio sits on the minimum effect itself. insufficient data: fewer than %.0f boots or %.0f samples a side, so no test was made (the medians and intervals are still shown); more boots settle it.",
		 m.alpha, m.min_boots, m.min_samples);
	note_out(f, v, b);
	/* how: the ratio, the test, the adjustment */
	snprintf(b, sizeof(b), "ratio = median(%s) / median(%s)%s%s%s with a %s; where boots differ (Kruskal-Wallis across boots p < %g) the boot is the unit: %s; else the sample is: bootstrap of the samples (seed %.0f) and Mann-Whitney U. Metrics with zero or negative samples compare the difference instead. Numbers carry the digits their %s supports.",
		 rs->new, rs->base, rs->kernel ? " (both on " : "",
		 rs->kernel ? rs->kernel : "", rs->kernel ? ")" : "", ci,
		 m.boot_effect_p, rs->kernel ?
		 "both variants ran in every boot, so a paired t on the per-boot ratio of their medians, ratio = its geometric mean" :
		 "Welch t on the boot medians, ratio = geometric mean of their ratio",
		 m.seed, ci);
	note_out(f, v, b);
	snprintf(b, sizeof(b), "p: Benjamini-Hochberg adjusted over the %zu tested rows (not the informational ones)%s.",
		 tested, v == VIEW_TXT ? "; p-values are in summary.md" : "");
	note_out(f, v, b);
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

/* ---- the columns ---- */

/* a string of the row's, or formatted into b: a column's cell */
#define ROW_CELL(name, expr) \
	static const char *c_##name(const struct row *r, char *b, size_t n) \
	{ (void)b; (void)n; return (expr); }
ROW_CELL(section, section_name(r->sec))
ROW_CELL(workload, r->workload)
ROW_CELL(variant, r->variant)
ROW_CELL(point, r->point)
ROW_CELL(metric, r->metric)
ROW_CELL(unit, r->unit)
ROW_CELL(better, r->better)
ROW_CELL(verdict, r->verdict)
ROW_CELL(why, r->why)
ROW_CELL(clock, r->clock)
ROW_CELL(floor_source, json_str(r->r, "floor_source"))

/* "workload/variant" */
static const char *c_label(const struct row *r, char *b, size_t n)
{
	snprintf(b, n, "%s%s%s", r->workload, *r->variant ? "/" : "", r->variant);
	return b;
}

/* "metric (unit)" */
static const char *c_metric_unit(const struct row *r, char *b, size_t n)
{
	snprintf(b, n, *r->unit ? "%s (%s)" : "%s", r->metric, r->unit);
	return b;
}

/* the direction, and whether the metric leads the report */
static const char *c_better_primary(const struct row *r, char *b, size_t n)
{
	snprintf(b, n, "%s%s", r->better, r->sec == SEC_PRIMARY ? ", primary" : "");
	return b;
}

static const char *c_n(const struct row *r, char *b, size_t n)
{
	snprintf(b, n, "%.0f/%.0f", json_num(json_get(r->r, "base"), "n"),
		 json_num(json_get(r->r, "new"), "n"));
	return b;
}

/* One side's median (with its interval if ci) at the digits of the pair. */
static const char *side(const struct row *r, int s, int ci, char *b, size_t n)
{
	char x[2][160];

	if (ci)
		fmt_pair_est(x[0], x[1], sizeof(x[0]), r->med, r->lo, r->hi);
	else
		fmt_pair(x[0], x[1], sizeof(x[0]), r->med, r->lo, r->hi);
	snprintf(b, n, "%s", x[s]);
	return b;
}

ROW_CELL(base_median, side(r, 0, 0, b, n))
ROW_CELL(new_median, side(r, 1, 0, b, n))
ROW_CELL(base, side(r, 0, 1, b, n))
ROW_CELL(new, side(r, 1, 1, b, n))

/* the ratio [CI], or "diff " the difference [CI] */
static const char *c_estimate(const struct row *r, char *b, size_t n)
{
	char e[160];

	fmt_est(e, sizeof(e), json_num(r->r, "estimate"),
		json_num(r->r, "estimate_ci_lo"), json_num(r->r, "estimate_ci_hi"));
	snprintf(b, n, "%s%s",
		 !strcmp(r->scale, "difference") && strcmp(e, "-") ? "diff " : "", e);
	return b;
}

static const char *c_p(const struct row *r, char *b, size_t n)
{
	fmt_p(b, n, json_num(r->r, "p"));
	return b;
}

static const char *c_p_adj(const struct row *r, char *b, size_t n)
{
	fmt_p(b, n, json_num(r->r, "p_adj"));
	return b;
}

static const char *c_min_effect(const struct row *r, char *b, size_t n)
{
	double me = json_num(r->r, "min_effect");

	if (isnan(me))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.3g%%", me * 100);
	return b;
}

/* the minimum effect and where it came from: "1% (floor)" */
static const char *c_min_effect_floor(const struct row *r, char *b, size_t n)
{
	char me[32];
	const char *fs = json_str(r->r, "floor_source");

	snprintf(b, n, "%s (%s)", c_min_effect(r, me, sizeof(me)), fs ? fs : "");
	return b;
}

#define MD_ALL (T_MD | T_MD_INFO | T_MD_NA)
#define HTML_ALL (T_HTML | T_HTML_HEAD | T_HTML_INFO | T_HTML_NA)

/*
 * Every column of the model, in the order the tables show them. A new
 * statistic is one line here (its key, head, tables and cell): kbstat
 * model and kbstat table rows carry it, and the tables named show it.
 */
const struct column columns[] = {
	{ "section", NULL, NULL, 0, 0, 0, NULL, c_section },
	{ "workload", "workload", NULL, T_HTML | T_HTML_INFO | T_HTML_NA, 0, 0, NULL, c_workload },
	{ "label", "workload", NULL, MD_ALL, 0, 0, NULL, c_label },
	{ "variant", "variant", NULL, HTML_ALL, 0, 0, NULL, c_variant },
	{ "point", "point", "", MD_ALL | T_TXT | HTML_ALL, 0, 0, NULL, c_point },
	{ "metric", "metric", NULL, T_HTML_INFO | T_HTML_NA, 0, 0, NULL, c_metric },
	{ "unit", "unit", NULL, T_HTML_INFO, 0, 0, NULL, c_unit },
	/* a headline has a table per metric, the metric in its caption */
	{ "metric_unit", "metric", NULL, MD_ALL | T_HTML, 0, 0, NULL, c_metric_unit },
	{ "better", "better", NULL, 0, 0, 0, NULL, c_better },
	{ "better_primary", "better", NULL, T_HTML, 0, 0, NULL, c_better_primary },
	{ "n", "n", NULL, T_HTML, 0, 1, NULL, c_n },
	{ "base_median", "%B", NULL, T_MD | T_MD_INFO | T_TXT, 0, 1, NULL, c_base_median },
	{ "new_median", "%N", NULL, T_MD | T_MD_INFO | T_TXT, 0, 1, NULL, c_new_median },
	{ "base", "%B median [%C]", NULL, HTML_ALL, 0, 1, NULL, c_base },
	{ "new", "%N median [%C]", NULL, HTML_ALL, 0, 1, NULL, c_new },
	{ "estimate", "ratio [%C]", NULL, T_MD | T_TXT | T_HTML | T_HTML_HEAD, 0, 1, NULL, c_estimate },
	{ "p", "p", NULL, T_HTML, 0, 1, NULL, c_p },
	{ "p_adj", "p (BH)", NULL, T_MD | T_HTML, 0, 1, NULL, c_p_adj },
	{ "min_effect", "min effect", NULL, 0, 0, 1, NULL, c_min_effect },
	{ "floor_source", "floor", NULL, 0, 0, 0, NULL, c_floor_source },
	{ "min_effect_floor", "min effect", NULL, T_HTML, 0, 1, NULL, c_min_effect_floor },
	{ "verdict", "verdict", NULL, T_MD | T_TXT | T_HTML | T_HTML_HEAD, 0, 0, "why", c_verdict },
	{ "why", "why", NULL, T_MD_NA | T_HTML_NA, 0, 0, NULL, c_why },
	{ "clock", "clock", NULL, T_MD | T_HTML, T_HTML, 0, NULL, c_clock },
	{ NULL, NULL, NULL, 0, 0, 0, NULL, NULL }
};

static const char *const table_names[] = {
	"md", "md-info", "md-na", "txt", "html", "html-headline", "html-info", "html-na",
};

const char *table_name(unsigned t)
{
	size_t i;

	for (i = 0; i < sizeof(table_names) / sizeof(table_names[0]); i++)
		if (t == 1u << i)
			return table_names[i];
	return "?";
}

void column_head(const struct column *c, unsigned t, const struct results *rs,
		 char *b, size_t n)
{
	const char *h = t == T_TXT && c->head_txt ? c->head_txt : c->head;
	size_t len = 0;
	struct method m;
	char ci[32];

	method_read(rs->j, &m);
	method_ci(&m, ci, sizeof(ci));
	*b = 0;
	for (; h && *h && len + 1 < n; h++) {
		if (*h == '%' && h[1] && strchr("BNC", h[1])) {
			h++;
			len += snprintf(b + len, n - len, "%s",
					*h == 'B' ? rs->base : *h == 'N' ? rs->new : ci);
		} else {
			b[len++] = *h;
			b[len] = 0;
		}
	}
}

int column_shown(const struct column *c, unsigned t, const struct results *rs)
{
	char b0[256], b1[256];
	size_t i;

	if (!(c->tables & t))
		return 0;
	if (!(c->varies & t))
		return 1;
	for (i = 1; i < rs->n; i++)
		if (strcmp(column_cell(c, &rs->row[0], b0, sizeof(b0)),
			   column_cell(c, &rs->row[i], b1, sizeof(b1))))
			return 1;
	return 0;
}

const char *column_cell(const struct column *c, const struct row *r, char *b, size_t n)
{
	const char *s = c->cell(r, b, n);

	return s ? s : "";
}

json_t *model_row(const struct row *r)
{
	json_t *o = json_object();
	char b[512];
	size_t i;

	for (i = 0; columns[i].key; i++)
		json_object_set_new(o, columns[i].key,
				    json_string(column_cell(&columns[i], r, b, sizeof(b))));
	return o;
}

/* The columns as this run's tables show them: key, head, tables, ... */
static json_t *columns_json(const struct results *rs)
{
	json_t *a = json_array();
	char h[256];
	size_t i, t;

	for (i = 0; columns[i].key; i++) {
		const struct column *c = &columns[i];
		json_t *o, *tabs = json_array();

		for (t = 1; t & T_ALL; t <<= 1)
			if (column_shown(c, t, rs))
				json_array_append_new(tabs, json_string(table_name(t)));
		column_head(c, T_MD, rs, h, sizeof(h));
		o = json_pack("{s:s, s:s, s:o, s:s}", "key", c->key, "head", h,
			      "tables", tabs, "align", c->num ? "right" : "left");
		if (c->head_txt)
			json_object_set_new(o, "head_txt", json_string(c->head_txt));
		if (c->fold)
			json_object_set_new(o, "fold", json_string(c->fold));
		json_array_append_new(a, o);
	}
	return a;
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
	m = json_pack("{s:s, s:i, s:s, s:s, s:s?, s:o, s:o, s:o}",
		      "kind", "kbench-report-model", "version", 2,
		      "base", rs.base, "new", rs.new, "kernel", rs.kernel,
		      "method", method_json(&rs), "columns", columns_json(&rs),
		      "rows", rows);
	rc = !m || json_dumpf(m, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) || puts("") == EOF;
	json_decref(m);
	results_free(&rs);
	return rc || fflush(stdout) ? 1 : 0;
}
