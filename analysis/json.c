// SPDX-License-Identifier: GPL-2.0
/*
 * Just enough JSON: a writer for results/floor files and a reader for
 * the files kbstat itself writes (floor.json, results.json). No library,
 * so kbstat builds with nothing but cc and libm.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

void jw_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
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

/* kbstat's own files nest 4 deep; deeper is not one of them. */
#define JSON_MAX_DEPTH	1000

struct jp {
	const char *s, *file;
	int err;
	unsigned int depth;	/* containers open around the value */
};

static void jp_ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static void jp_fail(struct jp *p, const char *what)
{
	if (!p->err)
		fprintf(stderr, "kbstat: error: %s: bad JSON: %s near '%.20s'\n",
			p->file, what, p->s);
	p->err = 1;
}

static char *jp_string(struct jp *p)
{
	size_t n = 0, cap = 16;
	char *o = xmalloc(cap);

	p->s++;
	while (*p->s && *p->s != '"') {
		char c = *p->s++;

		if (c == '\\') {
			c = *p->s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				char hex[5] = { 0 };
				size_t k;

				/* we only write \u00XX; keep others as '?' */
				for (k = 0; k < 4 && p->s[k]; k++)
					hex[k] = p->s[k];
				c = (char)strtol(hex, NULL, 16);
				if (k < 4)
					c = 0;
				else
					p->s += 4;
				if ((unsigned char)c >= 0x80 || !c)
					c = '?';
				break;
			}
			case 0:
				/* back onto the NUL: the error shows the text from here */
				p->s--;
				o[n] = 0;
				jp_fail(p, "unterminated string");
				return o;
			default: break;
			}
		}
		if (n + 1 >= cap)
			o = xrealloc(o, cap *= 2);
		o[n++] = c;
	}
	o[n] = 0;
	if (*p->s != '"')
		jp_fail(p, "unterminated string");
	else
		p->s++;
	return o;
}

static void jp_value(struct jp *p, struct jval *v)
{
	memset(v, 0, sizeof(*v));
	jp_ws(p);
	if (p->err)
		return;
	if (*p->s == '{' || *p->s == '[') {
		int obj = *p->s == '{';
		char close = obj ? '}' : ']';

		/* each level is a stack frame: a deep file would overflow it */
		if (p->depth == JSON_MAX_DEPTH) {
			jp_fail(p, "nested more than 1000 levels deep");
			return;
		}

		v->type = obj ? J_OBJ : J_ARR;
		p->s++;
		jp_ws(p);
		if (*p->s == close) {
			p->s++;
			return;
		}
		for (;;) {
			v->items = xrealloc(v->items, (v->n + 1) * sizeof(*v->items));
			if (obj) {
				jp_ws(p);
				if (*p->s != '"') {
					jp_fail(p, "expected a member name");
					return;
				}
				v->names = xrealloc(v->names,
						    (v->n + 1) * sizeof(*v->names));
				v->names[v->n] = jp_string(p);
				jp_ws(p);
				if (*p->s != ':') {
					/* the name is not counted in v->n yet */
					free(v->names[v->n]);
					jp_fail(p, "expected ':'");
					return;
				}
				p->s++;
			}
			p->depth++;
			jp_value(p, &v->items[v->n++]);
			p->depth--;
			if (p->err)
				return;
			jp_ws(p);
			if (*p->s == ',') {
				p->s++;
				continue;
			}
			if (*p->s == close) {
				p->s++;
				return;
			}
			jp_fail(p, "expected ',' or a closing bracket");
			return;
		}
	}
	if (*p->s == '"') {
		v->type = J_STR;
		v->str = jp_string(p);
		return;
	}
	if (!strncmp(p->s, "null", 4)) {
		p->s += 4;
		v->type = J_NULL;
		v->num = NAN;
		return;
	}
	if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
		v->type = J_BOOL;
		v->num = *p->s == 't';
		p->s += v->num ? 4 : 5;
		return;
	}
	{
		char *end;

		v->type = J_NUM;
		v->num = strtod(p->s, &end);
		if (end == p->s) {
			jp_fail(p, "unexpected character");
			return;
		}
		p->s = end;
	}
}

struct jval *json_parse(const char *buf, const char *name)
{
	struct jval *v = xmalloc(sizeof(*v));
	struct jp p = { buf, name, 0, 0 };

	jp_value(&p, v);
	jp_ws(&p);
	if (!p.err && *p.s)
		jp_fail(&p, "trailing characters");
	if (p.err) {
		json_free(v);
		return NULL;
	}
	return v;
}

struct jval *json_parse_file(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0, cap = 4096, r;
	char *buf;
	struct jval *v;

	if (!f) {
		fprintf(stderr, "kbstat: error: cannot open %s\n", path);
		return NULL;
	}
	buf = xmalloc(cap);
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n < 2)
			buf = xrealloc(buf, cap *= 2);
	}
	fclose(f);
	buf[n] = 0;
	v = json_parse(buf, path);
	free(buf);
	return v;
}

static void json_free_items(struct jval *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		json_free_items(&v->items[i]);
		if (v->names)
			free(v->names[i]);
	}
	free(v->items);
	free(v->names);
	free(v->str);
}

void json_free(struct jval *v)
{
	if (!v)
		return;
	json_free_items(v);
	free(v);
}

const struct jval *json_get(const struct jval *obj, const char *name)
{
	size_t i;

	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->names[i], name))
			return &obj->items[i];
	return NULL;
}

double json_num(const struct jval *obj, const char *name)
{
	const struct jval *v = json_get(obj, name);

	return v && (v->type == J_NUM || v->type == J_BOOL) ? v->num : NAN;
}

const char *json_str(const struct jval *obj, const char *name)
{
	const struct jval *v = json_get(obj, name);

	return v && v->type == J_STR ? v->str : NULL;
}
