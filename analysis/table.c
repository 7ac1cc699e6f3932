// SPDX-License-Identifier: GPL-2.0
/*
 * kbstat table: every number the report draws or prints is shaped here,
 * so the shell scripts only glue and gnuplot only draws.
 *
 *   kbstat table ratio   RESULTS.json --dir DIR
 *   kbstat table scaling RESULTS.json --dir DIR
 *   kbstat table primary RESULTS.json --dir DIR [--run RUN]
 *   kbstat table box     RESULTS.json RUN --dir DIR
 *   kbstat table rows    RESULTS.json [--run RUN]
 *   kbstat table profile BASE.folded NEW.folded [--labels BASE NEW]
 *
 * The chart kinds write DIR/<chart>.dat (tab-separated; data sets
 * separated by two blank lines, for gnuplot's "index") and print one
 * manifest line per chart (MANIFEST_HEADER below).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "raw.h"
#include "results.h"
#include "stats.h"
#include "model.h"
#include "table.h"
#include "util.h"

#define MANIFEST_HEADER \
	"name\tkind\tworkload\tvariant\tmetric\tunit\tparam\tcount\tblocks\tlogx\tlogy\tymin0\txmin0\tsides"
/* An axis is logarithmic when its values span more than this factor. */
#define LOG_SPAN 10.0
/* Both axes are when x spans this factor or more (two decades). */
#define LOGLOG_SPAN 100.0

struct targs {
	const char *kind, *file[2], *dir, *run, *label[2];
	size_t nfile;
};

static int table_usage(void)
{
	fputs("usage:\n"
	      "  kbstat table ratio|scaling RESULTS.json --dir DIR\n"
	      "  kbstat table primary RESULTS.json --dir DIR [--run RUN]\n"
	      "  kbstat table box RESULTS.json RUN --dir DIR\n"
	      "  kbstat table rows RESULTS.json [--run RUN]\n"
	      "  kbstat table profile BASE.folded NEW.folded [--labels BASE NEW]\n",
	      stderr);
	return 2;
}

/* File-name-safe form of a chart's identity (as tr -c 'A-Za-z0-9._=-' '_'). */
static char *slug(const char *prefix, const char *a, const char *b,
		  const char *c)
{
	const char *part[3] = { a, b, c };
	size_t n = strlen(prefix) + 4, i;
	char *s, *p;

	for (i = 0; i < 3; i++)
		n += part[i] ? strlen(part[i]) + 1 : 0;
	s = xmalloc(n);
	strcpy(s, prefix);
	for (i = 0; i < 3; i++) {
		if (!part[i] || !*part[i])
			continue;
		if (i)
			strcat(s, "-");
		strcat(s, part[i]);
	}
	for (p = s + strlen(prefix); *p; p++)
		if (!(*p >= 'A' && *p <= 'Z') && !(*p >= 'a' && *p <= 'z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("._=-", *p))
			*p = '_';
	return s;
}

static FILE *dat_open(const char *dir, const char *name)
{
	char *path = xmalloc(strlen(dir) + strlen(name) + 8);
	FILE *f;

	sprintf(path, "%s/%s.dat", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "kbstat: error: cannot write %s\n", path);
	free(path);
	return f;
}

static int dat_close(FILE *f)
{
	int err = ferror(f);

	if (fclose(f) || err) {
		fprintf(stderr, "kbstat: error: writing a chart table failed\n");
		return -1;
	}
	return 0;
}

/* Tabs and newlines would break a TSV field: make them blanks. */
static void tsv_field(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

struct manifest {
	const char *name, *kind, *workload, *variant, *metric, *unit, *param;
	size_t count, blocks;
	int logx, logy, ymin0, xmin0;
	const char *sides;
};

static void manifest_line(const struct manifest *m)
{
	const char *s[] = { m->name, m->kind, m->workload, m->variant,
			    m->metric, m->unit, m->param };
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		tsv_field(stdout, s[i]);
		putchar('\t');
	}
	printf("%zu\t%zu\t%d\t%d\t%d\t%d\t%s\n", m->count, m->blocks, m->logx,
	       m->logy, m->ymin0, m->xmin0, m->sides ? m->sides : "");
}

/* ---- point parsing: "vcpus=8;mode=read" ---- */

struct param {
	char *k, *v;
	int numeric;
	double x;
};

/* A plain decimal number: no hex, no inf/nan, nothing after it. */
static int plain_num(const char *s, double *x)
{
	const char *p = s;
	char *end;

	if (*p == '-' || *p == '+')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return 0;
	if (strpbrk(s, "xXiInN"))
		return 0;
	*x = strtod(s, &end);
	return !*end && isfinite(*x);
}

static size_t parse_point(const char *point, struct param **out)
{
	char *copy = xstrdup(point), *tok, *save;
	struct param *ps = NULL;
	size_t n = 0;

	for (tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		ps = xrealloc(ps, (n + 1) * sizeof(*ps));
		*eq = 0;
		ps[n].k = xstrdup(tok);
		ps[n].v = xstrdup(eq + 1);
		ps[n].numeric = plain_num(ps[n].v, &ps[n].x);
		n++;
	}
	free(copy);
	*out = ps;
	return n;
}

static void free_params(struct param *ps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ps[i].k);
		free(ps[i].v);
	}
	free(ps);
}

