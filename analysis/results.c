// SPDX-License-Identifier: GPL-2.0
/*
 * results.json rows in report order, and the workload files' primary
 * metrics: a report leads with the answer the workload was written for.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "util.h"

/* "key = value" lines, '#' starts a comment anywhere (as workloads/wl.sh). */
static int wl_read(const char *file, const char *stem, struct primary_tab *t)
{
	FILE *f = fopen(file, "r");
	char line[4096], *name = NULL, *prim = NULL;
	char *val[5] = { NULL, NULL, NULL, NULL, NULL };
	static const char *const keys[5] = { "variants", "base_variant", "table",
					     "table_metric", "scale_x" };
	struct wl_primary *w;
	struct wl_claim *claim = NULL;
	size_t nclaim = 0;
	int i, lineno = 0;

	if (!f) {
		fprintf(stderr, "kbstat: error: cannot read %s\n", file);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *h = strchr(line, '#'), *eq, *k, *v;

		lineno++;
		if (h)
			*h = 0;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		k = str_trim(line);
		v = str_trim(eq + 1);
		if (!strcmp(k, "name")) {
			free(name);
			name = xstrdup(v);
		} else if (!strcmp(k, "primary")) {
			free(prim);
			prim = xstrdup(v);
		} else if (!strncmp(k, "claim.", 6) && k[6]) {
			claim = xrealloc(claim, (nclaim + 1) * sizeof(*claim));
			claim[nclaim].id = xstrdup(k + 6);
			claim[nclaim].text = xstrdup(v);
			claim[nclaim++].line = lineno;
		}
		for (i = 0; i < 5; i++) {
			if (!strcmp(k, keys[i])) {
				free(val[i]);
				val[i] = xstrdup(v);
			}
		}
	}
	fclose(f);
	t->wl = xrealloc(t->wl, (t->n + 1) * sizeof(*t->wl));
	w = &t->wl[t->n++];
	/* the raw CSVs carry the name; the file stem when it has none */
	w->workload = xstrdup(name && *name ? name : stem);
	w->metric = NULL;
	w->n = 0;
	w->variants = val[0];
	w->base_variant = val[1];
	w->table = val[2];
	w->table_metric = val[3];
	w->scale_x = val[4];
	w->file = xstrdup(file);
	w->claim = claim;
	w->nclaim = nclaim;
	if (prim && *prim) {
		char *tok, *save;

		for (tok = strtok_r(prim, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save)) {
			w->metric = xrealloc(w->metric, (w->n + 1) * sizeof(*w->metric));
			w->metric[w->n++] = xstrdup(tok);
		}
	}
	free(name);
	free(prim);
	return 0;
}

int primary_load(const char *run, struct primary_tab *t)
{
	char *dir = xmalloc(strlen(run) + 16);
	struct dirent *e;
	DIR *d;
	int ret = 0;

	t->wl = NULL;
	t->n = 0;
	sprintf(dir, "%s/workloads", run);
	d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	while (!ret && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *file, *stem;

		if (len < 4 || strcmp(e->d_name + len - 3, ".wl") || e->d_name[0] == '.')
			continue;
		file = xmalloc(strlen(dir) + len + 2);
		sprintf(file, "%s/%s", dir, e->d_name);
		stem = xstrdup(e->d_name);
		stem[len - 3] = 0;
		ret = wl_read(file, stem, t);
		free(file);
		free(stem);
	}
	closedir(d);
	free(dir);
	return ret;
}

const struct wl_primary *wl_info(const struct primary_tab *t,
				 const char *workload)
{
	size_t i;

	for (i = 0; t && i < t->n; i++)
		if (!strcmp(t->wl[i].workload, workload))
			return &t->wl[i];
	return NULL;
}

const struct wl_primary *primary_of(const struct primary_tab *t,
				    const char *workload)
{
	const struct wl_primary *w = wl_info(t, workload);

	return w && w->n ? w : NULL;
}

