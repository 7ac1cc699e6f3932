// SPDX-License-Identifier: GPL-2.0
/*
 * test-cache: drives the kbcache model core (cache.c) on the host with
 * synthetic address streams, for tests/unit/model-cache.t.
 *
 *   test-cache [key=value ...] addrs          ADDR[:SIZE] per stdin line (hex),
 *                                             or flush-dtlb (empty the DTLB)
 *   test-cache [key=value ...] seq BYTES LAPS       sweep, stride = line
 *   test-cache [key=value ...] chase BYTES LAPS SEED random cyclic chain
 *                                                   of line-sized nodes
 *
 * key=value are the plugin's model parameters. Prints one line of counts
 * per lap (addrs: one line), each instruction assumed to make one access:
 *   lap=K accesses=N l1d_misses=N llc_misses=N dtlb_misses=N model_cycles=N
 * Exit 2 on a bad command line or parameter.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "pause.h"

/* Buffers start here: page-aligned, as the guest's mmap is. */
#define BASE	0x7f0000000000ull

static void print_counts(const struct kbc_params *p, unsigned long lap,
			 struct kbc_cpu *cpu)
{
	const struct kbc_counts zero = { 0 };

	printf("lap=%lu accesses=%" PRIu64 " l1d_misses=%" PRIu64
	       " llc_misses=%" PRIu64 " dtlb_misses=%" PRIu64
	       " model_cycles=%" PRIu64 "\n", lap, cpu->n.accesses,
	       cpu->n.l1d_misses, cpu->n.llc_misses, cpu->n.dtlb_misses,
	       kbc_model_cycles(p, cpu->n.accesses, &cpu->n));
	cpu->n = zero;
}

static int run_addrs(const struct kbc_params *p, struct kbc_cpu *cpu)
{
	char line[128];
	unsigned long long a;
	unsigned int size;

	while (fgets(line, sizeof(line), stdin)) {
		size = 8;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		/* what kbcache does when a warm-up window ends */
		if (!strcmp(line, "flush-dtlb\n")) {
			kbc_cache_flush(&cpu->dtlb);
			continue;
		}
		if (sscanf(line, "%llx:%u", &a, &size) < 1 || !size || size > 64) {
			fprintf(stderr, "test-cache: bad line: %s", line);
			return 2;
		}
		kbc_access(cpu, a, size);
	}
	print_counts(p, 1, cpu);
	return 0;
}

/* splitmix64: a small PRNG, the same sequence on every host */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int run_stream(const struct kbc_params *p, struct kbc_cpu *cpu,
		      int chase, uint64_t bytes, unsigned long laps, uint64_t seed)
{
	uint64_t n = bytes / p->line, i, cur = 0;
	uint32_t *next = malloc(n * sizeof(*next));
	unsigned long lap;

	if (!next || !n) {
		fprintf(stderr, "test-cache: bad size or out of memory\n");
		free(next);
		return 2;
	}
	/* seq: node i is followed by i + 1; chase: Sattolo's single cycle */
	for (i = 0; i < n; i++)
		next[i] = (uint32_t)((i + 1) % n);
	if (chase) {
		for (i = 0; i < n; i++)
			next[i] = (uint32_t)i;
		for (i = n - 1; i > 0; i--) {
			uint64_t j = next_rand(&seed) % i;
			uint32_t t = next[i];

			next[i] = next[j];
			next[j] = t;
		}
	}
	for (lap = 1; lap <= laps; lap++) {
		for (i = 0; i < n; i++) {
			kbc_access(cpu, BASE + cur * p->line, 8);
			cur = next[cur];
		}
		print_counts(p, lap, cpu);
	}
	free(next);
	return 0;
}

/*
 * pause: the interrupt-exclusion state machine (pause.h) on a script
 * from stdin, one event a line: "run N" (N instructions execute), "irq"
 * (an interrupt entry), "exc" (an exception entry), "iret", "out ID" and
 * "in ID" (__switch_to_asm saves task ID's stack pointer, loads ID's).
 * Prints what a window over the script counts and leaves out.
 */
static int run_pause(void)
{
	struct kbc_pause p = { 0 };
	uint64_t now = 0, excluded = 0, span, spans = 0, v;
	char line[128], ev[16];
	int n;

	while (fgets(line, sizeof(line), stdin)) {
		n = sscanf(line, "%15s %" SCNi64, ev, &v);
		if (n < 1)
			continue;
		if (!strcmp(ev, "run") && n == 2) {
			now += v;
		} else if (!strcmp(ev, "irq")) {
			if (!p.depth && !p.owner)
				spans++;
			kbc_pause_irq(&p, now);
		} else if (!strcmp(ev, "exc")) {
			kbc_pause_exc(&p);
		} else if (!strcmp(ev, "iret")) {
			if (kbc_pause_iret(&p, now, &span))
				excluded += span;
		} else if (!strcmp(ev, "out") && n == 2) {
			kbc_pause_switch_out(&p, v);
		} else if (!strcmp(ev, "in") && n == 2) {
			kbc_pause_switch_in(&p, v);
		} else {
			fprintf(stderr, "test-cache: pause: bad event '%s'", line);
			return 2;
		}
	}
	printf("counted=%" PRIu64 " excluded=%" PRIu64 " spans=%" PRIu64
	       " depth=%u\n", now - excluded, excluded, spans, p.depth);
	return 0;
}

int main(int argc, char **argv)
{
	struct kbc_params p = KBC_DEFAULTS;
	struct kbc_cache llc;
	struct kbc_cpu cpu;
	char err[512];
	int a = 1, ret;

	for (; a < argc && strchr(argv[a], '='); a++) {
		if (kbc_params_set(&p, argv[a], err, sizeof(err))) {
			fprintf(stderr, "test-cache: %s\n", err);
			return 2;
		}
	}
	if (kbc_params_check(&p, err, sizeof(err))) {
		fprintf(stderr, "test-cache: %s\n", err);
		return 2;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: test-cache [key=value ...] addrs | "
			"seq BYTES LAPS | chase BYTES LAPS SEED | pause\n");
		return 2;
	}
	if (kbc_cache_init(&llc, p.llc_size, p.line, p.llc_ways) ||
	    kbc_cpu_init(&cpu, &p, &llc)) {
		fprintf(stderr, "test-cache: out of memory\n");
		return 1;
	}
	if (!strcmp(argv[a], "pause") && argc == a + 1)
		ret = run_pause();
	else if (!strcmp(argv[a], "addrs") && argc == a + 1)
		ret = run_addrs(&p, &cpu);
	else if (!strcmp(argv[a], "seq") && argc == a + 3)
		ret = run_stream(&p, &cpu, 0, strtoull(argv[a + 1], NULL, 0),
				 strtoul(argv[a + 2], NULL, 0), 0);
	else if (!strcmp(argv[a], "chase") && argc == a + 4)
		ret = run_stream(&p, &cpu, 1, strtoull(argv[a + 1], NULL, 0),
				 strtoul(argv[a + 2], NULL, 0),
				 strtoull(argv[a + 3], NULL, 0));
	else {
		fprintf(stderr, "test-cache: bad command '%s'\n", argv[a]);
		ret = 2;
	}
	kbc_cpu_free(&cpu);
	kbc_cache_free(&llc);
	return ret;
}
