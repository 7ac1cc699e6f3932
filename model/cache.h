/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbcache model core: set-associative caches with true LRU, and the
 * hierarchy kbcache models per vCPU (L1D and DTLB, plus an LLC that all
 * vCPUs share). Pure C, no QEMU: the plugin (kbcache.c) and the host unit
 * test driver (test-cache.c) both build on it.
 */
#ifndef KBC_CACHE_H
#define KBC_CACHE_H

#include <stdint.h>

/* One set-associative array of block numbers (a cache or a TLB). */
struct kbc_cache {
	/*
	 * sets * ways block numbers, each set ordered most recently used
	 * first, so the LRU victim is always the last slot. KBC_EMPTY marks
	 * an invalid slot (no block number reaches it: addresses >> 6 at most).
	 */
	uint64_t *tags;
	uint32_t sets;		/* power of two */
	uint32_t ways;
	uint32_t shift;		/* log2 of the block: line or page size */
};

#define KBC_EMPTY	UINT64_MAX

/* The model's parameters: the plugin's arguments, all named. */
struct kbc_params {
	uint64_t l1d_size, l1d_ways;
	uint64_t llc_size, llc_ways;
	uint64_t line;			/* L1D and LLC line size */
	uint64_t dtlb_entries, dtlb_ways;
	uint64_t page;			/* DTLB page size */
	/* cycles added to model_cycles per miss */
	uint64_t l1d_penalty;		/* an L1D miss (served by the LLC) */
	uint64_t llc_penalty;		/* an LLC miss (memory), on top */
	uint64_t dtlb_penalty;		/* a DTLB miss (page walk) */
};

/*
 * The defaults imitate a Skylake client core (Core i7-6700K, 4 GHz):
 * 32 KiB 8-way L1D, 8 MiB 16-way L3, 64-byte lines, 64-entry 4-way
 * first-level DTLB for 4 KiB pages. Latencies: L3 about 42 cycles (so an
 * L1D miss adds 40 over the L1 hit the instruction already costs), DRAM
 * about 250 cycles (200 more than the L3), a DTLB miss 20 (between a
 * second-level TLB hit, 9, and a page walk, 30 or more).
 */
#define KBC_MACHINE	"skylake-client"
#define KBC_DEFAULTS {							\
	.l1d_size = 32768, .l1d_ways = 8,				\
	.llc_size = 8u << 20, .llc_ways = 16,				\
	.line = 64,							\
	.dtlb_entries = 64, .dtlb_ways = 4,				\
	.page = 4096,							\
	.l1d_penalty = 40, .llc_penalty = 200, .dtlb_penalty = 20,	\
}

/* Events of one vCPU while a window is open. */
struct kbc_counts {
	uint64_t accesses;
	uint64_t l1d_misses;
	uint64_t llc_misses;
	uint64_t dtlb_misses;
};

struct kbc_cpu {
	struct kbc_cache l1d;
	struct kbc_cache dtlb;
	struct kbc_cache *llc;		/* shared */
	struct kbc_counts n;
};

/*
 * Sets one parameter from "key=value" (decimal, optional K, M or G
 * binary suffix); 0, or -1 with a message naming the key in err.
 */
int kbc_params_set(struct kbc_params *p, const char *kv, char *err,
		   unsigned long errsz);
/* "key=value key=value ..." of every parameter, for the fingerprint. */
void kbc_params_format(const struct kbc_params *p, char *buf, unsigned long sz);

/*
 * Checks the parameters (powers of two, ways dividing entries, sizes in
 * range); returns 0, or -1 with a message in err.
 */
int kbc_params_check(const struct kbc_params *p, char *err, unsigned long errsz);

/* Allocates an empty cache of bytes / block blocks; 0 or -1 (no memory). */
int kbc_cache_init(struct kbc_cache *c, uint64_t bytes, uint64_t block,
		   uint64_t ways);
void kbc_cache_free(struct kbc_cache *c);
/* Empties the cache (every block invalid, as after init). */
void kbc_cache_flush(struct kbc_cache *c);

/* Looks up addr's block and makes it most recently used: 1 hit, 0 miss. */
static inline int kbc_cache_touch(struct kbc_cache *c, uint64_t addr)
{
	uint64_t blk = addr >> c->shift;
	uint64_t *row = c->tags + (blk & (c->sets - 1)) * c->ways;
	uint32_t i;
	int hit = 0;

	if (row[0] == blk)
		return 1;
	for (i = 1; i < c->ways; i++) {
		if (row[i] == blk) {
			hit = 1;
			break;
		}
	}
	/* a miss replaces the last slot, the least recently used */
	if (!hit)
		i = c->ways - 1;
	for (; i > 0; i--)
		row[i] = row[i - 1];
	row[0] = blk;
	return hit;
}

int kbc_cpu_init(struct kbc_cpu *cpu, const struct kbc_params *p,
		 struct kbc_cache *llc);
void kbc_cpu_free(struct kbc_cpu *cpu);

/*
 * One guest data access of size bytes at virtual address addr: DTLB per
 * page, L1D per line, the LLC on an L1D miss. An access that crosses a
 * line or page boundary touches both (it counts as one access).
 */
void kbc_access(struct kbc_cpu *cpu, uint64_t addr, unsigned int size);

/* instructions + the miss penalties of the counts n */
uint64_t kbc_model_cycles(const struct kbc_params *p, uint64_t insns,
			  const struct kbc_counts *n);

#endif /* KBC_CACHE_H */
