// SPDX-License-Identifier: GPL-2.0
/*
 * kbstat summary --format txt: the text for a mailing-list reply. At
 * most 80 columns; the answer first (each workload's primary metric,
 * then its variant comparison's cover table); rows grouped by workload,
 * variant and metric, the parameters every row of a group shares said
 * once in its title; n/a rows one line per workload, variant and
 * reason; a metric with one sample a boot that the run's boots cannot
 * judge said once, not as a row of "insufficient data"; a boot-effect
 * warning only where the verdict was undecided. The rest (p-values,
 * every warning) is in summary.md, the HTML and results.json.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "json.h"
#include "mail.h"
#include "model.h"
#include "results.h"
#include "util.h"
#include "variants.h"

#define WIDTH 80

/* n zeroed bytes; out of memory is fatal, as for xmalloc */
static char *xcalloc(size_t n)
{
	char *p = xmalloc(n);

	memset(p, 0, n);
	return p;
}

/* One sample a boot on both sides, too few boots: a per-run metric. */
static int per_run(const struct row *r)
{
	int s;

	if (strncmp(r->verdict, "insufficient", 12))
		return 0;
	for (s = 0; s < 2; s++) {
		const json_t *g = json_get(r->r, s ? "new" : "base");

		if (json_num(g, "n") != json_num(g, "boots") || !(json_num(g, "n") > 0))
			return 0;
	}
	return 1;
}

static int same_group(const struct row *a, const struct row *b)
{
	return a->sec == b->sec && !strcmp(a->workload, b->workload) &&
	       !strcmp(a->variant, b->variant) && !strcmp(a->metric, b->metric);
}

/* Whether "k=v" is a parameter of every point of the group. */
static int shared_param(const char *kv, size_t len, const struct row *const *g,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *p = g[i]->point;

		for (;;) {
			size_t l = strcspn(p, ";");

			if (l == len && !strncmp(p, kv, len))
				break;
			if (!p[l])
				return 0;
			p += l + 1;
		}
	}
	return 1;
}

/*
 * The point without the parameters shared by the whole group (into
 * out), and those (into common, for the title). One row: all of it is
 * "common", said in the title.
 */
static void split_point(const char *point, const struct row *const *g, size_t n,
			char *out, size_t on, char *common, size_t cn)
{
	const char *p = point;

	*out = *common = 0;
	while (*p) {
		size_t l = strcspn(p, ";");
		char *dst = shared_param(p, l, g, n) ? common : out;
		size_t dn = dst == common ? cn : on, dl = strlen(dst);

		if (l && dl + l + 2 < dn)
			snprintf(dst + dl, dn - dl, "%s%.*s", dl ? ";" : "", (int)l, p);
		p += l + (p[l] ? 1 : 0);
	}
}

/* One cell, padded to w unless last: numbers right, text left. */
static void put_cell(const struct column *c, const char *s, size_t w, int last)
{
	if (c->num)
		printf("%*s", (int)w, s);
	else
		printf("%-*s", last ? 0 : (int)w, s);
}

/*
 * A group's rows in the columns of the model's txt table (model.c),
 * under a title that says what every row of the group shares. A column
 * with nothing in it is left out; a point too wide for its row goes on
 * a line of its own above the numbers.
 */