/* The point without parameter k: what else tells series apart. */
static char *point_rest(const struct param *ps, size_t n, const char *k)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(ps[i].k) + strlen(ps[i].v) + 2;
	s = xmalloc(len);
	*s = 0;
	for (i = 0; i < n; i++) {
		if (k && !strcmp(ps[i].k, k))
			continue;
		if (*s)
			strcat(s, ";");
		strcat(s, ps[i].k);
		strcat(s, "=");
		strcat(s, ps[i].v);
	}
	return s;
}

/* ---- ratio: new/base with its CI per row of a workload ---- */

static int table_ratio(const struct results *rs, const struct targs *a)
{
	size_t i, j;

	for (i = 0; i < rs->n; i++) {
		const char *w = rs->row[i].workload;
		struct manifest m = { .kind = "ratio", .workload = w };
		char *name;
		FILE *f = NULL;

		/* one chart per workload, at its first row */
		for (j = 0; j < i && strcmp(rs->row[j].workload, w); j++)
			;
		if (j < i)
			continue;
		name = slug("chart-ratio-", w, NULL, NULL);
		for (j = i; j < rs->n; j++) {
			const struct row *r = &rs->row[j];
			double ratio = json_num(r->r, "ratio");

			if (strcmp(r->workload, w) || r->sec >= SEC_INFO || isnan(ratio))
				continue;
			if (!f && !(f = dat_open(a->dir, name)))
				return 1;
			if (*r->variant)
				fprintf(f, "%s ", r->variant);
			tsv_field(f, r->point);
			fputc(' ', f);
			tsv_field(f, r->metric);
			fprintf(f, "\t%.12g\t%.12g\t%.12g\t%s\n", ratio,
				json_num(r->r, "ratio_ci_lo"),
				json_num(r->r, "ratio_ci_hi"), r->verdict);
			m.count++;
		}
		if (f) {
			if (dat_close(f))
				return 1;
			m.name = name;
			m.blocks = 1;
			manifest_line(&m);
		}
		free(name);
	}
	return 0;
}

/* ---- scaling and primary: median with CI against a parameter ---- */

struct ent {
	const char *w, *m, *u, *variant;
	const char *p;		/* parameter; "" for points as categories */
	double x;
	char *xs, *rest;
	int side;
	int absent;		/* a legend entry only: the kernel lacks the variant */
	double y, lo, hi;
};

