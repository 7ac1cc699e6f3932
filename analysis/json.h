/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbstat's JSON (json.c): libjansson reads a file into a json_t tree
 * (free it with json_decref); jw_* write results and floor files.
 */
#ifndef KBSTAT_JSON_H
#define KBSTAT_JSON_H

#include <jansson.h>
#include <stdio.h>

/*
 * Parses the text buf (name: where it came from) or the file path.
 * Returns NULL after printing an error naming it, line and column.
 */
json_t *json_parse(const char *buf, const char *name);
json_t *json_parse_file(const char *path);
/* Member name of obj; NULL when obj is not an object or lacks it. */
const json_t *json_get(const json_t *obj, const char *name);
/* Member name's number (true 1, false 0); NAN for null, absent or text. */
double json_num(const json_t *obj, const char *name);
/* Member name's string; NULL when it is not one. */
const char *json_str(const json_t *obj, const char *name);

void jw_str(FILE *f, const char *s);
void jw_num(FILE *f, double x);
void jw_kstr(FILE *f, const char *k, const char *s);
void jw_knum(FILE *f, const char *k, double x);

#endif
