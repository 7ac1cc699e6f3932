// SPDX-License-Identifier: GPL-2.0
/*
 * tmskel: the tracing_multi link through the patched tree's libbpf, as a
 * program written against upstream libbpf 1.8 uses it: a skeleton whose
 * SEC("fentry.multi/__do_sys_getp*") and SEC("fexit.multi/__do_sys_getppid")
 * programs the skeleton attaches by pattern. TAP on stdout.
 *
 *   tmskel [-l] [-v] [-t PATTERN]...   (../lib/harness.h)
 *
 * A case loads and attaches the skeleton and makes the calls it needs
 * that an earlier case would have (once), so that -t runs it alone.
 *
 * The calls: getppid 5 times, getpgrp 3 times (raw syscalls, so libc
 * caches nothing); the fentry.multi program counts them by function
 * address and must see exactly those numbers at __do_sys_getppid and
 * __do_sys_getpgrp (addresses from /proc/kallsyms); the fexit.multi one
 * the return value of the last getppid. The link's info says
 * tracing_multi. An freplace program on the fentry.multi program's global
 * subprogram is refused (EINVAL), as on an fentry program. On a kernel
 * without the link (the baseline) the skeleton does not load, and
 * kb_absent() says "TRACING_MULTI absent"; no case runs after it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tmskel.skel.h"
#include "../lib/harness.h"

/* Whether this kernel's BTF names BPF_TRACE_FENTRY_MULTI in bpf_attach_type */
static int kernel_names_multi(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, i, found = 0;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, e = t ? btf_enum(t) : NULL; t && i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off),
			    "BPF_TRACE_FENTRY_MULTI"))
			found = 1;
	}
	btf__free(btf);
	return found;
}

/* The address /proc/kallsyms gives @name, or 0 */
static unsigned long long kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * The pattern path of bpf_program__attach_tracing_multi() (issue 36,
 * review item 5), as upstream has it: a pattern is resolved from vmlinux
 * BTF alone over the functions the kernel's btf_distill_func_proto()
 * accepts; one that matches none of them is EINVAL, reported by libbpf
 * before any bpf() call; upstream's module:pattern is EOPNOTSUPP here (no
 * module BTF in this backport). libbpf's warnings are captured to tell
 * libbpf's refusal from the kernel's.
 */
static char libbpf_msgs[4096];
static size_t libbpf_msgs_len;