static int cmp_ent(const void *pa, const void *pb)
{
	const struct ent *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->w, b->w)) || (c = strcmp(a->m, b->m)) ||
	    (c = strcmp(a->p, b->p)))
		return c;
	if (a->side != b->side)
		return a->side - b->side;
	if ((c = strcmp(a->variant, b->variant)) || a->absent != b->absent ||
	    (c = natcmp(a->rest, b->rest)))
		return c ? c : a->absent - b->absent;
	if (a->absent)
		return 0;
	return a->x < b->x ? -1 : a->x > b->x;
}

static int same_series(const struct ent *a, const struct ent *b)
{
	return a->side == b->side && a->absent == b->absent &&
	       !strcmp(a->variant, b->variant) && !strcmp(a->rest, b->rest);
}

static int same_chart(const struct ent *a, const struct ent *b)
{
	return !strcmp(a->w, b->w) && !strcmp(a->m, b->m) && !strcmp(a->p, b->p);
}

/*
 * Rows a scaling chart draws: judged ones, and those of a variant one
 * kernel lacks (n/a: the other kernel's line, and the absent one named)
 */
static int charted(const struct row *r)
{
	if (r->sec == SEC_NA)
		return strcmp(r->better, "none") && strcmp(r->metric, "-");
	return r->sec < SEC_INFO;
}

/* ... and those the primary chart draws: n/a rows of a primary metric */
static int charted_primary(const struct row *r)
{
	const json_t *p;

	if (r->sec != SEC_NA)
		return r->sec == SEC_PRIMARY;
	p = json_get(r->r, "primary");
	return charted(r) && (!json_is_boolean(p) || json_is_true(p));
}

/* Adds r's side @only (0 base, 1 new; -1: both) at x. */
static void add_ent_side(struct ent **v, size_t *n, const struct row *r,
			 const char *p, double x, const char *xs,
			 const char *rest, int only)
{
	const char *absent = r->sec == SEC_NA ? json_str(r->r, "absent") : NULL;
	int s;

	for (s = 0; s < 2; s++) {
		struct ent *e;
		int gone = absent && !strcmp(absent, s ? "new" : "base");

		if ((isnan(r->med[s]) && !gone) || (only >= 0 && s != only))
			continue;
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		e = &(*v)[(*n)++];
		e->absent = gone;
		e->w = r->workload;
		e->m = r->metric;
		e->u = r->unit;
		e->variant = r->variant;
		e->p = p;
		e->x = x;
		e->xs = xstrdup(xs);
		e->rest = xstrdup(rest);
		e->side = s;
		if (gone) {
			/* one legend entry per kernel and variant */
			free(e->rest);
			e->rest = xstrdup("");
			e->x = e->y = e->lo = e->hi = NAN;
			continue;
		}
		e->y = r->med[s];
		e->lo = isnan(r->lo[s]) ? r->med[s] : r->lo[s];
		e->hi = isnan(r->hi[s]) ? r->med[s] : r->hi[s];
	}
}

static void add_ent(struct ent **v, size_t *n, const struct row *r,
		    const char *p, double x, const char *xs, const char *rest)
{
	add_ent_side(v, n, r, p, x, xs, rest, -1);
}

/*
 * The metric the workload's "scale_x" names for matrix key @k (its
 * non-numeric values are placed at that metric's median), or NULL.
 * Returns a string the caller frees.
 */
static char *scale_x_metric(const struct primary_tab *pt, const char *w,
			    const char *k)
{
	const struct wl_primary *wl = wl_info(pt, w);
	char *list, *tok, *save, *m = NULL;
	size_t kl = strlen(k);

	if (!wl || !wl->scale_x)
		return NULL;
	list = xstrdup(wl->scale_x);
	for (tok = strtok_r(list, " \t", &save); tok && !m;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, k, kl) && tok[kl] == '=' && tok[kl + 1])
			m = xstrdup(tok + kl + 1);
	}
	free(list);
	return m;
}

/* The row of metric @m at r's workload, variant and point, or NULL */
static const struct row *row_at(const struct results *rs, const struct row *r,
				const char *m)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct row *o = &rs->row[i];

		if (!strcmp(o->workload, r->workload) &&
		    !strcmp(o->variant, r->variant) &&
		    !strcmp(o->point, r->point) && !strcmp(o->metric, m))
			return o;
	}
	return NULL;
}

