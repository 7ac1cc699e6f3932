// SPDX-License-Identifier: GPL-2.0
/*
 * kfuzz: a structured generator for the interfaces the series adds to
 * bpf(), which a syscall fuzzer that does not know them (trinity) only
 * reaches by luck:
 *
 *   kfuzz [-s SEED] [-t SECONDS] [-c OPS] [-j WORKERS] [-i SECONDS]
 *         [-o RINGFILE] [-n]
 *
 * - BPF_MAP_TYPE_RHASH (and BPF_MAP_TYPE_HASH beside it): creates with
 *   random key/value sizes, max_entries, flags and map_extra, values
 *   with a bpf_spin_lock in BTF and BPF_F_LOCK; update, lookup, delete,
 *   lookup_and_delete; bursts of inserts and deletes that force the
 *   table to grow and shrink; batches with random cursors; get_next_key
 *   walks with deletions mid-walk; the map element iterator with a
 *   program that deletes what it is shown;
 * - the tracing_multi link: BPF_LINK_CREATE with random id sets (valid,
 *   duplicate, zero, past the BTF, the stub, ids of other kinds), random
 *   cookies and counts, fentry.multi and fexit.multi programs, plain
 *   fentry links on the same functions, links closed while helper
 *   threads call the functions they trace;
 * - programs that update, look up and delete in a shared map from
 *   fentry, fentry.multi, tp_btf on sched_switch and a perf event
 *   (cpu-clock hrtimer);
 * - the bpf() common attributes: any command with BPF_COMMON_ATTRS,
 *   struct bpf_common_attr of random sizes, non-zero reserved fields
 *   and tails, logs of random sizes and levels (also on a quarter of
 *   every other operation's bpf() calls).
 *
 * Determinism: every operation is drawn from the seed alone (each worker
 * has its own stream). An operation names map and link *slots* and
 * *picks* from the function pool, never fds or BTF ids: the generator
 * keeps its own model of which slots it filled, and that model ignores
 * what the calls returned. Running the sequence resolves the slots and
 * picks (a create that failed leaves its slot's fd negative, and the
 * later operations on it get EBADF, which the ring records). So -n (dry
 * run: print the sequence, make no syscall at all) prints exactly the
 * operations a real run with the same seed makes, and a finding is
 * replayed with its seed. What is not replayed: the interleaving of the
 * workers and of the helper threads with them.
 *
 * Output: "kfuzz: seed N" first; per-interface counts every -i seconds
 * (default 30) and at the end, also as one line to /dev/kmsg so that
 * the serial log shows how far the run was when a splat came. The ring
 * (-o, default kfuzz.ring) holds the last 1000 operations with their
 * results, one fixed-size line each, written with pwrite() as each
 * operation starts and completes (and fdatasync()ed every second), so a
 * crash leaves it: "sort -n RINGFILE" puts them in order.
 *
 * Exit 0 after the run, 2 on usage errors, 1 if the setup could not
 * open the ring.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../checks/lib/bpf.h"
#include "../checks/lib/btf.h"
#include "../checks/lib/traceable.h"

/* upstream 7.2's numbers (spec section 1); the host's headers lack them */
#define MAP_TYPE_RHASH		35
#define TRACE_FENTRY_MULTI	59
#define TRACE_FEXIT_MULTI	60
#define COMMON_ATTRS		(1 << 16)
#define MULTI_MAX_CNT		(1U << 20)

#define NMAP		4	/* map slots per worker */
#define NLINK		8	/* link slots per worker */
#define MAX_IDS		24	/* ids one generated tracing_multi link names */
/*
 * The largest key of a map the generator asks for: RHASH refuses more
 * than U16_MAX, but HASH takes 65536 (found by the first smoke run).
 */
#define MAX_KEY		65536
#define MAX_VAL		4096
#define BURST_MAX	2048
#define BATCH_MAX	96
#define ITER_KEY	256	/* the iterator deletes keys up to this size */
#define RING_N		1000
#define RING_LINE	320
#define POOL_EXTRA	48	/* traceable functions beside the trigger ones */
#define ATTR_BUF	256
#define ARENA		(1 << 20)
#define MAX_WORKERS	8
#define CA_SIZE		24	/* struct bpf_common_attr */

/* ---- the PRNG: splitmix64 seeds xoshiro256** ---- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rnd(struct rng *r)
{
	uint64_t res = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return res;
}

/* uniform in [0, n), n > 0 (the bias of the modulo does not matter here) */
static uint32_t below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rnd(r) % n);
}

/* true with probability 1/n */
static bool one_in(struct rng *r, uint32_t n)
{
	return below(r, n) == 0;
}

static uint32_t pick_u32(struct rng *r, const uint32_t *v, size_t n)
{
	return v[below(r, (uint32_t)n)];
}

