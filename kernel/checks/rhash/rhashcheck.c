// SPDX-License-Identifier: GPL-2.0
/*
 * rhashcheck: smoke test of BPF_MAP_TYPE_RHASH (spec section 2) from user
 * space, with raw bpf() calls (no libbpf), so that one binary runs on
 * both kernels and needs nothing but the C library.
 *
 *   rhashcheck [-t rhash|hash] [-n ELEMS]
 *
 * Prints TAP; each case named after upstream's selftest where it has
 * one (prog_tests/rhash.c: lookup_update, update_delete, ...). With
 * -t hash the cases that apply to any hash map run against
 * BPF_MAP_TYPE_HASH (BPF_F_NO_PREALLOC), which must pass them the same
 * way on both kernels. On a kernel without RHASH (creating one fails
 * with EINVAL and the kernel's BTF does not name BPF_MAP_TYPE_RHASH),
 * -t rhash prints "RHASH absent" and a skip plan, and exits 0: absent
 * is not a failure.
 * Exit 1 if a check failed, 2 on usage errors.
 *
 * The host's <linux/bpf.h> (Debian 12) predates the type: its number
 * and everything newer is defined here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAP_TYPE_RHASH	35	/* upstream 7.2; 34 is reserved */
#define BTF_PATH	"/sys/kernel/btf/vmlinux"

static int ntest, nfail;
static uint32_t map_type = MAP_TYPE_RHASH;

static void result(int good, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", good ? "" : "not ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!good)
		nfail++;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

struct mapdef {
	uint32_t key, value, max, flags;
	uint64_t extra;
};

/* Returns the map fd, or -errno. */
static int map_create(const struct mapdef *d)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = map_type;
	a.key_size = d->key;
	a.value_size = d->value;
	a.max_entries = d->max;
	a.map_flags = d->flags;
	a.map_extra = d->extra;
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	return fd < 0 ? -errno : fd;
}

static int elem_op(int cmd, int fd, const void *key, void *value,
		   uint64_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	a.flags = flags;
	return sys_bpf(cmd, &a) < 0 ? -errno : 0;
}

static int next_key(int fd, const void *key, void *next)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.next_key = (uintptr_t)next;
	return sys_bpf(BPF_MAP_GET_NEXT_KEY, &a) < 0 ? -errno : 0;
}

/* One batch call; *count in/out. Returns 0 or -errno. */
static int batch(int cmd, int fd, void *in, void *out, void *keys,
		 void *values, uint32_t *count)
{
	union bpf_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.batch.map_fd = fd;
	a.batch.in_batch = (uintptr_t)in;
	a.batch.out_batch = (uintptr_t)out;
	a.batch.keys = (uintptr_t)keys;
	a.batch.values = (uintptr_t)values;
	a.batch.count = *count;
	err = sys_bpf(cmd, &a) < 0 ? -errno : 0;
	*count = a.batch.count;
	return err;
}

