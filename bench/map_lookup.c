// SPDX-License-Identifier: GPL-2.0
/*
 * map_lookup: the cost of a BPF hash-map lookup, for the variants hash
 * (BPF_MAP_TYPE_HASH) and rhash (BPF_MAP_TYPE_RHASH, the 7.2 resizable
 * hash map; absent on a kernel without it). The map is filled to --fill
 * percent of --max_entries with keys of --key_size bytes; one sample is
 * one BPF_PROG_TEST_RUN of a program that looks up --loops keys that
 * are all in the map, in turn, with bpf_loop(), timed by the program
 * around the loop (bpf_ktime_get_ns()). Upstream's
 * bpf-rhashmap-lookup bench does the same from a BPF loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kbbench.h"
#include "kbbpf.h"
#include "map_lookup.skel.h"

static unsigned long key_size = 8;
static unsigned long max_entries = 1024;
static unsigned long fill = 100;
static unsigned long loops = 100000;
static struct map_lookup_bpf *skel;
static int map_type;

static const struct kb_opt lookup_opts[] = {
	{ "key_size", KB_OPT_ULONG, &key_size, "key bytes, 8..256 (default 8)" },
	{ "max_entries", KB_OPT_ULONG, &max_entries,
	  "the map's max_entries, 1..16777216 (default 1024)" },
	{ "fill", KB_OPT_ULONG, &fill,
	  "elements, in percent of max_entries, 1..100 (default 100)" },
	{ "loops", KB_OPT_ULONG, &loops,
	  "lookups per sample, 1..8388608 (default 100000)" },
	{ NULL, 0, NULL, NULL },
};

enum { M_NS_PER_LOOKUP, M_LOOKUPS_PER_SEC, NR_M };

static const struct kb_metric lookup_metrics[NR_M] = {
	[M_NS_PER_LOOKUP] = { "ns_per_lookup", "ns", KB_LOWER },
	[M_LOOKUPS_PER_SEC] = { "mlookups_per_sec", "M/s", KB_HIGHER },
};

static unsigned long nr_elems(void)
{
	unsigned long n = max_entries * fill / 100;

	return n ? n : 1;
}

static int lookup_validate(void)
{
	if (kb_map_variant(kb_variant, &map_type))
		return -1;
	if (kb_check_range("map_lookup", "key_size", key_size, 8, 256))
		return -1;
	if (kb_check_range("map_lookup", "max_entries", max_entries, 1, 16777216))
		return -1;
	if (kb_check_range("map_lookup", "fill", fill, 1, 100))
		return -1;
	/* bpf_loop() runs at most 1 << 23 iterations */
	if (kb_check_range("map_lookup", "loops", loops, 1, 8388608))
		return -1;
	return 0;
}

static int lookup_setup(void)
{
	struct bpf_map *map;
	unsigned char key[256] = { 0 };
	unsigned long i, n = nr_elems();
	__u64 val = 1;
	int r, fd;

	r = kb_map_supported(map_type, kb_variant);
	if (r)
		return r;
	skel = map_lookup_bpf__open();
	if (!skel) {
		fprintf(stderr, "kbbench: map_lookup: opening the BPF object: %s\n",
			strerror(errno));
		return -1;
	}
	map = skel->maps.lookup_map;
	if (bpf_map__set_type(map, map_type) ||
	    bpf_map__set_key_size(map, key_size) ||
	    bpf_map__set_max_entries(map, max_entries)) {
		fprintf(stderr, "kbbench: map_lookup: sizing the map: %s\n",
			strerror(errno));
		return -1;
	}
	skel->rodata->nr_entries = n;
	if (map_lookup_bpf__load(skel)) {
		fprintf(stderr, "kbbench: map_lookup: loading the BPF program: %s\n",
			strerror(errno));
		return -1;
	}
	fd = bpf_map__fd(map);
	for (i = 0; i < n; i++) {
		memcpy(key, &i, sizeof(i));
		if (bpf_map_update_elem(fd, key, &val, BPF_NOEXIST)) {
			fprintf(stderr, "kbbench: map_lookup: filling the %s map, element %lu of %lu: %s\n",
				kb_variant, i + 1, n, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int lookup_run(double *vals)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	double ns;

	skel->bss->nr_loops = loops;
	skel->bss->hits = 0;
	skel->bss->elapsed_ns = 0;
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.lookup_loop), &opts)) {
		fprintf(stderr, "kbbench: map_lookup: BPF_PROG_TEST_RUN: %s\n",
			strerror(errno));
		return -1;
	}
	/* every key looked up is in the map: a miss means a broken map */
	if (skel->bss->hits != loops) {
		fprintf(stderr, "kbbench: map_lookup: %llu of %lu lookups found their key\n",
			(unsigned long long)skel->bss->hits, loops);
		return -1;
	}
	ns = (double)skel->bss->elapsed_ns;
	if (!ns) {
		fprintf(stderr, "kbbench: map_lookup: the program timed its loop at 0 ns\n");
		return -1;
	}
	vals[M_NS_PER_LOOKUP] = ns / loops;
	vals[M_LOOKUPS_PER_SEC] = loops / ns * 1e3;
	return 0;
}

static void lookup_teardown(void)
{
	map_lookup_bpf__destroy(skel);
	skel = NULL;
}

static const struct kb_bench map_lookup = {
	.name = "map_lookup",
	.help = "BPF hash map lookups from a BPF loop (variants: hash, rhash)",
	.opts = lookup_opts,
	.metrics = lookup_metrics,
	.nr_metrics = NR_M,
	.validate = lookup_validate,
	.setup = lookup_setup,
	.run = lookup_run,
	.teardown = lookup_teardown,
};
KB_BENCH(map_lookup);