#define PICK(r, ...)							\
	pick_u32(r, (const uint32_t[]){ __VA_ARGS__ },			\
		 sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

/* ---- operations ---- */

enum op_kind {
	OP_MAP_CREATE, OP_MAP_CLOSE, OP_UPDATE, OP_LOOKUP, OP_DELETE,
	OP_LOOKUP_DELETE, OP_BURST, OP_BATCH, OP_WALK, OP_ITER,
	OP_TM_ATTACH, OP_FENTRY_ATTACH, OP_TP_ATTACH, OP_PERF_ATTACH,
	OP_LINK_CLOSE, OP_TRIGGER, OP_CATTR, NR_OPS
};

static const char *const op_name[NR_OPS] = {
	[OP_MAP_CREATE] = "map_create", [OP_MAP_CLOSE] = "map_close",
	[OP_UPDATE] = "update", [OP_LOOKUP] = "lookup",
	[OP_DELETE] = "delete", [OP_LOOKUP_DELETE] = "lookup_delete",
	[OP_BURST] = "burst", [OP_BATCH] = "batch", [OP_WALK] = "walk",
	[OP_ITER] = "iter", [OP_TM_ATTACH] = "tm_attach",
	[OP_FENTRY_ATTACH] = "fentry_attach", [OP_TP_ATTACH] = "tp_attach",
	[OP_PERF_ATTACH] = "perf_attach", [OP_LINK_CLOSE] = "link_close",
	[OP_TRIGGER] = "trigger", [OP_CATTR] = "cattr",
};

/* relative weights: mostly map traffic, then links, then the rest */
static const uint32_t op_weight[NR_OPS] = {
	[OP_MAP_CREATE] = 4, [OP_MAP_CLOSE] = 1, [OP_UPDATE] = 20,
	[OP_LOOKUP] = 10, [OP_DELETE] = 8, [OP_LOOKUP_DELETE] = 4,
	[OP_BURST] = 3, [OP_BATCH] = 6, [OP_WALK] = 3, [OP_ITER] = 2,
	[OP_TM_ATTACH] = 6, [OP_FENTRY_ATTACH] = 3, [OP_TP_ATTACH] = 1,
	[OP_PERF_ATTACH] = 1, [OP_LINK_CLOSE] = 7, [OP_TRIGGER] = 4,
	[OP_CATTR] = 8,
};

/* the interfaces whose calls are counted */
enum iface { IF_RHASH, IF_BATCH, IF_ITER, IF_TMULTI, IF_FENTRY, IF_TP,
	     IF_PERF, IF_CATTR, IF_TRIGGER, NR_IF };
static const char *const if_name[NR_IF] = {
	"rhash", "batch", "iter", "tracing_multi", "fentry", "tp_btf",
	"perf", "common_attrs", "trigger",
};

/* an id of a generated tracing_multi set, resolved when it runs */
enum id_kind { ID_VALID, ID_DUP, ID_ZERO, ID_RANGE, ID_STUB, ID_NONFUNC };
static const char id_letter[] = "vdzrsn";

/* the common attributes an operation's bpf() calls carry */
struct cattr {
	bool on;		/* BPF_COMMON_ATTRS in cmd */
	uint32_t size;		/* the 5th argument */
	uint32_t log_claim;	/* log_size */
	uint32_t log_level;
	bool log_null;		/* log_buf NULL */
	bool reserved;		/* a non-zero reserved word */
	bool tail;		/* a non-zero byte past 24 bytes */
};

/* the programs the link operations attach */
enum {
	PG_MULTI_RET0, PG_MULTI_MAP, PG_FEXIT_MULTI, PG_FENTRY_TEST, PG_PERF,
	NR_PG
};
static const char *const pg_name[NR_PG] = {
	"multi_ret0", "multi_map", "fexit_multi", "fentry_test", "perf",
};

struct op {
	enum op_kind kind;
	uint32_t slot;
	/* map create */
	uint32_t type, ksize, vsize, max, flags;
	uint64_t extra;
	bool lock;
	/* element and walk operations */
	uint64_t key, flags64;
	uint32_t count, mode, step;
	uint64_t x;		/* random bytes (cursors, corruption) */
	/* links */
	uint32_t prog, attach, nids, cnt, lflags, target;
	uint8_t idk[MAX_IDS];
	uint32_t ida[MAX_IDS];
	bool cookies, ids_null;
	/* common attributes: this op's, and the cattr command's own */
	struct cattr ca;
	uint32_t cmd, attr_size;
	bool attr_tail, in_attr_log;
};

/* what the generator believes about a worker's slots (never results) */
struct model {
	struct {
		bool live, lock;
		uint32_t ksize, vsize, max;
	} m[NMAP];
	bool link[NLINK];
};

/* ---- generation: the seed's sequence, no syscalls ---- */

static uint32_t gen_ksize(struct rng *r)
{
	if (one_in(r, 40))
		return PICK(r, 0, 65536, 600);
	if (one_in(r, 6))
		return 1 + below(r, 300);
	return PICK(r, 1, 2, 4, 8, 8, 8, 12, 16, 37, 64);
}

static uint32_t gen_vsize(struct rng *r)
{
	if (one_in(r, 40))
		return PICK(r, 0, MAX_VAL, MAX_VAL + 1);
	return PICK(r, 1, 4, 8, 8, 16, 24, 64, 100, 256);
}

static void gen_cattr(struct rng *r, struct cattr *c, bool always)
{
	memset(c, 0, sizeof(*c));
	if (!always && !one_in(r, 4))
		return;
	c->on = !one_in(r, 12);
	c->size = one_in(r, 5) ? PICK(r, 0, 1, 8, 16, 20, 23, 25, 32, 64, 4096)
			       : CA_SIZE;
	c->log_claim = PICK(r, 0, 0, 1, 2, 16, 100, 1024, 4096, 65536,
			    ARENA, ARENA + 4096, UINT32_MAX >> 8, UINT32_MAX);
	c->log_level = one_in(r, 8) ? (uint32_t)rnd(r)
				    : PICK(r, 0, 1, 1, 2, 3, 4, 5, 7, 16);
	c->log_null = one_in(r, 10);
	c->reserved = one_in(r, 10);
	c->tail = one_in(r, 10);
}

static void gen_map_create(struct rng *r, struct op *o)
{
	o->type = one_in(r, 5) ? BPF_MAP_TYPE_HASH : MAP_TYPE_RHASH;
	o->lock = one_in(r, 6);
	o->ksize = o->lock ? 8 : gen_ksize(r);
	o->vsize = o->lock ? 16 : gen_vsize(r);
	o->max = one_in(r, 30) ? PICK(r, 0, 1, 1U << 31, (1U << 31) + 1)
			       : PICK(r, 16, 64, 256, 1024, 4096, 16384);
	o->flags = BPF_F_NO_PREALLOC;
	if (one_in(r, 20))
		o->flags = PICK(r, 0, BPF_F_NO_PREALLOC | BPF_F_ZERO_SEED,
				BPF_F_NO_PREALLOC | BPF_F_RDONLY,
				BPF_F_NO_PREALLOC | BPF_F_WRONLY,
				BPF_F_NO_PREALLOC | (1U << below(r, 20)));
	o->extra = 0;
	if (one_in(r, 3))
		o->extra = below(r, o->max ? o->max : 16) + 1;
	if (one_in(r, 25))
		o->extra = PICK(r, 65535, 65536, 0xffffffff) |
			   (one_in(r, 2) ? 1ULL << (32 + below(r, 32)) : 0);
}

/* a key number: mostly in a range that hits existing keys */
static uint64_t gen_key(struct rng *r, uint32_t max)
{
	uint32_t space = max ? (max < 4096 ? max : 4096) : 64;

	if (one_in(r, 20))
		return rnd(r);
	return below(r, space + space / 4 + 1);
}

static uint32_t gen_live_map(struct rng *r, const struct model *m)
{
	uint32_t s = below(r, NMAP + 1);

	/* slot NMAP is the shared map the programs use */
	if (s < NMAP && !m->m[s].live && !one_in(r, 8)) {
		for (uint32_t i = 0; i < NMAP; i++)
			if (m->m[(s + i) % NMAP].live)
				return (s + i) % NMAP;
		return NMAP;
	}
	return s;
}

static void gen_ids(struct rng *r, struct op *o)
{
	uint32_t n = one_in(r, 10) ? MAX_IDS - below(r, 4) : 1 + below(r, 8);
	/* valid ids are distinct: consecutive pool entries from start */
	bool trig = n <= 14 && !one_in(r, 3);
	uint32_t start = below(r, trig ? 14 : 1000);
	/* two sets in three are all valid; the others break some ids */
	bool clean = !one_in(r, 3);

	o->nids = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = clean ? 0 : below(r, 100);

		o->idk[i] = p < 75 ? ID_VALID : p < 83 ? ID_DUP :
			    p < 87 ? ID_ZERO : p < 92 ? ID_RANGE :
			    p < 95 ? ID_STUB : ID_NONFUNC;
		switch (o->idk[i]) {
		case ID_VALID:
			/* mostly the functions the triggers call */
			o->ida[i] = trig ? (start + i) % 14 : start + i;
			break;
		case ID_DUP:
			o->ida[i] = i ? below(r, i) : 0;
			break;
		case ID_RANGE:
			o->ida[i] = below(r, 100000);
			break;
		case ID_NONFUNC:
			o->ida[i] = below(r, 6);
			break;
		default:
			o->ida[i] = 0;
		}
	}
	o->cnt = n;
	if (one_in(r, 25))
		o->cnt = PICK(r, 0, n - 1 + (n == 0), n + 1, MULTI_MAX_CNT,
			      MULTI_MAX_CNT + 1, UINT32_MAX);
	o->ids_null = one_in(r, 40);
	o->cookies = !one_in(r, 3);
	o->lflags = one_in(r, 40) ? 1U << below(r, 32) : 0;
	o->target = one_in(r, 40) ? 1 + below(r, 3) : 0;
}

static enum op_kind gen_kind(struct rng *r)
{
	uint32_t total = 0, p;
	int k;

	for (k = 0; k < NR_OPS; k++)
		total += op_weight[k];
	p = below(r, total);
	for (k = 0; k < NR_OPS - 1; k++) {
		if (p < op_weight[k])
			break;
		p -= op_weight[k];
	}
	return (enum op_kind)k;
}