static const char *err_name(int err)
{
	static char buf[32];

	switch (err) {
	case 0: return "0";
	case -EINVAL: return "EINVAL";
	case -E2BIG: return "E2BIG";
	case -EEXIST: return "EEXIST";
	case -ENOENT: return "ENOENT";
	case -EAGAIN: return "EAGAIN";
	case -EPERM: return "EPERM";
	case -ENOMEM: return "ENOMEM";
	case -EBUSY: return "EBUSY";
	}
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

static void expect_err(int got, int want, const char *what)
{
	result(got == want, "%s: %s (want %s)", what, err_name(got),
	       err_name(want));
}

/* Does the running kernel's BTF name the type? */
static int btf_names_rhash(void)
{
	static const char needle[] = "BPF_MAP_TYPE_RHASH";
	size_t n = sizeof(needle) - 1, have = 0;
	char buf[65536 + sizeof(needle)];
	int fd, found = 0;
	ssize_t r;

	fd = open(BTF_PATH, O_RDONLY);
	if (fd < 0)
		return -1;
	while (!found && (r = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += r;
		found = memmem(buf, have, needle, n) != NULL;
		if (have > n) {
			memmove(buf, buf + have - n, n);
			have = n;
		}
	}
	close(fd);
	return found;
}

static void check_create_errors(void)
{
	const uint32_t np = BPF_F_NO_PREALLOC;
	static const struct {
		struct mapdef d;
		int err;
		const char *what;
	} bad[] = {
		{ { 8, 8, 16, 0, 0 }, -EINVAL, "create without BPF_F_NO_PREALLOC" },
		{ { 8, 8, 16, BPF_F_NO_PREALLOC | BPF_F_ZERO_SEED, 0 }, -EINVAL,
		  "create with BPF_F_ZERO_SEED" },
		{ { 0, 8, 16, BPF_F_NO_PREALLOC, 0 }, -EINVAL, "key_size 0" },
		{ { 8, 0, 16, BPF_F_NO_PREALLOC, 0 }, -EINVAL, "value_size 0" },
		{ { 8, 8, 0, BPF_F_NO_PREALLOC, 0 }, -EINVAL, "max_entries 0" },
		{ { 65536, 8, 16, BPF_F_NO_PREALLOC, 0 }, -E2BIG,
		  "key_size 65536 (> U16_MAX)" },
		{ { 8, 8, (1U << 31) + 1, BPF_F_NO_PREALLOC, 0 }, -E2BIG,
		  "max_entries 2^31 + 1" },
		{ { 8, 8, 1024, BPF_F_NO_PREALLOC, 1ULL << 32 }, -EINVAL,
		  "map_extra with upper bits" },
		{ { 8, 8, 1 << 20, BPF_F_NO_PREALLOC, 0x10000 }, -E2BIG,
		  "map_extra_too_big: hint 0x10000, max 1<<20" },
		{ { 8, 8, 256, BPF_F_NO_PREALLOC, 300 }, -EINVAL,
		  "hint 300 above max_entries 256" },
	};
	struct bpf_map_info info;
	union bpf_attr a;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fd = map_create(&bad[i].d);
		if (fd >= 0)
			close(fd);
		expect_err(fd >= 0 ? 0 : fd, bad[i].err, bad[i].what);
	}

	/* map_extra_presize: max 1024, hint 256, read back */
	fd = map_create(&(struct mapdef){ 8, 8, 1024, np, 256 });
	result(fd >= 0, "map_extra_presize: create with hint 256, max 1024: %s",
	       err_name(fd >= 0 ? 0 : fd));
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		result(0, "map info: %s", strerror(errno));
	else
		result(info.type == MAP_TYPE_RHASH && info.map_extra == 256 &&
		       info.max_entries == 1024,
		       "map_extra_presize: map info: type %u, map_extra %llu, max_entries %u",
		       info.type, (unsigned long long)info.map_extra,
		       info.max_entries);
	close(fd);
}

/* A key of ksize bytes from a number; the rest of the key is a pattern. */
static void make_key(unsigned char *k, uint32_t ksize, uint64_t n)
{
	uint32_t i;

	for (i = 0; i < ksize; i++)
		k[i] = (unsigned char)(0x5a ^ i);
	memcpy(k, &n, ksize < sizeof(n) ? ksize : sizeof(n));
}

static uint64_t key_num(const unsigned char *k, uint32_t ksize)
{
	uint64_t n = 0;

	memcpy(&n, k, ksize < sizeof(n) ? ksize : sizeof(n));
	return n;
}

/* Walk with get_next_key; every key < n must be seen exactly once. */
static void walk_all(int fd, uint32_t ksize, uint32_t n, const char *what)
{
	unsigned char *seen = calloc(n ? n : 1, 1);
	unsigned char prev[64], cur[64];
	uint32_t found = 0, dup = 0, bad = 0;
	int err, first = 1;

	for (;;) {
		err = next_key(fd, first ? NULL : prev, cur);
		if (err)
			break;
		first = 0;
		uint64_t k = key_num(cur, ksize);

		if (k >= n)
			bad++;
		else if (seen[k]++)
			dup++;
		else
			found++;
		memcpy(prev, cur, ksize);
		if (found + dup + bad > 4 * n + 16)
			break;
	}
	result(err == -ENOENT && found == n && !dup && !bad,
	       "%s: get_next_key walk found %u of %u, %u twice, %u unknown, ends %s",
	       what, found, n, dup, bad, err_name(err));
	free(seen);
}

static void check_deleted_cursor(int fd, uint32_t ksize, void *keys,
				 void *vals)
{
	unsigned char k[64], out[64];
	uint32_t i, cnt;
	uint64_t v;
	int err;

	for (i = 0, err = 0; i < 20 && !err; i++) {
		make_key(k, ksize, i);
		v = i;
		err = elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_ANY);
	}
	cnt = 3;
	if (!err)
		err = batch(BPF_MAP_LOOKUP_BATCH, fd, NULL, out, keys, vals,
			    &cnt);
	if (!err)
		err = elem_op(BPF_MAP_DELETE_ELEM, fd, out, NULL, 0);
	if (!err) {
		cnt = 3;
		err = batch(BPF_MAP_LOOKUP_BATCH, fd, out, out, keys, vals,
			    &cnt);
	}
	expect_err(err, -EAGAIN, "lookup_batch whose cursor was deleted");
}

