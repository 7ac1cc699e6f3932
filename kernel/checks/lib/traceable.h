/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel functions a BPF tracing program can attach to, chosen by one
 * deterministic rule (upstream's attach benchmark's), so that every check
 * and benchmark that attaches to "N functions" takes the same ones on a
 * given kernel:
 *
 *   a BTF_KIND_FUNC of the kernel's BTF whose name
 *   - is in available_filter_functions exactly once (ftrace can patch
 *     it, and no static function of another file shares the name),
 *   - is a text symbol of /proc/kallsyms (t, T, or a weak W) exactly
 *     once, at an address no function taken before it has (aliases
 *     share a trampoline),
 *   - whose prototype a trampoline takes (btf_distill_func_proto()):
 *     at most 12 arguments, no varargs, each argument an integer, enum,
 *     pointer or a struct of 1 to 16 bytes (no union), the return value
 *     void or one of the first three,
 *   - and that is not on the skip list (functions the trampoline itself
 *     or the idle loop runs with RCU not watching, which upstream's
 *     selftests leave out too, and bpf_tracing_multi_stub, which the
 *     tracing_multi link refuses),
 *   taken in name order (strcmp).
 *
 * traceable_funcs() fills a struct tfuncs with them and their count, the
 * counts of what each rule left out, and hash, the FNV-1a 64-bit hash of
 * the names in order, each followed by '\n', so that two kernels' lists
 * can be compared. Needs root (kallsyms addresses) and tracefs (mounted
 * on /sys/kernel/tracing here if it is not).
 *
 * Used by the tracing-multi checks (#include "../lib/traceable.h") and
 * by bench/bpf_attach.c.
 */
#ifndef KB_CHECKS_TRACEABLE_H
#define KB_CHECKS_TRACEABLE_H

#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "btf.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TFUNC_MAX_ARGS	12

struct tfunc {
	uint32_t id;		/* BTF type id */
	uint32_t nargs;
	uint64_t addr;		/* from /proc/kallsyms */
	char *name;
};

struct tfuncs {
	struct tfunc *f;
	size_t n;
	uint64_t hash;
	/* what each rule left out, in the order above */
	size_t btf_funcs, not_ftrace, not_kallsyms, alias, proto, skipped;
};

/* A name and how often a list holds it; sorted by name for bsearch */
struct name_count {
	char *name;
	uint64_t addr;
	int count;
};

struct name_set {
	struct name_count *v;
	size_t n, cap;
};

static inline int name_count_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_count *)a)->name,
		      ((const struct name_count *)b)->name);
}

static inline int name_set_add(struct name_set *s, const char *name,
			       uint64_t addr)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 65536;
		struct name_count *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].name = strdup(name);
	if (!s->v[s->n].name)
		return -ENOMEM;
	s->v[s->n].addr = addr;
	s->v[s->n++].count = 1;
	return 0;
}

/* Sorts the set and folds equal names into one entry with their count */
static inline void name_set_fold(struct name_set *s)
{
	size_t i, o = 0;

	qsort(s->v, s->n, sizeof(*s->v), name_count_cmp);
	for (i = 0; i < s->n; i++) {
		if (o && !strcmp(s->v[o - 1].name, s->v[i].name)) {
			s->v[o - 1].count++;
			free(s->v[i].name);
			continue;
		}
		s->v[o++] = s->v[i];
	}
	s->n = o;
}

static inline const struct name_count *name_set_find(const struct name_set *s,
						     const char *name)
{
	struct name_count key = { .name = (char *)name };

	return bsearch(&key, s->v, s->n, sizeof(*s->v), name_count_cmp);
}

static inline void name_set_free(struct name_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* tracefs on TRACEFS: 0 if it is there or mounted now, else -errno */
static inline int tracefs_mount(void)
{
	struct stat st;

	if (!stat(TRACEFS "/available_filter_functions", &st))
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -errno;
	return 0;
}

/* The functions ftrace can patch (a module's are left out) */
static inline int read_ftrace_funcs(struct name_set *s)
{
	char line[512];
	FILE *f;
	int err = tracefs_mount();

	if (err)
		return err;
	f = fopen(TRACEFS "/available_filter_functions", "r");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = '\0';
		if (*line)
			err = name_set_add(s, line, 0);
	}
	fclose(f);
	name_set_fold(s);
	return err;
}