/* The next operation of a worker: a function of its stream alone. */
static void gen_op(struct rng *r, struct model *m, struct op *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = gen_kind(r);
	o->x = rnd(r);
	switch (o->kind) {
	case OP_MAP_CREATE:
		o->slot = below(r, NMAP);
		gen_map_create(r, o);
		m->m[o->slot].live = true;
		m->m[o->slot].lock = o->lock;
		m->m[o->slot].ksize = o->ksize;
		m->m[o->slot].vsize = o->vsize;
		m->m[o->slot].max = o->max;
		break;
	case OP_MAP_CLOSE:
		o->slot = below(r, NMAP);
		m->m[o->slot].live = false;
		break;
	case OP_UPDATE:
	case OP_LOOKUP:
	case OP_DELETE:
	case OP_LOOKUP_DELETE:
		o->slot = gen_live_map(r, m);
		o->key = gen_key(r, o->slot < NMAP ? m->m[o->slot].max : 512);
		if (o->kind == OP_UPDATE)
			o->flags64 = PICK(r, BPF_ANY, BPF_ANY, BPF_NOEXIST,
					  BPF_EXIST);
		if ((o->kind == OP_UPDATE || o->kind == OP_LOOKUP) &&
		    (one_in(r, 6) || (o->slot < NMAP && m->m[o->slot].lock &&
				      one_in(r, 2))))
			o->flags64 |= BPF_F_LOCK;
		if (one_in(r, 50))
			o->flags64 = rnd(r);
		break;
	case OP_BURST:
		o->slot = gen_live_map(r, m);
		o->key = below(r, 1 << 20);
		o->count = 64 + below(r, BURST_MAX - 63);
		o->mode = below(r, 3);	/* 0: keep, 1: delete all, 2: every 2nd */
		break;
	case OP_BATCH:
		o->slot = gen_live_map(r, m);
		o->cmd = PICK(r, BPF_MAP_LOOKUP_BATCH, BPF_MAP_LOOKUP_BATCH,
			      BPF_MAP_LOOKUP_AND_DELETE_BATCH,
			      BPF_MAP_UPDATE_BATCH, BPF_MAP_DELETE_BATCH);
		o->count = one_in(r, 10) ? PICK(r, 0, BATCH_MAX) :
			   1 + below(r, 64);
		/* the cursor: 0 NULL, 1 the last one, 2 random, 3 a key */
		o->mode = below(r, 4);
		o->key = gen_key(r, 1024);
		o->flags64 = one_in(r, 8) ? PICK(r, BPF_F_LOCK, 1, 4) : 0;
		break;
	case OP_WALK:
		o->slot = gen_live_map(r, m);
		o->count = 1 + below(r, 512);
		o->step = below(r, 6);	/* delete every step-th key; 0 never */
		o->mode = below(r, 2);	/* start at NULL or at a key */
		o->key = gen_key(r, 1024);
		break;
	case OP_ITER:
		o->slot = gen_live_map(r, m);
		o->mode = PICK(r, 0, 1, 3, 7, 0xff);	/* delete if !(rand & mode) */
		o->step = one_in(r, 4);			/* no delete at all */
		break;
	case OP_TM_ATTACH:
		o->slot = below(r, NLINK);
		o->prog = one_in(r, 12) ? PICK(r, PG_FENTRY_TEST, PG_PERF)
					: PICK(r, PG_MULTI_RET0, PG_MULTI_MAP,
					       PG_MULTI_MAP, PG_FEXIT_MULTI);
		o->attach = o->prog == PG_FEXIT_MULTI ? TRACE_FEXIT_MULTI
						      : TRACE_FENTRY_MULTI;
		if (one_in(r, 15))
			o->attach = PICK(r, TRACE_FENTRY_MULTI,
					 TRACE_FEXIT_MULTI, 61,
					 BPF_TRACE_FENTRY);
		gen_ids(r, o);
		m->link[o->slot] = true;
		break;
	case OP_FENTRY_ATTACH:
		o->slot = below(r, NLINK);
		o->prog = below(r, 2);	/* 0: r0 = 0, 1: the map program */
		o->nids = 1;
		o->idk[0] = one_in(r, 20) ? PICK(r, ID_ZERO, ID_RANGE, ID_STUB,
						 ID_NONFUNC) : ID_VALID;
		o->ida[0] = o->idk[0] == ID_RANGE ? below(r, 100000) :
			    o->idk[0] == ID_NONFUNC ? below(r, 6) :
			    o->idk[0] == ID_STUB ? 0 :
			    below(r, one_in(r, 3) ? 1000 : 14);
		o->attach = one_in(r, 3) ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
		m->link[o->slot] = true;
		break;
	case OP_TP_ATTACH:
		o->slot = below(r, NLINK);
		m->link[o->slot] = true;
		break;
	case OP_PERF_ATTACH:
		o->slot = below(r, NLINK);
		o->count = PICK(r, 200000, 500000, 1000000, 2000000); /* ns */
		m->link[o->slot] = true;
		break;
	case OP_LINK_CLOSE:
		o->slot = below(r, NLINK);
		for (uint32_t i = 0; i < NLINK && !m->link[o->slot]; i++)
			o->slot = (o->slot + 1) % NLINK;
		m->link[o->slot] = false;
		break;
	case OP_TRIGGER:
		o->count = 1 + below(r, 64);
		break;
	case OP_CATTR:
		o->cmd = one_in(r, 3) ? below(r, 40) :
			 PICK(r, BPF_MAP_CREATE, BPF_PROG_LOAD, BPF_BTF_LOAD);
		o->attr_size = one_in(r, 4) ? below(r, ATTR_BUF + 1) : 0;
		o->attr_tail = one_in(r, 10);
		o->in_attr_log = one_in(r, 3);
		o->mode = below(r, 4);	/* valid or broken program/BTF/map */
		gen_map_create(r, o);
		gen_cattr(r, &o->ca, true);
		return;
	case NR_OPS:
		break;
	}
	gen_cattr(r, &o->ca, false);
}

/* ---- the text of an operation: what -n prints and the ring holds ---- */

static int fmt_cattr(char *b, size_t n, const struct cattr *c)
{
	if (!c->on && !c->size && !c->log_claim)
		return 0;
	return snprintf(b, n, " ca=%s/%u/log%u%s/l%u%s%s", c->on ? "on" : "off",
			c->size, c->log_claim, c->log_null ? "null" : "",
			c->log_level, c->reserved ? "/rsv" : "",
			c->tail ? "/tail" : "");
}

static void fmt_op(char *b, size_t n, const struct op *o)
{
	size_t l = 0;

#define OUT(...)							\
	do {								\
		int w_ = snprintf(b + l, n > l ? n - l : 0, __VA_ARGS__); \
		if (w_ > 0)						\
			l += (size_t)w_;				\
	} while (0)

	OUT("%s", op_name[o->kind]);
	switch (o->kind) {
	case OP_MAP_CREATE:
		OUT(" m%u type=%u k=%u v=%u max=%u flags=%#x extra=%#" PRIx64
		    "%s", o->slot, o->type, o->ksize, o->vsize, o->max,
		    o->flags, o->extra, o->lock ? " lock" : "");
		break;
	case OP_MAP_CLOSE:
		OUT(" m%u", o->slot);
		break;
	case OP_UPDATE:
	case OP_LOOKUP:
	case OP_DELETE:
	case OP_LOOKUP_DELETE:
		OUT(" m%u key=%" PRIu64 " flags=%#" PRIx64, o->slot, o->key,
		    o->flags64);
		break;
	case OP_BURST:
		OUT(" m%u from=%" PRIu64 " n=%u mode=%u", o->slot, o->key,
		    o->count, o->mode);
		break;
	case OP_BATCH:
		OUT(" m%u cmd=%u n=%u cursor=%u key=%" PRIu64 " x=%#" PRIx64
		    " flags=%#" PRIx64, o->slot, o->cmd, o->count, o->mode,
		    o->key, o->x, o->flags64);
		break;
	case OP_WALK:
		OUT(" m%u steps=%u del_every=%u start=%s%" PRIu64, o->slot,
		    o->count, o->step, o->mode ? "key" : "null",
		    o->mode ? o->key : 0);
		break;
	case OP_ITER:
		OUT(" m%u del_mask=%#x%s", o->slot, o->mode,
		    o->step ? " nodel" : "");
		break;
	case OP_TM_ATTACH:
	case OP_FENTRY_ATTACH:
		OUT(" l%u prog=%s attach=%u", o->slot,
		    o->kind == OP_TM_ATTACH ? pg_name[o->prog] :
		    o->prog ? "fentry_map" : "fentry_ret0", o->attach);
		if (o->kind == OP_TM_ATTACH)
			OUT(" cnt=%u flags=%#x target=%u%s%s", o->cnt,
			    o->lflags, o->target, o->cookies ? " cookies" : "",
			    o->ids_null ? " ids=NULL" : "");
		OUT(" ids=");
		for (uint32_t i = 0; i < o->nids; i++)
			OUT("%s%c%u", i ? "," : "", id_letter[o->idk[i]],
			    o->ida[i]);
		if (o->cookies)
			OUT(" x=%#" PRIx64, o->x);
		break;
	case OP_TP_ATTACH:
		OUT(" l%u sched_switch", o->slot);
		break;
	case OP_PERF_ATTACH:
		OUT(" l%u cpu-clock period=%uns", o->slot, o->count);
		break;
	case OP_LINK_CLOSE:
		OUT(" l%u", o->slot);
		break;
	case OP_TRIGGER:
		OUT(" n=%u", o->count);
		break;
	case OP_CATTR:
		OUT(" cmd=%u attr_size=%u%s%s mode=%u", o->cmd, o->attr_size,
		    o->attr_tail ? " tail" : "",
		    o->in_attr_log ? " log_in_attr" : "", o->mode);
		if (o->cmd == BPF_MAP_CREATE)
			OUT(" type=%u k=%u v=%u max=%u flags=%#x extra=%#"
			    PRIx64, o->type, o->ksize, o->vsize, o->max,
			    o->flags, o->extra);
		OUT(" x=%#" PRIx64, o->x);
		break;
	case NR_OPS:
		break;
	}
	l += (size_t)fmt_cattr(b + l, n > l ? n - l : 0, &o->ca);
#undef OUT
}

/* ---- the run: state, counts, the ring ---- */