static void print_group(const struct row *const *g, size_t n,
			const struct results *rs)
{
	char title[1024], common[512], point[512], b[512];
	const struct column **col;
	char **cell, **head;
	size_t *wid, ncol = 0, i, c, pc = SIZE_MAX, total = 2, last, lastw = 0;
	int split;
	const struct row *r0 = g[0];

	for (c = 0; columns[c].key; c++)
		ncol += column_shown(&columns[c], T_TXT, rs);
	col = xmalloc(ncol * sizeof(*col));
	head = xmalloc(ncol * sizeof(*head));
	wid = xmalloc(ncol * sizeof(*wid));
	cell = xmalloc(n * ncol * sizeof(*cell));
	for (c = ncol = 0; columns[c].key; c++) {
		if (!column_shown(&columns[c], T_TXT, rs))
			continue;
		col[ncol] = &columns[c];
		column_head(&columns[c], T_TXT, rs, b, sizeof(b));
		head[ncol] = xstrdup(b);
		wid[ncol] = strlen(b);
		/* the group's title says the parameters every point shares */
		if (!strcmp(columns[c].key, "point"))
			pc = ncol;
		ncol++;
	}
	for (i = 0; i < n; i++) {
		split_point(g[i]->point, g, n, point, sizeof(point), common, sizeof(common));
		for (c = 0; c < ncol; c++) {
			const char *s = c == pc ? point : column_cell(col[c], g[i], b, sizeof(b));

			cell[i * ncol + c] = xstrdup(s);
			if (strlen(s) > wid[c])
				wid[c] = strlen(s);
			if (c + 1 == ncol && strlen(s) > lastw)
				lastw = strlen(s);
		}
	}
	snprintf(title, sizeof(title), "%s%s%s: %s (%s%s%s is better, %s)%s%s",
		 r0->workload, *r0->variant ? "/" : "", r0->variant, r0->metric,
		 r0->unit, *r0->unit ? ", " : "", r0->better, r0->clock,
		 *common ? " at " : "", common);
	text_wrap(stdout, "", "    ", title, WIDTH);
	/*
	 * a row or the head wider than 80 columns: the point goes on a line
	 * of its own. The last column is as wide as its widest cell or its
	 * head ("verdict" over "better" is one column more).
	 */
	if (ncol && strlen(head[ncol - 1]) > lastw)
		lastw = strlen(head[ncol - 1]);
	for (c = 0; c + 1 < ncol; c++)
		total += wid[c] ? wid[c] + 2 : 0;
	total += ncol ? lastw + 2 : 0;
	split = pc != SIZE_MAX && total > WIDTH + 2 && wid[pc];
	for (last = ncol; last > 0 && (!wid[last - 1] || (split && last - 1 == pc)); last--)
		;
	/* the head (i == 0), then each row */
	for (i = 0; i <= n; i++) {
		char **line = i ? &cell[(i - 1) * ncol] : head;

		if (i && split)
			printf("  %s\n", line[pc]);
		for (c = 0; c < last; c++) {
			if (!wid[c] || (split && c == pc))
				continue;
			fputs("  ", stdout);
			put_cell(col[c], line[c], wid[c], c + 1 == last);
		}
		putchar('\n');
	}
	for (i = 0; i < n * ncol; i++)
		free(cell[i]);
	for (c = 0; c < ncol; c++)
		free(head[c]);
	free(cell);
	free(head);
	free(wid);
	free(col);
}

/*
 * The groups of rows in section sec (and, if w, of workload w) in
 * order; per-run rows left out (said once, below).
 */
static size_t print_section(const struct results *rs, const size_t *ord,
			    int sec, const char *w, char *done)
{
	const struct row **g = xmalloc((rs->n + 1) * sizeof(*g));
	size_t i, k, n, groups = 0;

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[ord[i]];

		if (done[ord[i]] || (int)r->sec != sec || (w && strcmp(r->workload, w)) ||
		    per_run(r))
			continue;
		for (n = 0, k = i; k < rs->n; k++) {
			const struct row *o = &rs->row[ord[k]];

			if (!done[ord[k]] && same_group(r, o) && !per_run(o)) {
				g[n++] = o;
				done[ord[k]] = 1;
			}
		}
		if (groups++)
			putchar('\n');
		print_group(g, n, rs);
	}
	free(g);
	return groups;
}

