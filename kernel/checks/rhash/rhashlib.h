/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rhashlib.h: what rhashcheck, rhashprog and rhashstress share. Each
 * program defines _GNU_SOURCE and then includes it first. It brings the
 * checks' common helpers (../lib/: the harness and its TAP, raw bpf()
 * and its assembler, the running kernel's BTF) and adds:
 *
 * - the map under test (-m rhash|hash) and the "RHASH absent" rule: on a
 *   kernel without the type (creating one fails with EINVAL and the
 *   kernel's BTF does not name BPF_MAP_TYPE_RHASH) a program says so
 *   with kb_absent() ("ok N # SKIP RHASH absent: ..."), runs no case
 *   after that, and exits 0;
 * - keys made from numbers, get_next_key walks and batch walks.
 *
 * The host's <linux/bpf.h> (Debian 12) predates the type: its number is
 * defined here.
 */
#ifndef RHASHLIB_H
#define RHASHLIB_H

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../lib/bpf.h"
#include "../lib/btf.h"
#include "../lib/harness.h"

#define MAP_TYPE_RHASH	35	/* upstream 7.2; 34 is reserved */
#define MAX_KEY		1024	/* the largest key_size a check uses */

/* ---- walks over the whole map ---- */

/*
 * A get_next_key walk: walk_next() puts the next key into kw->key and
 * counts it in kw->n; 0, or -errno (-ENOENT after the last key).
 */
struct key_walk {
	int fd;
	uint32_t ksize;
	long n;
	uint8_t key[MAX_KEY];
};

static inline int walk_next(struct key_walk *kw)
{
	uint8_t next[MAX_KEY];
	int err;

	err = next_key(kw->fd, kw->n ? kw->key : NULL, next);
	if (!err) {
		memcpy(kw->key, next, kw->ksize);
		kw->n++;
	}
	return err;
}

/* The keys a walk finds; -errno if it fails, -ELOOP after cap keys. */
static inline long count_keys(int fd, uint32_t ksize, long cap)
{
	struct key_walk kw = { .fd = fd, .ksize = ksize };
	int err;

	while (!(err = walk_next(&kw)))
		if (kw.n > cap)
			return -ELOOP;
	return err == -ENOENT ? kw.n : err;
}

/*
 * The count at rest: a walk is best effort while the table rehashes (an
 * element may be skipped or seen twice), and deletes just before it may
 * have kicked a shrink. Walk again, 10 ms apart, until a walk counts
 * want, for up to 3 s; returns the last count and sets *walks. A lost
 * element never comes back, so a real loss still fails.
 */
static inline long count_keys_at_rest(int fd, uint32_t ksize, long want,
				      int *walks)
{
	const struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	long n = 0;

	for (*walks = 1; *walks <= 300; (*walks)++) {
		n = count_keys(fd, ksize, 1000000);
		if (n == want)
			break;
		nanosleep(&pause, NULL);
	}
	return n;
}

/*
 * Batches over the map, cmd BPF_MAP_LOOKUP_BATCH or
 * BPF_MAP_LOOKUP_AND_DELETE_BATCH: the first call starts at the
 * beginning, each further one at the cursor the last one returned.
 * batch_next() fills up to *count keys and values and sets *count;
 * 0, or -errno (-ENOENT: the map's last batch).
 *
 * A hash map returns whole buckets: one larger than *count gives
 * ENOSPC with nothing copied, and user space is to ask again with more
 * room. With room set (the buffers' size in elements) batch_next()
 * does that, doubling the count up to room; with room 0 it returns
 * the ENOSPC.
 */
struct batch_walk {
	int cmd, fd;
	bool started;
	uint32_t room;
	uint8_t cursor[MAX_KEY + 8];
};

static inline int batch_next(struct batch_walk *bw, void *keys,
			     void *values, uint32_t *count)
{
	uint8_t out[sizeof(bw->cursor)];
	uint32_t want = *count;
	union bpf_attr a;
	int err;

	for (;;) {
		memset(out, 0, sizeof(out));
		memset(&a, 0, sizeof(a));
		a.batch.map_fd = bw->fd;
		a.batch.in_batch = bw->started ? (uintptr_t)bw->cursor : 0;
		a.batch.out_batch = (uintptr_t)out;
		a.batch.keys = (uintptr_t)keys;
		a.batch.values = (uintptr_t)values;
		a.batch.count = want;
		err = sys_bpf(bw->cmd, &a);
		if (err != -ENOSPC || a.batch.count || want >= bw->room)
			break;
		want = want * 2 < bw->room ? want * 2 : bw->room;
	}
	*count = a.batch.count;
	memcpy(bw->cursor, out, sizeof(out));
	bw->started = true;
	return err;
}

/* ---- keys ---- */

/*
 * The key of number n, ksize bytes: n in the first bytes (as many of
 * its 8 as fit), then a pattern that depends on n.
 */
static inline void make_key(uint8_t *key, uint32_t ksize, uint64_t n)
{
	uint32_t i;

	memcpy(key, &n, ksize < sizeof(n) ? ksize : sizeof(n));
	for (i = sizeof(n); i < ksize; i++)
		key[i] = (uint8_t)(n * 131 + i * 29);
}

/* The number of a make_key() key; false if the key is not one. */
static inline bool key_num(const uint8_t *key, uint32_t ksize, uint64_t *n)
{
	uint32_t i;

	*n = 0;
	memcpy(n, key, ksize < sizeof(*n) ? ksize : sizeof(*n));
	for (i = sizeof(*n); i < ksize; i++)
		if (key[i] != (uint8_t)(*n * 131 + i * 29))
			return false;
	return true;
}

/* ---- the map under test ---- */

static uint32_t map_type = MAP_TYPE_RHASH;
static const char *type_name = "rhash";

/* -m NAME: 0, or -1 if NAME is neither rhash nor hash */
static inline int set_map_type(const char *name)
{
	if (!strcmp(name, "rhash"))
		map_type = MAP_TYPE_RHASH;
	else if (!strcmp(name, "hash"))
		map_type = BPF_MAP_TYPE_HASH;
	else
		return -1;
	type_name = map_type == MAP_TYPE_RHASH ? "rhash" : "hash";
	return 0;
}

/* A map of the type under test: fd or -errno */
static inline int test_map(uint32_t ksize, uint32_t vsize, uint32_t max,
			   uint64_t extra)
{
	return map_create(map_type, ksize, vsize, max, BPF_F_NO_PREALLOC,
			  extra);
}

/* 1 if the running kernel's BTF holds s, 0 if not, -1 without BTF */
static inline int btf_has_string(const char *s)
{
	static char buf[1 << 16];
	size_t n = strlen(s), have = 0;
	int fd, found = 0;
	ssize_t r;

	fd = open(BTF_PATH, O_RDONLY);
	if (fd < 0)
		return -1;
	while (!found && (r = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += r;
		found = memmem(buf, have, s, n) != NULL;
		if (have >= n) {
			/* keep a partial match across the next read */
			memmove(buf, buf + have - (n - 1), n - 1);
			have = n - 1;
		}
	}
	close(fd);
	return found;
}

/*
 * fd is what creating a map of the type under test gave. If that means
 * RHASH is absent from the kernel (EINVAL, and its BTF does not name
 * BPF_MAP_TYPE_RHASH), say so with kb_absent() and return false (no
 * case runs after this one; absent is not a failure). Otherwise assert
 * the fd: "WHAT: got fd N, want an fd", true if it is one.
 */
static inline bool __attribute__((format(printf, 2, 3)))
rhash_created(int fd, const char *fmt, ...)
{
	int named = fd == -EINVAL || map_type == MAP_TYPE_RHASH ?
		    btf_has_string("BPF_MAP_TYPE_RHASH") : 0;
	char what[256];
	va_list ap;

	if (map_type == MAP_TYPE_RHASH && fd == -EINVAL && named != 1) {
		kb_absent("RHASH", "creating BPF_MAP_TYPE_RHASH gives EINVAL%s",
			  named < 0 ? " (no " BTF_PATH " to confirm)" :
			  " and the kernel's BTF does not name it");
		return false;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ASSERT_FD(fd, "%s%s", what, map_type == MAP_TYPE_RHASH &&
			 named == 1 ? " (the kernel's BTF names it)" : "");
}

/*
 * Whether the map type under test is there: for -m rhash, create a
 * small map (once; rhash_created() reports it), for -m hash true. The
 * first case of rhashcheck and rhashprog, and every later case calls
 * it first, so that -t runs a case alone.
 */
static inline bool rhash_present(void)
{
	static int done;	/* 1 present, -1 absent or failed */
	int fd;

	if (done)
		return done > 0;
	done = 1;
	if (map_type != MAP_TYPE_RHASH) {
		printf("# BPF_MAP_TYPE_HASH (BPF_F_NO_PREALLOC): the cases that apply to any hash map\n");
		return true;
	}
	fd = test_map(8, 8, 16, 0);
	if (!rhash_created(fd, "create BPF_MAP_TYPE_RHASH"))
		done = -1;
	close_fd(fd);
	return done > 0;
}

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif /* RHASHLIB_H */
