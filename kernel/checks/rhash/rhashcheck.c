// SPDX-License-Identifier: GPL-2.0
/*
 * rhashcheck: smoke test of BPF_MAP_TYPE_RHASH (spec section 2) from user
 * space, with raw bpf() calls (no libbpf), so that one binary runs on
 * both kernels and needs nothing but the C library.
 *
 *   rhashcheck [-l] [-v] [-t PATTERN]... [-m rhash|hash] [-n ELEMS]
 *
 * On the harness (../lib/harness.h): the cases probe, create_errors,
 * memcg, memcg_full, ops_key8, ops_key4, ops_key12 and ops_key37, each
 * TAP line named after upstream's selftest where it has one
 * (prog_tests/rhash.c: lookup_update, update_delete, ...). With -m hash
 * the cases that apply to any hash map run against BPF_MAP_TYPE_HASH
 * (BPF_F_NO_PREALLOC), which must pass them the same way on both
 * kernels; the others print nothing. On a kernel without RHASH
 * (creating one fails with EINVAL and the kernel's BTF does not name
 * BPF_MAP_TYPE_RHASH), -m rhash reports "RHASH absent" with kb_absent()
 * and exits 0: absent is not a failure (rhashlib.h). Every case runs
 * the probe first (once), so -t can select it alone.
 * Exit 1 if a check failed, 2 on usage errors.
 */
#define _GNU_SOURCE
#include "rhashlib.h"
#include <sys/stat.h>
#include <dirent.h>

static uint32_t nelems = 2000;	/* -n */

static int parse(int opt, const char *arg)
{
	if (opt == 'm')
		return set_map_type(arg);
	if (opt != 'n' || atoi(arg) <= 0)
		return -1;
	nelems = atoi(arg);
	return 0;
}

KB_OPTIONS("m:n:", "[-m rhash|hash] [-n ELEMS]", parse);

KB_CASE(probe)
{
	rhash_present();
}

/* the cases that only RHASH has: false for -m hash or without RHASH */
static bool rhash_only(void)
{
	return rhash_present() && map_type == MAP_TYPE_RHASH;
}

KB_CASE(create_errors)
{
	const uint32_t np = BPF_F_NO_PREALLOC;
	static const struct {
		uint32_t key, value, max, flags;
		uint64_t extra;
		int err;
		const char *what;
	} bad[] = {
		{ 8, 8, 16, 0, 0, -EINVAL, "create without BPF_F_NO_PREALLOC" },
		{ 8, 8, 16, BPF_F_NO_PREALLOC | BPF_F_ZERO_SEED, 0, -EINVAL,
		  "create with BPF_F_ZERO_SEED" },
		{ 0, 8, 16, BPF_F_NO_PREALLOC, 0, -EINVAL, "key_size 0" },
		{ 8, 0, 16, BPF_F_NO_PREALLOC, 0, -EINVAL, "value_size 0" },
		{ 8, 8, 0, BPF_F_NO_PREALLOC, 0, -EINVAL, "max_entries 0" },
		{ 65536, 8, 16, BPF_F_NO_PREALLOC, 0, -E2BIG,
		  "key_size 65536 (> U16_MAX)" },
		{ 8, 8, (1U << 31) + 1, BPF_F_NO_PREALLOC, 0, -E2BIG,
		  "max_entries 2^31 + 1" },
		/*
		 * KMALLOC_MAX_SIZE is 4 MiB on x86-64: key + value is 15
		 * bytes under it, the element (llist_node, rhash_head, key
		 * and value rounded to 8) 8 bytes over
		 */
		{ 1, 4194281, 16, BPF_F_NO_PREALLOC, 0, -E2BIG,
		  "element of 4 MiB + 8 bytes (key_size 1, value_size 4194281)" },
		{ 8, 8, 1024, BPF_F_NO_PREALLOC, 1ULL << 32, -EINVAL,
		  "map_extra with upper bits" },
		{ 8, 8, 1 << 20, BPF_F_NO_PREALLOC, 0x10000, -E2BIG,
		  "map_extra_too_big: hint 0x10000, max 1<<20" },
		{ 8, 8, 256, BPF_F_NO_PREALLOC, 300, -EINVAL,
		  "hint 300 above max_entries 256" },
	};
	struct bpf_map_info info;
	size_t i;
	int fd, err;

	if (!rhash_only())
		return;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fd = map_create(map_type, bad[i].key, bad[i].value, bad[i].max,
				bad[i].flags, bad[i].extra);
		close_fd(fd);
		ASSERT_ERRNO(fd, -bad[i].err, "%s", bad[i].what);
	}

	/* map_extra_presize: max 1024, hint 256, read back */
	fd = map_create(map_type, 8, 8, 1024, np, 256);
	if (!ASSERT_FD(fd, "map_extra_presize: create with hint 256, max 1024"))
		return;
	err = obj_info(fd, &info, sizeof(info));
	if (err)
		ASSERT_OK(err, "map_extra_presize: map info");
	else
		ASSERT_TRUE(info.type == MAP_TYPE_RHASH && info.map_extra == 256 &&
			    info.max_entries == 1024,
			    "map_extra_presize: map info: type %u, map_extra %llu, max_entries %u",
			    info.type, (unsigned long long)info.map_extra,
			    info.max_entries);
	close(fd);
}