static struct {
	atomic_ulong calls[NR_IF], ok[NR_IF];
	atomic_ulong ops, links, maps, resized, lock_maps;
} cnt;

static atomic_int stop;
static uint64_t seed;
static int ring_fd = -1;
static atomic_ulong ring_seq;

/* set up once in real mode */
static struct {
	int pmap;		/* the map the programs change */
	int btf;		/* BTF with a value holding a bpf_spin_lock */
	int prog[NR_PG];
	uint32_t pool[14 + POOL_EXTRA], npool;
	uint32_t stub, nonfunc[6], nnonfunc, btf_n, sched_switch;
	uint32_t fentry_test1, iter;
} S;

static const char *const trigger_funcs[14] = {
	"__do_sys_getppid", "__do_sys_getpgrp", "__do_sys_getuid",
	"__do_sys_geteuid", "__do_sys_getgid", "__do_sys_getegid",
	"__do_sys_gettid", "__do_sys_getpid",
	"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3",
	"bpf_fentry_test4", "bpf_fentry_test5", "bpf_fentry_test6",
};

struct mslot {
	int fd;
	uint32_t ksize, vsize, max;
	bool lock, have_cursor;
	uint8_t cursor[MAX_KEY + 8];
};

struct lslot {
	int fd, prog;		/* the link (or perf event), its own program */
};

struct worker {
	int id;
	struct rng r;
	struct model model;
	uint64_t n;
	struct mslot m[NMAP + 1];
	struct lslot l[NLINK];
	uint8_t *arena;		/* ARENA bytes, then a page that faults */
	uint8_t *keys, *vals;
	uint32_t *ids;		/* MULTI_MAX_CNT of them, zero past a set */
	uint64_t *ck;
	pthread_t th;
};

static void ring_write(uint64_t seq, const char *line)
{
	char rec[RING_LINE];
	int n;

	if (ring_fd < 0)
		return;
	n = snprintf(rec, sizeof(rec), "%010" PRIu64 " %s", seq, line);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(rec) - 1)
		n = sizeof(rec) - 2;
	memset(rec + n, ' ', sizeof(rec) - 1 - n);
	rec[sizeof(rec) - 1] = '\n';
	if (pwrite(ring_fd, rec, sizeof(rec),
		   (off_t)(seq % RING_N) * RING_LINE) < 0) {
		/* a full results disk: keep fuzzing, the serial log has the rest */
	}
}

static const char *fd_ok(int fd)
{
	return fd >= 0 ? "ok" : err_name(fd);
}

/*
 * bpf() with the operation's common attributes: the log in the arena,
 * placed so that a log_size beyond ARENA runs into the page that faults.
 */
static int fz_bpf(struct worker *w, const struct cattr *c, int cmd,
		  void *attr, uint32_t size)
{
	uint8_t common[4096 + 64];
	uint32_t actual;
	uint64_t buf;
	long r;

	if (!c->on && !c->size) {
		r = syscall(__NR_bpf, cmd, attr, size);
		return r < 0 ? -errno : (int)r;
	}
	memset(common, 0, sizeof(common));
	actual = c->log_claim < ARENA ? c->log_claim : ARENA;
	buf = c->log_null ? 0 : (uintptr_t)(w->arena + ARENA - actual);
	memcpy(common, &buf, 8);
	memcpy(common + 8, &c->log_claim, 4);
	memcpy(common + 12, &c->log_level, 4);
	if (c->reserved)
		common[20] = 1;
	if (c->tail)
		common[CA_SIZE + (c->size > CA_SIZE ? (c->size - CA_SIZE) / 2 : 0)] = 0x5a;
	r = syscall(__NR_bpf, cmd | (c->on ? COMMON_ATTRS : 0), attr, size,
		    common, (unsigned long)c->size);
	return r < 0 ? -errno : (int)r;
}

static int fz_sys(struct worker *w, const struct op *o, int cmd,
		  union bpf_attr *a)
{
	return fz_bpf(w, &o->ca, cmd, a, sizeof(*a));
}

/* the key and value bytes of number n */
static void make_bytes(uint8_t *b, uint32_t len, uint64_t n, uint32_t salt)
{
	uint64_t x = n * 0x9e3779b97f4a7c15ULL + salt;

	for (uint32_t i = 0; i < len; i++) {
		if (i % 8 == 0)
			x = splitmix64(&x);
		b[i] = (uint8_t)(x >> (8 * (i % 8)));
	}
	if (len >= 8)
		memcpy(b, &n, 8);
}

static void count(enum iface i, int r)
{
	atomic_fetch_add(&cnt.calls[i], 1);
	if (r >= 0)
		atomic_fetch_add(&cnt.ok[i], 1);
}

static void close_fd_slot(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- programs ---- */

#define RSH_IMM(d, i)	INSN(BPF_ALU64 | BPF_RSH | BPF_K, d, 0, 0, i)

/*
 * The map program: a random key of the shared map (or of map_fd),
 * then, by two other random bits, update, lookup or delete it. It does
 * not read its context, so every program type runs the same body.
 */
static void emit_map_body(struct prog *p, int map_fd)
{
	enum { L_DEL = 1, L_LOOK, L_OUT };

	emit(p, CALL(BPF_FUNC_get_prandom_u32));
	emit(p, MOV_REG(R6, R0));
	emit(p, MOV_REG(R7, R0));
	emit(p, AND_IMM(R7, 511));
	emit(p, STX(BPF_DW, FP, R7, -8));
	emit(p, STX(BPF_DW, FP, R6, -24));
	emit(p, STX(BPF_DW, FP, R6, -16));
	emit(p, MOV_REG(R8, R6));
	emit(p, RSH_IMM(R8, 16));
	emit(p, AND_IMM(R8, 3));
	emit_map(p, R1, map_fd);
	emit(p, MOV_REG(R2, FP));
	emit(p, ADD_IMM(R2, -8));
	emit_jmp(p, J_IMM(BPF_JEQ, R8, 0), L_DEL);
	emit_jmp(p, J_IMM(BPF_JEQ, R8, 1), L_LOOK);
	emit(p, MOV_REG(R3, FP));
	emit(p, ADD_IMM(R3, -24));
	emit(p, MOV_IMM(R4, 0));
	emit(p, CALL(BPF_FUNC_map_update_elem));
	emit_jmp(p, JA(), L_OUT);
	label(p, L_DEL);
	emit(p, CALL(BPF_FUNC_map_delete_elem));
	emit_jmp(p, JA(), L_OUT);
	label(p, L_LOOK);
	emit(p, CALL(BPF_FUNC_map_lookup_elem));
	label(p, L_OUT);
	emit_exit(p, 0);
}

static int load_quiet(struct prog *p, uint32_t type, uint32_t attach,
		      uint32_t btf_id)
{
	union bpf_attr a;

	if (prog_resolve(p))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)p->insn;
	a.insn_cnt = p->n;
	a.license = (uintptr_t)"GPL";
	a.expected_attach_type = attach;
	a.attach_btf_id = btf_id;
	return sys_bpf(BPF_PROG_LOAD, &a);
}

static int load_map_prog(uint32_t type, uint32_t attach, uint32_t btf_id)
{
	struct prog p;

	prog_init(&p);
	emit_map_body(&p, S.pmap);
	return load_quiet(&p, type, attach, btf_id);
}

static int load_ret0(uint32_t type, uint32_t attach, uint32_t btf_id)
{
	struct prog p;

	prog_init(&p);
	emit_exit(&p, 0);
	return load_quiet(&p, type, attach, btf_id);
}

/*
 * The iterator program for map_fd: shown an element, delete it unless
 * (random & mask), then write its first key bytes with bpf_seq_write().
 */
