/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough JSON for kbstat (json.c): a writer and a reader for the
 * files kbstat itself writes.
 */
#ifndef KBSTAT_JSON_H
#define KBSTAT_JSON_H

#include <stddef.h>
#include <stdio.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	double num;
	char *str;
	size_t n;
	struct jval *items;	/* array items or object values */
	char **names;		/* object member names */
};

/*
 * Parses the NUL-terminated text buf; name is the file it came from, for
 * errors. Returns NULL after printing an error naming it.
 */
struct jval *json_parse(const char *buf, const char *name);
struct jval *json_parse_file(const char *path);
/* Frees a tree json_parse returned (NULL is fine). */
void json_free(struct jval *v);
const struct jval *json_get(const struct jval *obj, const char *name);
double json_num(const struct jval *obj, const char *name);
const char *json_str(const struct jval *obj, const char *name);

void jw_str(FILE *f, const char *s);
void jw_num(FILE *f, double x);
void jw_kstr(FILE *f, const char *k, const char *s);
void jw_knum(FILE *f, const char *k, double x);

#endif