/* One get_next_key walk: keys < n seen once, twice or more, not < n */
struct walk_count {
	uint32_t found, dup, bad;
	int err;
};

static void walk_once(int fd, uint32_t ksize, uint32_t n, unsigned char *seen,
		      struct walk_count *wc)
{
	struct key_walk kw = { .fd = fd, .ksize = ksize };
	uint64_t k;

	memset(seen, 0, n ? n : 1);
	memset(wc, 0, sizeof(*wc));
	while (!(wc->err = walk_next(&kw))) {
		if (!key_num(kw.key, ksize, &k) || k >= n)
			wc->bad++;
		else if (seen[k]++)
			wc->dup++;
		else
			wc->found++;
		if (kw.n > 4 * n + 16) {
			wc->err = -ELOOP;
			break;
		}
	}
}

/*
 * Walk with get_next_key; every key < n must be seen exactly once. The
 * inserts may have left a resize running in the map's worker, and a walk
 * across a rehash may see a key twice or skip one (rhashtable_next_key()
 * is best effort there, as the spec allows), so such a walk is repeated,
 * 100 ms apart, until one is whole: a map that stays wrong fails after
 * WALK_TRIES. A key the map never held, or an error, fails at once.
 */
#define WALK_TRIES	20

static void walk_all(int fd, uint32_t ksize, uint32_t n, const char *what)
{
	const struct timespec pause = { .tv_nsec = 100 * 1000 * 1000 };
	unsigned char *seen = calloc(n ? n : 1, 1);
	struct walk_count wc, first = { 0 };
	int tries = 0;

	do {
		if (tries)
			nanosleep(&pause, NULL);
		walk_once(fd, ksize, n, seen, &wc);
		if (!tries++)
			first = wc;
	} while (tries < WALK_TRIES && wc.err == -ENOENT && !wc.bad &&
		 (wc.found != n || wc.dup));
	ASSERT_TRUE(wc.err == -ENOENT && wc.found == n && !wc.dup && !wc.bad,
		    "%s: get_next_key walk found %u of %u, %u twice, %u unknown, ends %s (walk %d of at most %d; the first found %u, %u twice)",
		    what, wc.found, n, wc.dup, wc.bad, err_name(wc.err), tries,
		    WALK_TRIES, first.found, first.dup);
	free(seen);
}

static void check_deleted_cursor(int fd, uint32_t ksize, void *keys,
				 void *vals)
{
	struct batch_walk bw = { .cmd = BPF_MAP_LOOKUP_BATCH, .fd = fd };
	unsigned char k[64];
	uint32_t i, cnt;
	uint64_t v;
	int err;

	for (i = 0, err = 0; i < 20 && !err; i++) {
		make_key(k, ksize, i);
		v = i;
		err = elem_update(fd, k, &v, BPF_ANY);
	}
	cnt = 3;
	if (!err)
		err = batch_next(&bw, keys, vals, &cnt);
	if (!err)
		err = elem_delete(fd, bw.cursor);
	if (!err) {
		cnt = 3;
		err = batch_next(&bw, keys, vals, &cnt);
	}
	ASSERT_ERRNO(err, EAGAIN, "lookup_batch whose cursor was deleted");
}