void primary_free(struct primary_tab *t)
{
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		struct wl_primary *w = &t->wl[i];

		for (j = 0; j < w->n; j++)
			free(w->metric[j]);
		free(w->metric);
		free(w->workload);
		free(w->variants);
		free(w->base_variant);
		free(w->table);
		free(w->table_metric);
		free(w->scale_x);
		free(w->file);
		for (j = 0; j < w->nclaim; j++) {
			free(w->claim[j].id);
			free(w->claim[j].text);
		}
		free(w->claim);
	}
	free(t->wl);
	t->wl = NULL;
	t->n = 0;
}

int primary_is(const struct primary_tab *t, const char *workload,
	       const char *metric, int judged)
{
	const struct wl_primary *w = primary_of(t, workload);
	size_t i;

	if (!judged)
		return 0;
	if (!w)
		return 1;
	for (i = 0; i < w->n; i++)
		if (!strcmp(w->metric[i], metric))
			return 1;
	return 0;
}

static const char *str_or(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_str(o, k);

	return s ? s : dflt;
}

int results_load(const char *path, const char *run, struct results *rs)
{
	struct primary_tab pt = { 0 };
	json_t *j;

	memset(rs, 0, sizeof(*rs));
	if (run && primary_load(run, &pt))
		return -1;
	j = json_parse_file(path);
	if (!j)
		return -1;
	return results_rows(rs, j, path, run ? &pt : NULL);
}

int results_rows(struct results *rs, json_t *j, const char *path,
		 const struct primary_tab *pt)
{
	const json_t *res;
	size_t i;

	memset(rs, 0, sizeof(*rs));
	rs->j = j;
	res = json_get(rs->j, "results");
	rs->base = json_str(rs->j, "base");
	rs->new = json_str(rs->j, "new");
	rs->kernel = json_str(rs->j, "kernel");
	if (!json_is_array(res) || !rs->base || !rs->new) {
		fprintf(stderr, "kbstat: error: %s: not a kbstat results file\n", path);
		return -1;
	}
	rs->n = json_array_size(res);
	rs->row = xmalloc((rs->n + 1) * sizeof(*rs->row));
	for (i = 0; i < rs->n; i++) {
		const json_t *r = json_array_get(res, i), *prim;
		struct row *w = &rs->row[i];
		int s, judged;

		w->r = r;
		w->workload = str_or(r, "workload", "?");
		w->variant = str_or(r, "variant", "");
		w->point = str_or(r, "point", "");
		w->metric = str_or(r, "metric", "?");
		w->unit = str_or(r, "unit", "");
		w->better = str_or(r, "better", "?");
		w->verdict = str_or(r, "verdict", "?");
		w->why = json_str(r, "why");
		w->clock = str_or(r, "clock", "?");
		w->scale = str_or(r, "scale", "ratio");
		for (s = 0; s < 2; s++) {
			const json_t *g = json_get(r, s ? "new" : "base");

			w->med[s] = json_num(g, "median");
			w->lo[s] = json_num(g, "ci_lo");
			w->hi[s] = json_num(g, "ci_hi");
		}
		judged = strcmp(w->better, "none") != 0;
		prim = json_get(r, "primary");
		if (!strcmp(w->verdict, "n/a"))
			w->sec = SEC_NA;
		else if (!judged)
			w->sec = SEC_INFO;
		else if (pt)
			w->sec = primary_is(pt, w->workload, w->metric, 1) ?
					 SEC_PRIMARY : SEC_JUDGED;
		else if (json_is_boolean(prim))
			w->sec = json_is_true(prim) ? SEC_PRIMARY : SEC_JUDGED;
		else
			w->sec = SEC_PRIMARY;
	}
	return 0;
}

void results_free(struct results *rs)
{
	json_decref(rs->j);
	free(rs->row);
	memset(rs, 0, sizeof(*rs));
}

size_t *results_order(const struct results *rs)
{
	size_t *o = xmalloc((rs->n + 1) * sizeof(*o)), i, k = 0;
	int s;

	for (s = SEC_PRIMARY; s <= SEC_NA; s++)
		for (i = 0; i < rs->n; i++)
			if ((int)rs->row[i].sec == s)
				o[k++] = i;
	return o;
}

int row_undecided(const struct row *r)
{
	return !strncmp(r->verdict, "inconclusive", 12) ||
	       !strncmp(r->verdict, "insufficient", 12);
}