static int load_iter_prog(int map_fd, uint32_t ksize, uint32_t mask,
			  bool nodel, uint32_t btf_id)
{
	enum { L_OUT = 1, L_WRITE };
	struct prog p;

	prog_init(&p);
	emit(&p, MOV_REG(R6, R1));
	emit(&p, LDX(BPF_DW, R7, R6, 16));	/* ctx->key */
	emit_jmp(&p, J_IMM(BPF_JEQ, R7, 0), L_OUT);
	/*
	 * The verifier takes no read-only buffer as a map key: the key is
	 * copied to the stack first, so keys of up to ITER_KEY bytes only.
	 */
	if (!nodel && ksize <= ITER_KEY) {
		emit(&p, CALL(BPF_FUNC_get_prandom_u32));
		emit(&p, AND_IMM(R0, mask));
		emit_jmp(&p, J_IMM(BPF_JNE, R0, 0), L_WRITE);
		emit(&p, MOV_REG(R1, FP));
		emit(&p, ADD_IMM(R1, -ITER_KEY));
		emit(&p, MOV_IMM(R2, ksize));
		emit(&p, MOV_REG(R3, R7));
		emit(&p, CALL(BPF_FUNC_probe_read_kernel));
		emit_map(&p, R1, map_fd);
		emit(&p, MOV_REG(R2, FP));
		emit(&p, ADD_IMM(R2, -ITER_KEY));
		emit(&p, CALL(BPF_FUNC_map_delete_elem));
	}
	label(&p, L_WRITE);
	emit(&p, LDX(BPF_DW, R1, R6, 0));	/* ctx->meta */
	emit(&p, LDX(BPF_DW, R1, R1, 0));	/* meta->seq */
	emit(&p, MOV_REG(R2, R7));
	emit(&p, MOV_IMM(R3, ksize < 8 ? ksize : 8));
	emit(&p, CALL(BPF_FUNC_seq_write));
	label(&p, L_OUT);
	emit_exit(&p, 0);
	return load_quiet(&p, BPF_PROG_TYPE_TRACING, BPF_TRACE_ITER, btf_id);
}

/* ---- BTF of a map value with a bpf_spin_lock ---- */

/*
 * 1 int, 2 struct bpf_spin_lock { int val; }, 3 struct fzval { lock;
 * int a, b, c; } (16 bytes), 4 u64 (the key).
 */
static size_t lock_btf(uint8_t *b)
{
	static const char strs[] = "\0int\0bpf_spin_lock\0val\0fzval\0lock\0a\0b\0c\0u64";
	enum { S_INT = 1, S_LOCK = 5, S_VAL = 19, S_FZ = 23, S_LK = 29,
	       S_A = 34, S_B = 36, S_C = 38, S_U64 = 40 };
	uint32_t t[] = {
		S_INT, BTF_KIND_INT << 24, 4, (BTF_INT_SIGNED << 24) | 32,
		S_LOCK, BTF_KIND_STRUCT << 24 | 1, 4, S_VAL, 1, 0,
		S_FZ, BTF_KIND_STRUCT << 24 | 4, 16,
		S_LK, 2, 0, S_A, 1, 32, S_B, 1, 64, S_C, 1, 96,
		S_U64, BTF_KIND_INT << 24, 8, 64,
	};
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(h), .type_off = 0, .type_len = sizeof(t),
		.str_off = sizeof(t), .str_len = sizeof(strs),
	};

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), t, sizeof(t));
	memcpy(b + sizeof(h) + sizeof(t), strs, sizeof(strs));
	return sizeof(h) + sizeof(t) + sizeof(strs);
}

/* ---- running an operation ---- */

static int run_map_create(struct worker *w, const struct op *o)
{
	struct mslot *s = &w->m[o->slot];
	union bpf_attr a;
	int fd;

	close_fd_slot(&s->fd);
	memset(&a, 0, sizeof(a));
	a.map_type = o->type;
	a.key_size = o->ksize;
	a.value_size = o->vsize;
	a.max_entries = o->max;
	a.map_flags = o->flags;
	a.map_extra = o->extra;
	if (o->lock) {
		a.btf_fd = S.btf;
		a.btf_key_type_id = 4;
		a.btf_value_type_id = 3;
	}
	fd = fz_sys(w, o, BPF_MAP_CREATE, &a);
	count(IF_RHASH, fd);
	s->fd = fd;
	s->ksize = o->ksize;
	s->vsize = o->vsize;
	s->max = o->max;
	s->lock = o->lock;
	s->have_cursor = false;
	if (fd >= 0) {
		atomic_fetch_add(&cnt.maps, 1);
		if (o->lock)
			atomic_fetch_add(&cnt.lock_maps, 1);
	}
	return fd;
}

/*
 * A slot's sizes. A map that was created fits the buffers (the
 * generator makes no larger one that the kernel takes); a slot whose
 * create failed has fd -1 and sizes that are never used for a copy.
 */
static void slot_sizes(const struct mslot *s, uint32_t *ks, uint32_t *vs)
{
	*ks = s->ksize && s->ksize <= MAX_KEY ? s->ksize : 8;
	*vs = s->vsize && s->vsize <= MAX_VAL + 1 ? s->vsize : 16;
	if (s->fd >= 0 && (*ks != s->ksize || *vs != s->vsize)) {
		fprintf(stderr, "kfuzz: a map of key %u value %u bytes was "
			"created: larger than the buffers (a generator bug)\n",
			s->ksize, s->vsize);
		fflush(stdout);
		abort();
	}
}

static int run_elem(struct worker *w, const struct op *o)
{
	struct mslot *s = &w->m[o->slot];
	uint8_t key[MAX_KEY], val[MAX_VAL + 8];
	uint32_t ks, vs;
	union bpf_attr a;
	int cmd, r;

	slot_sizes(s, &ks, &vs);
	make_bytes(key, ks, o->key, 1);
	make_bytes(val, vs, o->key ^ o->x, 2);
	if (s->lock)
		memset(val, 0, 4);	/* the lock word is the kernel's */
	cmd = o->kind == OP_UPDATE ? BPF_MAP_UPDATE_ELEM :
	      o->kind == OP_LOOKUP ? BPF_MAP_LOOKUP_ELEM :
	      o->kind == OP_DELETE ? BPF_MAP_DELETE_ELEM :
	      BPF_MAP_LOOKUP_AND_DELETE_ELEM;
	memset(&a, 0, sizeof(a));
	a.map_fd = s->fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)val;
	a.flags = o->flags64;
	r = fz_sys(w, o, cmd, &a);
	count(IF_RHASH, r);
	return r;
}

static int run_burst(struct worker *w, const struct op *o)
{
	struct mslot *s = &w->m[o->slot];
	uint8_t key[MAX_KEY], val[MAX_VAL + 8];
	long long m0, m1, m2 = -1;
	uint32_t ks, vs, i, ins = 0;
	int r = 0;

	slot_sizes(s, &ks, &vs);
	m0 = map_memlock(s->fd);
	for (i = 0; i < o->count && !atomic_load(&stop); i++) {
		make_bytes(key, ks, o->key + i, 1);
		make_bytes(val, vs, o->key + i, 2);
		if (s->lock)
			memset(val, 0, 4);
		r = elem_update(s->fd, key, val, BPF_ANY);
		count(IF_RHASH, r);
		ins += !r;
	}
	m1 = map_memlock(s->fd);
	if (o->mode) {
		for (i = 0; i < o->count && !atomic_load(&stop); i += o->mode) {
			make_bytes(key, ks, o->key + i, 1);
			count(IF_RHASH, elem_delete(s->fd, key));
		}
		m2 = map_memlock(s->fd);
	}
	if (m0 >= 0 && m1 >= 0 && m1 != m0)
		atomic_fetch_add(&cnt.resized, 1);
	if (m2 >= 0 && m1 >= 0 && m2 != m1)
		atomic_fetch_add(&cnt.resized, 1);
	return (int)ins;
}

static int run_batch(struct worker *w, const struct op *o)
{
	struct mslot *s = &w->m[o->slot];
	uint8_t in[MAX_KEY + 8], out[MAX_KEY + 8];
	uint32_t ks, vs, n;
	union bpf_attr a;
	int r;

	slot_sizes(s, &ks, &vs);
	n = o->count;	/* at most BATCH_MAX: the buffers hold that many */
	memset(in, 0, sizeof(in));
	switch (o->mode) {
	case 1:
		if (s->have_cursor)
			memcpy(in, s->cursor, sizeof(in));
		break;
	case 2:
		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (uint8_t)(o->x >> (8 * (i % 8))) ^ (uint8_t)i;
		break;
	case 3:
		make_bytes(in, ks, o->key, 1);
		break;
	}
	for (uint32_t i = 0; i < BATCH_MAX; i++) {
		make_bytes(w->keys + (size_t)i * ks, ks, o->key + i, 1);
		make_bytes(w->vals + (size_t)i * vs, vs, o->key + i, 2);
		if (s->lock)
			memset(w->vals + (size_t)i * vs, 0, 4);
	}
	memset(out, 0, sizeof(out));
	memset(&a, 0, sizeof(a));
	a.batch.map_fd = s->fd;
	a.batch.in_batch = o->mode ? (uintptr_t)in : 0;
	a.batch.out_batch = (uintptr_t)out;
	a.batch.keys = (uintptr_t)w->keys;
	a.batch.values = (uintptr_t)w->vals;
	a.batch.count = n;
	a.batch.elem_flags = o->flags64;
	r = fz_sys(w, o, o->cmd, &a);
	count(IF_BATCH, r);
	if ((o->cmd == BPF_MAP_LOOKUP_BATCH ||
	     o->cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH) && (!r || r == -ENOENT)) {
		memcpy(s->cursor, out, sizeof(s->cursor));
		s->have_cursor = !r;
	}
	return r ? r : (int)a.batch.count;
}

