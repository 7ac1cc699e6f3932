// SPDX-License-Identifier: GPL-2.0
/*
 * rhashstress: concurrency stress of BPF_MAP_TYPE_RHASH (spec section 2)
 * from user space, with raw bpf() calls, so that one binary runs on both
 * kernels and needs nothing but the C library.
 *
 *   rhashstress [-l] [-v] [-t PATTERN]... [-m rhash|hash] [-s SECONDS]
 *               [-k KEYSIZE] [-n KEYS]
 *
 * -m hash runs the same stress on BPF_MAP_TYPE_HASH (BPF_F_NO_PREALLOC),
 * as a reference on either kernel. Threads, all on one map fd:
 *  - NWRITERS writers, each owning KEYS keys, fill their range and then
 *    delete all but every RESIDENT_EVERY-th key, in waves, so that an
 *    rhash table grows and shrinks several times. Every write carries a
 *    per-writer sequence number; each writer knows which of its keys
 *    must be present and with which value, and now and then checks on
 *    purpose that the kernel answers EEXIST or ENOENT;
 *  - an iterator walking the map with get_next_key (a walk may not fail)
 *    and with lookup_batch (EAGAIN, the cursor deleted, restarts it);
 *  - NLOOKUPS readers of random keys: ENOENT, or a value that is
 *    plausible for the key and its owner; a resident key (never deleted
 *    once inserted) must always be found, also while the table resizes;
 *  - a sampler of "memlock:" in /proc/self/fdinfo/FD. For rhash that is
 *    the map struct, the bucket tables and (elem_size + 8) per element,
 *    so taking off the elements (bounded by the writers' counts around
 *    the read) shows the size of the bucket table: it counts the grows
 *    and shrinks.
 * Once the threads are joined, the map must hold exactly what the writers
 * expect, read back by get_next_key, lookup_batch and lookup; then
 * everything is deleted.
 *
 * On the harness (../lib/harness.h), the cases: create (the map under
 * stress), memlock_model (the calibration), stress (the threads run,
 * then what each saw), final_walk, final_batch, final_lookups and
 * delete_all (afterwards); each runs what it needs of the ones before it
 * (once), so -t can select it alone. On a kernel without the map type
 * (creating one fails with EINVAL and the kernel's BTF does not name
 * BPF_MAP_TYPE_RHASH), -m rhash reports "RHASH absent" with kb_absent()
 * and exits 0. Exit 1 if a check failed, 2 on usage errors.
 */
#define _GNU_SOURCE
#include "rhashlib.h"
#include <pthread.h>
#include <stdatomic.h>

#define NWRITERS	2
#define NLOOKUPS	2
#define MAX_ENTRIES	(1U << 16)
#define ID_SHIFT	20	/* writer w owns ids ((w + 1) << 20) + i */
#define RESIDENT_EVERY	10	/* key i % 10 == 0 stays once inserted */
#define MIN_WAVES	3
#define BATCH_COUNT	64
#define SEQ_SHIFT	40	/* value seq: owner + 1 above, counter below */
#define MAX_EVENTS	16	/* resize events printed as # lines */
#define MAX_KEYS	(MAX_ENTRIES / NWRITERS / 2)	/* -n */

/* Every value: a sequence number and a word fixed by the key. */
struct val {
	uint64_t seq;
	uint64_t tag;
};

/* What went wrong in one thread: how often, and the first time. */
struct errlog {
	long n;
	char first[256];
};

struct writer {
	int id;
	pthread_t thr;
	uint8_t *present;
	struct val *val;
	uint32_t *order;
	uint64_t rnd;
	uint64_t counter;
	_Atomic uint64_t published;	/* >= every counter written */
	_Atomic long count;		/* keys present, after the syscall */
	_Atomic unsigned int phase;	/* count is monotonic within a phase */
	_Atomic int resident_ready;
	long ops, waves, checks, lad_checks;
	struct errlog err;
};

struct reader {
	pthread_t thr;
	uint64_t rnd;
	long lookups, found, enoent, resident, reused;
	struct errlog err;
};

struct iterator {
	pthread_t thr;
	long walks, walk_keys, capped, bwalks, bkeys, restarts, bgiveup;
	struct errlog walk_err, batch_err;
};

struct event {
	double t;
	int from, to;
};

struct sampler {
	pthread_t thr;
	int level, min_level, max_level;
	long samples, discarded, resolved, grows, shrinks;
	int nevents;
	struct event ev[MAX_EVENTS];
	struct errlog err;
};

static int map_fd = -1, fdinfo_fd = -1;
static uint32_t key_size = 8, nkeys = 3000;
static double seconds = 5;
static bool is_rhash;
static int64_t elem_mem, base_mem;	/* memlock model, from calibration */
static bool model_ok;
static struct writer writers[NWRITERS];
static pthread_barrier_t wave_barrier;
static _Atomic int stop_readers;
static _Atomic int more_waves;
static double t_start, deadline, t_stress;

