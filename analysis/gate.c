// SPDX-License-Identifier: GPL-2.0
/*
 * kbstat gate: the regression check's verdict, as the first lines of its
 * report. PASS or REGRESSION; for a regression every row that failed
 * (NEW against OLD, and the same row of NEW against the baseline); then
 * the undecided rows with what would settle them; then the series
 * behind NEW and OLD. Exit 0 on PASS, 1 on REGRESSION, 2 on an error.
 *
 * It is the one decider: make regression-check (orchestrate/regress.sh)
 * exits with its status. A regression is a worse row, a variant OLD ran
 * and NEW lacks (absent on NEW), or NEW failing to boot where OLD did
 * not; informational rows never fail it. tests/fixtures/gate holds its
 * stored verdicts and texts.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "gate.h"
#include "json.h"
#include "model.h"
#include "results.h"
#include "util.h"

#define WIDTH 80

static int any_failed(const json_t *fails, const char *kernel)
{
	size_t i;

	for (i = 0; i < json_array_size(fails); i++) {
		const char *k = json_str(json_array_get(fails, i), "kernel");

		if (k && !strcmp(k, kernel))
			return 1;
	}
	return 0;
}

/* The same row (workload, variant, point, metric) in another results file. */
static const struct row *row_in(const struct results *rs, const struct row *r)
{
	size_t i;

	for (i = 0; rs && i < rs->n; i++) {
		const struct row *o = &rs->row[i];

		if (!strcmp(o->workload, r->workload) && !strcmp(o->variant, r->variant) &&
		    !strcmp(o->point, r->point) && !strcmp(o->metric, r->metric))
			return o;
	}
	return NULL;
}

static void estimate(char *b, size_t n, const struct row *r)
{
	char e[200];

	fmt_est(e, sizeof(e), json_num(r->r, "estimate"),
		json_num(r->r, "estimate_ci_lo"), json_num(r->r, "estimate_ci_hi"));
	snprintf(b, n, "%s %s", strcmp(r->scale, "difference") ? "ratio" : "diff", e);
}

/* "workload/variant  point  metric (unit)" */
static void row_name(char *b, size_t n, const struct row *r)
{
	snprintf(b, n, "%s%s%s  %s  %s%s%s%s", r->workload, *r->variant ? "/" : "",
		 r->variant, r->point, r->metric, *r->unit ? " (" : "", r->unit,
		 *r->unit ? ")" : "");
}

struct series {
	char *role, *path, *label, *patches, *key;
};

/* SERIES.tsv: role, path, label, patch count, cache key; one line each. */
static size_t series_load(const char *path, struct series **out)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t n = 0;

	*out = NULL;
	if (!f) {
		fprintf(stderr, "kbstat: error: %s: cannot open\n", path);
		return (size_t)-1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fld[5], *s = line, *save;
		int k;

		line[strcspn(line, "\n")] = 0;
		for (k = 0; k < 5; k++) {
			fld[k] = strtok_r(k ? NULL : s, "\t", &save);
			if (!fld[k])
				break;
		}
		if (k < 5) {
			fprintf(stderr, "kbstat: error: %s:%zu: want 5 tab-separated fields (role, path, label, patches, key)\n",
				path, n + 1);
			fclose(f);
			return (size_t)-1;
		}
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n].role = xstrdup(fld[0]);
		(*out)[n].path = xstrdup(fld[1]);
		(*out)[n].label = xstrdup(fld[2]);
		(*out)[n].patches = xstrdup(fld[3]);
		(*out)[n].key = xstrdup(fld[4]);
		n++;
	}
	fclose(f);
	return n;
}

struct gate_opts {
	const char *results, *baseline, *series, *format;
};

