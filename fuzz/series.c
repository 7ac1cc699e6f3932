// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: kernel/scripts/series.sh on a series file (the input):
 * a quilt series or, when it starts with "From ", an mbox. Its directory
 * has the patches of the test fixtures' series and of kernel/series
 * (patches/demo/ and patches/proc-interrupts/, links), so names in the
 * input can resolve. Property: see sh.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sh.h"

static char series[160], work[160];

/* dir/sub is a new directory, or a link to target; aborts naming it. */
static void make(const char *dir, const char *sub, const char *target)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (target ? symlink(target, path) : mkdir(path, 0755)) {
		fprintf(stderr, "kbench: error: fuzz series: cannot make %s: %s\n",
			path, strerror(errno));
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = sh_init("series");

	(void)argc;
	(void)argv;
	snprintf(series, sizeof(series), "%s/s/series", dir);
	snprintf(work, sizeof(work), "%s/work", dir);
	make(dir, "s", NULL);
	make(dir, "work", NULL);
	make(dir, "s/patches", NULL);
	make(dir, "s/patches/demo", KB_TOP "/tests/fixtures/kernel/patches/demo");
	make(dir, "s/patches/proc-interrupts", KB_TOP "/kernel/patches/proc-interrupts");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *const argv[] = {
		"/bin/bash", KB_TOP "/kernel/scripts/series.sh", series, work, NULL,
	};

	sh_write(series, data, size);
	sh_check(argv);
	return 0;
}