/*
 * The kernel's text symbols (t/T, and W/w: a weak function the build
 * kept, such as abort or page_is_ram, which the kernel attaches to like
 * any other), with the address of the first
 */
static inline int read_kallsyms(struct name_set *s)
{
	char line[512], type, name[256], mod[256];
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	int err = 0;

	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		int got = sscanf(line, "%llx %c %255s %255s", &addr, &type,
				 name, mod);

		if (got == 3 && (type == 't' || type == 'T' || type == 'W' ||
				 type == 'w'))
			err = name_set_add(s, name, addr);
	}
	fclose(f);
	name_set_fold(s);
	if (!err && s->n && !s->v[0].addr && !s->v[s->n - 1].addr)
		err = -EPERM;	/* addresses hidden: not root */
	return err;
}

/* Type id with typedefs and modifiers skipped; 0 for void or unknown */
static inline uint32_t btf_skip_mods(const struct btf_file *bf, uint32_t id,
				     struct btf_at *at)
{
	for (int depth = 0; id && depth < 32; depth++) {
		if (!btf_at(bf, id, at))
			return 0;
		switch (BTF_INFO_KIND(at->t.info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = at->t.type;
			continue;
		}
		return id;
	}
	return 0;
}

/* 1 if type id can be an argument (arg) or the return value (!arg) */
static inline int btf_value_ok(const struct btf_file *bf, uint32_t id, bool arg)
{
	struct btf_at at;

	if (!btf_skip_mods(bf, id, &at))
		return !arg && !id;	/* void: a return value only */
	switch (BTF_INFO_KIND(at.t.info)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_PTR:
		return 1;
	case BTF_KIND_STRUCT:
		/* by value, at most two registers; 6.12 passes no union */
		return arg && at.t.size && at.t.size <= 16;
	}
	return 0;
}

/* The argument count of FUNC at if a trampoline takes it, else -1 */
static inline int btf_func_traceable(const struct btf_file *bf,
				     const struct btf_at *func)
{
	struct btf_param p;
	struct btf_at proto;
	uint32_t n, i;

	if (!btf_at(bf, func->t.type, &proto) ||
	    BTF_INFO_KIND(proto.t.info) != BTF_KIND_FUNC_PROTO)
		return -1;
	n = BTF_INFO_VLEN(proto.t.info);
	if (n > TFUNC_MAX_ARGS || !btf_value_ok(bf, proto.t.type, false))
		return -1;
	for (i = 0; i < n; i++) {
		memcpy(&p, proto.extra + i * sizeof(p), sizeof(p));
		if (!p.type || !btf_value_ok(bf, p.type, true))
			return -1;	/* varargs, or a type it cannot pass */
	}
	return n;
}

/* Left out by name: see the comment at the top */
static inline bool tfunc_skip(const char *name)
{
	static const char *const exact[] = {
		"arch_cpu_idle", "default_idle", "bpf_dispatcher_xdp_func",
		"migrate_disable", "migrate_enable", "preempt_count_add",
		"preempt_count_sub", "__rcu_read_lock", "__rcu_read_unlock",
		/*
		 * the stub multi programs are verified against: the
		 * tracing_multi link refuses it (EINVAL), fentry takes it
		 */
		"bpf_tracing_multi_stub",
	};

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	return !strncmp(name, "rcu_", 4) ||
	       !strncmp(name, "__ftrace_invalid_address__", 26);
}

static inline int tfunc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tfunc *)a)->name,
		      ((const struct tfunc *)b)->name);
}

static inline int tfunc_addr_cmp(const void *a, const void *b)
{
	uint64_t x = (*(const struct tfunc *const *)a)->addr;
	uint64_t y = (*(const struct tfunc *const *)b)->addr;

	return x < y ? -1 : x > y;
}