static void check_ops(uint32_t ksize, uint32_t n)
{
	uint32_t max = n + n / 2, i, cnt, total, dup;
	unsigned char k[64], out[64];
	uint64_t v, got, *vals;
	unsigned char *keys, *seen;
	int fd, err, e2big = 0;
	char what[32];

	snprintf(what, sizeof(what), "key %u", ksize);
	fd = map_create(&(struct mapdef){ ksize, 8, max, BPF_F_NO_PREALLOC, 0 });
	result(fd >= 0, "%s: create max_entries %u: %s", what, max,
	       err_name(fd >= 0 ? 0 : fd));
	if (fd < 0)
		return;

	/* empty map */
	expect_err(next_key(fd, NULL, out), -ENOENT, "empty map: get_next_key");
	make_key(k, ksize, 1);
	expect_err(elem_op(BPF_MAP_LOOKUP_ELEM, fd, k, &got, 0), -ENOENT,
		   "empty map: lookup");
	expect_err(elem_op(BPF_MAP_DELETE_ELEM, fd, k, NULL, 0), -ENOENT,
		   "delete_nonexistent: delete from an empty map");

	/* update_elements: n inserts, growing the table several times */
	for (i = 0, err = 0; i < n && !err; i++) {
		make_key(k, ksize, i);
		v = i * 3 + 1;
		err = elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_NOEXIST);
	}
	result(!err, "update_elements: %s: insert %u elements: %s", what, n,
	       err_name(err));
	for (i = 0, err = 0; i < n && !err; i++) {
		make_key(k, ksize, i);
		err = elem_op(BPF_MAP_LOOKUP_ELEM, fd, k, &got, 0);
		if (!err && got != i * 3 + 1)
			err = -EIO;
	}
	result(!err, "lookup_update: %s: every value reads back: %s", what,
	       err_name(err));
	walk_all(fd, ksize, n, what);

	make_key(k, ksize, 0);
	v = 7;
	expect_err(elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_NOEXIST),
		   -EEXIST, "noexist_duplicate: BPF_NOEXIST on an existing key");
	v = 1000;
	err = elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_EXIST);
	if (!err)
		err = elem_op(BPF_MAP_LOOKUP_ELEM, fd, k, &got, 0);
	result(!err && got == 1000, "update_exist: BPF_EXIST updates in place: %s, value %llu",
	       err_name(err), (unsigned long long)got);
	v = 1001;
	err = elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_ANY);
	if (!err)
		err = elem_op(BPF_MAP_LOOKUP_ELEM, fd, k, &got, 0);
	result(!err && got == 1001, "update_any: BPF_ANY on an existing key: %s",
	       err_name(err));
	make_key(k, ksize, max + 5);
	expect_err(elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_EXIST), -ENOENT,
		   "BPF_EXIST on a missing key");
	expect_err(elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, 4), -EINVAL,
		   "unknown update flag");
	expect_err(elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_F_LOCK),
		   -EINVAL, "BPF_F_LOCK without a bpf_spin_lock");

	/* fill to max_entries, then one more */
	for (i = n; i < max && !e2big; i++) {
		make_key(k, ksize, i);
		v = i;
		err = elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_ANY);
		if (err)
			e2big = 1;
	}
	result(!e2big, "fill to max_entries %u", max);
	make_key(k, ksize, max);
	expect_err(elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_ANY), -E2BIG,
		   "insert into a full map");
	make_key(k, ksize, max - 1);
	v = 42;
	expect_err(elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_ANY), 0,
		   "update of an existing key in a full map");

	/* update_delete, lookup_and_delete */
	for (i = n, err = 0; i < max && !err; i++) {
		make_key(k, ksize, i);
		err = elem_op(BPF_MAP_DELETE_ELEM, fd, k, NULL, 0);
	}
	result(!err, "update_delete: delete back to %u elements: %s", n,
	       err_name(err));
	make_key(k, ksize, 1);
	err = elem_op(BPF_MAP_LOOKUP_AND_DELETE_ELEM, fd, k, &got, 0);
	result(!err && got == 4, "lookup_and_delete returns the value: %s",
	       err_name(err));
	expect_err(elem_op(BPF_MAP_LOOKUP_ELEM, fd, k, &got, 0), -ENOENT,
		   "lookup after lookup_and_delete");
	v = 4;
	expect_err(elem_op(BPF_MAP_UPDATE_ELEM, fd, k, &v, BPF_NOEXIST), 0,
		   "re-insert the deleted key");

	/* batch lookup across batches of 7: each element once */
	keys = calloc(n + 16, ksize);
	vals = calloc(n + 16, sizeof(*vals));
	seen = calloc(n, 1);
	total = 0;
	dup = 0;
	err = 0;
	for (int first = 1; !err;) {
		cnt = 7;
		err = batch(BPF_MAP_LOOKUP_BATCH, fd, first ? NULL : out, out,
			    keys + (size_t)total * ksize, vals + total, &cnt);
		first = 0;
		total += cnt;
		if (total > n)
			break;
	}
	for (i = 0; i < total && i < n + 16; i++) {
		uint64_t kn = key_num(keys + (size_t)i * ksize, ksize);

		if (kn >= n || seen[kn]++)
			dup++;
	}
	result(err == -ENOENT && total == n && !dup,
	       "%s: lookup_batch by 7: %u of %u, %u twice or unknown, ends %s",
	       what, total, n, dup, err_name(err));

	/* lookup_and_delete_batch empties the map */
	total = 0;
	err = 0;
	for (int first = 1; !err;) {
		cnt = 5;
		err = batch(BPF_MAP_LOOKUP_AND_DELETE_BATCH, fd,
			    first ? NULL : out, out, keys, vals, &cnt);
		first = 0;
		total += cnt;
		if (total > n)
			break;
	}
	result(err == -ENOENT && total == n,
	       "%s: lookup_and_delete_batch by 5: %u of %u, ends %s", what,
	       total, n, err_name(err));
	expect_err(next_key(fd, NULL, out), -ENOENT,
		   "map empty after lookup_and_delete_batch");

	/*
	 * The cursor of a batch was deleted: -EAGAIN. RHASH only: a hash
	 * map's cursor is a bucket index, which cannot go away.
	 */
	if (map_type == MAP_TYPE_RHASH)
		check_deleted_cursor(fd, ksize, keys, vals);

	free(seen);
	free(vals);
	free(keys);
	close(fd);
}

