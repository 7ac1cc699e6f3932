// SPDX-License-Identifier: GPL-2.0
/*
 * ptrchase: memory latency by a dependent pointer chain (lmbench
 * lat_mem_rd style). The --size working set is cut into --stride byte
 * nodes linked in one random cycle (Sattolo's algorithm, a fixed --seed,
 * so every boot walks the same chain); a sample follows --accesses links.
 * Each load depends on the one before, so nothing overlaps them, and the
 * random order defeats the prefetchers. It validates the kbcache model
 * (model/README.md): the miss rates step up at the L1D, LLC and DTLB reach.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kbbench.h"

static unsigned long size = 1048576;
static unsigned long stride = 64;
static unsigned long accesses = 1048576;
static unsigned long seed = 1;

static void *buf;
static void **cur;
/* the chain's end, stored so the compiler keeps the walk */
static void *volatile sink;

static const struct kb_opt ptrchase_opts[] = {
	{ "size", KB_OPT_ULONG, &size, "working set in bytes, 4096..67108864 (default 1048576)" },
	{ "stride", KB_OPT_ULONG, &stride, "node size in bytes, a power of two 8..4096 (default 64: one node per line)" },
	{ "accesses", KB_OPT_ULONG, &accesses, "links followed per sample, 1024..1073741824 (default 1048576)" },
	{ "seed", KB_OPT_ULONG, &seed, "seed of the chain's order (default 1)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_NS_PER_ACCESS,
	M_ACCESSES,
	NR_M,
};

static const struct kb_metric ptrchase_metrics[NR_M] = {
	[M_NS_PER_ACCESS] = { "ns_per_access", "ns", KB_LOWER },
	/* the divisor for the model's per-window counts */
	[M_ACCESSES] = { "accesses", "count", KB_INFO },
};

static int ptrchase_validate(void)
{
	if (kb_check_range("ptrchase", "size", size, 4096, 64ul << 20) ||
	    kb_check_range("ptrchase", "stride", stride, 8, 4096) ||
	    kb_check_range("ptrchase", "accesses", accesses, 1024, 1ul << 30))
		return -1;
	if (stride & (stride - 1)) {
		fprintf(stderr, "kbbench: ptrchase: --stride: %lu is not a power of two\n",
			stride);
		return -1;
	}
	if (size % stride) {
		fprintf(stderr, "kbbench: ptrchase: --size: %lu is not a multiple of "
			"--stride %lu\n", size, stride);
		return -1;
	}
	return 0;
}

/* splitmix64: the same sequence on every kernel and boot */
static unsigned long long next_rand(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int ptrchase_setup(void)
{
	unsigned long n = size / stride, i;
	unsigned long long s = seed;
	unsigned int *next;
	char *base;

	/* page-aligned and touched below, so no sample takes a page fault */
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		buf = NULL;
		perror("ptrchase: mmap");
		return -1;
	}
	next = malloc(n * sizeof(*next));
	if (!next) {
		perror("ptrchase");
		return -1;
	}
	/* Sattolo: a random permutation that is one cycle through all nodes */
	for (i = 0; i < n; i++)
		next[i] = (unsigned int)i;
	for (i = n - 1; i > 0; i--) {
		unsigned long j = (unsigned long)(next_rand(&s) % i);
		unsigned int t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
	base = buf;
	for (i = 0; i < n; i++)
		*(void **)(base + i * stride) = base + (size_t)next[i] * stride;
	free(next);
	cur = buf;
	return 0;
}

static void ptrchase_teardown(void)
{
	if (buf)
		munmap(buf, size);
	buf = NULL;
}

static int ptrchase_run(double *vals)
{
	void **p = cur;
	unsigned long i;
	uint64_t t0, t1;

	t0 = kb_now_ns();
	/* 8 dependent loads per round: the loop's own cost is 2 of 10 */
	for (i = accesses / 8; i; i--) {
		p = *p; p = *p; p = *p; p = *p;
		p = *p; p = *p; p = *p; p = *p;
	}
	for (i = accesses % 8; i; i--)
		p = *p;
	t1 = kb_now_ns();
	/* the next sample goes on where this one stopped */
	cur = p;
	sink = p;
	vals[M_NS_PER_ACCESS] = (double)(t1 - t0) / (double)accesses;
	vals[M_ACCESSES] = (double)accesses;
	return 0;
}

static const struct kb_bench ptrchase = {
	.name = "ptrchase",
	.help = "follow a random pointer cycle over --size bytes (memory latency)",
	.opts = ptrchase_opts,
	.metrics = ptrchase_metrics,
	.nr_metrics = NR_M,
	.validate = ptrchase_validate,
	.setup = ptrchase_setup,
	.run = ptrchase_run,
	.teardown = ptrchase_teardown,
};
KB_BENCH(ptrchase);
