/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A results.json as the report reads it (results.c), and the primary
 * metrics the run's workload files name (RUN/workloads/NAME.wl, "primary =").
 */
#ifndef KBSTAT_RESULTS_H
#define KBSTAT_RESULTS_H

#include <stddef.h>

#include "json.h"

/* "claim.<id> = FIELDS | DESCRIPTION | UPSTREAM" as written (answer.c parses it) */
struct wl_claim {
	char *id, *text;
	int line;
};

struct wl_primary {
	char *workload;
	char **metric;		/* "primary =" */
	size_t n;
	/* the variant the others are compared with, and the cover table */
	char *variants, *base_variant, *table, *table_metric;
	/*
	 * "scale_x = PARAM=METRIC ...": a value of matrix key PARAM that is
	 * not a number (funcs = all) goes on a scaling chart at the median
	 * of METRIC at that point (the number of functions "all" found)
	 */
	char *scale_x;
	char *file;		/* RUN/workloads/NAME.wl */
	struct wl_claim *claim;	/* in the file's order */
	size_t nclaim;
};

struct primary_tab {
	struct wl_primary *wl;	/* every workload file of the run */
	size_t n;
};

/*
 * Reads RUN/workloads/NAME.wl (a missing directory is an empty table: an
 * older run). Returns -1 after an error naming the file.
 */
int primary_load(const char *run, struct primary_tab *t);
/* The workload's "primary =" list, or NULL when it names none. */
const struct wl_primary *primary_of(const struct primary_tab *t,
				    const char *workload);
/* The workload's file as read, or NULL when the run has none. */
const struct wl_primary *wl_info(const struct primary_tab *t,
				 const char *workload);
void primary_free(struct primary_tab *t);
/*
 * Whether a metric leads the report: listed as primary, or, when its
 * workload names none, any judged (not informational) metric.
 */
int primary_is(const struct primary_tab *t, const char *workload,
	       const char *metric, int judged);

/* The order the report shows rows in; n/a: a kernel lacks the variant. */
enum section { SEC_PRIMARY, SEC_JUDGED, SEC_INFO, SEC_NA };

struct row {
	const json_t *r;
	const char *workload, *variant, *point, *metric, *unit, *better;
	const char *verdict, *why, *clock, *scale;
	enum section sec;
	double med[2], lo[2], hi[2];	/* base, new */
};

struct results {
	json_t *j;
	const char *base, *new;
	const char *kernel;	/* variant against variant on it; else NULL */
	struct row *row;	/* in the file's order */
	size_t n;
};

/*
 * Loads a kbstat results file. With RUN, the primary metrics come from
 * its workload files; otherwise from each result's "primary" field, and
 * a file without it (an older kbstat) leads with every judged metric.
 */
int results_load(const char *path, const char *run, struct results *rs);
/*
 * The rows of a parsed results file j (path names it in errors), which rs
 * then owns; pt as primary_load read it, or NULL as results_load without
 * RUN. Returns -1 after an error naming path.
 */
int results_rows(struct results *rs, json_t *j, const char *path,
		 const struct primary_tab *pt);
void results_free(struct results *rs);
/* Whether the verdict is "inconclusive" or "insufficient data". */
int row_undecided(const struct row *r);
/* Row indices: primary, other judged, informational, n/a; stable. */
size_t *results_order(const struct results *rs);

#endif
