// SPDX-License-Identifier: GPL-2.0
/*
 * kbcache model core: parameter checks, allocation and one access
 * through DTLB, L1D and LLC. See cache.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"

/* The parameters by name, in the order the fingerprint lists them. */
static const struct {
	const char *name;
	size_t off;
} keys[] = {
#define KEY(f) { #f, offsetof(struct kbc_params, f) }
	KEY(l1d_size), KEY(l1d_ways), KEY(llc_size), KEY(llc_ways), KEY(line),
	KEY(dtlb_entries), KEY(dtlb_ways), KEY(page), KEY(l1d_penalty),
	KEY(llc_penalty), KEY(dtlb_penalty),
#undef KEY
};

#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

static uint64_t *field(struct kbc_params *p, size_t i)
{
	return (uint64_t *)((char *)p + keys[i].off);
}

/* Decimal digits with an optional K, M or G (binary) suffix. */
static int parse_size(const char *s, uint64_t *v)
{
	unsigned long long x;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K')
		shift = 10;
	else if (*end == 'M')
		shift = 20;
	else if (*end == 'G')
		shift = 30;
	if (shift)
		end++;
	if (*end || x > (1ull << 40) >> shift)
		return -1;
	*v = (uint64_t)x << shift;
	return 0;
}

int kbc_params_set(struct kbc_params *p, const char *kv, char *err,
		   unsigned long errsz)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : strlen(kv), i, len;

	for (i = 0; eq && i < NR_KEYS; i++) {
		if (strlen(keys[i].name) != klen || strncmp(kv, keys[i].name, klen))
			continue;
		if (!parse_size(eq + 1, field(p, i)))
			return 0;
		snprintf(err, errsz, "%s: '%s' is not a number (digits, optional "
			 "K, M or G)", keys[i].name, eq + 1);
		return -1;
	}
	len = (size_t)snprintf(err, errsz, "unknown parameter '%.*s'; known:",
			       (int)klen, kv);
	for (i = 0; i < NR_KEYS && len < errsz; i++)
		len += (size_t)snprintf(err + len, errsz - len, " %s", keys[i].name);
	return -1;
}

void kbc_params_format(const struct kbc_params *p, char *buf, unsigned long sz)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_KEYS && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%s=%" PRIu64,
					i ? " " : "", keys[i].name,
					*field((struct kbc_params *)p, i));
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint32_t log2u(uint64_t v)
{
	uint32_t s = 0;

	while ((1ull << s) < v)
		s++;
	return s;
}

/* bytes / block blocks in sets of ways: both powers of two, sets >= 1 */
static int geometry_ok(const char *name, uint64_t bytes, uint64_t block,
		       uint64_t ways, char *err, unsigned long errsz)
{
	if (!is_pow2(block) || !is_pow2(bytes) || bytes < block) {
		snprintf(err, errsz, "%s: size %llu and block %llu must be powers "
			 "of two, size >= block", name, (unsigned long long)bytes,
			 (unsigned long long)block);
		return -1;
	}
	if (!ways || ways > 64 || (bytes / block) % ways ||
	    !is_pow2(bytes / block / ways)) {
		snprintf(err, errsz, "%s: %llu ways must be 1..64 and divide %llu "
			 "entries into a power-of-two number of sets", name,
			 (unsigned long long)ways,
			 (unsigned long long)(bytes / block));
		return -1;
	}
	return 0;
}

int kbc_params_check(const struct kbc_params *p, char *err, unsigned long errsz)
{
	if (p->line < 8 || p->line > 4096 || p->page < 4096 || p->page > (1ull << 30)) {
		snprintf(err, errsz, "line must be 8..4096 and page 4096..1G");
		return -1;
	}
	if (p->l1d_size > (1ull << 24) || p->llc_size > (1ull << 31) ||
	    p->dtlb_entries > 65536) {
		snprintf(err, errsz, "l1d_size <= 16M, llc_size <= 2G, "
			 "dtlb_entries <= 65536");
		return -1;
	}
	if (geometry_ok("l1d", p->l1d_size, p->line, p->l1d_ways, err, errsz) ||
	    geometry_ok("llc", p->llc_size, p->line, p->llc_ways, err, errsz) ||
	    geometry_ok("dtlb", p->dtlb_entries * p->page, p->page, p->dtlb_ways,
			err, errsz))
		return -1;
	return 0;
}

int kbc_cache_init(struct kbc_cache *c, uint64_t bytes, uint64_t block,
		   uint64_t ways)
{
	uint64_t n = bytes / block, i;

	c->tags = malloc(n * sizeof(*c->tags));
	if (!c->tags)
		return -1;
	for (i = 0; i < n; i++)
		c->tags[i] = KBC_EMPTY;
	c->ways = (uint32_t)ways;
	c->sets = (uint32_t)(n / ways);
	c->shift = log2u(block);
	return 0;
}

void kbc_cache_flush(struct kbc_cache *c)
{
	uint64_t i, n = (uint64_t)c->sets * c->ways;

	for (i = 0; i < n; i++)
		c->tags[i] = KBC_EMPTY;
}

void kbc_cache_free(struct kbc_cache *c)
{
	free(c->tags);
	c->tags = NULL;
}

int kbc_cpu_init(struct kbc_cpu *cpu, const struct kbc_params *p,
		 struct kbc_cache *llc)
{
	struct kbc_counts zero = { 0 };

	cpu->n = zero;
	cpu->llc = llc;
	if (kbc_cache_init(&cpu->l1d, p->l1d_size, p->line, p->l1d_ways))
		return -1;
	if (kbc_cache_init(&cpu->dtlb, p->dtlb_entries * p->page, p->page,
			   p->dtlb_ways)) {
		kbc_cache_free(&cpu->l1d);
		return -1;
	}
	return 0;
}

void kbc_cpu_free(struct kbc_cpu *cpu)
{
	kbc_cache_free(&cpu->l1d);
	kbc_cache_free(&cpu->dtlb);
}

/* One line: L1D, then the LLC on a miss. */
static inline void touch_line(struct kbc_cpu *cpu, uint64_t addr)
{
	if (kbc_cache_touch(&cpu->l1d, addr))
		return;
	cpu->n.l1d_misses++;
	if (!kbc_cache_touch(cpu->llc, addr))
		cpu->n.llc_misses++;
}

void kbc_access(struct kbc_cpu *cpu, uint64_t addr, unsigned int size)
{
	uint64_t last = addr + (size ? size - 1 : 0);

	cpu->n.accesses++;
	if (!kbc_cache_touch(&cpu->dtlb, addr))
		cpu->n.dtlb_misses++;
	if ((last >> cpu->dtlb.shift) != (addr >> cpu->dtlb.shift) &&
	    !kbc_cache_touch(&cpu->dtlb, last))
		cpu->n.dtlb_misses++;
	touch_line(cpu, addr);
	if ((last >> cpu->l1d.shift) != (addr >> cpu->l1d.shift))
		touch_line(cpu, last);
}

uint64_t kbc_model_cycles(const struct kbc_params *p, uint64_t insns,
			  const struct kbc_counts *n)
{
	return insns + n->l1d_misses * p->l1d_penalty +
	       n->llc_misses * p->llc_penalty +
	       n->dtlb_misses * p->dtlb_penalty;
}