static int parse(int opt, const char *arg)
{
	char *end;
	double d;
	unsigned long n;

	if (opt == 'm')
		return set_map_type(arg);
	if (opt == 's') {
		d = strtod(arg, &end);
		if (end == arg || *end || d < 0)
			return -1;
		seconds = d;
		return 0;
	}
	n = strtoul(arg, &end, 0);
	if (end == arg || *end)
		return -1;
	if (opt == 'k' && n >= 4 && n <= MAX_KEY)
		key_size = n;
	else if (opt == 'n' && n >= 100 && n <= MAX_KEYS)
		nkeys = n;
	else
		return -1;
	return 0;
}

_Static_assert(MAX_KEY == 1024 && MAX_KEYS == 16384,
	       "the usage line below names the limits of -k and -n");
KB_OPTIONS("m:s:k:n:",
	   "[-m rhash|hash] [-s SECONDS] [-k KEYSIZE 4..1024] [-n KEYS 100..16384]",
	   parse);

static double now(void)
{
	return now_ns() / 1e9;
}

static void note(struct errlog *e, const char *fmt, ...)
{
	va_list ap;

	if (e->n++)
		return;
	va_start(ap, fmt);
	vsnprintf(e->first, sizeof(e->first), fmt, ap);
	va_end(ap);
}

/* ", first: ..." for a result line, or nothing */
static const char *first_err(const struct errlog *e)
{
	static char buf[300];

	if (!e->n)
		return "";
	snprintf(buf, sizeof(buf), "; first: %s", e->first);
	return buf;
}

static uint64_t rnd_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* "memlock:" of fdinfo; -1 on error */
static int64_t read_memlock(int fd)
{
	char buf[1024], *p;
	ssize_t r;

	r = pread(fd, buf, sizeof(buf) - 1, 0);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	p = strstr(buf, "\nmemlock:");
	if (!p)
		return -1;
	return strtoll(p + 9, NULL, 10);
}

static int open_fdinfo(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return open(path, O_RDONLY);
}

static int64_t memlock_of(int fd)
{
	int64_t m;
	int ifd;

	ifd = open_fdinfo(fd);
	if (ifd < 0)
		return -1;
	m = read_memlock(ifd);
	close(ifd);
	return m;
}

/* ---- the map, keys and values ---- */

/* A map like the one under stress, with map_extra hint */
static int stress_map(uint64_t hint)
{
	return test_map(key_size, sizeof(struct val), MAX_ENTRIES, hint);
}

static uint32_t key_id(int w, uint32_t i)
{
	return ((uint32_t)(w + 1) << ID_SHIFT) | i;
}

/*
 * The owner and index of a key; false for a key no writer would make
 * (not a make_key() key, or outside every writer's range).
 */
static bool decode_key(const uint8_t *key, int *w, uint32_t *idx)
{
	uint64_t id, hi;

	if (!key_num(key, key_size, &id))
		return false;
	hi = id >> ID_SHIFT;
	*idx = id & ((1U << ID_SHIFT) - 1);
	if (hi < 1 || hi > NWRITERS || *idx >= nkeys)
		return false;
	*w = hi - 1;
	return true;
}

static uint64_t key_tag(uint32_t id)
{
	return (uint64_t)id << 32 | (uint32_t)~id;
}

static bool is_resident(uint32_t idx)
{
	return idx % RESIDENT_EVERY == 0;
}

/* The smallest 2^k - 1 >= x */
static uint64_t pow2_mask(uint64_t x)
{
	x |= x >> 1;
	x |= x >> 2;
	x |= x >> 4;
	x |= x >> 8;
	x |= x >> 16;
	x |= x >> 32;
	return x;
}

/*
 * Could a reader see v for key (w, idx)? The tag never changes for a key
 * and the owner's byte never changes for a writer, so a value torn by
 * an in-place update (spec: readers may see torn values) still has
 * them. Any byte mix of two counters <= published is <= pow2_mask().
 */
static bool plausible(const struct val *v, int w, uint32_t idx,
		      uint64_t published)
{
	if (v->tag != key_tag(key_id(w, idx)))
		return false;
	if (v->seq >> SEQ_SHIFT != (uint64_t)w + 1)
		return false;
	return (v->seq & ((1ULL << SEQ_SHIFT) - 1)) <= pow2_mask(published);
}

/* ---- writers ---- */

static void next_value(struct writer *w, uint32_t idx, struct val *v)
{
	w->counter++;
	atomic_store(&w->published, w->counter);
	v->seq = (uint64_t)(w->id + 1) << SEQ_SHIFT | w->counter;
	v->tag = key_tag(key_id(w->id, idx));
}

static void expect(struct writer *w, int got, int want, const char *op,
		   uint32_t idx)
{
	w->ops++;
	if (got != want)
		note(&w->err, "wave %ld: %s key %u: %s, want %s", w->waves, op,
		     idx, err_name(got), err_name(want));
}

static void shuffle(struct writer *w)
{
	uint32_t i, j, t;

	for (i = nkeys - 1; i > 0; i--) {
		j = rnd_next(&w->rnd) % (i + 1);
		t = w->order[i];
		w->order[i] = w->order[j];
		w->order[j] = t;
	}
}

/* The owner reads its key back: nobody else writes it, so exactly. */
static void check_own(struct writer *w, const uint8_t *key, uint32_t idx)
{
	struct val v;
	int err;

	err = elem_lookup(map_fd, key, &v);
	expect(w, err, 0, "own lookup", idx);
	if (!err && memcmp(&v, &w->val[idx], sizeof(v)))
		note(&w->err, "wave %ld: own lookup key %u: seq %#llx, want %#llx",
		     w->waves, idx, (unsigned long long)v.seq,
		     (unsigned long long)w->val[idx].seq);
	w->checks++;
}