static inline void tfuncs_free(struct tfuncs *l)
{
	for (size_t i = 0; l->f && i < l->n; i++)
		free(l->f[i].name);
	free(l->f);
	memset(l, 0, sizeof(*l));
}

/* FNV-1a 64 of the first n names, as traceable_funcs() hashes them all */
static inline uint64_t tfuncs_hash(const struct tfuncs *l, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < n && i < l->n; i++) {
		for (const char *c = l->f[i].name; *c; c++)
			h = (h ^ (uint8_t)*c) * 1099511628211ULL;
		h = (h ^ '\n') * 1099511628211ULL;
	}
	return h;
}

/*
 * Every function of the rule into l, in name order: 0, or -errno (the
 * BTF, tracefs or kallsyms could not be read).
 */
static inline int traceable_funcs(struct tfuncs *l)
{
	struct name_set ftr = { 0 }, ksy = { 0 };
	const struct name_count *k, *fc;
	struct tfunc **by_addr = NULL;
	struct btf_file bf;
	struct btf_at at;
	size_t i, o;
	int err, nargs;

	memset(l, 0, sizeof(*l));
	err = btf_open(&bf);
	if (err)
		return err;
	err = read_ftrace_funcs(&ftr);
	if (!err)
		err = read_kallsyms(&ksy);
	if (!err) {
		l->f = calloc(bf.n, sizeof(*l->f));
		if (!l->f)
			err = -ENOMEM;
	}
	for (uint32_t id = 1; !err && id < bf.n; id++) {
		const char *name;

		btf_at(&bf, id, &at);
		if (BTF_INFO_KIND(at.t.info) != BTF_KIND_FUNC)
			continue;
		l->btf_funcs++;
		name = btf_str(&at, at.t.name_off);
		fc = name_set_find(&ftr, name);
		k = name_set_find(&ksy, name);
		if (!fc || fc->count != 1) {
			l->not_ftrace++;
		} else if (!k || k->count != 1) {
			l->not_kallsyms++;
		} else if ((nargs = btf_func_traceable(&bf, &at)) < 0) {
			l->proto++;
		} else if (tfunc_skip(name)) {
			l->skipped++;
		} else {
			l->f[l->n].name = strdup(name);
			if (!l->f[l->n].name) {
				err = -ENOMEM;
				break;
			}
			l->f[l->n].id = id;
			l->f[l->n].nargs = nargs;
			l->f[l->n++].addr = k->addr;
		}
	}
	btf_close(&bf);
	name_set_free(&ftr);
	name_set_free(&ksy);
	if (!err && l->n)
		qsort(l->f, l->n, sizeof(*l->f), tfunc_cmp);
	/* of functions at one address, the first by name stays */
	by_addr = err ? NULL : calloc(l->n + 1, sizeof(*by_addr));
	if (!err && !by_addr)
		err = -ENOMEM;
	for (i = 0; !err && i < l->n; i++)
		by_addr[i] = &l->f[i];
	if (!err && l->n)
		qsort(by_addr, l->n, sizeof(*by_addr), tfunc_addr_cmp);
	for (i = 0; !err && i < l->n; i = o) {
		struct tfunc *keep = by_addr[i];

		for (o = i + 1; o < l->n && by_addr[o]->addr == keep->addr; o++)
			if (strcmp(by_addr[o]->name, keep->name) < 0)
				keep = by_addr[o];
		for (size_t j = i; j < o; j++)
			if (by_addr[j] != keep)
				by_addr[j]->nargs = UINT32_MAX;
	}
	free(by_addr);
	for (i = o = 0; !err && i < l->n; i++) {
		if (l->f[i].nargs == UINT32_MAX) {
			free(l->f[i].name);
			l->alias++;
			continue;
		}
		l->f[o++] = l->f[i];
	}
	if (!err)
		l->n = o;
	if (err) {
		tfuncs_free(l);
		return err;
	}
	l->hash = tfuncs_hash(l, l->n);
	return 0;
}

#endif /* KB_CHECKS_TRACEABLE_H */