static int capture_print(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	size_t room = sizeof(libbpf_msgs) - libbpf_msgs_len;
	char *c;
	int n;

	if (level == LIBBPF_DEBUG || room <= 1)
		return 0;
	n = vsnprintf(libbpf_msgs + libbpf_msgs_len, room, fmt, ap);
	if (n > 0)
		libbpf_msgs_len += (size_t)n < room ? (size_t)n : room - 1;
	/* one TAP line: no newline in the case's description */
	for (c = libbpf_msgs; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return n;
}

/* The errno of attaching @prog by @pattern; libbpf's warnings in libbpf_msgs */
static int attach_pattern(struct bpf_program *prog, const char *pattern)
{
	libbpf_print_fn_t old;
	struct bpf_link *link;
	int err;

	libbpf_msgs[0] = '\0';
	libbpf_msgs_len = 0;
	old = libbpf_set_print(capture_print);
	link = bpf_program__attach_tracing_multi(prog, pattern, NULL);
	err = link ? 0 : -errno;
	libbpf_set_print(old);
	bpf_link__destroy(link);
	return err;
}

/* Type @id with typedefs and modifiers skipped (type 0, void, stays 0) */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (id && t && (btf_is_mod(t) || btf_is_typedef(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id ? t : NULL;
}

/*
 * How many vmlinux BTF functions @pattern matches (*@matched), and how
 * many of those take a struct or union over 16 bytes by value or return
 * a struct or union (*@refused): the functions the kernel's
 * btf_distill_func_proto() refuses for those reasons.
 */
static int count_struct_funcs(const char *pattern, int *matched, int *refused)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t, *proto, *rt;
	const struct btf_param *p;
	__u32 id, nr;
	int i, bad;

	*matched = *refused = 0;
	if (!btf)
		return -errno;
	nr = btf__type_cnt(btf);
	for (id = 1; id < nr; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_func(t) ||
		    fnmatch(pattern, btf__name_by_offset(btf, t->name_off), 0))
			continue;
		(*matched)++;
		proto = btf__type_by_id(btf, t->type);
		if (!proto || !btf_is_func_proto(proto))
			continue;
		rt = skip_mods(btf, proto->type);
		bad = rt && btf_is_composite(rt);
		p = btf_params(proto);
		for (i = 0; i < btf_vlen(proto); i++) {
			rt = skip_mods(btf, p[i].type);
			if (rt && btf_is_composite(rt) && rt->size > 16)
				bad = 1;
		}
		*refused += bad;
	}
	btf__free(btf);
	return 0;
}

/* The skeleton, loaded once (see loaded()) */
static struct tmskel_bpf *skel;

static unsigned long long hits_at(unsigned long long ip)
{
	__u64 key = ip, val = 0;

	if (bpf_map__lookup_elem(skel->maps.entry_hits, &key, sizeof(key),
				 &val, sizeof(val), 0))
		return 0;
	return val;
}

/*
 * Once: the skeleton opened and loaded, its freplace program left out.
 * A kernel whose BTF does not name BPF_TRACE_FENTRY_MULTI, where it does
 * not load, lacks the feature.
 */
static bool loaded(void)
{
	static int done;	/* 1 loaded, -1 not */
	int err = 0;

	if (done)
		return done > 0;
	done = -1;
	libbpf_set_print(NULL);
	skel = tmskel_bpf__open();
	if (!skel) {
		err = errno ? -errno : -EINVAL;	/* never ok when NULL */
	} else {
		bpf_program__set_autoload(skel->progs.ext_tm_sub, false);
		if (tmskel_bpf__load(skel)) {
			err = errno ? -errno : -EINVAL;
			tmskel_bpf__destroy(skel);
			skel = NULL;
		}
	}
	if (err && !kernel_names_multi()) {
		kb_absent("TRACING_MULTI", "the skeleton's fentry.multi programs do not load (%s) and the kernel's BTF has no BPF_TRACE_FENTRY_MULTI",
			  err_name(err));
		return false;
	}
	if (!ASSERT_OK(err, "the skeleton's fentry.multi and fexit.multi programs load"))
		return false;
	skel->bss->target_pid = getpid();
	done = 1;
	return true;
}

KB_CASE(load)
{
	loaded();
}

/*
 * An freplace program whose target is the fentry.multi program's global
 * subprogram tm_sub must not load: a multi program is not extendable,
 * as fentry/fexit are not (upstream v3).
 */
KB_CASE(freplace_refused)
{
	struct tmskel_bpf *ext;
	struct bpf_program *p;
	int err;

	if (!loaded())
		return;
	ext = tmskel_bpf__open();
	if (!ext) {
		ASSERT_TRUE(false, "a second skeleton for the freplace program: %s",
			    err_name(-errno));
		return;
	}
	bpf_object__for_each_program(p, ext->obj)
		bpf_program__set_autoload(p, p == ext->progs.ext_tm_sub);
	err = bpf_program__set_attach_target(ext->progs.ext_tm_sub,
					     bpf_program__fd(skel->progs.entry_getp),
					     "tm_sub");
	if (!err)
		err = tmskel_bpf__load(ext) ? -errno : 0;
	ASSERT_ERRNO(err, EINVAL, "freplace on the fentry.multi program's global subprogram is refused");
	tmskel_bpf__destroy(ext);
}

/* Once: the skeleton attached, its programs by their patterns */
static bool attached(void)
{
	static int done;	/* 1 attached, -1 not */

	if (done)
		return done > 0;
	done = -1;
	if (!loaded() ||
	    !ASSERT_OK(tmskel_bpf__attach(skel), "the skeleton attaches SEC(\"fentry.multi/__do_sys_getp*\") and SEC(\"fexit.multi/__do_sys_getppid\") by pattern"))
		return false;
	done = 1;
	return true;
}

KB_CASE(attach)
{
	attached();
}

/* The calls, made once while attached: getppid 5 times, getpgrp 3 times */
static long ppid;
static unsigned long long ppid_ip, pgrp_ip;

static bool called(void)
{
	static bool done;

	if (!attached())
		return false;
	if (done)
		return true;
	for (int i = 0; i < 5; i++)
		ppid = syscall(SYS_getppid);
	for (int i = 0; i < 3; i++)
		syscall(SYS_getpgrp);
	ppid_ip = kallsyms_addr("__do_sys_getppid");
	pgrp_ip = kallsyms_addr("__do_sys_getpgrp");
	done = true;
	return true;
}

KB_CASE(counts)
{
	if (!called())
		return;
	ASSERT_EQ(hits_at(ppid_ip), 5, "fentry.multi: calls counted at __do_sys_getppid (%#llx)",
		  ppid_ip);
	ASSERT_EQ(hits_at(pgrp_ip), 3, "fentry.multi: calls counted at __do_sys_getpgrp (%#llx)",
		  pgrp_ip);
	ASSERT_TRUE(skel->bss->fexit_ret == (__u64)ppid && skel->bss->fexit_ip == ppid_ip,
		    "fexit.multi saw getppid's return value %ld (got %llu at %#llx)",
		    ppid, (unsigned long long)skel->bss->fexit_ret,
		    (unsigned long long)skel->bss->fexit_ip);
}

KB_CASE(link_info)
{
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	int err;

	if (!attached())
		return;
	err = bpf_link_get_info_by_fd(bpf_link__fd(skel->links.entry_getp),
				      &info, &info_len);
	ASSERT_TRUE(!err && info.type == BPF_LINK_TYPE_TRACING_MULTI &&
		    info.tracing.attach_type == BPF_TRACE_FENTRY_MULTI,
		    "the link's info says tracing_multi (type %u, attach type %u)",
		    info.type, info.tracing.attach_type);
}

KB_CASE(detach)
{
	if (!called())
		return;
	tmskel_bpf__detach(skel);
	syscall(SYS_getppid);
	ASSERT_EQ(hits_at(ppid_ip), 5, "after the skeleton detaches, getppid is no longer counted: the calls at __do_sys_getppid");
}

/*
 * The pattern cases: a pattern that matches nothing is EINVAL; one that
 * matches only functions the kernel would refuse (rtc_tm_to_ktime takes
 * a struct rtc_time of 36 bytes, rtc_ktime_to_tm returns one) is EINVAL
 * from libbpf itself, before it creates a link (libbpf's "matches no
 * traceable" warning and none of a failed attach: a libbpf that let
 * rtc_tm_to_ktime through would get EINVAL from the kernel instead, with
 * "failed to attach"); "some_mod:func*" is EOPNOTSUPP.
 */
KB_CASE(pattern_no_match)
{
	int err;

	if (!loaded())
		return;
	err = attach_pattern(skel->progs.entry_getp, "kbench_no_such_function_*");
	ASSERT_TRUE(err == -EINVAL && strstr(libbpf_msgs, "kbench_no_such_function_*"),
		    "a pattern that matches no traceable function gives EINVAL, with a warning naming it (%s; libbpf: %s)",
		    err_name(err), libbpf_msgs);
}

KB_CASE(pattern_refused)
{
	const char *struct_pat = "rtc_*ktime*";
	int err, matched, refused;

	if (!loaded())
		return;
	err = count_struct_funcs(struct_pat, &matched, &refused);
	ASSERT_TRUE(!err && matched >= 1 && refused == matched,
		    "BTF: '%s' matches %d functions, all %d with a struct/union argument over 16 bytes or a struct/union return (%s)",
		    struct_pat, matched, refused, err_name(err));
	err = attach_pattern(skel->progs.entry_getp, struct_pat);
	ASSERT_TRUE(err == -EINVAL && strstr(libbpf_msgs, "matches no traceable") &&
		    !strstr(libbpf_msgs, "failed to attach"),
		    "'%s' (only functions btf_distill_func_proto() refuses) gives EINVAL from libbpf, before any link_create (%s; libbpf: %s)",
		    struct_pat, err_name(err), libbpf_msgs);
}

KB_CASE(pattern_module)
{
	int err;

	if (!loaded())
		return;
	err = attach_pattern(skel->progs.entry_getp, "some_mod:func*");
	ASSERT_TRUE(err == -EOPNOTSUPP && strstr(libbpf_msgs, "module BTF"),
		    "a module:pattern (\"some_mod:func*\") gives EOPNOTSUPP, with a warning that module BTF is not supported (%s; libbpf: %s)",
		    err_name(err), libbpf_msgs);
}
