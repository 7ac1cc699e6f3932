// SPDX-License-Identifier: GPL-2.0
/*
 * commonattrs: the bpf() syscall common attributes (BPF_COMMON_ATTRS,
 * spec section 5, issue 13 section 2) from user space, with raw bpf()
 * calls and no libbpf, so that one binary runs on both kernels.
 *
 *   commonattrs [-l] [-v] [-t PATTERN]...   (../lib/harness.h)
 *
 * -v prints every log the kernel wrote as "#" lines. TAP on stdout;
 * exit 0 when every case holds, 1 otherwise, 2 on usage errors.
 *
 * On a kernel without the feature (the probe, BPF_PROG_LOAD |
 * BPF_COMMON_ATTRS with a NULL struct, fails with EINVAL instead of
 * EFAULT) only the three-argument cases run, then the probe case
 * reports "COMMON_ATTRS absent" (kb_absent()), which is not a failure.
 * Every case after plain_calls runs the probe first (once), so -t can
 * select it alone.
 *
 * The host's <linux/bpf.h> (Debian 12) predates log_true_size and the
 * feature, so the layouts used are defined here, from the 6.12 and
 * upstream 7.2 uapi headers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/btf.h"
#include "../lib/harness.h"

#define BPF_COMMON_ATTRS	(1 << 16)

/* bpf_cmd values (stable since 4.x) */
enum {
	CMD_MAP_CREATE = 0,
	CMD_MAP_LOOKUP_ELEM = 1,
	CMD_MAP_UPDATE_ELEM = 2,
	CMD_PROG_LOAD = 5,
	CMD_MAP_GET_NEXT_ID = 12,
	CMD_OBJ_GET_INFO_BY_FD = 15,
	CMD_BTF_LOAD = 18,
	CMD_PROG_GET_NEXT_ID = 11,
	CMD_BTF_GET_NEXT_ID = 23,
};

#define MAP_TYPE_HASH		1
#define MAP_TYPE_ARRAY		2
#define MAP_TYPE_STRUCT_OPS	26
#define MAP_TYPE_RHASH		35
#define PROG_TYPE_SOCKET_FILTER	1
#define F_NO_PREALLOC		(1U << 0)
#define F_NUMA_NODE		(1U << 2)
#define F_TOKEN_FD		(1U << 16)

/* struct bpf_common_attr, 24 bytes */
struct common_attr {
	uint64_t log_buf;
	uint32_t log_size;
	uint32_t log_level;
	uint32_t log_true_size;
	uint32_t reserved;	/* the tail padding, named: must be zero */
};
_Static_assert(sizeof(struct common_attr) == 24, "bpf_common_attr is 24 bytes");

/* union bpf_attr for BPF_MAP_CREATE, 6.12 */
struct map_attr {
	uint32_t map_type, key_size, value_size, max_entries, map_flags;
	uint32_t inner_map_fd, numa_node;
	char map_name[16];
	uint32_t map_ifindex, btf_fd, btf_key_type_id, btf_value_type_id;
	uint32_t btf_vmlinux_value_type_id;
	uint64_t map_extra;
	int32_t value_type_btf_obj_fd, map_token_fd;
};
_Static_assert(offsetof(struct map_attr, map_extra) == 64, "map_extra");
_Static_assert(sizeof(struct map_attr) == 80, "map_create attr");

/* union bpf_attr for BPF_PROG_LOAD, 6.12 */
struct prog_attr {
	uint32_t prog_type, insn_cnt;
	uint64_t insns, license;
	uint32_t log_level, log_size;
	uint64_t log_buf;
	uint32_t kern_version, prog_flags;
	char prog_name[16];
	uint32_t prog_ifindex, expected_attach_type, prog_btf_fd;
	uint32_t func_info_rec_size;
	uint64_t func_info;
	uint32_t func_info_cnt, line_info_rec_size;
	uint64_t line_info;
	uint32_t line_info_cnt, attach_btf_id, attach_prog_fd, core_relo_cnt;
	uint64_t fd_array, core_relos;
	uint32_t core_relo_rec_size, log_true_size;
	int32_t prog_token_fd;
	uint32_t pad;
};
_Static_assert(offsetof(struct prog_attr, log_true_size) == 140, "log_true_size");

/* union bpf_attr for BPF_BTF_LOAD, 6.12 */
struct btf_attr {
	uint64_t btf, btf_log_buf;
	uint32_t btf_size, btf_log_size, btf_log_level, btf_log_true_size;
	uint32_t btf_flags;
	int32_t btf_token_fd;
};
_Static_assert(offsetof(struct btf_attr, btf_log_true_size) == 28, "btf_log_true_size");

/* union bpf_attr for BPF_MAP_*_ELEM and BPF_OBJ_GET_INFO_BY_FD */
struct elem_attr {
	uint32_t map_fd, pad;
	uint64_t key, value, flags;
};

struct info_attr {
	uint32_t bpf_fd, info_len;
	uint64_t info;
};