static void run_ops(uint32_t n)
{
	check_ops(8, n);	/* word-sized key */
	check_ops(4, n / 2);	/* word-sized key */
	check_ops(12, n / 2);	/* generic key */
	check_ops(37, n / 4);	/* generic key, bytewise jhash */
}

int main(int argc, char **argv)
{
	uint32_t n = 2000;
	int opt, fd, named;

	while ((opt = getopt(argc, argv, "n:t:")) != -1) {
		if (opt == 'n' && atoi(optarg) > 0) {
			n = atoi(optarg);
			continue;
		}
		if (opt == 't' && !strcmp(optarg, "rhash"))
			continue;
		if (opt == 't' && !strcmp(optarg, "hash")) {
			map_type = BPF_MAP_TYPE_HASH;
			continue;
		}
		fprintf(stderr, "usage: rhashcheck [-t rhash|hash] [-n ELEMS]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (map_type == BPF_MAP_TYPE_HASH) {
		printf("# BPF_MAP_TYPE_HASH (BPF_F_NO_PREALLOC): the cases that apply to any hash map\n");
		run_ops(n);
		printf("1..%d\n", ntest);
		return nfail ? 1 : 0;
	}

	fd = map_create(&(struct mapdef){ 8, 8, 16, BPF_F_NO_PREALLOC, 0 });
	named = btf_names_rhash();
	if (fd == -EINVAL && named != 1) {
		printf("# RHASH absent: creating BPF_MAP_TYPE_RHASH gives EINVAL%s\n",
		       named < 0 ? " (no " BTF_PATH " to confirm)" :
				   " and the kernel's BTF does not name it");
		printf("1..0 # SKIP RHASH absent\n");
		return 0;
	}
	result(fd >= 0, "create BPF_MAP_TYPE_RHASH: %s%s",
	       err_name(fd >= 0 ? 0 : fd),
	       named == 1 ? " (the kernel's BTF names it)" : "");
	if (fd < 0) {
		printf("1..%d\n", ntest);
		return 1;
	}
	close(fd);

	check_create_errors();
	run_ops(n);
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
