/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation helpers for kbstat (util.c): out of memory is fatal, so
 * callers never check.
 */
#ifndef KBSTAT_UTIL_H
#define KBSTAT_UTIL_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Natural order, so "n=8" sorts before "n=16". */
int natcmp(const char *a, const char *b);
/* s without its leading and trailing white space (cut in place) */
char *str_trim(char *s);

#endif
