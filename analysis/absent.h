/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Absent variants (absent.c): RUN/raw/<kernel>/<boot>/<workload>.absent,
 * written by guest/run.sh when a kernel lacks what a variant needs
 * (kbbench exit 4). One line per point: variant TAB point TAB reason.
 * Absent is not a failure: the comparison shows such a point as "n/a".
 */
#ifndef KBSTAT_ABSENT_H
#define KBSTAT_ABSENT_H

#include <stddef.h>
#include <stdio.h>

#include "raw.h"

struct absent_entry {
	char *workload, *variant, *point, *reason;
	char *where;		/* file:line */
	size_t kern, boot;	/* raw->kernels, raw->boots */
};

struct absent {
	struct absent_entry *v;
	size_t n;
};

/*
 * Reads the .absent files of every boot directory raw_load found.
 * Returns 0, or -1 after an error naming file:line.
 */
int absent_load(const char *run, const struct raw *raw, struct absent *ab);
/*
 * One .absent file, read from fp into ab: file names it in errors, stem
 * is the workload its name says. Returns 0 or -1 as absent_load.
 */
int absent_load_file(struct absent *ab, FILE *fp, const char *file,
		     const char *stem, size_t kern, size_t boot);
/* Whether a boot directory holds a *.absent file (a boot may hold only those). */
int absent_in_dir(const char *dir);
/*
 * The first entry for workload/variant/point on kernel kern; variant or
 * point NULL matches any. NULL when there is none.
 */
const struct absent_entry *absent_find(const struct absent *ab, size_t kern,
				       const char *workload,
				       const char *variant, const char *point);
void absent_free(struct absent *ab);

#endif