/*
 * Insert pct % of the absent keys; update the present ones with
 * BPF_EXIST. Only ever adds keys: the count goes up in this phase.
 */
static void fill(struct writer *w, unsigned int pct)
{
	uint8_t key[MAX_KEY];
	struct val v;
	uint32_t n, idx;
	uint64_t flags;
	int err, r;

	atomic_fetch_add(&w->phase, 1);
	shuffle(w);
	for (n = 0; n < nkeys; n++) {
		idx = w->order[n];
		make_key(key, key_size, key_id(w->id, idx));
		r = rnd_next(&w->rnd) % 16;
		if (w->present[idx]) {
			next_value(w, idx, &v);
			err = elem_update(map_fd, key, &v, BPF_EXIST);
			expect(w, err, 0, "update BPF_EXIST", idx);
			if (!err)
				w->val[idx] = v;
			continue;
		}
		if (rnd_next(&w->rnd) % 100 >= pct)
			continue;
		if (r == 0) {
			next_value(w, idx, &v);
			expect(w, elem_update(map_fd, key, &v, BPF_EXIST),
			       -ENOENT, "update BPF_EXIST of an absent key", idx);
			w->checks++;
		} else if (r == 1) {
			expect(w, elem_delete(map_fd, key), -ENOENT,
			       "delete of an absent key", idx);
			w->checks++;
		}
		next_value(w, idx, &v);
		flags = r == 5 ? BPF_ANY : BPF_NOEXIST;
		err = elem_update(map_fd, key, &v, flags);
		expect(w, err, 0, flags == BPF_ANY ? "insert BPF_ANY" :
		       "insert BPF_NOEXIST", idx);
		if (err)
			continue;
		w->present[idx] = 1;
		w->val[idx] = v;
		atomic_fetch_add(&w->count, 1);
		if (r == 2) {
			next_value(w, idx, &v);
			expect(w, elem_update(map_fd, key, &v, BPF_NOEXIST),
			       -EEXIST, "update BPF_NOEXIST of a present key",
			       idx);
			w->checks++;
		} else if (r == 3) {
			check_own(w, key, idx);
		} else if (r == 4) {
			next_value(w, idx, &v);
			err = elem_update(map_fd, key, &v, BPF_ANY);
			expect(w, err, 0, "update BPF_ANY", idx);
			if (!err)
				w->val[idx] = v;
			check_own(w, key, idx);
		}
	}
}

/*
 * Delete every present key but the resident ones; now and then update
 * a resident key in place. Only ever removes keys.
 */
static void drain(struct writer *w)
{
	uint8_t key[MAX_KEY];
	struct val v;
	uint32_t n, idx, res;
	int err, r;

	atomic_fetch_add(&w->phase, 1);
	shuffle(w);
	for (n = 0; n < nkeys; n++) {
		idx = w->order[n];
		if (!w->present[idx] || is_resident(idx))
			continue;
		make_key(key, key_size, key_id(w->id, idx));
		r = rnd_next(&w->rnd) % 16;
		if (r < 2) {
			memset(&v, 0, sizeof(v));
			err = elem_op(BPF_MAP_LOOKUP_AND_DELETE_ELEM, map_fd,
				      key, &v, 0);
			expect(w, err, 0, "lookup_and_delete", idx);
			if (!err && memcmp(&v, &w->val[idx], sizeof(v)))
				note(&w->err,
				     "wave %ld: lookup_and_delete key %u: seq %#llx, want %#llx",
				     w->waves, idx, (unsigned long long)v.seq,
				     (unsigned long long)w->val[idx].seq);
			w->lad_checks++;
		} else {
			err = elem_delete(map_fd, key);
			expect(w, err, 0, "delete", idx);
		}
		if (err && err != -ENOENT)
			continue;
		w->present[idx] = 0;
		atomic_fetch_sub(&w->count, 1);
		if (r == 2) {
			expect(w, elem_delete(map_fd, key), -ENOENT,
			       "second delete", idx);
			w->checks++;
		} else if (r == 3) {
			expect(w, elem_lookup(map_fd, key, &v), -ENOENT,
			       "lookup of a deleted key", idx);
			w->checks++;
		}
		if (n % 8 == 0) {
			res = rnd_next(&w->rnd) %
			      ((nkeys + RESIDENT_EVERY - 1) / RESIDENT_EVERY) *
			      RESIDENT_EVERY;
			make_key(key, key_size, key_id(w->id, res));
			next_value(w, res, &v);
			err = elem_update(map_fd, key, &v, BPF_EXIST);
			expect(w, err, 0, "update BPF_EXIST of a resident key",
			       res);
			if (!err)
				w->val[res] = v;
		}
	}
}