/* n/a rows: one line per workload, variant and reason. */
static void print_na(const struct results *rs, const size_t *ord)
{
	char *done = xcalloc(rs->n + 1), line[2048];
	const char **pts = xmalloc((rs->n + 1) * sizeof(*pts));
	size_t i, k, nrow, npt, head = 0;

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[ord[i]];
		const char *why = r->why ? r->why : "";

		if (done[i] || r->sec != SEC_NA)
			continue;
		nrow = npt = 0;
		for (k = i; k < rs->n; k++) {
			const struct row *o = &rs->row[ord[k]];
			size_t p;

			if (done[k] || o->sec != SEC_NA || strcmp(o->workload, r->workload) ||
			    strcmp(o->variant, r->variant) || strcmp(o->why ? o->why : "", why))
				continue;
			done[k] = 1;
			nrow++;
			for (p = 0; p < npt && strcmp(pts[p], o->point); p++)
				;
			if (p == npt)
				pts[npt++] = o->point;
		}
		if (!head++)
			puts("n/a (a kernel lacks the variant: not a failure, never tested):");
		snprintf(line, sizeof(line), "%s%s%s, %zu point%s (%zu row%s): %s",
			 r->workload, *r->variant ? "/" : "", r->variant, npt,
			 npt == 1 ? "" : "s", nrow, nrow == 1 ? "" : "s", why);
		text_wrap(stdout, "  ", "    ", line, WIDTH);
	}
	if (head)
		putchar('\n');
	free(pts);
	free(done);
}

/* Per-run metrics the run's boots cannot judge: one line each. */
static void print_per_run(const struct results *rs)
{
	char line[2048];
	size_t i, k, head = 0;
	struct method m;

	method_read(rs->j, &m);
	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];
		const json_t *g = json_get(r->r, "base");

		if (!per_run(r))
			continue;
		for (k = 0; k < i && !(per_run(&rs->row[k]) &&
				       !strcmp(rs->row[k].workload, r->workload) &&
				       !strcmp(rs->row[k].metric, r->metric)); k++)
			;
		if (k < i)
			continue;
		if (!head++)
			puts("one sample a boot (a per-run figure), too few boots for a verdict:");
		snprintf(line, sizeof(line), "%s %s: %.0f boots a side; a verdict needs %.0f samples a side, so BOOTS=%.0f (medians in summary.md)",
			 r->workload, r->metric, json_num(g, "boots"), m.min_samples,
			 fmax(m.min_samples, m.min_boots));
		text_wrap(stdout, "  ", "    ", line, WIDTH);
	}
	if (head)
		putchar('\n');
}

/* The why of undecided rows, a reason shared by the next row once. */
static void print_why(const struct results *rs, const size_t *ord)
{
	char line[2048];
	size_t i, k, head = 0;

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[ord[i]];

		if (!row_undecided(r) || !r->why || per_run(r) || r->sec == SEC_NA)
			continue;
		if (!head++)
			puts("undecided, and what would settle it:");
		snprintf(line, sizeof(line), "%s%s%s %s %s: %s", r->workload,
			 *r->variant ? "/" : "", r->variant, r->point, r->metric, r->verdict);
		text_wrap(stdout, "  ", "    ", line, WIDTH);
		for (k = i + 1; k < rs->n; k++) {
			const struct row *o = &rs->row[ord[k]];

			if (row_undecided(o) && o->why && !per_run(o) && o->sec != SEC_NA)
				break;
		}
		if (k < rs->n && !strcmp(rs->row[ord[k]].why, r->why))
			continue;
		text_wrap(stdout, "      ", "      ", r->why, WIDTH);
	}
	if (head)
		putchar('\n');
}

/* The row a warning ("w/v/p/m: ...") is about, if any. */
static const struct row *warned_row(const struct results *rs, const char *w)
{
	char pre[2048];
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];

		snprintf(pre, sizeof(pre), "%s/%s/%s/%s: ", r->workload, r->variant,
			 r->point, r->metric);
		if (!strncmp(w, pre, strlen(pre)))
			return r;
	}
	return NULL;
}

/*
 * Warnings grouped per workload; a boot effect only where the verdict
 * was undecided (elsewhere the boot-level test already accounted for it).
 */