/* Writes the charts of v[0..n) (sorted); categorical when p is "". */
static int write_charts(const struct results *rs, struct ent *v, size_t n,
			const char *kind, const struct targs *a)
{
	size_t i, j, k;

	if (n)	/* v is NULL when no chart has data: qsort wants a pointer */
		qsort(v, n, sizeof(*v), cmp_ent);
	for (i = 0; i < n; i = j) {
		struct manifest m = { .kind = kind, .workload = v[i].w,
				      .metric = v[i].m, .unit = v[i].u,
				      .param = v[i].p, .variant = "" };
		double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY,
		       ymax = -INFINITY, x0 = NAN, y0 = NAN;
		int varies = 0, allpos = 1, nonneg = 1;
		char *name;
		FILE *f;

		for (j = i; j < n && same_chart(&v[i], &v[j]); j++) {
			if (v[j].absent)
				continue;
			if (isnan(y0))
				y0 = v[j].y;
			varies |= v[j].y != y0;
			if (v[j].x != x0 && !isnan(x0))
				m.count = 2;
			x0 = v[j].x;
			xmin = fmin(xmin, v[j].x);
			xmax = fmax(xmax, v[j].x);
			ymin = fmin(ymin, fmin(v[j].lo, v[j].y));
			ymax = fmax(ymax, fmax(v[j].hi, v[j].y));
		}
		/* a flat line or a single x says nothing a table does not */
		if (!varies || (*v[i].p && m.count < 2))
			continue;
		allpos = ymin > 0;
		nonneg = ymin >= 0;
		m.logy = allpos && ymax / ymin > LOG_SPAN;
		if (*v[i].p) {
			m.logx = xmin > 0 && xmax / xmin > LOG_SPAN;
			m.xmin0 = xmin >= 0 && !m.logx;
			/* x over two decades (N = 1 .. 1000): log-log */
			if (xmin > 0 && xmax / xmin >= LOGLOG_SPAN && allpos)
				m.logy = 1;
		}
		m.ymin0 = nonneg && !m.logy;
		if (!strcmp(kind, "primary"))
			name = slug("chart-primary-", v[i].w, v[i].m, NULL);
		else
			name = slug("chart-scaling-", v[i].w, v[i].m, v[i].p);
		f = dat_open(a->dir, name);
		if (!f)
			return 1;
		m.count = 0;
		for (k = i; k < j; k++) {
			if (k > i && v[k].absent && same_series(&v[k - 1], &v[k]))
				continue;
			if (k == i || !same_series(&v[k - 1], &v[k])) {
				/* a series: its title first, for gnuplot's columnheader */
				if (k > i)
					fputs("\n\n", f);
				fputs(v[k].side ? rs->new : rs->base, f);
				if (*v[k].variant)
					fprintf(f, " %s", v[k].variant);
				if (*v[k].rest) {
					fputc(' ', f);
					tsv_field(f, v[k].rest);
				}
				/* named in the legend, not silently dropped */
				if (v[k].absent)
					fputs(": absent", f);
				fputc('\n', f);
				m.blocks++;
			}
			if (v[k].absent) {
				fputs("NaN\tNaN\tNaN\tNaN\t-\n", f);
				continue;
			}
			fprintf(f, "%.12g\t%.12g\t%.12g\t%.12g\t", v[k].x, v[k].y,
				v[k].lo, v[k].hi);
			tsv_field(f, v[k].xs);
			fputc('\n', f);
			m.count++;
		}
		if (dat_close(f))
			return 1;
		m.name = name;
		manifest_line(&m);
		free(name);
	}
	for (i = 0; i < n; i++) {
		free(v[i].xs);
		free(v[i].rest);
	}
	free(v);
	return 0;
}