/* All writers meet here; one decides whether another wave starts. */
static bool wave_end(struct writer *w)
{
	if (pthread_barrier_wait(&wave_barrier) ==
	    PTHREAD_BARRIER_SERIAL_THREAD)
		atomic_store(&more_waves,
			     w->waves < MIN_WAVES || now() < deadline);
	pthread_barrier_wait(&wave_barrier);
	return atomic_load(&more_waves);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	do {
		fill(w, 100);
		atomic_store(&w->resident_ready, 1);
		pthread_barrier_wait(&wave_barrier);
		drain(w);
		w->waves++;
	} while (wave_end(w));
	/* leave a mix of keys for the checks after the stress */
	fill(w, 50);
	return NULL;
}

/* ---- readers ---- */

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	uint8_t key[MAX_KEY];
	uint32_t idx;
	uint64_t r;
	struct val v;
	bool resident;
	int w, err;

	while (!atomic_load(&stop_readers)) {
		r = rnd_next(&rd->rnd);
		w = r % (NWRITERS + 1);	/* NWRITERS: nobody's keys */
		idx = (r >> 16) % nkeys;
		make_key(key, key_size, key_id(w, idx));
		resident = w < NWRITERS && is_resident(idx) &&
			   atomic_load(&writers[w].resident_ready);
		err = elem_lookup(map_fd, key, &v);
		rd->lookups++;
		if (err == -ENOENT) {
			rd->enoent++;
			if (resident)
				note(&rd->err, "resident key %u of writer %d: ENOENT",
				     idx, w);
			continue;
		}
		if (err) {
			note(&rd->err, "lookup: %s", err_name(err));
			continue;
		}
		rd->found++;
		rd->resident += resident;
		if (w == NWRITERS) {
			note(&rd->err, "key %u that no writer owns was found",
			     idx);
			continue;
		}
		if (plausible(&v, w, idx, atomic_load(&writers[w].published)))
			continue;
		/*
		 * BPF_MAP_TYPE_HASH hands a deleted element to the next
		 * insert at once (bpf_mem_cache_free), so a reader may copy
		 * another key's value. rhash frees after an RCU grace period.
		 */
		if (!is_rhash && v.tag != key_tag(key_id(w, idx))) {
			rd->reused++;
			continue;
		}
		note(&rd->err, "key %u of writer %d: seq %#llx tag %#llx (writer at %llu)",
		     idx, w, (unsigned long long)v.seq,
		     (unsigned long long)v.tag,
		     (unsigned long long)atomic_load(&writers[w].published));
	}
	return NULL;
}

/* ---- iterator ---- */

static void walk_once(struct iterator *it)
{
	struct key_walk kw = { .fd = map_fd, .ksize = key_size };
	long cap = 4L * NWRITERS * nkeys + 64;
	uint32_t idx;
	int w, err;

	while (!(err = walk_next(&kw))) {
		if (!decode_key(kw.key, &w, &idx)) {
			memcpy(&idx, kw.key, sizeof(idx));
			note(&it->walk_err, "get_next_key gave a key no writer owns (id %#x)",
			     idx);
			return;
		}
		if (kw.n > cap) {
			it->capped++;
			break;
		}
	}
	if (err && err != -ENOENT) {
		note(&it->walk_err, "get_next_key after %ld keys: %s", kw.n,
		     err_name(err));
		return;
	}
	it->walks++;
	it->walk_keys += kw.n;
}

static void batch_walk_once(struct iterator *it)
{
	static uint8_t keys[BATCH_COUNT * MAX_KEY];
	static struct val vals[BATCH_COUNT];
	struct batch_walk bw = { .cmd = BPF_MAP_LOOKUP_BATCH, .fd = map_fd };
	uint32_t count, i, idx;
	int w, err, restarts = 0;

	for (;;) {
		count = BATCH_COUNT;
		err = batch_next(&bw, keys, vals, &count);
		for (i = 0; i < count && i < BATCH_COUNT; i++) {
			if (!decode_key(keys + i * key_size, &w, &idx)) {
				note(&it->batch_err, "lookup_batch gave a key no writer owns");
				return;
			}
			if (vals[i].tag != key_tag(key_id(w, idx)))
				note(&it->batch_err,
				     "lookup_batch: key %u of writer %d with tag %#llx",
				     idx, w, (unsigned long long)vals[i].tag);
		}
		it->bkeys += count;
		if (err == -ENOENT)
			break;
		if (err == -EAGAIN) {
			/* the cursor's element was deleted: start over */
			it->restarts++;
			if (++restarts > 1000) {
				it->bgiveup++;
				return;
			}
			bw.started = false;
			continue;
		}
		if (err) {
			note(&it->batch_err, "lookup_batch: %s", err_name(err));
			return;
		}
	}
	it->bwalks++;
}

static void *iterator_main(void *arg)
{
	struct iterator *it = arg;

	while (!atomic_load(&stop_readers)) {
		walk_once(it);
		if (!atomic_load(&stop_readers))
			batch_walk_once(it);
	}
	return NULL;
}

/* ---- memlock sampler ---- */

/*
 * The bucket-table part of memlock, [lo, hi], as a level: log2 of the
 * table's buckets for rhash (a lone table within 15 %; a table being
 * rehashed into another is not one), 0 for hash when it did not change.
 * -1000: cannot tell.
 */
