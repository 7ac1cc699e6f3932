// SPDX-License-Identifier: GPL-2.0
/*
 * map_update: overwrite updates of a full BPF hash map, for the variants
 * hash (BPF_MAP_TYPE_HASH) and rhash (BPF_MAP_TYPE_RHASH; absent on a
 * kernel without it). --producers threads, each pinned to its own CPU,
 * run one BPF_PROG_TEST_RUN each per sample, started together; each
 * program does --loops BPF_EXIST updates in a bpf_loop(). The metric is
 * updates per second per producer (the mean of the producers' rates), as
 * in upstream's bpf-rhashmap-full-update bench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kbbench.h"
#include "kbbpf.h"
#include "map_update.skel.h"

#define MAX_PRODUCERS 256	/* MAX_CPUS in map_update.bpf.c */

static unsigned long max_entries = 65536;
static unsigned long loops = 100000;
static const char *producers_arg = "1";
static unsigned long nr_producers;
static struct map_update_bpf *skel;
static int map_type;

static const struct kb_opt update_opts[] = {
	{ "max_entries", KB_OPT_ULONG, &max_entries,
	  "elements (the map is full), 1..16777216 (default 65536)" },
	{ "loops", KB_OPT_ULONG, &loops,
	  "updates per producer per sample, 1..8388608 (default 100000)" },
	{ "producers", KB_OPT_STR, &producers_arg,
	  "producer threads, one per CPU: N or 'all' CPUs (default 1)" },
	{ NULL, 0, NULL, NULL },
};

enum { M_UPDATES_PER_SEC, NR_M };

static const struct kb_metric update_metrics[NR_M] = {
	[M_UPDATES_PER_SEC] = { "mupdates_per_sec_per_producer", "M/s", KB_HIGHER },
};

struct producer {
	pthread_t thread;
	int cpu;
	int prog_fd;
	pthread_barrier_t *start;
	double rate;		/* M updates/s */
	int err;
};

static int update_validate(void)
{
	char *end;

	if (kb_map_variant(kb_variant, &map_type))
		return -1;
	if (kb_check_range("map_update", "max_entries", max_entries, 1, 16777216))
		return -1;
	if (kb_check_range("map_update", "loops", loops, 1, 8388608))
		return -1;
	if (!strcmp(producers_arg, "all"))
		return 0;
	errno = 0;
	nr_producers = strtoul(producers_arg, &end, 10);
	if (errno || *end || producers_arg[0] < '1' || producers_arg[0] > '9' ||
	    nr_producers > MAX_PRODUCERS) {
		fprintf(stderr, "kbbench: map_update: --producers: '%s' is not 'all' or 1..%d\n",
			producers_arg, MAX_PRODUCERS);
		return -1;
	}
	return 0;
}

static int update_setup(void)
{
	struct bpf_map *map;
	unsigned long i;
	__u64 key, val = 0;
	int r, fd;

	if (!strcmp(producers_arg, "all"))
		nr_producers = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_producers < 1 || nr_producers > MAX_PRODUCERS ||
	    nr_producers > (unsigned long)sysconf(_SC_NPROCESSORS_ONLN)) {
		fprintf(stderr, "kbbench: map_update: %lu producers, but %ld CPUs online (one producer per CPU)\n",
			nr_producers, sysconf(_SC_NPROCESSORS_ONLN));
		return -1;
	}
	r = kb_map_supported(map_type, kb_variant);
	if (r)
		return r;
	skel = map_update_bpf__open();
	if (!skel) {
		fprintf(stderr, "kbbench: map_update: opening the BPF object: %s\n",
			strerror(errno));
		return -1;
	}
	map = skel->maps.update_map;
	if (bpf_map__set_type(map, map_type) ||
	    bpf_map__set_max_entries(map, max_entries)) {
		fprintf(stderr, "kbbench: map_update: sizing the map: %s\n",
			strerror(errno));
		return -1;
	}
	skel->rodata->nr_entries = max_entries;
	if (map_update_bpf__load(skel)) {
		fprintf(stderr, "kbbench: map_update: loading the BPF program: %s\n",
			strerror(errno));
		return -1;
	}
	fd = bpf_map__fd(map);
	for (key = 0; key < max_entries; key++) {
		if (bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST)) {
			fprintf(stderr, "kbbench: map_update: filling the %s map, element %llu of %lu: %s\n",
				kb_variant, (unsigned long long)key + 1, max_entries,
				strerror(errno));
			return -1;
		}
	}
	/* producers start spread over the keys */
	for (i = 0; i < nr_producers; i++)
		skel->bss->cursor[i] = i * max_entries / nr_producers;
	return 0;
}

static void *producer_main(void *arg)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct producer *p = arg;
	cpu_set_t set;
	uint64_t t0, t1;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	p->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(p->start);
	if (p->err)
		return NULL;
	t0 = kb_now_ns();
	if (bpf_prog_test_run_opts(p->prog_fd, &opts))
		p->err = errno;
	t1 = kb_now_ns();
	p->rate = (double)loops / (double)(t1 - t0) * 1e3;
	return NULL;
}

static int update_run(double *vals)
{
	struct producer p[MAX_PRODUCERS];
	pthread_barrier_t start;
	double sum = 0;
	unsigned long i, started = 0;
	int ret = 0;

	skel->bss->nr_loops = loops;
	memset(skel->bss->failures, 0, sizeof(skel->bss->failures));
	pthread_barrier_init(&start, NULL, nr_producers);
	for (i = 0; i < nr_producers; i++) {
		p[i] = (struct producer){
			.cpu = i,
			.prog_fd = bpf_program__fd(skel->progs.update_loop),
			.start = &start,
		};
		if (pthread_create(&p[i].thread, NULL, producer_main, &p[i])) {
			/* the others wait at the barrier for ever: give up */
			fprintf(stderr, "kbbench: map_update: starting producer %lu failed\n", i);
			exit(1);
		}
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(p[i].thread, NULL);
		if (p[i].err) {
			fprintf(stderr, "kbbench: map_update: producer on CPU %d: %s\n",
				p[i].cpu, strerror(p[i].err));
			ret = -1;
		}
		if (skel->bss->failures[i]) {
			fprintf(stderr, "kbbench: map_update: producer on CPU %lu: %llu of %lu BPF_EXIST updates failed (an element went missing)\n",
				i, (unsigned long long)skel->bss->failures[i], loops);
			ret = -1;
		}
		sum += p[i].rate;
	}
	pthread_barrier_destroy(&start);
	vals[M_UPDATES_PER_SEC] = sum / nr_producers;
	return ret;
}

static void update_teardown(void)
{
	map_update_bpf__destroy(skel);
	skel = NULL;
}

static const struct kb_bench map_update = {
	.name = "map_update",
	.help = "overwrite updates of a full BPF hash map, per producer CPU (variants: hash, rhash)",
	.opts = update_opts,
	.metrics = update_metrics,
	.nr_metrics = NR_M,
	.validate = update_validate,
	.setup = update_setup,
	.run = update_run,
	.teardown = update_teardown,
};
KB_BENCH(map_update);