static int run_walk(struct worker *w, const struct op *o)
{
	struct mslot *s = &w->m[o->slot];
	uint8_t key[MAX_KEY], next[MAX_KEY];
	uint32_t ks, vs, i;
	bool have = o->mode;
	int r = 0;

	slot_sizes(s, &ks, &vs);
	make_bytes(key, ks, o->key, 1);
	for (i = 0; i < o->count && !atomic_load(&stop); i++) {
		r = next_key(s->fd, have ? key : NULL, next);
		count(IF_RHASH, r);
		if (r)
			break;
		if (o->step && i % o->step == 0)
			count(IF_RHASH, elem_delete(s->fd, next));
		memcpy(key, next, ks);
		have = true;
	}
	return r == -ENOENT ? (int)i : r;
}

static int run_iter(struct worker *w, const struct op *o)
{
	struct mslot *s = &w->m[o->slot];
	union bpf_iter_link_info li;
	union bpf_attr a;
	int prog, link, it, r;
	uint32_t ks, vs;
	char buf[4096];
	long total = 0;

	slot_sizes(s, &ks, &vs);
	if (s->fd < 0)
		return -EBADF;
	prog = load_iter_prog(s->fd, ks, o->mode, o->step, S.iter);
	count(IF_ITER, prog);
	if (prog < 0)
		return prog;
	memset(&li, 0, sizeof(li));
	li.map.map_fd = s->fd;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = BPF_TRACE_ITER;
	a.link_create.iter_info = (uintptr_t)&li;
	a.link_create.iter_info_len = sizeof(li);
	link = fz_sys(w, o, BPF_LINK_CREATE, &a);
	count(IF_ITER, link);
	r = link;
	if (link >= 0) {
		memset(&a, 0, sizeof(a));
		a.iter_create.link_fd = link;
		it = sys_bpf(BPF_ITER_CREATE, &a);
		count(IF_ITER, it);
		r = it;
		while (it >= 0 && total < (16L << 20)) {
			ssize_t n = read(it, buf, sizeof(buf));

			if (n <= 0) {
				r = n < 0 ? -errno : (int)total;
				break;
			}
			total += n;
		}
		close_fd(it);
		close(link);
	}
	close(prog);
	return r;
}

static uint32_t resolve_id(const struct op *o, const uint32_t *done,
			   uint32_t i)
{
	uint32_t a = o->ida[i];

	switch (o->idk[i]) {
	case ID_VALID:
		return S.npool ? S.pool[a % S.npool] : 0;
	case ID_DUP:
		return i && done ? done[a % i] : S.npool ? S.pool[0] : 0;
	case ID_ZERO:
		return 0;
	case ID_RANGE:
		return S.btf_n + a % 100000;
	case ID_STUB:
		return S.stub;
	case ID_NONFUNC:
		return S.nnonfunc ? S.nonfunc[a % S.nnonfunc] : 1;
	}
	return 0;
}

static int run_tm_attach(struct worker *w, const struct op *o)
{
	struct lslot *l = &w->l[o->slot];
	uint32_t *ids = w->ids;
	uint64_t *ck = w->ck;
	union bpf_attr a;
	uint64_t x = o->x, pi, pc;
	uint32_t c;
	int r;

	close_fd_slot(&l->fd);
	close_fd_slot(&l->prog);
	memset(ids, 0, (MAX_IDS + 1) * sizeof(*ids));
	for (uint32_t i = 0; i < o->nids; i++) {
		ids[i] = resolve_id(o, ids, i);
		ck[i] = splitmix64(&x);
	}
	/* attr's link_create: ids at 16, cookies at 24, cnt at 32 */
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = S.prog[o->prog];
	a.link_create.target_fd = o->target;
	a.link_create.attach_type = o->attach;
	a.link_create.flags = o->lflags;
	pi = o->ids_null ? 0 : (uintptr_t)ids;
	pc = o->cookies ? (uintptr_t)ck : 0;
	/*
	 * The arrays hold MULTI_MAX_CNT entries (zero past the set), so a
	 * count up to the kernel's limit reads only them; above it, the
	 * kernel must refuse the count before it reads anything.
	 */
	c = o->cnt;
	memcpy((uint8_t *)&a + 16, &pi, 8);
	memcpy((uint8_t *)&a + 24, &pc, 8);
	memcpy((uint8_t *)&a + 32, &c, 4);
	r = fz_sys(w, o, BPF_LINK_CREATE, &a);
	count(IF_TMULTI, r);
	l->fd = r;
	if (r >= 0)
		atomic_fetch_add(&cnt.links, 1);
	return r;
}

static int run_fentry_attach(struct worker *w, const struct op *o)
{
	struct lslot *l = &w->l[o->slot];
	union bpf_attr a;
	uint32_t id = resolve_id(o, NULL, 0);
	int r;

	close_fd_slot(&l->fd);
	close_fd_slot(&l->prog);
	l->prog = o->prog ? load_map_prog(BPF_PROG_TYPE_TRACING, o->attach, id)
			  : load_ret0(BPF_PROG_TYPE_TRACING, o->attach, id);
	count(IF_FENTRY, l->prog);
	if (l->prog < 0)
		return l->prog;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = l->prog;
	a.link_create.attach_type = o->attach;
	r = fz_sys(w, o, BPF_LINK_CREATE, &a);
	count(IF_FENTRY, r);
	l->fd = r;
	if (r >= 0)
		atomic_fetch_add(&cnt.links, 1);
	return r;
}

static int run_tp_attach(struct worker *w, const struct op *o)
{
	struct lslot *l = &w->l[o->slot];
	union bpf_attr a;
	int r;

	close_fd_slot(&l->fd);
	close_fd_slot(&l->prog);
	l->prog = load_map_prog(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP,
				S.sched_switch);
	count(IF_TP, l->prog);
	if (l->prog < 0)
		return l->prog;
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.prog_fd = l->prog;
	r = fz_sys(w, o, BPF_RAW_TRACEPOINT_OPEN, &a);
	count(IF_TP, r);
	l->fd = r;
	if (r >= 0)
		atomic_fetch_add(&cnt.links, 1);
	return r;
}

static int run_perf_attach(struct worker *w, const struct op *o)
{
	struct lslot *l = &w->l[o->slot];
	struct perf_event_attr pa;
	int r;

	close_fd_slot(&l->fd);
	close_fd_slot(&l->prog);
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_CPU_CLOCK;
	pa.sample_period = o->count;
	pa.disabled = 1;
	r = (int)syscall(__NR_perf_event_open, &pa, 0, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);
	if (r < 0) {
		r = -errno;
		count(IF_PERF, r);
		return r;
	}
	l->fd = r;
	if (ioctl(l->fd, PERF_EVENT_IOC_SET_BPF, S.prog[PG_PERF]) ||
	    ioctl(l->fd, PERF_EVENT_IOC_ENABLE, 0))
		r = -errno;
	count(IF_PERF, r);
	if (r >= 0)
		atomic_fetch_add(&cnt.links, 1);
	return r;
}

/* the syscalls and the test functions the trigger pool names */
static void trigger_once(void)
{
	static const long nr[] = { SYS_getppid, SYS_getpgrp, SYS_getuid,
				   SYS_geteuid, SYS_getgid, SYS_getegid,
				   SYS_gettid, SYS_getpid };
	union bpf_attr a;

	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++)
		syscall(nr[i]);
	/* test_run of an fentry program calls bpf_fentry_test1..6 */
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = S.prog[PG_FENTRY_TEST];
	sys_bpf(BPF_PROG_TEST_RUN, &a);
}

static int run_trigger(const struct op *o)
{
	for (uint32_t i = 0; i < o->count; i++)
		trigger_once();
	count(IF_TRIGGER, 0);
	return (int)o->count;
}

