/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbstat raw sample loader (raw.c): RUN/raw/<kernel>/<boot>/<workload>.csv.
 */
#ifndef KBSTAT_RAW_H
#define KBSTAT_RAW_H

#include <stddef.h>
#include <stdio.h>

#include "stats.h"

/* BETTER_NONE: informational (rows, bytes, counts): shown, never judged. */
enum better { BETTER_HIGHER, BETTER_LOWER, BETTER_NONE };

/* CSV/JSON name of a direction, and back (-1 if unknown). */
const char *better_name(enum better b);
int better_parse(const char *s);

struct key {
	char *workload, *variant, *point, *metric, *unit, *clock;
	enum better better;
	const char *where;	/* file:line of first sighting */
};

struct sample {
	size_t key, kernel, boot;	/* boot index is global */
	double value;
};

struct raw {
	struct key *keys;
	size_t nkeys;
	struct sample *samples;
	size_t nsamples;
	char **kernels;
	size_t nkernels;
	char **boots;		/* "kernel/boot" */
	size_t *boot_kernel;
	size_t nboots;
	size_t *ktab, ktab_size;	/* key lookup while loading */
	size_t *order, *key_start;	/* samples of key k: order[key_start[k]..] */
};

/* Returns 0, or -1 after printing an error naming the file and line. */
int raw_load(const char *run, struct raw *raw);
/*
 * One CSV, read from fp, into raw (zeroed or filled by earlier calls):
 * file names it in errors, stem is the workload its name says, kern and
 * boot index raw->kernels and raw->boots. Returns 0 or -1 as raw_load.
 */
int raw_load_csv(struct raw *raw, FILE *fp, const char *file,
		 const char *stem, size_t kern, size_t boot);
/* Frees what raw_load or raw_load_csv allocated. */
void raw_free(struct raw *raw);
long raw_kernel(const struct raw *raw, const char *label);
/* Fills bs with the samples of key k on kernel kern; returns total n. */
size_t raw_boot_set(const struct raw *raw, size_t k, size_t kern,
		    struct boot_set *bs);
void boot_set_free(struct boot_set *bs);

#endif