struct get_id_attr {
	uint32_t start_id, next_id, open_flags;
};

/* the start of struct bpf_map_info */
struct map_info {
	uint32_t type, id, key_size, value_size, max_entries, map_flags;
	char name[16];
	uint32_t rest[32];
};

/* ---- the kernel's logs, with -v ---- */

/* the log as "#" lines, with -v */
static void show_log(const char *what, const char *log)
{
	const char *p = log, *nl;

	if (!kb_verbose)
		return;
	printf("# %s log:\n", what);
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl) {
			printf("#   %s\n", p);
			break;
		}
		printf("#   %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

/* ---- raw bpf() ---- */

/* three arguments, as every binary built before the feature calls it */
static int bpf3(int cmd, void *attr, unsigned int size)
{
	long r = syscall(__NR_bpf, cmd, attr, size);

	return r < 0 ? -errno : (int)r;
}

/* five arguments; cmd carries BPF_COMMON_ATTRS if the caller wants it */
static int bpf5(int cmd, void *attr, unsigned int size, void *common,
		unsigned long size_common)
{
	long r = syscall(__NR_bpf, cmd, attr, size, common, size_common);

	return r < 0 ? -errno : (int)r;
}

static int bpf_common(int cmd, void *attr, unsigned int size,
		      struct common_attr *common)
{
	return bpf5(cmd | BPF_COMMON_ATTRS, attr, size, common, sizeof(*common));
}

/* close an fd a call returned, if it did */
static void drop(int r)
{
	if (r >= 0)
		close(r);
}

/* ---- what a call leaves behind ---- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

static int count_ids(int cmd)
{
	struct get_id_attr a;
	uint32_t id = 0;
	int n = 0;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (bpf3(cmd, &a, sizeof(a)) < 0)
			return n;
		id = a.next_id;
		n++;
	}
}

struct objs {
	int fds, maps, progs, btfs;
};

static struct objs objs_now(void)
{
	struct objs o = {
		count_fds(), count_ids(CMD_MAP_GET_NEXT_ID),
		count_ids(CMD_PROG_GET_NEXT_ID), count_ids(CMD_BTF_GET_NEXT_ID),
	};
	return o;
}

/* a case passes only if the call left no fd, map, program or BTF behind */
static int objs_same(struct objs before, char *why, size_t len)
{
	struct objs now = objs_now();

	snprintf(why, len, "fds %d->%d maps %d->%d progs %d->%d btfs %d->%d",
		 before.fds, now.fds, before.maps, now.maps, before.progs,
		 now.progs, before.btfs, now.btfs);
	return now.fds == before.fds && now.maps == before.maps &&
	       now.progs == before.progs && now.btfs == before.btfs;
}

/* ---- the objects the cases create ---- */

static void map_hash(struct map_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->map_type = MAP_TYPE_HASH;
	a->key_size = 4;
	a->value_size = 8;
	a->max_entries = 1;
}

/* r0 = 0; exit: accepted */
static const uint64_t prog_good[] = {
	0x00000000000000b7ULL,	/* mov r0, 0 */
	0x0000000000000095ULL,	/* exit */
};

/* exit without r0: "R0 !read_ok", EACCES */
static const uint64_t prog_bad[] = {
	0x0000000000000095ULL,	/* exit */
};

static void prog_init(struct prog_attr *a, int good)
{
	memset(a, 0, sizeof(*a));
	a->prog_type = PROG_TYPE_SOCKET_FILTER;
	a->insns = (uintptr_t)(good ? prog_good : prog_bad);
	a->insn_cnt = good ? 2 : 1;
	a->license = (uintptr_t)"GPL";
}

/* BTF: one type, "int" (a signed 32-bit integer) */
static const struct {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint32_t int_name_off, int_info, int_size, int_enc;
	char strs[5];
} __attribute__((packed)) btf_good = {
	0xeb9f, 1, 0, 24, 0, 16, 16, 5,
	1, 1U << 24, 4, (1U << 24) | 32,
	"\0int",
};

/* the same with an INT of size 3 and 32 bits: rejected with a reason */
static const struct {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint32_t int_name_off, int_info, int_size, int_enc;
	char strs[5];
} __attribute__((packed)) btf_bad = {
	0xeb9f, 1, 0, 24, 0, 16, 16, 5,
	1, 1U << 24, 3, (1U << 24) | 32,
	"\0int",
};

static void btf_init(struct btf_attr *a, int good)
{
	memset(a, 0, sizeof(*a));
	a->btf = (uintptr_t)(good ? (const void *)&btf_good : (const void *)&btf_bad);
	a->btf_size = good ? sizeof(btf_good) : sizeof(btf_bad);
}

/* ---- three-argument calls: the same on both kernels ---- */

KB_CASE(plain_calls)
{
	struct map_attr ma;
	struct prog_attr pa;
	struct btf_attr ba;
	struct elem_attr ea;
	struct info_attr ia;
	struct map_info mi;
	char log[4096];
	uint32_t key = 0;
	uint64_t val = 42, got = 0;
	int map, prog, btf, r;

	map_hash(&ma);
	strcpy(ma.map_name, "ca_plain");
	map = bpf3(CMD_MAP_CREATE, &ma, sizeof(ma));
	if (!ASSERT_FD(map, "plain: MAP_CREATE (3 args) gives an fd"))
		return;

	memset(&ea, 0, sizeof(ea));
	ea.map_fd = map;
	ea.key = (uintptr_t)&key;
	ea.value = (uintptr_t)&val;
	r = bpf3(CMD_MAP_UPDATE_ELEM, &ea, sizeof(ea));
	ASSERT_OK(r, "plain: MAP_UPDATE_ELEM");
	ea.value = (uintptr_t)&got;
	r = bpf3(CMD_MAP_LOOKUP_ELEM, &ea, sizeof(ea));
	ASSERT_TRUE(r == 0 && got == 42, "plain: MAP_LOOKUP_ELEM reads it back: %s, %llu",
		    err_name(r), (unsigned long long)got);

	memset(&mi, 0, sizeof(mi));
	memset(&ia, 0, sizeof(ia));
	ia.bpf_fd = map;
	ia.info_len = sizeof(mi);
	ia.info = (uintptr_t)&mi;
	r = bpf3(CMD_OBJ_GET_INFO_BY_FD, &ia, sizeof(ia));
	ASSERT_TRUE(r == 0 && mi.type == MAP_TYPE_HASH && mi.key_size == 4 &&
		    mi.value_size == 8 && !strcmp(mi.name, "ca_plain"),
		    "plain: OBJ_GET_INFO_BY_FD: %s, type %u key %u value %u name %s",
		    err_name(r), mi.type, mi.key_size, mi.value_size, mi.name);

	/* an old caller leaves garbage in the registers of args 4 and 5 */
	val = 7;
	ea.value = (uintptr_t)&val;
	r = bpf5(CMD_MAP_UPDATE_ELEM, &ea, sizeof(ea), (void *)0xdeadbeef, ~0UL);
	ASSERT_OK(r, "plain: MAP_UPDATE_ELEM ignores args 4 and 5 without the flag");
	close(map);

	map_hash(&ma);
	map = bpf5(CMD_MAP_CREATE, &ma, sizeof(ma), (void *)0xdeadbeef, 99999);
	ASSERT_FD(map, "plain: MAP_CREATE ignores args 4 and 5 without the flag");
	drop(map);

	/* PROG_LOAD with the log in the attr: log_true_size as in 6.12 */
	prog_init(&pa, 0);
	memset(log, 0, sizeof(log));
	pa.log_level = 1;
	pa.log_buf = (uintptr_t)log;
	pa.log_size = sizeof(log);
	prog = bpf3(CMD_PROG_LOAD, &pa, sizeof(pa));
	ASSERT_TRUE(prog == -EACCES && strstr(log, "R0 !read_ok") &&
		    pa.log_true_size == strlen(log) + 1,
		    "plain: PROG_LOAD rejected with its log: %s, true size %u, strlen %zu",
		    fd_err_name(prog), pa.log_true_size, strlen(log));
	show_log("plain PROG_LOAD", log);
	drop(prog);
	prog_init(&pa, 1);
	prog = bpf3(CMD_PROG_LOAD, &pa, sizeof(pa));
	ASSERT_FD(prog, "plain: PROG_LOAD of a 2-insn program");
	drop(prog);
	prog_init(&pa, 1);
	prog = bpf5(CMD_PROG_LOAD, &pa, sizeof(pa), (void *)1, 4096);
	ASSERT_FD(prog, "plain: PROG_LOAD ignores args 4 and 5 without the flag");
	drop(prog);

	btf_init(&ba, 0);
	memset(log, 0, sizeof(log));
	ba.btf_log_level = 1;
	ba.btf_log_buf = (uintptr_t)log;
	ba.btf_log_size = sizeof(log);
	btf = bpf3(CMD_BTF_LOAD, &ba, sizeof(ba));
	ASSERT_TRUE(btf == -EINVAL && log[0] && ba.btf_log_true_size == strlen(log) + 1,
		    "plain: BTF_LOAD rejected with its log: %s, true size %u, strlen %zu",
		    fd_err_name(btf), ba.btf_log_true_size, strlen(log));
	show_log("plain BTF_LOAD", log);
	drop(btf);
	btf_init(&ba, 1);
	btf = bpf3(CMD_BTF_LOAD, &ba, sizeof(ba));
	ASSERT_FD(btf, "plain: BTF_LOAD of one int");
	drop(btf);
}

/* ---- the probe: the feature, or its absence ---- */

/* what the probe gives: EFAULT with the feature, EINVAL without */
static int probe(void)
{
	struct prog_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	r = bpf5(CMD_PROG_LOAD | BPF_COMMON_ATTRS, &a, sizeof(a), NULL,
		 sizeof(struct common_attr));
	drop(r);
	printf("# probe: BPF_PROG_LOAD|BPF_COMMON_ATTRS with NULL gives %s\n",
	       fd_err_name(r));
	return r;
}

/*
 * 1 if the running kernel's BTF holds the name s, 0 if not, -errno if
 * it cannot be read.
 */
static int btf_names(const char *s)
{
	size_t n = strlen(s) + 2, len;
	uint8_t *btf = read_whole_file(BTF_PATH, &len);
	char want[128];
	int found;

	if (!btf)
		return -ENODEV;
	/* a name in the string section: NUL on both sides */
	want[0] = '\0';
	found = n <= sizeof(want);
	if (found) {
		memcpy(want + 1, s, n - 1);
		found = memmem(btf, len, want, n) != NULL;
	}
	free(btf);
	return found;
}

/*
 * Once: 1 if the feature is there (the probe gives EFAULT, and the
 * kernel's BTF agrees), else 0 after reporting the feature absent or
 * the probe failed. The kernel's own BTF says whether it was built
 * with the feature: a probe that does not give EFAULT there is a
 * failure, not a skip. Only a kernel whose BTF lacks struct
 * bpf_common_attr may report the feature absent.
 */
static bool present(void)
{
	static int done;	/* 1 present, -1 absent or broken */
	int64_t val = 0;
	int named, r;

	if (done)
		return done > 0;
	done = -1;
	named = btf_names("bpf_common_attr");
	r = probe();
	if (r != -EFAULT && named == 0) {
		kb_absent("COMMON_ATTRS", "BPF_PROG_LOAD|BPF_COMMON_ATTRS with NULL gives %s, and the kernel's BTF lacks struct bpf_common_attr",
			  kb_ret_name(r));
		return false;
	}
	if (!ASSERT_ERRNO(r, EFAULT, "probe: BPF_PROG_LOAD|BPF_COMMON_ATTRS with NULL (%s)",
			  named > 0 ? "the kernel's BTF has struct bpf_common_attr" :
			  named == 0 ? "the kernel's BTF lacks struct bpf_common_attr" :
			  "the kernel's BTF cannot be read to tell whether the feature is built in"))
		return false;
	ASSERT_EQ(named, 1, "BTF: struct bpf_common_attr is in the kernel's BTF");
	/* an entry of enum bpf_cmd, as upstream has it (common-attrs/0001) */
	r = btf_enum_value("bpf_cmd", "BPF_COMMON_ATTRS", &val);
	ASSERT_TRUE(r == 0 && val == BPF_COMMON_ATTRS,
		    "BTF: enum bpf_cmd has BPF_COMMON_ATTRS = %lld (want %d): %s",
		    r ? -1LL : (long long)val, BPF_COMMON_ATTRS,
		    r == -ENOENT ? "enum bpf_cmd lacks it" :
		    r == -ESRCH ? "no enum bpf_cmd in the BTF" :
		    r ? err_name(r) : "found");
	done = 1;
	return true;
}

KB_CASE(probe)
{
	present();
}

/* ---- MAP_CREATE's failure log ---- */

struct map_case {
	const char *name;
	const char *msg;
	int err;
	void (*setup)(struct map_attr *a);
};

static void mc_type(struct map_attr *a) { a->map_type = 9999; }
static void mc_type_reserved(struct map_attr *a) { a->map_type = 34; }
static void mc_extra(struct map_attr *a) { a->map_extra = 1; }
static void mc_numa(struct map_attr *a) { a->map_flags = F_NUMA_NODE; a->numa_node = 999; }
static void mc_name(struct map_attr *a) { strcpy(a->map_name, "bad-name"); }
static void mc_btf_fd(struct map_attr *a)
{
	a->btf_fd = 9999;
	a->btf_key_type_id = 1;
	a->btf_value_type_id = 1;
}
static void mc_btf_value(struct map_attr *a) { a->btf_key_type_id = 1; }
static void mc_vmlinux_type(struct map_attr *a) { a->btf_vmlinux_value_type_id = 1; }
static void mc_vmlinux_excl(struct map_attr *a)
{
	a->map_type = MAP_TYPE_STRUCT_OPS;
	a->btf_vmlinux_value_type_id = 1;
	a->btf_value_type_id = 1;
}
static void mc_token(struct map_attr *a) { a->map_flags = F_TOKEN_FD; a->map_token_fd = 9999; }
static void mc_rhash_extra(struct map_attr *a)
{
	a->map_type = MAP_TYPE_RHASH;
	a->map_flags = F_NO_PREALLOC;
	a->map_extra = 1ULL << 32;
}

static const struct map_case map_cases[] = {
	{ "map_type", "Invalid map_type.\n", EINVAL, mc_type },
	{ "map_type 34 (reserved)", "Invalid map_type.\n", EINVAL, mc_type_reserved },
	{ "map_extra", "Invalid map_extra.\n", EINVAL, mc_extra },
	{ "numa_node", "Invalid numa_node.\n", EINVAL, mc_numa },
	{ "map_name", "Invalid map_name.\n", EINVAL, mc_name },
	{ "btf_fd", "Invalid btf_fd.\n", EBADF, mc_btf_fd },
	{ "btf_value_type_id", "Invalid btf_value_type_id.\n", EINVAL, mc_btf_value },
	{ "btf_vmlinux_value_type_id (hash)",
	  "btf_vmlinux_value_type_id can only be used with struct_ops maps.\n",
	  EINVAL, mc_vmlinux_type },
	{ "btf_vmlinux_value_type_id (with btf_value_type_id)",
	  "btf_vmlinux_value_type_id is mutually exclusive with btf_key_type_id and btf_value_type_id.\n",
	  EINVAL, mc_vmlinux_excl },
	{ "map_token_fd", "Invalid map_token_fd.\n", EBADF, mc_token },
	{ "rhash map_extra upper bits", "Invalid map_extra.\n", EINVAL, mc_rhash_extra },
};

static void map_create_case(const struct map_case *c)
{
	struct common_attr ca;
	struct map_attr ma;
	struct objs before;
	char log[256], why[128];
	size_t len = strlen(c->msg);
	unsigned int small = 8;
	int r;

	/* a buffer large enough */
	before = objs_now();
	map_hash(&ma);
	c->setup(&ma);
	memset(log, 'x', sizeof(log));
	memset(&ca, 0, sizeof(ca));
	ca.log_buf = (uintptr_t)log;
	ca.log_size = sizeof(log);
	ca.log_level = 1;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_TRUE(r == -c->err && !strcmp(log, c->msg) && ca.log_true_size == len + 1 &&
		    objs_same(before, why, sizeof(why)),
		    "map_create %s: %s (want %s), log \"%.*s\\n\", true size %u (want %zu), %s",
		    c->name, fd_err_name(r), err_name(c->err),
		    (int)(strnlen(log, sizeof(log)) ? strnlen(log, sizeof(log)) - 1 : 0), log,
		    ca.log_true_size, len + 1, why);

	/* too small: the end of the message (the log rotates), ENOSPC */
	memset(log, 'x', sizeof(log));
	memset(&ca, 0, sizeof(ca));
	ca.log_buf = (uintptr_t)log;
	ca.log_size = small;
	ca.log_level = 1;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_TRUE(r == -ENOSPC && !strcmp(log, c->msg + len - (small - 1)) &&
		    log[small] == 'x' && ca.log_true_size == len + 1,
		    "map_create %s, %u-byte log: %s (want ENOSPC), tail of the message, true size %u",
		    c->name, small, fd_err_name(r), ca.log_true_size);

	/* too small with BPF_LOG_FIXED (8): the start of the message */
	memset(log, 'x', sizeof(log));
	ca.log_size = small;
	ca.log_level = 1 | 8;
	ca.log_true_size = 0;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_TRUE(r == -ENOSPC && !strncmp(log, c->msg, small - 1) && log[small - 1] == 0 &&
		    log[small] == 'x' && ca.log_true_size == len + 1,
		    "map_create %s, %u-byte fixed log: %s (want ENOSPC), head of the message, true size %u",
		    c->name, small, fd_err_name(r), ca.log_true_size);

	/* log_size 0: only the size the log needs */
	memset(&ca, 0, sizeof(ca));
	ca.log_level = 1;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_TRUE(r == -c->err && ca.log_true_size == len + 1,
		    "map_create %s, no buffer: %s (want %s), true size %u",
		    c->name, fd_err_name(r), err_name(c->err), ca.log_true_size);
}

KB_CASE(map_create_log)
{
	if (!present())
		return;
	for (size_t i = 0; i < sizeof(map_cases) / sizeof(map_cases[0]); i++)
		map_create_case(&map_cases[i]);
}

KB_CASE(map_create_ok)
{
	struct common_attr ca;
	struct map_attr ma;
	char log[64];
	int r;

	if (!present())
		return;

	map_hash(&ma);
	memset(log, 'x', sizeof(log));
	memset(&ca, 0, sizeof(ca));
	ca.log_buf = (uintptr_t)log;
	ca.log_size = sizeof(log);
	ca.log_level = 1;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	ASSERT_TRUE(r >= 0 && log[0] == 'x',
		    "map_create with a log that succeeds: %s, log untouched", fd_err_name(r));
	drop(r);

	memset(&ca, 0, sizeof(ca));
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	ASSERT_FD(r, "map_create with zeroed common attributes");
	drop(r);
}

/* ---- PROG_LOAD and BTF_LOAD: where the log comes from ---- */

enum where { IN_ATTR, IN_COMMON, IN_BOTH, IN_BOTH_DIFFERENT };
static const char *const where_name[] = {
	"log in attr", "log in common", "log in both, equal", "log in both, different",
};

#define SENTINEL 0x5a5a5a5a

/*
 * Set the log of one call where w says. The log buffer is the same
 * (buf, size, level) in both places except for IN_BOTH_DIFFERENT,
 * whose common level differs. The true sizes start as SENTINEL.
 */
static void set_log(enum where w, uint64_t *abuf, uint32_t *asize, uint32_t *alevel,
		    uint32_t *atrue, struct common_attr *ca, char *log, uint32_t size)
{
	memset(ca, 0, sizeof(*ca));
	*atrue = SENTINEL;
	ca->log_true_size = SENTINEL;
	if (w != IN_COMMON) {
		*abuf = (uintptr_t)log;
		*asize = size;
		*alevel = 1;
	}
	if (w != IN_ATTR) {
		ca->log_buf = (uintptr_t)log;
		ca->log_size = size;
		ca->log_level = w == IN_BOTH_DIFFERENT ? 2 : 1;
	}
}

/* the true sizes went back to the side(s) that gave the log */
static int true_sizes_ok(enum where w, uint32_t atrue, uint32_t ctrue, uint32_t want)
{
	switch (w) {
	case IN_ATTR:
		return atrue == want && ctrue == SENTINEL;
	case IN_COMMON:
		return atrue == SENTINEL && ctrue == want;
	case IN_BOTH:
		return atrue == want && ctrue == want;
	default:
		return atrue == SENTINEL && ctrue == SENTINEL;
	}
}

KB_CASE(prog_load_log)
{
	static char ref[4096], log[4096];
	struct prog_attr pa;
	struct common_attr ca;
	uint32_t ref_true = 0;
	enum where w;
	int r;

	if (!present())
		return;

	/* the reference: the log in the attr, the three-argument call */
	prog_init(&pa, 0);
	pa.log_level = 1;
	pa.log_buf = (uintptr_t)ref;
	pa.log_size = sizeof(ref);
	r = bpf3(CMD_PROG_LOAD, &pa, sizeof(pa));
	drop(r);
	ref_true = pa.log_true_size;

	for (w = IN_ATTR; w <= IN_BOTH_DIFFERENT; w++) {
		struct objs before = objs_now();
		char why[128];

		prog_init(&pa, 0);
		memset(log, 'x', sizeof(log));
		set_log(w, &pa.log_buf, &pa.log_size, &pa.log_level, &pa.log_true_size,
			&ca, log, sizeof(log));
		r = bpf_common(CMD_PROG_LOAD, &pa, sizeof(pa), &ca);
		drop(r);
		if (w == IN_BOTH_DIFFERENT) {
			ASSERT_TRUE(r == -EINVAL && log[0] == 'x' &&
				    true_sizes_ok(w, pa.log_true_size, ca.log_true_size, 0) &&
				    objs_same(before, why, sizeof(why)),
				    "prog_load %s: %s (want EINVAL), log untouched, %s",
				    where_name[w], fd_err_name(r), why);
			continue;
		}
		ASSERT_TRUE(r == -EACCES && !strcmp(log, ref) &&
			    true_sizes_ok(w, pa.log_true_size, ca.log_true_size, ref_true) &&
			    objs_same(before, why, sizeof(why)),
			    "prog_load %s: %s (want EACCES), log %s the 3-arg one, true sizes attr %#x common %#x (want %u), %s",
			    where_name[w], fd_err_name(r), strcmp(log, ref) ? "differs from" : "is",
			    pa.log_true_size, ca.log_true_size, ref_true, why);
	}

	/* an accepted program, log in common: fd and a log */
	prog_init(&pa, 1);
	memset(log, 0, sizeof(log));
	memset(&ca, 0, sizeof(ca));
	ca.log_buf = (uintptr_t)log;
	ca.log_size = sizeof(log);
	ca.log_level = 1;
	r = bpf_common(CMD_PROG_LOAD, &pa, sizeof(pa), &ca);
	ASSERT_TRUE(r >= 0 && strstr(log, "processed 2 insns") && ca.log_true_size == strlen(log) + 1,
		    "prog_load accepted, log in common: %s, true size %u, strlen %zu",
		    fd_err_name(r), ca.log_true_size, strlen(log));
	show_log("accepted PROG_LOAD", log);
	drop(r);
}

KB_CASE(btf_load_log)
{
	static char ref[4096], log[4096];
	struct btf_attr ba;
	struct common_attr ca;
	uint32_t ref_true;
	enum where w;
	int good, r;

	if (!present())
		return;

	for (good = 0; good <= 1; good++) {
		btf_init(&ba, good);
		memset(ref, 0, sizeof(ref));
		ba.btf_log_level = 1;
		ba.btf_log_buf = (uintptr_t)ref;
		ba.btf_log_size = sizeof(ref);
		r = bpf3(CMD_BTF_LOAD, &ba, sizeof(ba));
		drop(r);
		ref_true = ba.btf_log_true_size;
		show_log(good ? "accepted BTF_LOAD" : "rejected BTF_LOAD", ref);

		for (w = IN_ATTR; w <= IN_BOTH_DIFFERENT; w++) {
			struct objs before = objs_now();
			int want = w == IN_BOTH_DIFFERENT ? -EINVAL : good ? 0 : -EINVAL;
			char why[128];
			int same;

			btf_init(&ba, good);
			memset(log, 'x', sizeof(log));
			set_log(w, &ba.btf_log_buf, &ba.btf_log_size, &ba.btf_log_level,
				&ba.btf_log_true_size, &ca, log, sizeof(log));
			r = bpf_common(CMD_BTF_LOAD, &ba, sizeof(ba), &ca);
			if (r >= 0) {
				close(r);
				r = 0;
			}
			if (w == IN_BOTH_DIFFERENT) {
				ASSERT_TRUE(r == -EINVAL && log[0] == 'x' &&
					    true_sizes_ok(w, ba.btf_log_true_size, ca.log_true_size, 0) &&
					    objs_same(before, why, sizeof(why)),
					    "btf_load %s %s: %s (want EINVAL), log untouched, %s",
					    good ? "good" : "bad", where_name[w], err_name(r), why);
				continue;
			}
			same = !strcmp(log, ref);
			ASSERT_TRUE(r == want && same && ref[0] &&
				    true_sizes_ok(w, ba.btf_log_true_size, ca.log_true_size, ref_true) &&
				    (!good || objs_same(before, why, sizeof(why))),
				    "btf_load %s %s: %s (want %s), log %s the 3-arg one, true sizes attr %#x common %#x (want %u)",
				    good ? "good" : "bad", where_name[w], err_name(r), err_name(want),
				    same ? "is" : "differs from", ba.btf_log_true_size,
				    ca.log_true_size, ref_true);
		}
	}
}

/* ---- bad input: each an errno, and nothing left behind ---- */

KB_CASE(bad_input)
{
	long page = sysconf(_SC_PAGESIZE);
	struct common_attr ca;
	struct map_attr ma;
	struct prog_attr pa;
	struct btf_attr ba;
	struct objs before;
	char why[128], log[64];
	unsigned char *big, *ro;
	int r;

	if (!present())
		return;

	big = calloc(1, 2 * page);
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!big || ro == MAP_FAILED) {
		ASSERT_TRUE(0, "bad input: buffers: %s", strerror(errno));
		return;
	}

	/* a larger struct with a zero tail is fine, a non-zero tail is not */
	map_hash(&ma);
	before = objs_now();
	r = bpf5(CMD_MAP_CREATE | BPF_COMMON_ATTRS, &ma, sizeof(ma), big, 64);
	ASSERT_FD(r, "bad input: size_common 64 with a zero tail");
	drop(r);
	big[40] = 1;
	r = bpf5(CMD_MAP_CREATE | BPF_COMMON_ATTRS, &ma, sizeof(ma), big, 64);
	drop(r);
	ASSERT_TRUE(r == -E2BIG && objs_same(before, why, sizeof(why)),
		    "bad input: size_common 64 with a non-zero tail: %s (want E2BIG), %s",
		    fd_err_name(r), why);
	big[40] = 0;
	big[page + 8] = 1;
	r = bpf5(CMD_MAP_CREATE | BPF_COMMON_ATTRS, &ma, sizeof(ma), big, page + 16);
	drop(r);
	ASSERT_TRUE(r == -E2BIG && objs_same(before, why, sizeof(why)),
		    "bad input: size_common %ld (more than a page), non-zero tail: %s (want E2BIG), %s",
		    page + 16, fd_err_name(r), why);
	prog_init(&pa, 1);
	r = bpf5(CMD_PROG_LOAD | BPF_COMMON_ATTRS, &pa, sizeof(pa), big, page + 16);
	drop(r);
	ASSERT_TRUE(r == -E2BIG && objs_same(before, why, sizeof(why)),
		    "bad input: prog_load, size_common more than a page: %s (want E2BIG), %s",
		    fd_err_name(r), why);

	/* NULL with a size */
	r = bpf5(CMD_MAP_CREATE | BPF_COMMON_ATTRS, &ma, sizeof(ma), NULL, 24);
	drop(r);
	ASSERT_TRUE(r == -EFAULT && objs_same(before, why, sizeof(why)),
		    "bad input: map_create, NULL common attributes with a size: %s (want EFAULT), %s",
		    fd_err_name(r), why);
	btf_init(&ba, 1);
	r = bpf5(CMD_BTF_LOAD | BPF_COMMON_ATTRS, &ba, sizeof(ba), NULL, 24);
	drop(r);
	ASSERT_TRUE(r == -EFAULT && objs_same(before, why, sizeof(why)),
		    "bad input: btf_load, NULL common attributes with a size: %s (want EFAULT), %s",
		    fd_err_name(r), why);

	/* a log_level the command rejects: bits outside BPF_LOG_MASK */
	memset(&ca, 0, sizeof(ca));
	ca.log_buf = (uintptr_t)log;
	ca.log_size = sizeof(log);
	ca.log_level = 0x100;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_TRUE(r == -EINVAL && objs_same(before, why, sizeof(why)),
		    "bad input: map_create, log_level 0x100: %s (want EINVAL), %s",
		    fd_err_name(r), why);
	r = bpf_common(CMD_PROG_LOAD, &pa, sizeof(pa), &ca);
	drop(r);
	ASSERT_TRUE(r == -EINVAL && objs_same(before, why, sizeof(why)),
		    "bad input: prog_load, log_level 0x100: %s (want EINVAL), %s",
		    fd_err_name(r), why);
	r = bpf_common(CMD_BTF_LOAD, &ba, sizeof(ba), &ca);
	drop(r);
	ASSERT_TRUE(r == -EINVAL && objs_same(before, why, sizeof(why)),
		    "bad input: btf_load, log_level 0x100: %s (want EINVAL), %s",
		    fd_err_name(r), why);
	/* a buffer without a level */
	ca.log_level = 0;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_TRUE(r == -EINVAL && objs_same(before, why, sizeof(why)),
		    "bad input: map_create, log_buf with log_level 0: %s (want EINVAL), %s",
		    fd_err_name(r), why);

	/* a read-only log buffer */
	memset(&ca, 0, sizeof(ca));
	ca.log_buf = (uintptr_t)ro;
	ca.log_size = page;
	ca.log_level = 1;
	ma.map_type = 9999;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_TRUE(r == -EFAULT && objs_same(before, why, sizeof(why)),
		    "bad input: map_create failing, read-only log_buf: %s (want EFAULT), %s",
		    fd_err_name(r), why);
	r = bpf_common(CMD_PROG_LOAD, &pa, sizeof(pa), &ca);
	drop(r);
	ASSERT_TRUE(r == -EFAULT && objs_same(before, why, sizeof(why)),
		    "bad input: prog_load (accepted program), read-only log_buf: %s (want EFAULT), %s",
		    fd_err_name(r), why);
	r = bpf_common(CMD_BTF_LOAD, &ba, sizeof(ba), &ca);
	drop(r);
	ASSERT_TRUE(r == -EFAULT && objs_same(before, why, sizeof(why)),
		    "bad input: btf_load (good BTF), read-only log_buf: %s (want EFAULT), %s",
		    fd_err_name(r), why);

	munmap(ro, page);
	free(big);
}