/* a small program: valid (r0 = 0; exit) or one the verifier refuses */
static void cattr_prog(struct prog *p, uint32_t mode)
{
	prog_init(p);
	switch (mode) {
	case 0:
	case 1:
		emit_exit(p, 0);
		break;
	case 2:		/* reads an uninitialised register */
		emit(p, MOV_REG(R0, R7));
		emit(p, EXIT());
		break;
	default:	/* falls off the end */
		emit(p, MOV_IMM(R0, 0));
		break;
	}
	prog_resolve(p);
}

/* the commands whose success is a new fd */
static bool returns_fd(uint32_t cmd)
{
	switch (cmd) {
	case BPF_MAP_CREATE: case BPF_PROG_LOAD: case BPF_OBJ_GET:
	case BPF_PROG_GET_FD_BY_ID: case BPF_MAP_GET_FD_BY_ID:
	case BPF_RAW_TRACEPOINT_OPEN: case BPF_BTF_LOAD:
	case BPF_BTF_GET_FD_BY_ID: case BPF_LINK_CREATE:
	case BPF_LINK_GET_FD_BY_ID: case BPF_ENABLE_STATS:
	case BPF_ITER_CREATE: case 36:	/* BPF_TOKEN_CREATE */
		return true;
	}
	return false;
}

static int run_cattr(struct worker *w, const struct op *o)
{
	uint8_t attr[ATTR_BUF + 8], btf[512];
	struct prog p;
	union bpf_attr *a = (union bpf_attr *)attr;
	uint32_t size = o->attr_size ? o->attr_size : sizeof(union bpf_attr);
	uint8_t *log = w->arena + ARENA - 4096;
	size_t blen;
	int r;

	memset(attr, 0, sizeof(attr));
	switch (o->cmd) {
	case BPF_MAP_CREATE:
		a->map_type = o->type;
		a->key_size = o->ksize;
		a->value_size = o->vsize;
		a->max_entries = o->max;
		a->map_flags = o->flags;
		a->map_extra = o->extra;
		if (o->mode == 3) {
			a->btf_fd = S.btf;
			a->btf_key_type_id = 4;
			a->btf_value_type_id = 3;
		} else if (o->mode == 2) {	/* a value type of the wrong size */
			a->btf_fd = S.btf;
			a->btf_key_type_id = 4;
			a->btf_value_type_id = 1;
		}
		break;
	case BPF_PROG_LOAD:
		cattr_prog(&p, o->mode);
		a->prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
		a->insns = (uintptr_t)p.insn;
		a->insn_cnt = p.n;
		a->license = (uintptr_t)"GPL";
		if (o->in_attr_log) {
			a->log_buf = (uintptr_t)log;
			a->log_size = 4096;
			a->log_level = 1 + (o->x & 1);
		}
		break;
	case BPF_BTF_LOAD:
		blen = lock_btf(btf);
		if (o->mode >= 2)	/* one byte changed */
			btf[(o->x >> 8) % blen] ^= (uint8_t)(o->x | 1);
		a->btf = (uintptr_t)btf;
		a->btf_size = (uint32_t)blen;
		if (o->in_attr_log) {
			a->btf_log_buf = (uintptr_t)log;
			a->btf_log_size = 4096;
			a->btf_log_level = 1;
		}
		break;
	default:
		/* the other commands see a map of ours, or nothing */
		if (o->mode == 1 && o->cmd != BPF_MAP_FREEZE)
			a->map_fd = w->m[NMAP].fd;
		break;
	}
	if (o->attr_tail && size > 8)
		attr[size - 1 - (o->x % 8)] = 0xa5;
	r = fz_bpf(w, &o->ca, (int)o->cmd, attr, size);
	count(IF_CATTR, r);
	/* a command that made an object: the fd is not kept */
	if (r >= 0 && returns_fd(o->cmd))
		close(r);
	return r;
}

static int run_op(struct worker *w, const struct op *o)
{
	switch (o->kind) {
	case OP_MAP_CREATE:
		return run_map_create(w, o);
	case OP_MAP_CLOSE:
		close_fd_slot(&w->m[o->slot].fd);
		return 0;
	case OP_UPDATE:
	case OP_LOOKUP:
	case OP_DELETE:
	case OP_LOOKUP_DELETE:
		return run_elem(w, o);
	case OP_BURST:
		return run_burst(w, o);
	case OP_BATCH:
		return run_batch(w, o);
	case OP_WALK:
		return run_walk(w, o);
	case OP_ITER:
		return run_iter(w, o);
	case OP_TM_ATTACH:
		return run_tm_attach(w, o);
	case OP_FENTRY_ATTACH:
		return run_fentry_attach(w, o);
	case OP_TP_ATTACH:
		return run_tp_attach(w, o);
	case OP_PERF_ATTACH:
		return run_perf_attach(w, o);
	case OP_LINK_CLOSE:
		close_fd_slot(&w->l[o->slot].fd);
		close_fd_slot(&w->l[o->slot].prog);
		return 0;
	case OP_TRIGGER:
		return run_trigger(o);
	case OP_CATTR:
		return run_cattr(w, o);
	case NR_OPS:
		break;
	}
	return -EINVAL;
}

/* ---- setup (real mode) ---- */

static long find_kind(const struct btf_at *at, void *arg)
{
	uint32_t kind = BTF_INFO_KIND(at->t.info);
	const char *name = btf_str(at, at->t.name_off);
	uint32_t *seen = arg;

	if (kind == BTF_KIND_TYPEDEF && !strcmp(name, "btf_trace_sched_switch"))
		S.sched_switch = at->id;
	if (kind != BTF_KIND_FUNC && kind < 32 && !(*seen & (1U << kind)) &&
	    S.nnonfunc < 6) {
		*seen |= 1U << kind;
		S.nonfunc[S.nnonfunc++] = at->id;
	}
	if (at->id + 1 > S.btf_n)
		S.btf_n = at->id + 1;
	return 0;
}

static void setup(void)
{
	uint8_t btf[512];
	struct tfuncs tf;
	union bpf_attr a;
	uint32_t seen = 0;
	long id;
	int err;

	printf("kfuzz: setup\n");
	btf_walk(find_kind, &seen);
	id = btf_func_id("bpf_tracing_multi_stub");
	S.stub = id > 0 ? (uint32_t)id : S.btf_n + 7;
	for (int i = 0; i < 14; i++) {
		id = btf_func_id(trigger_funcs[i]);
		if (id > 0)
			S.pool[S.npool++] = (uint32_t)id;
	}
	id = btf_func_id("bpf_iter_bpf_map_elem");
	S.iter = id > 0 ? (uint32_t)id : 0;
	id = btf_func_id("bpf_fentry_test1");
	S.fentry_test1 = id > 0 ? (uint32_t)id : 0;
	err = traceable_funcs(&tf);
	if (!err && tf.n) {
		size_t step = tf.n / POOL_EXTRA ? tf.n / POOL_EXTRA : 1;

		for (size_t i = step / 2; i < tf.n && S.npool < 14 + POOL_EXTRA;
		     i += step) {
			bool dup = false;

			for (uint32_t j = 0; j < S.npool; j++)
				dup |= S.pool[j] == tf.f[i].id;
			if (!dup)
				S.pool[S.npool++] = tf.f[i].id;
		}
		tfuncs_free(&tf);
	}
	printf("kfuzz: function pool %u (14 triggered + traceable: %s), "
	       "BTF ids %u, stub %u, sched_switch %u\n", S.npool,
	       err ? err_name(err) : "ok", S.btf_n, S.stub, S.sched_switch);

	memset(&a, 0, sizeof(a));
	a.btf = (uintptr_t)btf;
	a.btf_size = (uint32_t)lock_btf(btf);
	S.btf = sys_bpf(BPF_BTF_LOAD, &a);
	S.pmap = map_create(MAP_TYPE_RHASH, 8, 16, 512, BPF_F_NO_PREALLOC, 0);
	if (S.pmap < 0)		/* a kernel without RHASH */
		S.pmap = map_create(BPF_MAP_TYPE_HASH, 8, 16, 512,
				    BPF_F_NO_PREALLOC, 0);
	S.prog[PG_MULTI_RET0] = load_ret0(BPF_PROG_TYPE_TRACING,
					  TRACE_FENTRY_MULTI, 0);
	S.prog[PG_MULTI_MAP] = load_map_prog(BPF_PROG_TYPE_TRACING,
					     TRACE_FENTRY_MULTI, 0);
	S.prog[PG_FEXIT_MULTI] = load_ret0(BPF_PROG_TYPE_TRACING,
					   TRACE_FEXIT_MULTI, 0);
	S.prog[PG_FENTRY_TEST] = load_ret0(BPF_PROG_TYPE_TRACING,
					   BPF_TRACE_FENTRY, S.fentry_test1);
	S.prog[PG_PERF] = load_map_prog(BPF_PROG_TYPE_PERF_EVENT, 0, 0);
	printf("kfuzz: lock BTF %s, shared map %s, programs:", fd_ok(S.btf),
	       fd_ok(S.pmap));
	for (int i = 0; i < NR_PG; i++)
		printf(" %s %s", pg_name[i], fd_ok(S.prog[i]));
	printf("\n");
	fflush(stdout);
}

