// SPDX-License-Identifier: GPL-2.0
/*
 * kbstat's JSON: libjansson reads the files (floor.json, results.json);
 * jw_* write them. The writer is our own because the bytes of a results
 * file are part of what the tests keep: jansson writes a real as "%.Ng"
 * with ".0" added to an integral value and the exponent's '+' and
 * leading zeros dropped (1 -> "1.0", 1e-05 -> "1e-5"), escapes control
 * characters as \r and \u001F where jw_str writes \u000d and \u001f,
 * and has no way to take a number already formatted.
 */
#include <math.h>

#include "json.h"

void jw_str(FILE *f, const char *s)
{
	/*
	 * JSON is UTF-8, and jansson refuses a file that is not: a string
	 * that is not (a bench's stderr in an absent reason) keeps its ASCII.
	 */
	json_t *utf8 = json_string(s);
	int ascii = !utf8;

	json_decref(utf8);
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (ascii && c >= 0x80)
			fputc('?', f);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void jw_num(FILE *f, double x)
{
	/* JSON has no NaN: an undefined statistic is null */
	if (!isfinite(x))
		fputs("null", f);
	else
		fprintf(f, "%.12g", x);
}

void jw_kstr(FILE *f, const char *k, const char *s)
{
	jw_str(f, k);
	fputc(':', f);
	if (s)
		jw_str(f, s);
	else
		fputs("null", f);
}

void jw_knum(FILE *f, const char *k, double x)
{
	jw_str(f, k);
	fputc(':', f);
	jw_num(f, x);
}

/*
 * Numbers as doubles (strtod, as every reader of these files does): a
 * seed past 2^63 is not an error. A name given twice is: which of the
 * two a reader took would be a guess.
 */
#define JSON_FLAGS	(JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES)

static json_t *json_checked(json_t *v, const json_error_t *e, const char *name)
{
	if (!v && json_error_code(e) == json_error_cannot_open_file)
		fprintf(stderr, "kbstat: error: cannot open %s\n", name);
	else if (!v)
		fprintf(stderr, "kbstat: error: %s:%d:%d: bad JSON: %s\n",
			name, e->line, e->column, e->text);
	return v;
}

json_t *json_parse(const char *buf, const char *name)
{
	json_error_t e;

	return json_checked(json_loads(buf, JSON_FLAGS, &e), &e, name);
}

json_t *json_parse_file(const char *path)
{
	json_error_t e;

	return json_checked(json_load_file(path, JSON_FLAGS, &e), &e, path);
}

const json_t *json_get(const json_t *obj, const char *name)
{
	return json_is_object(obj) ? json_object_get(obj, name) : NULL;
}

double json_num(const json_t *obj, const char *name)
{
	const json_t *v = json_get(obj, name);

	if (json_is_number(v))
		return json_number_value(v);
	return json_is_boolean(v) ? json_is_true(v) : NAN;
}

const char *json_str(const json_t *obj, const char *name)
{
	return json_string_value(json_get(obj, name));
}