static int table_scaling(const struct results *rs, const struct targs *a)
{
	struct primary_tab pt = { NULL, 0 };
	struct ent *v = NULL;
	size_t n = 0, i, k;
	int ret;

	if (a->run && primary_load(a->run, &pt))
		return 1;
	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];
		struct param *ps;
		size_t np;

		if (!charted(r))
			continue;
		np = parse_point(r->point, &ps);
		for (k = 0; k < np; k++) {
			char *rest, *m, xs[320];
			const struct row *at;
			int s;

			if (!ps[k].numeric) {
				/* "all": at its measured size, per kernel */
				m = scale_x_metric(&pt, r->workload, ps[k].k);
				at = m ? row_at(rs, r, m) : NULL;
				for (s = 0; at && s < 2; s++) {
					if (isnan(at->med[s]) || at->med[s] <= 0)
						continue;
					snprintf(xs, sizeof(xs), "%s (%.12g)",
						 ps[k].v, at->med[s]);
					rest = point_rest(ps, np, ps[k].k);
					add_ent_side(&v, &n, r, xstrdup(ps[k].k),
						     at->med[s], xs, rest, s);
					free(rest);
				}
				free(m);
				continue;
			}
			rest = point_rest(ps, np, ps[k].k);
			/* the parameter name lives as long as the entries */
			add_ent(&v, &n, r, xstrdup(ps[k].k), ps[k].x, ps[k].v, rest);
			free(rest);
		}
		free_params(ps, np);
	}
	ret = write_charts(rs, v, n, "scaling", a);
	primary_free(&pt);
	return ret;
}

/*
 * A workload's main parameter: the numeric one with the most values,
 * vcpus on a tie. NULL when no parameter takes two values: the points
 * are then categories on the x axis.
 */
static char *main_param(const struct results *rs, const char *w)
{
	struct cnt {
		char *k;
		double *x;
		size_t n;
	} *c = NULL;
	size_t nc = 0, i, j, k, t, best;
	char *ret = NULL;

	for (i = 0; i < rs->n; i++) {
		struct param *ps;
		size_t np;

		if (strcmp(rs->row[i].workload, w) || !charted(&rs->row[i]))
			continue;
		np = parse_point(rs->row[i].point, &ps);
		for (k = 0; k < np; k++) {
			if (!ps[k].numeric)
				continue;
			for (j = 0; j < nc && strcmp(c[j].k, ps[k].k); j++)
				;
			if (j == nc) {
				c = xrealloc(c, (nc + 1) * sizeof(*c));
				c[nc++] = (struct cnt){ xstrdup(ps[k].k), NULL, 0 };
			}
			for (t = 0; t < c[j].n && c[j].x[t] != ps[k].x; t++)
				;
			if (t == c[j].n) {
				c[j].x = xrealloc(c[j].x, (c[j].n + 1) * sizeof(double));
				c[j].x[c[j].n++] = ps[k].x;
			}
		}
		free_params(ps, np);
	}
	for (j = 0, best = 1; j < nc; j++) {
		if (c[j].n > best || (c[j].n == best && best > 1 &&
				      !strcmp(c[j].k, "vcpus"))) {
			best = c[j].n;
			ret = c[j].k;
		}
	}
	ret = ret ? xstrdup(ret) : NULL;
	for (j = 0; j < nc; j++) {
		free(c[j].k);
		free(c[j].x);
	}
	free(c);
	return ret;
}

static int cmp_natp(const void *a, const void *b)
{
	return natcmp(*(const char *const *)a, *(const char *const *)b);
}