static void print_warnings(const struct results *rs)
{
	const json_t *warns = json_get(rs->j, "warnings");
	char line[2048];
	size_t i, k, head = 0, skipped = 0;
	char *done;

	if (!json_is_array(warns))
		return;
	done = xcalloc(json_array_size(warns) + 1);
	for (i = 0; i < json_array_size(warns); i++) {
		const char *w = json_string_value(json_array_get(warns, i));
		const struct row *r;

		if (!w)
			continue;
		r = warned_row(rs, w);
		if (r && strstr(w, "(boot effect: add boots)") && !row_undecided(r)) {
			done[i] = 1;
			skipped++;
		}
	}
	for (i = 0; i < json_array_size(warns); i++) {
		const char *w = json_string_value(json_array_get(warns, i));
		size_t wl = strcspn(w ? w : "", "/:");

		if (done[i] || !w)
			continue;
		if (!head++)
			puts("warnings:");
		printf("  %.*s:\n", (int)wl, w);
		for (k = i; k < json_array_size(warns); k++) {
			const char *o = json_string_value(json_array_get(warns, k));

			if (done[k] || !o ||
			    strncmp(o, w, wl) || (o[wl] != '/' && o[wl] != ':'))
				continue;
			done[k] = 1;
			snprintf(line, sizeof(line), "%s", o + wl + (o[wl] == '/'));
			text_wrap(stdout, "    ", "      ", line, WIDTH);
		}
	}
	if (skipped)
		printf("%s%zu boot-effect warning%s on decided rows left out (summary.md has them)\n",
		       head ? "  " : "", skipped, skipped == 1 ? "" : "s");
	if (head || skipped)
		putchar('\n');
	free(done);
}

/*
 * Cover tables and prose lines go through text_wrap; a table line is
 * kept as it is (kbstat cover sizes its columns to the data).
 */
static void print_wrapped(const char *text)
{
	const char *p = text;

	while (*p) {
		size_t l = strcspn(p, "\n");
		char *line = xmalloc(l + 1);

		memcpy(line, p, l);
		line[l] = 0;
		if (l > WIDTH && !strstr(line, "  "))
			text_wrap(stdout, "", "  ", line, WIDTH);
		else
			puts(line);
		free(line);
		p += l + (p[l] ? 1 : 0);
	}
}

/* Workload w's cover table of one variant comparison, wrapped; 1 if any. */
static int print_cover(const struct results *cv, const struct primary_tab *pt,
		       const char *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int done;

	if (!mem)
		return 0;
	done = cover_print(mem, cv, pt, w, 0);
	fclose(mem);
	if (done) {
		putchar('\n');
		print_wrapped(buf);
	}
	free(buf);
	return done;
}

/*
 * The informational metrics (counts, sizes: never judged) by name only,
 * one line per workload and variant: a mail needs to know they were
 * measured; their medians are in summary.md, the HTML and results.json.
 */
static void print_info(const struct results *rs, const size_t *ord)
{
	char line[2048];
	size_t i, j, len;
	int any = 0;

	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[ord[i]];
		int seen = 0;

		if (r->sec != SEC_INFO)
			continue;
		/* the first informational row of its workload/variant leads */
		for (j = 0; j < i && !seen; j++) {
			const struct row *q = &rs->row[ord[j]];

			seen = q->sec == SEC_INFO && !strcmp(q->workload, r->workload) &&
			       !strcmp(q->variant, r->variant);
		}
		if (seen)
			continue;
		if (!any++)
			puts("informational, never judged (medians in summary.md and results.json):");
		len = snprintf(line, sizeof(line), "%s/%s:", r->workload, r->variant);
		for (j = i; j < rs->n && len < sizeof(line) - 2; j++) {
			const struct row *q = &rs->row[ord[j]];
			const char *m = q->metric;
			size_t k;
			int dup = 0;

			if (q->sec != SEC_INFO || strcmp(q->workload, r->workload) ||
			    strcmp(q->variant, r->variant))
				continue;
			/* one name per metric, whatever its points */
			for (k = i; k < j && !dup; k++) {
				const struct row *o = &rs->row[ord[k]];

				dup = o->sec == SEC_INFO &&
				      !strcmp(o->workload, r->workload) &&
				      !strcmp(o->variant, r->variant) &&
				      !strcmp(o->metric, m);
			}
			if (!dup)
				len += snprintf(line + len, sizeof(line) - len, " %s,", m);
		}
		if (len < sizeof(line))
			line[len - 1] = '\0';	/* the last comma */
		text_wrap(stdout, "  ", "    ", line, WIDTH);
	}
	if (any)
		putchar('\n');
}