static void check_ops(uint32_t ksize, uint32_t n)
{
	uint32_t max = n + n / 2, i, cnt, total, dup;
	struct batch_walk bw = { .cmd = BPF_MAP_LOOKUP_BATCH };
	unsigned char k[64], out[64];
	uint64_t v, got, kn, *vals;
	unsigned char *keys, *seen;
	int fd, err;
	char what[32];

	snprintf(what, sizeof(what), "key %u", ksize);
	if (!rhash_present())
		return;
	fd = test_map(ksize, 8, max, 0);
	if (!ASSERT_FD(fd, "%s: create max_entries %u", what, max))
		return;

	/* empty map */
	ASSERT_ERRNO(next_key(fd, NULL, out), ENOENT, "empty map: get_next_key");
	make_key(k, ksize, 1);
	ASSERT_ERRNO(elem_lookup(fd, k, &got), ENOENT, "empty map: lookup");
	ASSERT_ERRNO(elem_delete(fd, k), ENOENT,
		     "delete_nonexistent: delete from an empty map");

	/* update_elements: n inserts, growing the table several times */
	for (i = 0, err = 0; i < n && !err; i++) {
		make_key(k, ksize, i);
		v = i * 3 + 1;
		err = elem_update(fd, k, &v, BPF_NOEXIST);
	}
	ASSERT_OK(err, "update_elements: %s: insert %u elements", what, n);
	for (i = 0, err = 0; i < n && !err; i++) {
		make_key(k, ksize, i);
		err = elem_lookup(fd, k, &got);
		if (!err && got != i * 3 + 1)
			err = -EIO;
	}
	ASSERT_OK(err, "lookup_update: %s: every value reads back", what);
	walk_all(fd, ksize, n, what);

	make_key(k, ksize, 0);
	v = 7;
	ASSERT_ERRNO(elem_update(fd, k, &v, BPF_NOEXIST), EEXIST,
		     "noexist_duplicate: BPF_NOEXIST on an existing key");
	v = 1000;
	err = elem_update(fd, k, &v, BPF_EXIST);
	if (!err)
		err = elem_lookup(fd, k, &got);
	ASSERT_TRUE(!err && got == 1000, "update_exist: BPF_EXIST updates in place: %s, value %llu",
		    err_name(err), (unsigned long long)got);
	v = 1001;
	err = elem_update(fd, k, &v, BPF_ANY);
	if (!err)
		err = elem_lookup(fd, k, &got);
	ASSERT_TRUE(!err && got == 1001, "update_any: BPF_ANY on an existing key: %s, value %llu",
		    err_name(err), (unsigned long long)got);
	make_key(k, ksize, max + 5);
	ASSERT_ERRNO(elem_update(fd, k, &v, BPF_EXIST), ENOENT,
		     "BPF_EXIST on a missing key");
	ASSERT_ERRNO(elem_update(fd, k, &v, 4), EINVAL, "unknown update flag");
	ASSERT_ERRNO(elem_update(fd, k, &v, BPF_F_LOCK), EINVAL,
		     "BPF_F_LOCK without a bpf_spin_lock");

	/* fill to max_entries, then one more */
	for (i = n, err = 0; i < max && !err; i++) {
		make_key(k, ksize, i);
		v = i;
		err = elem_update(fd, k, &v, BPF_ANY);
	}
	ASSERT_OK(err, "fill to max_entries %u", max);
	make_key(k, ksize, max);
	ASSERT_ERRNO(elem_update(fd, k, &v, BPF_ANY), E2BIG,
		     "insert into a full map");
	make_key(k, ksize, max - 1);
	v = 42;
	ASSERT_OK(elem_update(fd, k, &v, BPF_ANY),
		  "update of an existing key in a full map");

	/* update_delete, lookup_and_delete */
	for (i = n, err = 0; i < max && !err; i++) {
		make_key(k, ksize, i);
		err = elem_delete(fd, k);
	}
	ASSERT_OK(err, "update_delete: delete back to %u elements", n);
	make_key(k, ksize, 1);
	err = elem_op(BPF_MAP_LOOKUP_AND_DELETE_ELEM, fd, k, &got, 0);
	ASSERT_TRUE(!err && got == 4, "lookup_and_delete returns the value: %s, value %llu",
		    err_name(err), (unsigned long long)got);
	ASSERT_ERRNO(elem_lookup(fd, k, &got), ENOENT,
		     "lookup after lookup_and_delete");
	v = 4;
	ASSERT_OK(elem_update(fd, k, &v, BPF_NOEXIST),
		  "re-insert the deleted key");

	/* batch lookup across batches of 7: each element once */
	keys = calloc(n + 16, ksize);
	vals = calloc(n + 16, sizeof(*vals));
	seen = calloc(n, 1);
	bw.fd = fd;
	bw.room = 16;
	for (total = 0, err = 0; !err && total <= n; total += cnt) {
		cnt = 7;
		err = batch_next(&bw, keys + (size_t)total * ksize,
				 vals + total, &cnt);
	}
	for (i = 0, dup = 0; i < total && i < n + 16; i++) {
		if (!key_num(keys + (size_t)i * ksize, ksize, &kn) ||
		    kn >= n || seen[kn]++)
			dup++;
	}
	ASSERT_TRUE(err == -ENOENT && total == n && !dup,
		    "%s: lookup_batch by 7: %u of %u, %u twice or unknown, ends %s",
		    what, total, n, dup, err_name(err));

	/* lookup_and_delete_batch empties the map */
	bw = (struct batch_walk){ .cmd = BPF_MAP_LOOKUP_AND_DELETE_BATCH,
				  .fd = fd, .room = 16 };
	for (total = 0, err = 0; !err && total <= n; total += cnt) {
		cnt = 5;
		err = batch_next(&bw, keys, vals, &cnt);
	}
	ASSERT_TRUE(err == -ENOENT && total == n,
		    "%s: lookup_and_delete_batch by 5: %u of %u, ends %s", what,
		    total, n, err_name(err));
	ASSERT_ERRNO(next_key(fd, NULL, out), ENOENT,
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


/* ---- the bucket tables' memory cgroup ---- */

static int cg_write(const char *file, const char *str)
{
	int fd = open(file, O_WRONLY), ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, str, strlen(str)) == (ssize_t)strlen(str);
	close(fd);
	return ok ? 0 : -EIO;
}

static long long cg_current(const char *dir)
{
	char file[200];
	long long v = -1;
	FILE *f;

	snprintf(file, sizeof(file), "%s/memory.current", dir);
	f = fopen(file, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * The cgroup.procs file of this process's cgroup into home, with the
 * memory controller enabled for the root's children: 0, or false after
 * a failed assertion naming what is missing (what: the case).
 */
static bool cg_home(char *home, size_t len, const char *what)
{
	char line[512];
	FILE *f;
	int err;

	f = fopen("/proc/self/cgroup", "r");
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "0::", 3)) {
		if (f)
			fclose(f);
		ASSERT_TRUE(0, "%s: no cgroup2 line in /proc/self/cgroup: the unified hierarchy is needed at /sys/fs/cgroup",
			    what);
		return false;
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	snprintf(home, len, "/sys/fs/cgroup%s/cgroup.procs", line + 3);
	err = cg_write("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	if (err)
		return ASSERT_OK(err, "%s: enable the memory controller in /sys/fs/cgroup/cgroup.subtree_control",
				 what);
	return true;
}

/*
 * A map with the largest size hint (65535: a first bucket table of 2^17
 * buckets, 1 MiB) created in a memory cgroup of its own: memory.current
 * must grow by at least the table (rhash/0010 charges it; before, the
 * tables were charged to nobody). The per-CPU charge stock can only add
 * to the growth (at most 64 pages a CPU), never hide the table.
 */
KB_CASE(memcg)
{
	const long long table = (1LL << 17) * 8;
	char dir[64], procs[96], home[600];
	long long before, after;
	int fd, err;

	if (!rhash_only() || !cg_home(home, sizeof(home), "memcg"))
		return;
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/kb-rhashcheck-%d",
		 (int)getpid());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	err = mkdir(dir, 0755) ? -errno : 0;
	if (!err)
		err = cg_write(procs, "0");
	before = err ? -1 : cg_current(dir);
	if (err || before < 0) {
		ASSERT_TRUE(0, "memcg: a memory cgroup of its own (%s): %s", dir,
			    err ? err_name(err) : "memory.current unreadable");
		goto out;
	}
	fd = test_map(8, 8, 1 << 20, 65535);
	after = cg_current(dir);
	ASSERT_TRUE(fd >= 0 && after - before >= table,
		    "memcg: a map with hint 65535 grew memory.current by %lld bytes (want >= %lld: its first bucket table)%s%s",
		    after - before, table, fd < 0 ? ", create " : "",
		    fd < 0 ? err_name(fd) : "");
	close_fd(fd);
out:
	cg_write(home, "0");
	rmdir(dir);
}

/* CPU time of every kworker so far, in clock ticks */
static long long kworker_ticks(void)
{
	long long sum = 0, ut, st;
	struct dirent *de;
	char path[300], buf[512], *p;
	DIR *d = opendir("/proc");
	FILE *f;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		/* after "(comm)": state and 10 fields, then utime, stime */
		if (!p || !strstr(buf, "(kworker") ||
		    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld",
			   &ut, &st) != 2)
			continue;
		sum += ut + st;
	}
	closedir(d);
	return sum;
}

