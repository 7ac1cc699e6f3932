// SPDX-License-Identifier: GPL-2.0
/*
 * Variant against variant: the comparisons a run holds, and the summary
 * table of one in the layout of a cover letter (key, max, nr, hash,
 * rhash, ratio, delta), its columns named by the workload file.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "absent.h"
#include "fmt.h"
#include "raw.h"
#include "results.h"
#include "util.h"
#include "variants.h"

struct strv {
	char **v;
	size_t n;
};

static int strv_has(const struct strv *s, const char *x)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], x))
			return 1;
	return 0;
}

/* Adds x unless present; the strings are borrowed. */
static void strv_add(struct strv *s, const char *x)
{
	if (strv_has(s, x))
		return;
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = (char *)x;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A workload's variants: in its file's "variants =" order, then any
 * other the run holds, sorted. The base comes first: "base_variant =",
 * else the first of "variants =", else the first in sorted order.
 */
static void variants_of(const struct raw *raw, const struct absent *ab,
			const struct wl_primary *wi, const char *w,
			struct strv *out)
{
	struct strv seen = { 0 };
	char *list, *tok, *save;
	size_t i;

	for (i = 0; i < raw->nkeys; i++)
		if (!strcmp(raw->keys[i].workload, w))
			strv_add(&seen, raw->keys[i].variant);
	for (i = 0; i < ab->n; i++)
		if (!strcmp(ab->v[i].workload, w))
			strv_add(&seen, ab->v[i].variant);
	if (seen.n)
		qsort(seen.v, seen.n, sizeof(*seen.v), cmp_str);
	out->n = 0;
	for (i = 0; wi && wi->base_variant && i < seen.n; i++)
		if (!strcmp(seen.v[i], wi->base_variant))
			strv_add(out, seen.v[i]);
	list = xstrdup(wi && wi->variants ? wi->variants : "");
	for (tok = strtok_r(list, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		for (i = 0; i < seen.n; i++)
			if (!strcmp(seen.v[i], tok))
				strv_add(out, seen.v[i]);
	for (i = 0; i < seen.n; i++)
		strv_add(out, seen.v[i]);
	free(list);
	free(seen.v);
}

struct pair {
	size_t kern;
	const char *base, *new;
	struct strv wl;
};

int cmd_variants(int argc, char **argv)
{
	struct raw raw;
	struct absent ab;
	struct primary_tab pt;
	struct strv wls = { 0 }, vs = { 0 };
	struct pair *pairs = NULL;
	size_t npairs = 0, i, j, k, kern;
	unsigned char *has;

	if (argc != 1) {
		fputs("usage: kbstat variants RUN\n", stderr);
		return 2;
	}
	if (raw_load(argv[0], &raw) || absent_load(argv[0], &raw, &ab) ||
	    primary_load(argv[0], &pt))
		return 1;
	/* has[key * nkernels + kernel]: the key has samples on the kernel */
	has = calloc(raw.nkeys * raw.nkernels + 1, 1);
	if (!has) {
		fprintf(stderr, "kbstat: out of memory\n");
		return 2;
	}
	for (i = 0; i < raw.nsamples; i++)
		has[raw.samples[i].key * raw.nkernels + raw.samples[i].kernel] = 1;
	for (i = 0; i < raw.nkeys; i++)
		strv_add(&wls, raw.keys[i].workload);
	if (wls.n)
		qsort(wls.v, wls.n, sizeof(*wls.v), cmp_str);
	for (i = 0; i < wls.n; i++) {
		variants_of(&raw, &ab, wl_info(&pt, wls.v[i]), wls.v[i], &vs);
		for (kern = 0; vs.n >= 2 && kern < raw.nkernels; kern++) {
			for (j = 1; j < vs.n; j++) {
				int ran[2] = { 0, 0 };
				size_t p;

				for (k = 0; k < raw.nkeys; k++) {
					const struct key *kk = &raw.keys[k];

					if (!has[k * raw.nkernels + kern] ||
					    strcmp(kk->workload, wls.v[i]))
						continue;
					ran[0] |= !strcmp(kk->variant, vs.v[0]);
					ran[1] |= !strcmp(kk->variant, vs.v[j]);
				}
				if (!ran[0] || !ran[1])
					continue;
				for (p = 0; p < npairs; p++)
					if (pairs[p].kern == kern &&
					    !strcmp(pairs[p].base, vs.v[0]) &&
					    !strcmp(pairs[p].new, vs.v[j]))
						break;
				if (p == npairs) {
					pairs = xrealloc(pairs, (npairs + 1) * sizeof(*pairs));
					pairs[npairs++] = (struct pair){ kern, vs.v[0], vs.v[j], { 0 } };
				}
				strv_add(&pairs[p].wl, wls.v[i]);
			}
		}
	}
	for (i = 0; i < npairs; i++) {
		printf("%s\t%s\t%s\t", raw.kernels[pairs[i].kern], pairs[i].base,
		       pairs[i].new);
		for (j = 0; j < pairs[i].wl.n; j++)
			printf("%s%s", j ? "," : "", pairs[i].wl.v[j]);
		putchar('\n');
	}
	return fflush(stdout) ? 1 : 0;
}

/* ---- the cover-letter table ---- */

/*
 * The value of parameter name in a point "k=v;k2=v2", and its length;
 * NULL if the point has none.
 */
static const char *point_str(const char *point, const char *name, size_t len,
			     size_t *vlen)
{
	const char *p = point;

	while (p && *p) {
		const char *eq = strchr(p, '='), *end = strchr(p, ';');

		if (eq && (!end || eq < end) && (size_t)(eq - p) == len &&
		    !strncmp(p, name, len)) {
			*vlen = end ? (size_t)(end - eq - 1) : strlen(eq + 1);
			return eq + 1;
		}
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* A parameter as a number; NAN when missing or not a number ("all"). */
static double point_param(const char *point, const char *name, size_t len)
{
	size_t vlen;
	const char *v = point_str(point, name, len, &vlen);
	char *end;
	double x;

	if (!v || !vlen)
		return NAN;
	x = strtod(v, &end);
	return end == v + vlen ? x : NAN;
}

/*
 * A column's expression at a point: parameters and numbers joined by
 * '*' and '/', left to right (wl.sh checked the names).
 */
static double column_value(const char *expr, const char *point)
{
	double acc = NAN;
	char op = '*';
	const char *p = expr;

	while (*p) {
		size_t len = strcspn(p, "*/");
		double x;
		char *end;

		x = strtod(p, &end);
		if (end != p + len)
			x = point_param(point, p, len);
		if (isnan(acc))
			acc = x;
		else
			acc = op == '*' ? acc * x : acc / x;
		if (!p[len])
			break;
		op = p[len];
		p += len + 1;
	}
	return acc;
}

#define COVER_FIXED 5		/* base, new, ratio, delta, verdict */

struct cover_col {
	char *label, *expr;
};

static void clock_note(FILE *f, const char *clock, const char *unit, int md)
{
	/* a size is read, not timed: what a clock can see does not apply */
	if (!strcmp(unit, "bytes"))
		fprintf(f, "%sclock %s: these are sizes in bytes, read in the guest; no clock enters them.\n",
		       md ? "- " : "", clock);
	else if (!strcmp(clock, "icount"))
		fprintf(f, "%sclock icount: the guest's time is its executed-instruction count (QEMU -icount); it sees no cache or TLB misses. These are instruction-count figures, not hardware figures.\n",
		       md ? "- " : "");
	else if (!strcmp(clock, "model"))
		fprintf(f, "%sclock model: the kbcache plugin's memory-hierarchy model of each sample (model/README.md): instructions plus modelled L1D, LLC and DTLB miss penalties. A model's figures, not hardware figures.\n",
		       md ? "- " : "");
	else if (!strcmp(clock, "wall"))
		fprintf(f, "%sclock wall: the host's time while the guest ran (under TCG, an emulated CPU, unless the fingerprint says kvm): not a figure of the hardware the kernel would run on.\n",
		       md ? "- " : "");
	else
		fprintf(f, "%sclock %s: samples from both clocks; these figures mix instruction counts and time.\n",
		       md ? "- " : "", clock);
}

static const struct results *sort_rs;
static const struct cover_col *sort_col;
static size_t sort_ncol;

static int cmp_cover_rows(const void *pa, const void *pb)
{
	const char *a = sort_rs->row[*(const size_t *)pa].point;
	const char *b = sort_rs->row[*(const size_t *)pb].point;
	size_t c;

	for (c = 0; c < sort_ncol; c++) {
		double x = column_value(sort_col[c].expr, a);
		double y = column_value(sort_col[c].expr, b);

		if (x != y && !isnan(x) && !isnan(y))
			return x < y ? -1 : 1;
	}
	return natcmp(a, b);
}

/* Numbers right-aligned, the verdict (last) left; point first if given. */
static void cover_line(FILE *f, const char *const *cell, const size_t *wid, size_t ncol,
		       const char *point, size_t pwid, int md)
{
	size_t c, last = ncol + COVER_FIXED - 1;

	if (point && md)
		fprintf(f, "| %s ", point);
	else if (point)
		fprintf(f, "%-*s  ", (int)pwid, point);
	for (c = 0; c <= last; c++) {
		if (md)
			fprintf(f, "| %s ", cell[c]);
		else if (c == last)
			fputs(cell[c], f);
		else
			fprintf(f, "%*s  ", (int)wid[c], cell[c]);
	}
	fprintf(f, "%s\n", md ? "|" : "");
}

static void dashes(FILE *f, size_t n, const char *after)
{
	while (n--)
		fputc('-', f);
	fputs(after, f);
}

static void cover_rule(FILE *f, const size_t *wid, size_t ncol, size_t pwid, int md)
{
	size_t c, last = ncol + COVER_FIXED - 1;

	if (md) {
		fprintf(f, "%s", pwid ? "|---" : "");
		for (c = 0; c <= last; c++)
			fprintf(f, "|%s", c == last ? "---" : "---:");
		fprintf(f, "%s\n", "|");
		return;
	}
	if (pwid)
		dashes(f, pwid, "  ");
	for (c = 0; c <= last; c++)
		dashes(f, wid[c], c == last ? "\n" : "  ");
}

/* One workload's table: its rows of the metric, columns from "table =". */
static void cover_workload(FILE *f, const struct results *rs, const struct wl_primary *wi,
			   const char *w, int md)
{
	const char *metric = wi->table_metric, *clock = NULL, *unit = "", *better = "";
	const char **hdr;
	struct cover_col *col = NULL;
	char *spec = xstrdup(wi->table), *tok, *save, ***cell, buf[256], buf2[256];
	size_t ncol = 0, nrow = 0, i, j, c, *wid, *rowi, pwid = strlen("point");
	int with_point = 0;

	for (tok = strtok_r(spec, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');

		col = xrealloc(col, (ncol + 1) * sizeof(*col));
		col[ncol].label = xstrdup(tok);
		if (eq)
			col[ncol].label[eq - tok] = 0;
		col[ncol++].expr = xstrdup(eq ? eq + 1 : tok);
	}
	free(spec);
	if (!metric && wi->n)
		metric = wi->metric[0];
	rowi = xmalloc((rs->n + 1) * sizeof(*rowi));
	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];

		if (strcmp(r->workload, w))
			continue;
		/* no metric named: the first judged one */
		if (!metric && r->sec != SEC_INFO && r->sec != SEC_NA)
			metric = r->metric;
		if (metric && !strcmp(r->metric, metric))
			rowi[nrow++] = i;
	}
	/* rows of a point absent on both variants carry no metric */
	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->row[i].workload, w) && !strcmp(rs->row[i].metric, "-"))
			rowi[nrow++] = i;
	/* rows in the order of the columns' values, left to right */
	sort_rs = rs;
	sort_col = col;
	sort_ncol = ncol;
	qsort(rowi, nrow, sizeof(*rowi), cmp_cover_rows);
	cell = xmalloc((nrow + 1) * sizeof(*cell));
	wid = calloc(ncol + COVER_FIXED + 1, sizeof(*wid));
	if (!wid) {
		fprintf(stderr, "kbstat: out of memory\n");
		exit(2);
	}
	for (j = 0; j < nrow; j++) {
		const struct row *r = &rs->row[rowi[j]];
		double ratio = json_num(r->r, "ratio");

		/* n/a rows of no metric have no clock ("-") */
		if (strcmp(r->metric, "-")) {
			clock = clock && strcmp(clock, r->clock) ? "mixed" : r->clock;
			unit = r->unit;
			better = r->better;
		}
		cell[j] = xmalloc((ncol + COVER_FIXED + 1) * sizeof(**cell));
		for (c = 0; c < ncol; c++) {
			double x = column_value(col[c].expr, r->point);
			size_t vlen;
			const char *v = point_str(r->point, col[c].expr,
						  strlen(col[c].expr), &vlen);

			/* a parameter as the point has it ("all"); sizes and counts in full */
			if (v)
				snprintf(buf, sizeof(buf), "%.*s", (int)vlen, v);
			else if (isnan(x))
				snprintf(buf, sizeof(buf), "?");
			else if (x == floor(x) && fabs(x) < 1e15)
				snprintf(buf, sizeof(buf), "%.0f", x);
			else
				snprintf(buf, sizeof(buf), "%.6g", x);
			cell[j][c] = xstrdup(buf);
		}
		fmt_pair(buf, buf2, sizeof(buf), r->med, r->lo, r->hi);
		cell[j][c++] = xstrdup(buf);
		cell[j][c++] = xstrdup(buf2);
		fmt_ci(buf, sizeof(buf), ratio, json_num(r->r, "ratio_ci_lo"),
		       json_num(r->r, "ratio_ci_hi"));
		cell[j][c++] = xstrdup(buf);
		if (isnan(ratio))
			snprintf(buf, sizeof(buf), "-");
		else
			snprintf(buf, sizeof(buf), "%+.1f%%", (ratio - 1) * 100);
		cell[j][c++] = xstrdup(buf);
		cell[j][c] = xstrdup(r->verdict);
	}
	/* two rows alike in every column: the point tells them apart */
	for (j = 0; j < nrow && !with_point; j++)
		for (i = 0; i < j && !with_point; i++) {
			for (c = 0; c < ncol && !strcmp(cell[i][c], cell[j][c]); c++)
				;
			with_point = c == ncol;
		}
	fprintf(f, "%s%s: %s vs %s on %s, %s%s%s%s (%s is better)\n%s", md ? "### " : "",
	       w, rs->new, rs->base, rs->kernel, metric ? metric : "-",
	       *unit ? " (" : "", unit, *unit ? ")" : "", better, md ? "\n" : "");
	hdr = xmalloc((ncol + COVER_FIXED) * sizeof(*hdr));
	for (c = 0; c < ncol; c++)
		hdr[c] = col[c].label;
	hdr[c++] = rs->base;
	hdr[c++] = rs->new;
	hdr[c++] = "ratio";
	hdr[c++] = "delta";
	hdr[c] = "verdict";
	for (c = 0; c < ncol + COVER_FIXED; c++) {
		wid[c] = strlen(hdr[c]);
		for (j = 0; j < nrow; j++)
			if (strlen(cell[j][c]) > wid[c])
				wid[c] = strlen(cell[j][c]);
	}
	for (j = 0; with_point && j < nrow; j++)
		if (strlen(rs->row[rowi[j]].point) > pwid)
			pwid = strlen(rs->row[rowi[j]].point);
	cover_line(f, hdr, wid, ncol, with_point ? "point" : NULL, pwid, md);
	cover_rule(f, wid, ncol, with_point ? pwid : 0, md);
	for (j = 0; j < nrow; j++)
		cover_line(f, (const char *const *)cell[j], wid, ncol,
			   with_point ? rs->row[rowi[j]].point : NULL, pwid, md);
	free(hdr);
	if (!md)
		fputc('\n', f);
	fprintf(f, "%sratio = median(%s) / median(%s) of %s at each point, on %s; delta = ratio - 1.\n",
	       md ? "\n- " : "", rs->new, rs->base, metric ? metric : "-", rs->kernel);
	clock_note(f, clock ? clock : "-", unit, md);
	fputc('\n', f);
	for (j = 0; j < nrow; j++) {
		for (c = 0; c < ncol + COVER_FIXED; c++)
			free(cell[j][c]);
		free(cell[j]);
	}
	for (c = 0; c < ncol; c++) {
		free(col[c].label);
		free(col[c].expr);
	}
	free(col);
	free(cell);
	free(wid);
	free(rowi);
}

int cover_print(FILE *f, const struct results *rs, const struct primary_tab *pt,
		const char *w, int md)
{
	const struct wl_primary *wi = wl_info(pt, w);
	size_t i;

	if (!wi || !wi->table || !*wi->table)
		return 0;
	for (i = 0; i < rs->n && strcmp(rs->row[i].workload, w); i++)
		;
	if (i == rs->n)
		return 0;
	cover_workload(f, rs, wi, w, md);
	return 1;
}

int cmd_cover(int argc, char **argv)
{
	const char *file = NULL, *run = NULL, *format = "txt", *only = NULL;
	struct primary_tab pt;
	struct results rs;
	struct strv done = { 0 };
	size_t i;
	int a;

	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "--run") && a + 1 < argc)
			run = argv[++a];
		else if (!strcmp(argv[a], "--format") && a + 1 < argc)
			format = argv[++a];
		else if (!strcmp(argv[a], "--workload") && a + 1 < argc)
			only = argv[++a];
		else if (argv[a][0] != '-' && !file)
			file = argv[a];
		else
			break;
	}
	if (a < argc || !file || !run || (strcmp(format, "txt") && strcmp(format, "md"))) {
		fputs("usage: kbstat cover RESULTS.json --run RUN [--format txt|md] [--workload W]\n", stderr);
		return 2;
	}
	if (results_load(file, run, &rs) || primary_load(run, &pt))
		return 1;
	if (!rs.kernel) {
		fprintf(stderr, "kbstat: error: %s: not a variant comparison (kbstat compare --kernel K --base-variant A --new-variant B)\n",
			file);
		return 1;
	}
	for (i = 0; i < rs.n; i++) {
		const struct wl_primary *wi = wl_info(&pt, rs.row[i].workload);

		if (!wi || !wi->table || !*wi->table || strv_has(&done, rs.row[i].workload) ||
		    (only && strcmp(only, rs.row[i].workload)))
			continue;
		strv_add(&done, rs.row[i].workload);
		cover_workload(stdout, &rs, wi, rs.row[i].workload, !strcmp(format, "md"));
	}
	free(done.v);
	primary_free(&pt);
	results_free(&rs);
	return fflush(stdout) ? 1 : 0;
}