/* ---- workers, helper threads, reports ---- */

static void worker_init(struct worker *w, int id, bool dry)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	rng_seed(&w->r, seed, (uint64_t)id + 1);
	for (int i = 0; i <= NMAP; i++)
		w->m[i].fd = -1;
	for (int i = 0; i < NLINK; i++)
		w->l[i].fd = w->l[i].prog = -1;
	if (dry)
		return;
	w->m[NMAP].fd = S.pmap;
	w->m[NMAP].ksize = 8;
	w->m[NMAP].vsize = 16;
	w->m[NMAP].max = 512;
	w->arena = mmap(NULL, ARENA + 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->arena == MAP_FAILED ||
	    mprotect(w->arena + ARENA, 4096, PROT_NONE)) {
		perror("kfuzz: the log arena");
		exit(1);
	}
	w->keys = calloc(BATCH_MAX, MAX_KEY);
	w->vals = calloc(BATCH_MAX, MAX_VAL + 8);
	w->ids = calloc(MULTI_MAX_CNT, sizeof(*w->ids));
	w->ck = calloc(MULTI_MAX_CNT, sizeof(*w->ck));
	if (!w->keys || !w->vals || !w->ids || !w->ck) {
		perror("kfuzz: batch buffers");
		exit(1);
	}
}

static uint64_t max_ops;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char line[2 * RING_LINE], text[RING_LINE];
	struct op o;
	uint64_t seq;
	int r;

	while (!atomic_load(&stop) && (!max_ops || w->n < max_ops)) {
		gen_op(&w->r, &w->model, &o);
		fmt_op(text, sizeof(text), &o);
		seq = atomic_fetch_add(&ring_seq, 1);
		snprintf(line, sizeof(line), "T%d #%" PRIu64 " %s = ...", w->id,
			 w->n, text);
		ring_write(seq, line);
		r = run_op(w, &o);
		snprintf(line, sizeof(line), "T%d #%" PRIu64 " %s = %d%s%s", w->id,
			 w->n, text, r, r < 0 ? " " : "",
			 r < 0 ? err_name(r) : "");
		ring_write(seq, line);
		atomic_fetch_add(&cnt.ops, 1);
		w->n++;
	}
	for (int i = 0; i < NMAP; i++)
		close_fd_slot(&w->m[i].fd);
	for (int i = 0; i < NLINK; i++) {
		close_fd_slot(&w->l[i].fd);
		close_fd_slot(&w->l[i].prog);
	}
	return NULL;
}

/* calls the traced functions all the time, so links close under them */
static void *trigger_main(void *arg)
{
	const struct timespec nap = { .tv_nsec = 200 * 1000 };

	(void)arg;
	while (!atomic_load(&stop)) {
		trigger_once();
		nanosleep(&nap, NULL);
	}
	return NULL;
}

static void report(const char *when, double secs)
{
	char kmsg[256];
	int fd;

	printf("kfuzz: %s seed %" PRIu64 " after %.0f s: %lu ops, "
	       "%lu links attached, %lu maps created (%lu with a lock), "
	       "%lu maps resized\n", when, seed, secs, atomic_load(&cnt.ops),
	       atomic_load(&cnt.links), atomic_load(&cnt.maps),
	       atomic_load(&cnt.lock_maps), atomic_load(&cnt.resized));
	for (int i = 0; i < NR_IF; i++)
		printf("kfuzz:   %-14s %8lu calls %8lu ok\n", if_name[i],
		       atomic_load(&cnt.calls[i]), atomic_load(&cnt.ok[i]));
	fflush(stdout);
	/* one line in the kernel log: where the run was when a splat came */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		int n = snprintf(kmsg, sizeof(kmsg),
				 "kfuzz: %s seed %" PRIu64 " ops %lu\n", when,
				 seed, atomic_load(&cnt.ops));

		if (write(fd, kmsg, (size_t)n) < 0) {
			/* not root: the serial log just lacks the marker */
		}
		close(fd);
	}
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kfuzz [-s SEED] [-t SECONDS] [-c OPS] [-j WORKERS] "
		"[-i SECONDS] [-o RINGFILE] [-n]\n"
		"  -s SEED     the seed (default: from getrandom; printed first)\n"
		"  -t SECONDS  run time (default 60)\n"
		"  -c OPS      operations per worker (default: no limit; "
		"-n: 100)\n"
		"  -j WORKERS  workers, each with its own stream (default 2)\n"
		"  -i SECONDS  counts every SECONDS (default 30)\n"
		"  -o FILE     the ring of the last %d operations "
		"(default kfuzz.ring)\n"
		"  -n          dry run: print each worker's operations, make "
		"no syscall\n", RING_N);
	exit(2);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && *s && !*end && *s != '-';
}

int main(int argc, char **argv)
{
	const char *ring = "kfuzz.ring";
	uint64_t secs = 60, every = 30, workers = 2, v;
	struct worker *w;
	pthread_t trig[2];
	bool dry = false, have_seed = false;
	double t0, next;
	int c;

	while ((c = getopt(argc, argv, "s:t:c:j:i:o:n")) != -1) {
		switch (c) {
		case 's':
			if (!parse_u64(optarg, &seed))
				usage();
			have_seed = true;
			break;
		case 't':
			if (!parse_u64(optarg, &secs))
				usage();
			break;
		case 'c':
			if (!parse_u64(optarg, &max_ops))
				usage();
			break;
		case 'j':
			if (!parse_u64(optarg, &workers) || !workers ||
			    workers > MAX_WORKERS)
				usage();
			break;
		case 'i':
			if (!parse_u64(optarg, &v) || !v)
				usage();
			every = v;
			break;
		case 'o':
			ring = optarg;
			break;
		case 'n':
			dry = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!have_seed && getrandom(&seed, sizeof(seed), 0) != sizeof(seed)) {
		perror("kfuzz: getrandom (give a seed with -s)");
		return 1;
	}
	printf("kfuzz: seed %" PRIu64 "\n", seed);
	w = calloc(workers, sizeof(*w));
	if (!w) {
		perror("kfuzz");
		return 1;
	}

	if (dry) {
		char text[RING_LINE];
		struct op o;

		if (!max_ops)
			max_ops = 100;
		for (uint64_t i = 0; i < workers; i++) {
			worker_init(&w[i], (int)i, true);
			for (uint64_t n = 0; n < max_ops; n++) {
				gen_op(&w[i].r, &w[i].model, &o);
				fmt_op(text, sizeof(text), &o);
				printf("T%d #%" PRIu64 " %s\n", (int)i, n, text);
			}
		}
		return 0;
	}

	ring_fd = open(ring, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (ring_fd < 0) {
		fprintf(stderr, "kfuzz: %s: %s\n", ring, strerror(errno));
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setup();
	for (uint64_t i = 0; i < workers; i++)
		worker_init(&w[i], (int)i, false);
	for (int i = 0; i < 2; i++)
		pthread_create(&trig[i], NULL, trigger_main, NULL);
	for (uint64_t i = 0; i < workers; i++)
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	t0 = now_s();
	next = t0 + (double)every;
	report("start", 0);
	while (!atomic_load(&stop)) {
		const struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
		double t = now_s();
		bool done = true;

		if (t - t0 >= (double)secs)
			break;
		for (uint64_t i = 0; i < workers && max_ops; i++)
			done &= w[i].n >= max_ops;
		if (max_ops && done)
			break;
		if (t >= next) {
			report("progress", t - t0);
			fdatasync(ring_fd);
			next += (double)every;
		}
		nanosleep(&tick, NULL);
		if ((uint64_t)((t - t0) * 10) % 10 == 0)
			fdatasync(ring_fd);
	}
	atomic_store(&stop, 1);
	for (uint64_t i = 0; i < workers; i++)
		pthread_join(w[i].th, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(trig[i], NULL);
	fdatasync(ring_fd);
	report("end", now_s() - t0);
	return 0;
}
