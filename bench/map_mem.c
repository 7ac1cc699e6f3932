// SPDX-License-Identifier: GPL-2.0
/*
 * map_mem: the memory of a BPF hash map, for the variants hash
 * (BPF_MAP_TYPE_HASH) and rhash (BPF_MAP_TYPE_RHASH; absent on a kernel
 * without it), as upstream's rhtab-mem bench. One sample creates a map
 * of --max_entries 8-byte keys and --value_size values, fills it, then
 * overwrites every element once, and reads after each step the map's own
 * accounting: "memlock" in /proc/self/fdinfo/<fd>, which 6.12 fills from
 * the map type's mem_usage op. Only that, for now: the growth of this process's
 * memory cgroup (memory.current) and of "Slab:" in /proc/meminfo were
 * tried, and neither grew while a 68 MB map was filled in our guest
 * (0 +- 256 KiB), so until that is understood they would measure
 * something other than the map.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kbbench.h"
#include "kbbpf.h"

static unsigned long max_entries = 16384;
static unsigned long value_size = 32;
static int map_type;
static void *value;

static const struct kb_opt mem_opts[] = {
	{ "max_entries", KB_OPT_ULONG, &max_entries,
	  "elements (the map is filled), 1..4194304 (default 16384)" },
	{ "value_size", KB_OPT_ULONG, &value_size,
	  "value bytes, 1..65536 (default 32)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_MAP_FILLED,
	M_MAP_OVERWRITTEN,
	NR_M,
};

static const struct kb_metric mem_metrics[NR_M] = {
	[M_MAP_FILLED] = { "map_bytes_filled", "bytes", KB_LOWER },
	[M_MAP_OVERWRITTEN] = { "map_bytes_overwritten", "bytes", KB_LOWER },
};

static int mem_validate(void)
{
	if (kb_map_variant(kb_variant, &map_type))
		return -1;
	if (kb_check_range("map_mem", "max_entries", max_entries, 1, 4194304))
		return -1;
	if (kb_check_range("map_mem", "value_size", value_size, 1, 65536))
		return -1;
	return 0;
}

/* The value of "key:" in FILE (first number after it), or -1. */
static long long read_field(const char *file, const char *key)
{
	char line[512];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n)) {
			v = strtoll(line + n, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static int mem_setup(void)
{
	int r;

	r = kb_map_supported(map_type, kb_variant);
	if (r)
		return r;
	value = calloc(1, value_size);
	if (!value) {
		perror("kbbench: map_mem");
		return -1;
	}
	return 0;
}

static long long map_memlock(int fd)
{
	char file[64];

	snprintf(file, sizeof(file), "/proc/self/fdinfo/%d", fd);
	return read_field(file, "memlock:");
}

/* Update every key with flags; -1 after printing why. */
static int fill(int fd, __u64 flags, const char *what)
{
	__u64 key;

	for (key = 0; key < max_entries; key++) {
		memcpy(value, &key, value_size < sizeof(key) ? value_size : sizeof(key));
		if (bpf_map_update_elem(fd, &key, value, flags)) {
			fprintf(stderr, "kbbench: map_mem: %s the %s map, element %llu of %lu: %s\n",
				what, kb_variant, (unsigned long long)key + 1,
				max_entries, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int mem_run(double *vals)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	long long m1, m2;
	int fd, ret = -1;

	fd = bpf_map_create(map_type, "kb_mem", 8, value_size, max_entries, &opts);
	if (fd < 0) {
		fprintf(stderr, "kbbench: map_mem: creating the %s map: %s\n",
			kb_variant, strerror(errno));
		return -1;
	}
	if (fill(fd, BPF_NOEXIST, "filling"))
		goto out;
	m1 = map_memlock(fd);
	if (fill(fd, BPF_EXIST, "overwriting"))
		goto out;
	m2 = map_memlock(fd);
	if (m1 < 0 || m2 < 0) {
		fprintf(stderr, "kbbench: map_mem: reading memlock from fdinfo failed\n");
		goto out;
	}
	vals[M_MAP_FILLED] = m1;
	vals[M_MAP_OVERWRITTEN] = m2;
	ret = 0;
out:
	close(fd);
	return ret;
}

static void mem_teardown(void)
{
	free(value);
	value = NULL;
}

static const struct kb_bench map_mem = {
	.name = "map_mem",
	.help = "memory of a filled, then overwritten, BPF hash map (variants: hash, rhash)",
	.opts = mem_opts,
	.metrics = mem_metrics,
	.nr_metrics = NR_M,
	.validate = mem_validate,
	.setup = mem_setup,
	.run = mem_run,
	.teardown = mem_teardown,
};
KB_BENCH(map_mem);