static int table_primary(const struct results *rs, const struct targs *a)
{
	struct ent *v = NULL;
	size_t n = 0, i, j, k;

	for (i = 0; i < rs->n; i++) {
		const char *w = rs->row[i].workload, **pts = NULL;
		char *mp;
		size_t npts = 0;

		for (j = 0; j < i && strcmp(rs->row[j].workload, w); j++)
			;
		if (j < i)
			continue;
		mp = main_param(rs, w);
		/* categories: the workload's points in natural order */
		for (j = i; !mp && j < rs->n; j++) {
			if (strcmp(rs->row[j].workload, w) || !charted_primary(&rs->row[j]))
				continue;
			for (k = 0; k < npts && strcmp(pts[k], rs->row[j].point); k++)
				;
			if (k == npts) {
				pts = xrealloc(pts, (npts + 1) * sizeof(*pts));
				pts[npts++] = rs->row[j].point;
			}
		}
		if (npts)
			qsort(pts, npts, sizeof(*pts), cmp_natp);
		for (j = i; j < rs->n; j++) {
			const struct row *r = &rs->row[j];
			struct param *ps;
			size_t np;

			if (strcmp(r->workload, w) || !charted_primary(r))
				continue;
			if (!mp) {
				for (k = 0; strcmp(pts[k], r->point); k++)
					;
				add_ent(&v, &n, r, "", (double)k, r->point, "");
				continue;
			}
			np = parse_point(r->point, &ps);
			for (k = 0; k < np; k++) {
				char *rest;

				if (!ps[k].numeric || strcmp(ps[k].k, mp))
					continue;
				rest = point_rest(ps, np, mp);
				add_ent(&v, &n, r, xstrdup(mp), ps[k].x, ps[k].v, rest);
				free(rest);
			}
			free_params(ps, np);
		}
		free(pts);
		free(mp);
	}
	return write_charts(rs, v, n, "primary", a);
}

/* ---- box: every sample / the baseline median at its point ---- */

static long find_key(const struct raw *raw, const char *w, const char *v,
		     const char *p, const char *m)
{
	size_t k;

	for (k = 0; k < raw->nkeys; k++) {
		const struct key *kk = &raw->keys[k];

		if (!strcmp(kk->workload, w) && !strcmp(kk->variant, v) &&
		    !strcmp(kk->point, p) && !strcmp(kk->metric, m))
			return (long)k;
	}
	return -1;
}

static int table_box(const struct results *rs, const struct targs *a)
{
	struct raw raw;
	long kern[2];
	size_t i, j;
	int s;

	if (raw_load(a->file[1], &raw))
		return 1;
	kern[0] = raw_kernel(&raw, rs->base);
	kern[1] = raw_kernel(&raw, rs->new);
	for (i = 0; i < rs->n; i++) {
		const struct row *r = &rs->row[i];
		struct manifest m = { .kind = "box", .workload = r->workload,
				      .variant = r->variant, .metric = r->metric,
				      .unit = r->unit, .param = "" };
		const struct row **pts = NULL;
		char *name, *sides;
		int varies = 0;
		FILE *f;

		if (r->sec >= SEC_INFO)
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(rs->row[j].workload, r->workload) &&
			    !strcmp(rs->row[j].variant, r->variant) &&
			    !strcmp(rs->row[j].metric, r->metric))
				break;
		if (j < i)
			continue;
		for (j = i; j < rs->n; j++) {
			const struct row *q = &rs->row[j];

			if (strcmp(q->workload, r->workload) ||
			    strcmp(q->variant, r->variant) || strcmp(q->metric, r->metric))
				continue;
			pts = xrealloc(pts, (m.count + 1) * sizeof(*pts));
			pts[m.count++] = q;
			for (s = 0; s < 2; s++)
				varies |= !isnan(q->med[s]) && q->med[s] != r->med[0];
		}
		if (!varies) {
			free(pts);
			continue;
		}
		/* natural order of the points, as the tables show them */
		for (j = 1; j < m.count; j++) {
			size_t k = j;

			while (k > 0 && natcmp(pts[k - 1]->point, pts[k]->point) > 0) {
				const struct row *t = pts[k];

				pts[k] = pts[k - 1];
				pts[k - 1] = t;
				k--;
			}
		}
		name = slug("chart-box-", r->workload, r->variant, r->metric);
		f = dat_open(a->dir, name);
		if (!f)
			return 1;
		sides = xmalloc(2 * m.count + 1);
		*sides = 0;
		for (j = 0; j < m.count; j++) {
			long k = find_key(&raw, r->workload, r->variant,
					  pts[j]->point, r->metric);
			double med = pts[j]->med[0];

			for (s = 0; k >= 0 && s < 2; s++) {
				struct boot_set bs;
				size_t b, t;

				if (kern[s] < 0)
					continue;
				raw_boot_set(&raw, (size_t)k, (size_t)kern[s], &bs);
				if (bs.n) {
					/* relative to the baseline median, so points share an axis */
					for (b = 0; b < bs.nboots; b++)
						for (t = 0; t < bs.len[b]; t++)
							fprintf(f, "%.12g\t%.12g\n", j + s * 0.4,
								!isnan(med) && med != 0 ?
								bs.val[b][t] / med : bs.val[b][t]);
					fputs("\n\n", f);
					strcat(sides, s ? "n" : "b");
					m.blocks++;
				}
				boot_set_free(&bs);
			}
		}
		/* the last data set only names the points: x tics */
		for (j = 0; j < m.count; j++) {
			fprintf(f, "%.12g\t", j + 0.2);
			tsv_field(f, pts[j]->point);
			fputc('\n', f);
		}
		if (dat_close(f))
			return 1;
		if (m.blocks) {
			m.name = name;
			m.sides = sides;
			manifest_line(&m);
		}
		free(sides);
		free(name);
		free(pts);
	}
	return 0;
}

