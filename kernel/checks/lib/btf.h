/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's BTF (/sys/kernel/btf/vmlinux), read by the series'
 * checks in the guest: the file, its types by id, a walk over them, enum
 * values and FUNC ids by name or by prefix. Shared by the topics' programs
 * (#include "../lib/btf.h"); no topic of its own.
 */
#ifndef KB_CHECKS_BTF_H
#define KB_CHECKS_BTF_H

#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BTF_PATH	"/sys/kernel/btf/vmlinux"

/* The whole file at path in a malloc()ed buffer, or NULL */
static inline uint8_t *read_whole_file(const char *path, size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	uint8_t *buf = malloc(cap), *bigger;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			bigger = realloc(buf, cap * 2);
			if (!bigger) {
				r = -1;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* Bytes that follow a struct btf_type of this kind; -1 if unknown. */
static inline long btf_extra(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

/* One type of a walk: its id, header, the bytes after it, the strings. */
struct btf_at {
	uint32_t id;
	struct btf_type t;
	const uint8_t *extra;
	const char *strs;
	uint32_t str_len;
};

/* The string at off of the string section, or "" if off is outside it. */
static inline const char *btf_str(const struct btf_at *at, uint32_t off)
{
	return off < at->str_len ? at->strs + off : "";
}

/*
 * The kernel's BTF, read whole, with each type's offset: btf_open()
 * fills it (0, or -errno: -ENODEV without BTF, -EPROTO if the BTF cannot
 * be read), btf_at() gives type id (1..n-1), btf_close() frees it.
 */
struct btf_file {
	uint8_t *buf;
	const char *strs;
	uint32_t str_len;
	uint32_t n;		/* type ids are 1..n-1 */
	size_t *off;		/* off[id]: the type's struct btf_type */
};

static inline void btf_close(struct btf_file *bf)
{
	free(bf->buf);
	free(bf->off);
	bf->buf = NULL;
	bf->off = NULL;
}

static inline int btf_open(struct btf_file *bf)
{
	struct btf_header h;
	struct btf_type t;
	size_t len, off, end, cap = 1024, *bigger;
	long extra;

	memset(bf, 0, sizeof(*bf));
	bf->buf = read_whole_file(BTF_PATH, &len);
	if (!bf->buf)
		return -ENODEV;
	bf->off = malloc(cap * sizeof(*bf->off));
	if (!bf->off || len < sizeof(h))
		goto bad;
	memcpy(&h, bf->buf, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len > len ||
	    (uint64_t)h.hdr_len + h.type_off + h.type_len > len ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > len ||
	    !h.str_len || bf->buf[h.hdr_len + h.str_off + h.str_len - 1])
		goto bad;
	off = h.hdr_len + h.type_off;
	end = off + h.type_len;
	bf->strs = (const char *)bf->buf + h.hdr_len + h.str_off;
	bf->str_len = h.str_len;
	for (bf->n = 1; off + sizeof(t) <= end; bf->n++) {
		memcpy(&t, bf->buf + off, sizeof(t));
		extra = btf_extra(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
		if (extra < 0 || off + sizeof(t) + extra > end)
			goto bad;
		if (bf->n == cap) {
			bigger = realloc(bf->off, 2 * cap * sizeof(*bf->off));
			if (!bigger)
				goto bad;
			bf->off = bigger;
			cap *= 2;
		}
		bf->off[bf->n] = off;
		off += sizeof(t) + extra;
	}
	return 0;
bad:
	btf_close(bf);
	return -EPROTO;
}

/* Type id of an open BTF into *at; false if there is no such id. */
static inline bool btf_at(const struct btf_file *bf, uint32_t id,
			  struct btf_at *at)
{
	if (!id || id >= bf->n)
		return false;
	at->id = id;
	memcpy(&at->t, bf->buf + bf->off[id], sizeof(at->t));
	at->extra = bf->buf + bf->off[id] + sizeof(at->t);
	at->strs = bf->strs;
	at->str_len = bf->str_len;
	return true;
}

/*
 * Calls fn(at, arg) for each type of the kernel's BTF, in id order, until
 * fn returns non-zero. Returns what fn returned last (0 if it never
 * stopped the walk), or the -errno of btf_open().
 */
static inline long btf_walk(long (*fn)(const struct btf_at *at, void *arg),
			    void *arg)
{
	struct btf_file bf;
	struct btf_at at;
	long ret = 0;
	int err = btf_open(&bf);

	if (err)
		return err;
	for (uint32_t id = 1; id < bf.n && !ret; id++) {
		btf_at(&bf, id, &at);
		ret = fn(&at, arg);
	}
	btf_close(&bf);
	return ret;
}

struct btf_enum_query {
	const char *type, *member;
	int64_t value;
};

static inline long btf_enum_match(const struct btf_at *at, void *arg)
{
	struct btf_enum_query *q = arg;
	uint32_t kind = BTF_INFO_KIND(at->t.info), i;

	if ((kind != BTF_KIND_ENUM && kind != BTF_KIND_ENUM64) ||
	    strcmp(btf_str(at, at->t.name_off), q->type))
		return 0;
	for (i = 0; i < BTF_INFO_VLEN(at->t.info); i++) {
		struct btf_enum64 e64;
		struct btf_enum e;

		if (kind == BTF_KIND_ENUM) {
			memcpy(&e, at->extra + i * sizeof(e), sizeof(e));
			if (!strcmp(btf_str(at, e.name_off), q->member)) {
				q->value = e.val;
				return 1;
			}
			continue;
		}
		memcpy(&e64, at->extra + i * sizeof(e64), sizeof(e64));
		if (!strcmp(btf_str(at, e64.name_off), q->member)) {
			q->value = (int64_t)((uint64_t)e64.val_hi32 << 32 |
					     e64.val_lo32);
			return 1;
		}
	}
	return 2;	/* the enum, without the member */
}

/*
 * The value of member in the kernel BTF's enum called type: 0 and *value
 * set; -ENOENT if the enum has no such member, -ESRCH if there is no such
 * enum, or the errors of btf_walk().
 */
static inline int btf_enum_value(const char *type, const char *member,
				 int64_t *value)
{
	struct btf_enum_query q = { .type = type, .member = member };
	long r = btf_walk(btf_enum_match, &q);

	if (r == 1)
		*value = q.value;
	return r == 1 ? 0 : r == 2 ? -ENOENT : r ? (int)r : -ESRCH;
}

/*
 * Calls fn(name, id, arg) for each FUNC of the kernel's BTF whose name
 * starts with prefix, in id order, until fn returns non-zero. Returns
 * what fn returned last (0 if it never stopped the walk), or -errno:
 * -ENODEV without BTF, -EPROTO if the BTF cannot be read.
 */
struct btf_funcs_arg {
	const char *prefix;
	size_t plen;
	long (*fn)(const char *name, uint32_t id, void *arg);
	void *arg;
};

static inline long btf_funcs_one(const struct btf_at *at, void *arg)
{
	struct btf_funcs_arg *a = arg;
	const char *name = btf_str(at, at->t.name_off);

	if (BTF_INFO_KIND(at->t.info) != BTF_KIND_FUNC ||
	    strncmp(name, a->prefix, a->plen))
		return 0;
	return a->fn(name, at->id, a->arg);
}

static inline long btf_funcs(const char *prefix,
			     long (*fn)(const char *name, uint32_t id, void *arg),
			     void *arg)
{
	struct btf_funcs_arg a = {
		.prefix = prefix, .plen = strlen(prefix), .fn = fn, .arg = arg,
	};

	return btf_walk(btf_funcs_one, &a);
}

static inline long btf_stop_at(const char *name, uint32_t id, void *arg)
{
	return strcmp(name, arg) ? 0 : id;
}

/*
 * The type id of the FUNC called name in the kernel's BTF, or -errno:
 * -ENODEV without BTF, -ENOENT if there is no such FUNC, -EPROTO if the
 * BTF cannot be read.
 */
static inline long btf_func_id(const char *name)
{
	long id = btf_funcs(name, btf_stop_at, (void *)name);

	return id ? id : -ENOENT;
}

#endif /* KB_CHECKS_BTF_H */
