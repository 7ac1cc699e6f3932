// SPDX-License-Identifier: GPL-2.0
/* Helpers for the BPF benchmarks; see kbbpf.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kbbench.h"
#include "kbbpf.h"

int kb_map_variant(const char *variant, int *type)
{
	if (!strcmp(variant, "hash")) {
		*type = BPF_MAP_TYPE_HASH;
		return 0;
	}
	if (!strcmp(variant, "rhash")) {
		*type = KB_BPF_MAP_TYPE_RHASH;
		return 0;
	}
	fprintf(stderr, "kbbench: --variant: '%s' is not a map variant (hash or rhash)\n",
		variant);
	return -1;
}

int kb_map_supported(int type, const char *variant)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(type, "kb_probe", 8, 8, 1, &opts);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EINVAL) {
		fprintf(stderr, "kbbench: map type %d (%s) is not in this kernel: BPF_MAP_CREATE gives EINVAL\n",
			type, variant);
		return KB_ABSENT;
	}
	fprintf(stderr, "kbbench: probing map type %d (%s): BPF_MAP_CREATE: %s\n",
		type, variant, strerror(errno));
	return -1;
}