/* ---- rows: every result, formatted, in report order ---- */

/* The model's rows (model.c) as TSV, its column names the header. */
static int table_rows(const struct results *rs)
{
	size_t *o = results_order(rs), i, k;

	for (k = 0; columns[k].key; k++)
		printf("%s%s", k ? "\t" : "", columns[k].key);
	putchar('\n');
	for (i = 0; i < rs->n; i++) {
		json_t *m = model_row(&rs->row[o[i]]);

		for (k = 0; columns[k].key; k++) {
			if (k)
				putchar('\t');
			tsv_field(stdout, json_str(m, columns[k].key));
		}
		putchar('\n');
		json_decref(m);
	}
	free(o);
	return fflush(stdout) ? 1 : 0;
}

/* ---- profile: self share per symbol on two kernels, and the delta ---- */

struct sym {
	char *name;
	unsigned long long cnt[2];
	double a, b, d, se2;
};

static int cmp_sym(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;
	/* |delta| at the precision the table prints, then the name */
	long long x = llround(fabs(a->d) * 1e6), y = llround(fabs(b->d) * 1e6);

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Self samples per leaf frame of a folded file ("a;b;c COUNT"): a
 * kernel frame "x_[k]" counts as "[k] x", any other as "[.] x".
 */
static int fold_read(const char *file, int side, struct sym **v, size_t *n,
		     unsigned long long *total)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, key[4096];
	size_t cap = 0, lineno = 0, i;
	ssize_t len;

	if (!f) {
		fprintf(stderr, "kbstat: error: cannot read %s\n", file);
		return -1;
	}
	*total = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *end, *sp, *leaf;
		unsigned long long c;
		size_t ll;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!line[strspn(line, " \t")])
			continue;
		sp = line + len;
		while (sp > line && sp[-1] >= '0' && sp[-1] <= '9')
			sp--;
		end = sp;
		while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (!*sp || end == sp || end == line) {
			fprintf(stderr, "%s:%zu: not a folded stack (want \"a;b;c COUNT\"): %s\n",
				file, lineno, line);
			free(line);
			fclose(f);
			return -1;
		}
		c = strtoull(sp, NULL, 10);
		*end = 0;
		leaf = strrchr(line, ';');
		leaf = leaf ? leaf + 1 : line;
		ll = strlen(leaf);
		if (ll >= 4 && !strcmp(leaf + ll - 4, "_[k]"))
			snprintf(key, sizeof(key), "[k] %.*s", (int)(ll - 4), leaf);
		else
			snprintf(key, sizeof(key), "[.] %s", leaf);
		for (i = 0; i < *n && strcmp((*v)[i].name, key); i++)
			;
		if (i == *n) {
			*v = xrealloc(*v, (*n + 1) * sizeof(**v));
			memset(&(*v)[i], 0, sizeof(**v));
			(*v)[i].name = xstrdup(key);
			(*n)++;
		}
		(*v)[i].cnt[side] += c;
		*total += c;
	}
	free(line);
	fclose(f);
	return 0;
}

