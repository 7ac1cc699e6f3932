/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report model (model.c): the method's constants, the prose that
 * states them, and each row's cells. kbstat compare decides with these
 * constants and records them in results.json; summary.md (kbstat
 * summary --format md), summary.txt (mail.c) and index.html (report.sh,
 * through kbstat model and kbstat table rows) show the rows and the
 * method only as this file words and formats them, from the constants
 * the run recorded. A view never spells a constant of its own.
 */
#ifndef KBSTAT_MODEL_H
#define KBSTAT_MODEL_H

#include <stddef.h>
#include <stdio.h>

#include "method.h"
#include "results.h"

/* The constants as a results file recorded them (compiled-in if absent). */
struct method {
	double ci_level, decision_level, alpha, boot_effect_p;
	double boot_warn_p, boot_warn_spread, min_effect, min_samples;
	double min_boots, seed, reps;
};

void method_read(const json_t *results, struct method *m);
/* "95% CI" at the method's CI level. */
void method_ci(const struct method *m, char *b, size_t n);
/* "ratio [95% CI]": a table's head over the estimate, at results' level */
void method_ratio_head(const json_t *results, char *b, size_t n);
/* results.json's "test" and "rule": the method in a line each. */
void method_test_text(char *b, size_t n, int paired);
void method_rule_text(char *b, size_t n);
/* FLOOR.json's "definition" (kbstat floor) */
void method_floor_text(char *b, size_t n);
/* The boot-effect warning's text after "KEY: LABEL: ". */
const char *method_boot_warning(void);

enum view { VIEW_TXT, VIEW_MD, VIEW_HTML };

/* The notes on the method under the tables, in view v. */
void method_notes(FILE *f, const struct results *rs, enum view v);

/* ---- one row's cells, as every view shows them ---- */

struct cells {
	char base[160], new[160];	/* median [CI], at the pair's digits */
	char base_med[64], new_med[64];	/* the medians alone */
	char est[200];			/* ratio [CI], or "diff " difference */
	char p[32], p_adj[32], min_effect[32], n[64];
};

void row_cells(const struct row *r, struct cells *c);
/* "primary", "judged", "informational", "n/a" */
const char *section_name(enum section s);

/* The model's row: model_columns (NULL-ended) to its cells as strings. */
extern const char *const model_columns[];
json_t *model_row(const struct row *r);

/* kbstat model RESULTS.json [--run RUN]: the model as JSON. */
int cmd_model(int argc, char **argv);

#endif