static int level_of(int64_t lo, int64_t hi)
{
	int l;

	if (!is_rhash) {
		if (lo >= -8192 && hi <= 8192)
			return 0;
		if (lo > 8192)
			return 1;
		if (hi < -8192)
			return -1;
		return -1000;
	}
	for (l = 2; l <= 24; l++) {
		int64_t t = 8LL << l;

		if (lo >= t - t * 15 / 100 && hi <= t + t * 15 / 100)
			return l;
	}
	return -1000;
}

static void sample(struct sampler *s)
{
	unsigned int ph0[NWRITERS], ph1[NWRITERS];
	long c0[NWRITERS], c1[NWRITERS];
	int64_t m, nlo = 0, nhi = 0;
	int i, l;

	for (i = 0; i < NWRITERS; i++) {
		ph0[i] = atomic_load(&writers[i].phase);
		c0[i] = atomic_load(&writers[i].count);
	}
	m = read_memlock(fdinfo_fd);
	for (i = 0; i < NWRITERS; i++) {
		c1[i] = atomic_load(&writers[i].count);
		ph1[i] = atomic_load(&writers[i].phase);
	}
	if (m < 0) {
		note(&s->err, "reading memlock from fdinfo failed");
		return;
	}
	s->samples++;
	for (i = 0; i < NWRITERS; i++) {
		if (ph0[i] != ph1[i]) {
			s->discarded++;
			return;
		}
		/* one syscall in flight may have counted in the kernel */
		nlo += (c0[i] < c1[i] ? c0[i] : c1[i]) - 1;
		nhi += (c0[i] > c1[i] ? c0[i] : c1[i]) + 1;
	}
	if (nlo < 0)
		nlo = 0;
	l = level_of(m - base_mem - elem_mem * nhi,
		     m - base_mem - elem_mem * nlo);
	if (l == -1000)
		return;
	s->resolved++;
	if (s->level != -1000 && l != s->level) {
		if (l > s->level)
			s->grows++;
		else
			s->shrinks++;
		if (s->nevents < MAX_EVENTS) {
			s->ev[s->nevents].t = now() - t_start;
			s->ev[s->nevents].from = s->level;
			s->ev[s->nevents].to = l;
			s->nevents++;
		}
	}
	s->level = l;
	if (l < s->min_level)
		s->min_level = l;
	if (l > s->max_level)
		s->max_level = l;
}