/*
 * A map whose memory cgroup is full and has no task to reclaim from or
 * kill (issue 36, review item 1): its resize worker cannot have the
 * doubled bucket table. It must not retry at once for ever (a kworker
 * in reclaim): over 3 s with nothing inserting, all kworkers together
 * may use at most 10 % of a CPU. The map stays usable, and once the
 * cgroup has room again the next inserts get the table grown.
 *
 * The map (hint 49152: 2^16 buckets, 512 KiB, growing at 49,153
 * elements to 2^17, 1 MiB) is made in a cgroup of its own, which this
 * process then leaves; 48,500 elements go in, memory.max is set to
 * memory.current + 512 KiB, and 1,500 more cross the growth point.
 * The table's size shows in the map's memlock (fdinfo): the grown table
 * adds 512 KiB to it, once the old one has gone.
 */
KB_CASE(memcg_full)
{
	const uint32_t hint = 49152, first = 48500, more = 1500;
	char dir[64], procs[96], file[128], num[32], home[600];
	long long cur, k0, k1, hz = sysconf(_SC_CLK_TCK);
	uint32_t i, ok = 0, nomem = 0, missing = 0;
	uint64_t key, val;
	int fd = -1, err, waited;

	if (!rhash_only() || !cg_home(home, sizeof(home), "memcg full"))
		return;
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/kb-rhashfull-%d",
		 (int)getpid());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(file, sizeof(file), "%s/memory.max", dir);
	err = mkdir(dir, 0755) ? -errno : cg_write(procs, "0");
	if (!err) {
		fd = test_map(8, 8, 1 << 20, hint);
		err = cg_write(home, "0");
		if (fd < 0)
			err = fd;
	}
	for (i = 0; !err && i < first; i++) {
		key = i;
		val = ~key;
		err = elem_update(fd, &key, &val, BPF_ANY);
	}
	cur = err ? -1 : cg_current(dir);
	if (cur < 0) {
		ASSERT_TRUE(0, "memcg full: a map of %u elements in a cgroup of its own (%s): %s",
			    first, dir, err ? err_name(err) : "memory.current unreadable");
		goto out;
	}
	snprintf(num, sizeof(num), "%lld", cur + (512 << 10));
	err = cg_write(file, num);
	for (i = first; !err && i < first + more; i++) {
		key = i;
		val = ~key;
		if (!elem_update(fd, &key, &val, BPF_ANY))
			ok++;
		else
			nomem++;
	}
	if (err || first + ok <= hint) {
		ASSERT_TRUE(0, "memcg full: memory.max %s: %s; %u of %u inserts past it went in (want the map past %u)",
			    num, err_name(err), ok, more, hint);
		goto out;
	}

	k0 = kworker_ticks();
	usleep(3000000);
	k1 = kworker_ticks();
	ASSERT_TRUE(k0 >= 0 && (k1 - k0) * 10 <= 3 * hz,
		    "memcg full: the map past its growth point (%u of %u inserts went in, %u failed) in a full cgroup: kworkers used %lld ms of CPU in 3 s (want <= 300)",
		    ok, more, nomem, (k1 - k0) * 1000 / hz);

	for (i = 0; i < first + more; i++) {
		key = i;
		if (elem_lookup(fd, &key, &val) || val != ~key)
			missing++;
	}
	ASSERT_EQ(missing, nomem,
		  "memcg full: the map is usable: of %u keys, those missing are the ones whose insert failed",
		  first + more);

	/* room again: the next inserts kick the worker, which grows it */
	cur = map_memlock(fd);
	err = cg_write(file, "max");
	usleep(1200000);
	for (i = first + more; !err && i < first + more + 200; i++) {
		key = i;
		val = ~key;
		err = elem_update(fd, &key, &val, BPF_ANY);
	}
	for (waited = 0; !err && waited < 50 &&
	     map_memlock(fd) - cur < (1LL << 16) * 8; waited++)
		usleep(100000);
	ASSERT_TRUE(!err && cur >= 0 && map_memlock(fd) - cur >= (1LL << 16) * 8,
		    "memcg full: with memory.max back at max, 200 inserts went in (%s) and the table grew: memlock +%lld bytes (want >= 512 KiB) after %d ms",
		    err_name(err), map_memlock(fd) - cur, waited * 100);
out:
	close_fd(fd);
	cg_write(home, "0");
	rmdir(dir);
}

/* ---- every operation, for word-sized and generic keys ---- */

KB_CASE(ops_key8)
{
	check_ops(8, nelems);
}

KB_CASE(ops_key4)
{
	check_ops(4, nelems / 2);
}

KB_CASE(ops_key12)
{
	check_ops(12, nelems / 2);
}

/* a generic key, hashed bytewise by jhash */
KB_CASE(ops_key37)
{
	check_ops(37, nelems / 4);
}