/* the padding is named and must be zero (common-attrs/0001) */
KB_CASE(reserved_field)
{
	struct common_attr ca;
	struct map_attr ma;
	int r;

	if (!present())
		return;

	map_hash(&ma);
	memset(&ca, 0, sizeof(ca));
	ca.reserved = 1;
	r = bpf_common(CMD_MAP_CREATE, &ma, sizeof(ma), &ca);
	drop(r);
	ASSERT_ERRNO(r, EINVAL, "MAP_CREATE, common attributes with reserved = 1");
}

/* commands that take no common attributes still work with the flag */
KB_CASE(other_commands)
{
	char buf[64];
	struct common_attr ca;
	struct map_attr ma;
	struct elem_attr ea;
	uint32_t key = 0;
	uint64_t val = 1;
	int map, r;

	if (!present())
		return;

	map_hash(&ma);
	map = bpf3(CMD_MAP_CREATE, &ma, sizeof(ma));
	if (map < 0) {
		ASSERT_TRUE(0, "flag on MAP_UPDATE_ELEM: create: %s", fd_err_name(map));
		return;
	}
	memset(&ea, 0, sizeof(ea));
	ea.map_fd = map;
	ea.key = (uintptr_t)&key;
	ea.value = (uintptr_t)&val;
	memset(&ca, 0, sizeof(ca));
	r = bpf_common(CMD_MAP_UPDATE_ELEM, &ea, sizeof(ea), &ca);
	ASSERT_OK(r, "MAP_UPDATE_ELEM | BPF_COMMON_ATTRS, zeroed attributes");

	/* a command that takes no log ignores one (common-attrs/0001) */
	memset(buf, 'x', sizeof(buf));
	ca.log_buf = (uintptr_t)buf;
	ca.log_size = sizeof(buf);
	ca.log_level = 1;
	ca.log_true_size = 12345;
	r = bpf_common(CMD_MAP_UPDATE_ELEM, &ea, sizeof(ea), &ca);
	ASSERT_TRUE(r == 0 && buf[0] == 'x' && buf[sizeof(buf) - 1] == 'x' &&
		    ca.log_true_size == 12345,
		    "MAP_UPDATE_ELEM | BPF_COMMON_ATTRS with a log: %s (want success), log %s, log_true_size %u (want 12345: ignored)",
		    err_name(r), buf[0] == 'x' ? "untouched" : "written",
		    ca.log_true_size);
	close(map);
}