static int gate_parse(int argc, char **argv, struct gate_opts *o)
{
	int i;

	o->format = "txt";
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			if (o->results)
				return -1;
			o->results = a;
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (!strcmp(a, "--baseline"))
			o->baseline = v;
		else if (!strcmp(a, "--series"))
			o->series = v;
		else if (!strcmp(a, "--format"))
			o->format = v;
		else
			return -1;
	}
	return o->results ? 0 : -1;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts o = { 0 };
	struct results rs, bl;
	struct method m;
	char ci[32];
	const json_t *fails;
	struct series *sv = NULL;
	size_t i, k, nser = 0, nworse = 0, nund = 0, nabs = 0;
	int md, have_bl = 0, crash, both_crash;
	const char *li = "  ";
	char name[1024], est[256];

	if (gate_parse(argc, argv, &o)) {
		fputs("usage: kbstat gate NEW-VS-OLD.json [--baseline NEW-VS-BASELINE.json] [--series SERIES.tsv] [--format txt|md]\n",
		      stderr);
		return 2;
	}
	md = !strcmp(o.format, "md");
	if (!md && strcmp(o.format, "txt")) {
		fprintf(stderr, "kbstat: --format is txt or md\n");
		return 2;
	}
	if (results_load(o.results, NULL, &rs))
		return 2;
	if (o.baseline) {
		if (results_load(o.baseline, NULL, &bl))
			return 2;
		have_bl = 1;
	}
	if (o.series) {
		nser = series_load(o.series, &sv);
		if (nser == (size_t)-1)
			return 2;
	}
	fails = json_get(rs.j, "failed_boots");
	crash = any_failed(fails, rs.new) && !any_failed(fails, rs.base);
	both_crash = any_failed(fails, rs.new) && any_failed(fails, rs.base);
	for (i = 0; i < rs.n; i++) {
		const struct row *r = &rs.row[i];
		const char *ab = json_str(r->r, "absent");

		if (!strcmp(r->verdict, "worse") ||
		    (r->sec == SEC_NA && ab && !strcmp(ab, "new")))
			nworse++;
		else if (row_undecided(r))
			nund++;
		else if (r->sec == SEC_NA)
			nabs++;
	}
	if (md)
		li = "- ";

	/* the verdict: the first line of the report */
	if (nworse || crash)
		printf("%sREGRESSION: NEW is worse than OLD in %zu metric%s%s\n",
		       md ? "# " : "", nworse, nworse == 1 ? "" : "s",
		       crash ? ", and NEW fails to boot where OLD does not" : "");
	else
		printf("%sPASS: no metric of NEW is worse than OLD%s\n", md ? "# " : "",
		       nund ? " (some undecided, below)" : "");
	printf("kbench regression check: NEW against OLD%s\n\n",
	       have_bl ? ", and NEW against the baseline" : "");

	if (nworse || crash) {
		method_read(rs.j, &m);
		method_ci(&m, ci, sizeof(ci));
		printf("%sFailed the gate (ratio NEW/OLD with %s, then NEW/baseline):\n%s",
		       md ? "## " : "", ci, md ? "\n" : "");
		for (i = 0; i < rs.n; i++) {
			const struct row *r = &rs.row[i], *b;
			const char *ab = json_str(r->r, "absent");

			if (strcmp(r->verdict, "worse") &&
			    !(r->sec == SEC_NA && ab && !strcmp(ab, "new")))
				continue;
			row_name(name, sizeof(name), r);
			printf("%s%s\n", li, name);
			if (r->sec == SEC_NA) {
				text_wrap(stdout, md ? "  - ABSENT on NEW, which OLD ran: " :
						  "    ABSENT on NEW, which OLD ran: ",
					  "      ", r->why ? r->why : "", WIDTH);
			} else {
				estimate(est, sizeof(est), r);
				printf("%sNEW vs OLD:      %s  %s, %s is better\n",
				       md ? "  - " : "    ", est, r->verdict, r->better);
			}
			b = have_bl ? row_in(&bl, r) : NULL;
			if (b && b->sec != SEC_NA) {
				estimate(est, sizeof(est), b);
				printf("%sNEW vs baseline: %s  %s\n", md ? "  - " : "    ",
				       est, b->verdict);
			} else if (b) {
				printf("%sNEW vs baseline: n/a\n", md ? "  - " : "    ");
			} else if (have_bl) {
				printf("%sNEW vs baseline: not compared\n", md ? "  - " : "    ");
			}
		}
		for (i = 0; crash && i < json_array_size(fails); i++) {
			const json_t *fb = json_array_get(fails, i);
			char line[2048];

			if (strcmp(json_str(fb, "kernel") ? json_str(fb, "kernel") : "", rs.new))
				continue;
			snprintf(line, sizeof(line), "NEW fails to boot or crashes: %s (vcpus %s, attempt %s): %s; serial log %s",
				 json_str(fb, "boot"), json_str(fb, "vcpus"),
				 json_str(fb, "attempt"), json_str(fb, "reason"),
				 json_str(fb, "serial_log"));
			text_wrap(stdout, li, "    ", line, WIDTH);
		}
		putchar('\n');
	}

	if (nund || both_crash) {
		printf("%sUndecided (not regressions), and what would settle them:\n%s",
		       md ? "## " : "", md ? "\n" : "");
		/* rows that share their reason are listed together, the reason once */
		for (i = 0; i < rs.n; i++) {
			const struct row *r = &rs.row[i];
			const char *why = r->why ? r->why : "";

			if (!row_undecided(r))
				continue;
			for (k = i + 1; k < rs.n && !row_undecided(&rs.row[k]); k++)
				;
			row_name(name, sizeof(name), r);
			printf("%s%s: %s\n", li, name, r->verdict);
			if (k < rs.n && rs.row[k].why && !strcmp(rs.row[k].why, why) &&
			    !strcmp(rs.row[k].verdict, r->verdict))
				continue;
			text_wrap(stdout, md ? "  - " : "      ", md ? "    " : "      ",
				  why, WIDTH);
		}
		for (i = 0; both_crash && i < json_array_size(fails); i++) {
			const json_t *fb = json_array_get(fails, i);
			char line[2048];

			snprintf(line, sizeof(line), "%s fails to boot or crashes: %s: %s; serial log %s",
				 json_str(fb, "kernel"), json_str(fb, "boot"),
				 json_str(fb, "reason"), json_str(fb, "serial_log"));
			text_wrap(stdout, li, "    ", line, WIDTH);
		}
		putchar('\n');
	}
	if (nabs)
		printf("%s%zu row%s n/a: absent on OLD or on both, not a regression (listed below).\n\n",
		       md ? "" : "", nabs, nabs == 1 ? "" : "s");

	if (nser) {
		printf("%sSeries:\n%s", md ? "## " : "", md ? "\n" : "");
		for (i = 0; i < nser; i++) {
			char line[4096];

			snprintf(line, sizeof(line), "%s: %s (label %s, %s patches, cache key %.12s)",
				 sv[i].role, sv[i].path, sv[i].label, sv[i].patches,
				 sv[i].key);
			text_wrap(stdout, li, "    ", line, WIDTH);
			free(sv[i].role);
			free(sv[i].path);
			free(sv[i].label);
			free(sv[i].patches);
			free(sv[i].key);
		}
		free(sv);
		putchar('\n');
	}
	i = nworse || crash;
	results_free(&rs);
	if (have_bl)
		results_free(&bl);
	return i ? 1 : 0;
}
