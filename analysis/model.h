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

/* ---- the columns: one registry, every view's tables ---- */

/* The tables a column is in (struct column's tables). */
enum {
	T_MD = 1 << 0,		/* summary.md: the judged rows */
	T_MD_INFO = 1 << 1,	/* summary.md: the informational rows */
	T_MD_NA = 1 << 2,	/* summary.md: the n/a rows */
	T_TXT = 1 << 3,		/* summary.txt: a group's rows */
	T_HTML = 1 << 4,	/* index.html: the judged rows */
	T_HTML_HEAD = 1 << 5,	/* index.html: a workload's headline */
	T_HTML_INFO = 1 << 6,	/* index.html: the informational rows */
	T_HTML_NA = 1 << 7,	/* index.html: the n/a rows */
	T_ALL = (1 << 8) - 1,
};

/*
 * A column of the model: every row has its cell (kbstat model, kbstat
 * table rows); the tables that show it show it in this order, under
 * its head.
 */
struct column {
	const char *key;	/* its name in kbstat model and table rows */
	/* "%B" and "%N": the two sides' labels; "%C": "95% CI" */
	const char *head;
	const char *head_txt;	/* summary.txt's head, if not head */
	unsigned tables;	/* T_*: the tables that show it */
	unsigned varies;	/* of those, the ones that show it only when rows differ */
	int num;		/* a number: right-aligned, broken only before its interval */
	/* index.html: the column folded under this cell (shown in a headline) */
	const char *fold;
	/* its text: a string of the row's, or formatted into b */
	const char *(*cell)(const struct row *r, char *b, size_t n);
};

/* The registry, in the order the tables show the columns; a NULL key ends it. */
extern const struct column columns[];
/* The name of one table (T_MD: "md", T_HTML_HEAD: "html-headline") */
const char *table_name(unsigned t);
/* Column c's head in table t, for the sides and CI level of rs. */
void column_head(const struct column *c, unsigned t, const struct results *rs,
		 char *b, size_t n);
/* Whether table t shows c for rs (a "varies" column: when its cells differ). */
int column_shown(const struct column *c, unsigned t, const struct results *rs);
/* The cell's text; b holds it when the cell is formatted (at least 256 bytes). */
const char *column_cell(const struct column *c, const struct row *r, char *b, size_t n);

/* "primary", "judged", "informational", "n/a" */
const char *section_name(enum section s);
/* The model's row: every column's cell as a string. */
json_t *model_row(const struct row *r);

/* kbstat model RESULTS.json [--run RUN]: the model as JSON. */
int cmd_model(int argc, char **argv);

#endif