static int table_profile(const struct targs *a)
{
	struct sym *v = NULL;
	unsigned long long tot[2];
	size_t n = 0, i;
	int s;

	for (s = 0; s < 2; s++)
		if (fold_read(a->file[s], s, &v, &n, &tot[s]))
			return 1;
	for (i = 0; i < n; i++) {
		double pa, pb;

		v[i].a = tot[0] ? 100.0 * v[i].cnt[0] / tot[0] : 0;
		v[i].b = tot[1] ? 100.0 * v[i].cnt[1] / tot[1] : 0;
		v[i].d = v[i].b - v[i].a;
		pa = v[i].a / 100;
		pb = v[i].b / 100;
		/* binomial standard error of a difference of two shares */
		v[i].se2 = tot[0] && tot[1] ?
			2 * 100 * sqrt(pa * (1 - pa) / tot[0] + pb * (1 - pb) / tot[1]) : 0;
	}
	qsort(v, n, sizeof(*v), cmp_sym);
	printf("symbol\t%s_pct\t%s_pct\tdelta_pp\ttwo_se_pp\t%s_samples\t%s_samples\n",
	       a->label[0], a->label[1], a->label[0], a->label[1]);
	for (i = 0; i < n; i++)
		printf("%s\t%.4f\t%.4f\t%+.4f\t%.4f\t%llu\t%llu\n", v[i].name,
		       v[i].a, v[i].b, v[i].d, v[i].se2, v[i].cnt[0], v[i].cnt[1]);
	return fflush(stdout) ? 1 : 0;
}

int cmd_table(int argc, char **argv)
{
	struct targs a = { .label = { "baseline", "patched" } };
	struct results rs;
	int i, want_dir, want_files;

	if (argc < 1)
		return table_usage();
	a.kind = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			a.dir = argv[++i];
		} else if (!strcmp(argv[i], "--run") && i + 1 < argc) {
			a.run = argv[++i];
		} else if (!strcmp(argv[i], "--labels") && i + 2 < argc) {
			a.label[0] = argv[++i];
			a.label[1] = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "kbstat: table: unknown option or missing value '%s'\n",
				argv[i]);
			return table_usage();
		} else if (a.nfile < 2) {
			a.file[a.nfile++] = argv[i];
		} else {
			return table_usage();
		}
	}
	want_dir = !strcmp(a.kind, "ratio") || !strcmp(a.kind, "scaling") ||
		   !strcmp(a.kind, "primary") || !strcmp(a.kind, "box");
	want_files = !strcmp(a.kind, "box") || !strcmp(a.kind, "profile") ? 2 : 1;
	if ((!want_dir && strcmp(a.kind, "rows") && strcmp(a.kind, "profile")) ||
	    (size_t)want_files != a.nfile || !want_dir != !a.dir)
		return table_usage();
	if (!strcmp(a.kind, "profile"))
		return table_profile(&a);
	if (results_load(a.file[0], !strcmp(a.kind, "box") ? a.file[1] : a.run, &rs))
		return 1;
	if (!strcmp(a.kind, "rows"))
		return table_rows(&rs);
	if (want_dir)
		puts(MANIFEST_HEADER);
	if (!strcmp(a.kind, "ratio"))
		return table_ratio(&rs, &a);
	if (!strcmp(a.kind, "scaling"))
		return table_scaling(&rs, &a);
	if (!strcmp(a.kind, "primary"))
		return table_primary(&rs, &a);
	return table_box(&rs, &a);
}