void summary_mail(const struct results *rs, const struct results *covers,
		  size_t ncover, const struct primary_tab *pt)
{
	size_t *ord = results_order(rs), i, k, nclock = 0;
	int c;
	char *done = xcalloc(rs->n + 1), line[2048], ci[32];
	const char *clocks[4], *w;
	struct method m;
	const json_t *fails;

	if (rs->kernel)
		printf("kbench: variant %s vs %s on %s\n", rs->new, rs->base, rs->kernel);
	else
		printf("kbench: %s vs %s\n", rs->new, rs->base);
	for (i = 0; i < rs->n; i++) {
		for (k = 0; k < nclock && strcmp(clocks[k], rs->row[i].clock); k++)
			;
		if (k == nclock && nclock < 4)
			clocks[nclock++] = rs->row[i].clock;
	}
	method_read(rs->j, &m);
	method_ci(&m, ci, sizeof(ci));
	snprintf(line, sizeof(line), "ratio = median(%s) / median(%s)%s%s with its %s; verdicts by the rules in the notes below. Clock:",
		 rs->new, rs->base, rs->kernel ? ", both on " : "",
		 rs->kernel ? rs->kernel : "", ci);
	for (k = 0; k < nclock; k++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s%s",
			 clocks[k], k + 1 < nclock ? "," : ".");
	text_wrap(stdout, "", "", line, WIDTH);
	putchar('\n');

	/* the answer: per workload its primary metric, then its cover table */
	for (i = 0; i < rs->n; i++) {
		w = rs->row[ord[i]].workload;
		if (rs->row[ord[i]].sec != SEC_PRIMARY || done[ord[i]])
			continue;
		print_section(rs, ord, SEC_PRIMARY, w, done);
		/* a cover table ends with a blank line of its own */
		for (k = c = 0; k < ncover; k++)
			c = print_cover(&covers[k], pt, w) || c;
		if (!c)
			putchar('\n');
	}
	/* a workload with no primary row here (all n/a) still has its table */
	for (i = 0; i < ncover; i++) {
		for (k = 0; k < covers[i].n; k++) {
			size_t j;

			w = covers[i].row[k].workload;
			if (k && !strcmp(covers[i].row[k - 1].workload, w))
				continue;
			for (j = 0; j < rs->n && !(rs->row[j].sec == SEC_PRIMARY &&
						   !strcmp(rs->row[j].workload, w)); j++)
				;
			if (j == rs->n)
				print_cover(&covers[i], pt, w);
		}
	}
	for (i = k = 0; i < rs->n; i++)
		k += rs->row[i].sec == SEC_JUDGED && !per_run(&rs->row[i]);
	if (k) {
		puts("other metrics:");
		print_section(rs, ord, SEC_JUDGED, NULL, done);
		putchar('\n');
	}
	print_info(rs, ord);
	print_per_run(rs);
	print_na(rs, ord);
	print_why(rs, ord);
	print_warnings(rs);
	fails = json_get(rs->j, "failed_boots");
	for (i = 0; i < json_array_size(fails); i++) {
		const json_t *fb = json_array_get(fails, i);

		if (!i)
			puts("failed boots (not in the statistics, which use the complete boots only):");
		snprintf(line, sizeof(line), "FAILED %s %s (vcpus %s, attempt %s): %s; serial log %s",
			 json_str(fb, "kernel"), json_str(fb, "boot"),
			 json_str(fb, "vcpus"), json_str(fb, "attempt"),
			 json_str(fb, "reason"), json_str(fb, "serial_log"));
		text_wrap(stdout, "  ", "    ", line, WIDTH);
	}
	if (json_array_size(fails))
		putchar('\n');
	free(ord);
	free(done);
}
