// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: scripts/check-conf.sh on a bench.local.conf (the input),
 * against the repository's bench.conf. Property: see sh.h.
 */
#include <stdio.h>

#include "sh.h"

static char conf[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(conf, sizeof(conf), "%s/bench.local.conf", sh_init("check_conf"));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *const argv[] = {
		"/bin/bash", KB_TOP "/scripts/check-conf.sh",
		KB_TOP "/bench.conf", conf, NULL,
	};

	sh_write(conf, data, size);
	sh_check(argv);
	return 0;
}