static void *sampler_main(void *arg)
{
	struct timespec pause = { 0, 500 * 1000 };
	struct sampler *s = arg;

	while (!atomic_load(&stop_readers)) {
		if (model_ok)
			sample(s);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/* ---- calibration: memlock per element and per bucket ---- */

static int fill_keys(int fd, uint32_t n)
{
	uint8_t key[MAX_KEY];
	struct val v = { 1, 0 };
	uint32_t i;
	int err;

	for (i = 0; i < n; i++) {
		make_key(key, key_size, key_id(NWRITERS, i));
		err = elem_update(fd, key, &v, BPF_NOEXIST);
		if (err)
			return err;
	}
	return 0;
}

/*
 * rhash: a map with hint 96 (128 buckets) and one with hint 3000 (4096
 * buckets) differ by 8 bytes a bucket; 256 elements (no resize) add
 * elem_size + 8 each. base_mem is memlock less 8 bytes a bucket: the
 * stress map, empty, must then show a power-of-two table.
 * hash: elements are measured the same way; base_mem is the empty map.
 */
static void calibrate(void)
{
	const int64_t want_elem = 16 + (key_size + 7) / 8 * 8 +
				  sizeof(struct val);
	int64_t m_small = 0, m_big, m_full, m_stress;
	int fd_small = -1, fd_big, err;
	char what[200] = "";

	fd_big = stress_map(is_rhash ? 3000 : 0);
	if (is_rhash)
		fd_small = stress_map(96);
	if (fd_big < 0 || (is_rhash && fd_small < 0)) {
		ASSERT_FD(fd_big < 0 ? fd_big : fd_small,
			  "memlock model: create calibration maps");
		goto out;
	}
	m_big = memlock_of(fd_big);
	if (is_rhash)
		m_small = memlock_of(fd_small);
	err = fill_keys(fd_big, 256);
	m_full = memlock_of(fd_big);
	m_stress = memlock_of(map_fd);
	if (err || m_big < 0 || m_small < 0 || m_full < 0 || m_stress < 0) {
		ASSERT_TRUE(0, "memlock model: fill %s, memlock %lld %lld %lld %lld",
			    err_name(err), (long long)m_big, (long long)m_small,
			    (long long)m_full, (long long)m_stress);
		goto out;
	}
	elem_mem = (m_full - m_big) / 256;
	if (!is_rhash) {
		base_mem = m_stress;
		model_ok = (m_full - m_big) % 256 == 0 && elem_mem > 0;
		ASSERT_TRUE(model_ok,
			    "memlock model: %lld bytes per element (measured), empty map %lld",
			    (long long)elem_mem, (long long)m_stress);
		goto out;
	}
	base_mem = m_small - 8 * 128;
	model_ok = m_full - m_big == 256 * want_elem &&
		   m_big - m_small == 8 * (4096 - 128);
	if (model_ok) {
		int64_t t = m_stress - base_mem;

		model_ok = t >= 32 && t % 8 == 0 && !((t / 8) & (t / 8 - 1));
		snprintf(what, sizeof(what), ", new map: %lld buckets",
			 (long long)(t / 8));
	}
	ASSERT_TRUE(model_ok,
		    "memlock model: %lld bytes per element (want %lld), %lld per 3968 buckets (want %d)%s",
		    (long long)(m_full - m_big) / 256, (long long)want_elem,
		    (long long)(m_big - m_small), 8 * (4096 - 128), what);
out:
	close_fd(fd_big);
	close_fd(fd_small);
}

/* ---- the cases: the map, the model, the stress ---- */

/* The map under stress (once): false if absent or not created. */
static bool created(void)
{
	static int done;	/* 1 created, -1 absent or failed */

	if (done)
		return done > 0;
	is_rhash = map_type == MAP_TYPE_RHASH;
	map_fd = stress_map(0);
	done = rhash_created(map_fd, "create %s map, BPF_F_NO_PREALLOC",
			     type_name) ? 1 : -1;
	if (done < 0)
		return false;
	printf("# %s, key_size %u, value_size %zu, max_entries %u, %d writers x %u keys, %d lookup threads, %.1f s\n",
	       type_name, key_size, sizeof(struct val), MAX_ENTRIES, NWRITERS,
	       nkeys, NLOOKUPS, seconds);
	fdinfo_fd = open_fdinfo(map_fd);
	return true;
}

KB_CASE(create)
{
	created();
}

/* The memlock model (once), after the map: false without the map. */
static bool calibrated(void)
{
	static bool done;

	if (!created())
		return false;
	if (!done)
		calibrate();
	done = true;
	return true;
}

KB_CASE(memlock_model)
{
	calibrated();
}

static struct reader readers[NLOOKUPS];
static struct iterator iter;
static struct sampler smp;

/*
 * The stress (once): the threads run for the seconds of -s (at least
 * MIN_WAVES waves) and are joined. False without the map; a thread that
 * cannot start bails out (exit 1), as the others may be waiting for it.
 */
static bool stressed(void)
{
	static int done;	/* 1 run, -1 could not run */
	int i, err;

	if (done)
		return done > 0;
	done = -1;
	if (!calibrated())
		return false;
	/* the level of the new map, before the threads start */
	smp.level = -1000;
	if (model_ok && is_rhash) {
		int64_t t = (memlock_of(map_fd) - base_mem) / 8;

		for (smp.level = 0; (1LL << smp.level) < t; smp.level++)
			;
	} else if (model_ok) {
		smp.level = 0;
	}
	smp.min_level = smp.level == -1000 ? 1000 : smp.level;
	smp.max_level = smp.level;

	pthread_barrier_init(&wave_barrier, NULL, NWRITERS);
	t_start = now();
	deadline = t_start + seconds;
	for (i = 0; i < NWRITERS; i++) {
		struct writer *w = &writers[i];
		uint32_t j;

		w->id = i;
		w->rnd = (uint64_t)t_start * 1000003 + 2 * i + 1;
		w->present = calloc(nkeys, 1);
		w->val = calloc(nkeys, sizeof(*w->val));
		w->order = calloc(nkeys, sizeof(*w->order));
		if (!w->present || !w->val || !w->order) {
			ASSERT_TRUE(0, "stress: the tables of writer %d: out of memory",
				    i);
			return false;
		}
		for (j = 0; j < nkeys; j++)
			w->order[j] = j;
	}
	err = pthread_create(&smp.thr, NULL, sampler_main, &smp);
	err = err ?: pthread_create(&iter.thr, NULL, iterator_main, &iter);
	for (i = 0; !err && i < NLOOKUPS; i++) {
		readers[i].rnd = (uint64_t)t_start * 7919 + 2 * i + 99;
		err = pthread_create(&readers[i].thr, NULL, reader_main,
				     &readers[i]);
	}
	for (i = 0; !err && i < NWRITERS; i++)
		err = pthread_create(&writers[i].thr, NULL, writer_main,
				     &writers[i]);
	if (err) {
		printf("Bail out! pthread_create: %s\n", strerror(err));
		exit(1);
	}
	for (i = 0; i < NWRITERS; i++)
		pthread_join(writers[i].thr, NULL);
	atomic_store(&stop_readers, 1);
	for (i = 0; i < NLOOKUPS; i++)
		pthread_join(readers[i].thr, NULL);
	pthread_join(iter.thr, NULL);
	pthread_join(smp.thr, NULL);
	t_stress = now() - t_start;
	done = 1;
	return true;
}

/* What the threads saw: one line each of their kinds */
static void report_threads(struct reader *rd, struct iterator *it,
			   struct sampler *s)
{
	long lookups = 0, found = 0, enoent = 0, resident = 0, reused = 0;
	struct errlog *first = NULL;
	long rerr = 0;
	int i;

	for (i = 0; i < NWRITERS; i++) {
		struct writer *w = &writers[i];

		ASSERT_TRUE(!w->err.n,
			    "writer %d: %ld waves, %ld ops, %ld errno checks, %ld lookup_and_delete, %ld present at the end, %ld errors%s",
			    i, w->waves, w->ops, w->checks, w->lad_checks,
			    atomic_load(&w->count), w->err.n, first_err(&w->err));
	}
	for (i = 0; i < NLOOKUPS; i++) {
		lookups += rd[i].lookups;
		found += rd[i].found;
		enoent += rd[i].enoent;
		resident += rd[i].resident;
		reused += rd[i].reused;
		rerr += rd[i].err.n;
		if (rd[i].err.n && !first)
			first = &rd[i].err;
	}
	ASSERT_TRUE(!rerr && found > 0,
		    "lookups: %ld, %ld found (%ld resident), %ld ENOENT, %ld values of a reused element, %ld errors%s",
		    lookups, found, resident, enoent, reused, rerr,
		    first ? first_err(first) : "");
	ASSERT_TRUE(!it->walk_err.n && it->walks > 0,
		    "get_next_key walks during the stress: %ld complete, %ld keys, %ld cut at the step cap, %ld errors%s",
		    it->walks, it->walk_keys, it->capped, it->walk_err.n,
		    first_err(&it->walk_err));
	ASSERT_TRUE(!it->batch_err.n && it->bwalks > 0,
		    "lookup_batch walks during the stress: %ld complete, %ld elements, %ld EAGAIN restarts, %ld given up, %ld errors%s",
		    it->bwalks, it->bkeys, it->restarts, it->bgiveup,
		    it->batch_err.n, first_err(&it->batch_err));
	if (is_rhash)
		ASSERT_TRUE(model_ok && !s->err.n && s->grows >= 2 &&
			    s->shrinks >= 2,
			    "memlock shows the table grow %ld and shrink %ld times (want >= 2 each), %d..%d buckets, %ld of %ld samples resolved%s",
			    s->grows, s->shrinks,
			    s->min_level > 30 ? 0 : 1 << s->min_level,
			    s->max_level < 0 ? 0 : 1 << s->max_level,
			    s->resolved, s->samples, first_err(&s->err));
	else
		ASSERT_TRUE(model_ok && !s->err.n,
			    "memlock: bucket part grew %ld and shrank %ld times (hash does not resize; not required), %ld of %ld samples resolved%s",
			    s->grows, s->shrinks, s->resolved, s->samples,
			    first_err(&s->err));
	for (i = 0; i < s->nevents; i++) {
		if (is_rhash)
			printf("# %6.2f s: table %d -> %d buckets\n", s->ev[i].t,
			       s->ev[i].from == -1000 ? 0 : 1 << s->ev[i].from,
			       1 << s->ev[i].to);
		else
			printf("# %6.2f s: bucket part level %d -> %d\n",
			       s->ev[i].t, s->ev[i].from, s->ev[i].to);
	}
}

KB_CASE(stress)
{
	if (stressed())
		report_threads(readers, &iter, &smp);
}

/* ---- checks once the threads are done ---- */

static long expected_present(void)
{
	long n = 0;
	int w;

	for (w = 0; w < NWRITERS; w++)
		n += atomic_load(&writers[w].count);
	return n;
}

/*
 * One get_next_key walk after the stress, counted against the writers'
 * keys. A walk is best effort while the table rehashes (spec section 2:
 * an element may be seen twice or skipped), and the resize worker may
 * still run after the writers stopped (the last deletes kick a shrink
 * through irq_work): walk again, 10 ms apart, for up to 3 s, until one
 * walk sees every expected key once. A lost key never comes back, so a
 * real loss or a lasting duplicate still fails.
 */
static int final_walk_once(long *n, long *found, long *dup,
			   long *bad, uint8_t **seen)
{
	struct key_walk kw = { .fd = map_fd, .ksize = key_size };
	uint32_t idx;
	int w, err;

	*found = *dup = *bad = 0;
	for (w = 0; w < NWRITERS; w++)
		memset(seen[w], 0, nkeys);
	while (!(err = walk_next(&kw))) {
		if (!decode_key(kw.key, &w, &idx) || !writers[w].present[idx])
			(*bad)++;
		else if (seen[w][idx]++)
			(*dup)++;
		else
			(*found)++;
		if (kw.n > MAX_ENTRIES + 16) {
			err = -ELOOP;
			break;
		}
	}
	*n = kw.n;
	return err;
}

KB_CASE(final_walk)
{
	const struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	long found, dup, bad, n, want;
	uint8_t *seen[NWRITERS];
	int w, err, walks = 0;

	if (!stressed())
		return;
	want = expected_present();
	for (w = 0; w < NWRITERS; w++)
		seen[w] = calloc(nkeys, 1);
	do {
		if (walks)
			nanosleep(&pause, NULL);
		err = final_walk_once(&n, &found, &dup, &bad, seen);
	} while (++walks < 300 && !(err == -ENOENT && n == want && !dup &&
				    !bad && found == want));
	printf("# after the stress: %d walk(s) until one saw the table at rest\n",
	       walks);
	ASSERT_TRUE(err == -ENOENT && n == want,
		    "after the stress: get_next_key walk counts %ld keys, the writers expect %ld (ends %s)",
		    n, want, err_name(err));
	ASSERT_TRUE(!dup && !bad && found == want,
		    "after the stress: walk sees each expected key once (%ld), %ld twice, %ld unexpected",
		    found, dup, bad);
	for (w = 0; w < NWRITERS; w++)
		free(seen[w]);
}

KB_CASE(final_batch)
{
	static uint8_t keys[BATCH_COUNT * MAX_KEY];
	static struct val vals[BATCH_COUNT];
	struct batch_walk bw = { .cmd = BPF_MAP_LOOKUP_BATCH };
	long found = 0, dup = 0, bad = 0, wrong = 0, calls = 0, want;
	uint8_t *seen[NWRITERS];
	uint32_t count, i, idx;
	int w, err;

	if (!stressed())
		return;
	bw.fd = map_fd;
	want = expected_present();
	for (w = 0; w < NWRITERS; w++)
		seen[w] = calloc(nkeys, 1);
	do {
		count = BATCH_COUNT;
		err = batch_next(&bw, keys, vals, &count);
		for (i = 0; i < count && i < BATCH_COUNT; i++) {
			if (!decode_key(keys + i * key_size, &w, &idx) ||
			    !writers[w].present[idx]) {
				bad++;
				continue;
			}
			if (seen[w][idx]++)
				dup++;
			else
				found++;
			if (memcmp(&vals[i], &writers[w].val[idx],
				   sizeof(vals[i])))
				wrong++;
		}
	} while (!err && ++calls < MAX_ENTRIES);
	ASSERT_TRUE(err == -ENOENT && found == want && !dup && !bad && !wrong,
		    "after the stress: lookup_batch walk finds %ld of %ld keys, %ld twice, %ld unexpected, %ld wrong values (ends %s)",
		    found, want, dup, bad, wrong, err_name(err));
	for (w = 0; w < NWRITERS; w++)
		free(seen[w]);
}

KB_CASE(final_lookups)
{
	long present = 0, absent = 0, wrong = 0;
	uint8_t key[MAX_KEY];
	struct errlog e = { 0 };
	struct writer *w;
	struct val v;
	uint32_t idx;
	int i, err;

	if (!stressed())
		return;
	for (i = 0; i < NWRITERS; i++) {
		w = &writers[i];
		for (idx = 0; idx < nkeys; idx++) {
			make_key(key, key_size, key_id(i, idx));
			err = elem_lookup(map_fd, key, &v);
			if (!w->present[idx]) {
				absent++;
				if (err != -ENOENT) {
					wrong++;
					note(&e, "absent key %u of writer %d: %s",
					     idx, i, err_name(err));
				}
				continue;
			}
			present++;
			if (err || memcmp(&v, &w->val[idx], sizeof(v))) {
				wrong++;
				note(&e, "key %u of writer %d: %s, seq %#llx, want %#llx",
				     idx, i, err_name(err),
				     (unsigned long long)(err ? 0 : v.seq),
				     (unsigned long long)w->val[idx].seq);
			}
		}
	}
	ASSERT_TRUE(!wrong,
		    "after the stress: %ld present keys read back with their last value, %ld absent give ENOENT, %ld wrong%s",
		    present, absent, wrong, first_err(&e));
}

KB_CASE(delete_all)
{
	struct key_walk kw = { 0 };
	long deleted = 0, bad = 0;
	uint8_t key[MAX_KEY];
	struct errlog e = { 0 };
	int64_t m = -1, t = 0;
	uint32_t idx;
	bool empty = false;
	int w, err;
	double until;

	if (!stressed())
		return;
	kw.fd = map_fd;
	kw.ksize = key_size;
	for (w = 0; w < NWRITERS; w++) {
		for (idx = 0; idx < nkeys; idx++) {
			if (!writers[w].present[idx])
				continue;
			make_key(key, key_size, key_id(w, idx));
			err = elem_delete(map_fd, key);
			if (err) {
				bad++;
				note(&e, "delete key %u of writer %d: %s", idx,
				     w, err_name(err));
			} else {
				deleted++;
			}
		}
	}
	while (!(err = walk_next(&kw)) && kw.n <= MAX_ENTRIES)
		;
	ASSERT_TRUE(!bad && !kw.n && err == -ENOENT,
		    "delete everything: %ld deleted, %ld failed, a walk then finds %ld (ends %s)%s",
		    deleted, bad, kw.n, err_name(err), first_err(&e));

	/*
	 * memlock must show no element: the bucket part alone (a lone
	 * power-of-two table for rhash once a shrink is done; the empty
	 * map's memlock for hash). Give a deferred shrink time to finish.
	 */
	until = now() + 5;
	do {
		m = read_memlock(fdinfo_fd);
		t = m - base_mem;
		if (is_rhash)
			empty = t >= 32 && t % 8 == 0 &&
				!((t / 8) & (t / 8 - 1));
		else
			empty = t == 0;
		if (empty || !model_ok)
			break;
		usleep(20000);
	} while (now() < until);
	if (!model_ok)
		ASSERT_TRUE(0, "memlock after delete-all: %lld (no memlock model)",
			    (long long)m);
	else if (is_rhash)
		ASSERT_TRUE(empty,
			    "memlock after delete-all: %lld, bucket part %lld = %lld buckets, no elements",
			    (long long)m, (long long)t, (long long)t / 8);
	else
		ASSERT_EQ(m, base_mem, "memlock after delete-all, as the new map's");
	printf("# stress %.2f s, whole run %.2f s\n", t_stress,
	       now() - t_start);
	close(fdinfo_fd);
	close(map_fd);
}
