// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: a workload file (the input) through workloads/wl.sh's
 * wl_load and wl_points, with and without QUICK=1 (fuzz/wl-driver.sh).
 * Property: see sh.h.
 */
#include <stdio.h>

#include "sh.h"

static char wl[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(wl, sizeof(wl), "%s/fuzz.wl", sh_init("wl"));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *const argv[] = {
		"/bin/bash", KB_TOP "/fuzz/wl-driver.sh", wl, NULL,
	};

	sh_write(wl, data, size);
	sh_check(argv);
	return 0;
}
