// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_attach: what attaching and detaching BPF tracing programs to many
 * kernel functions costs, for the set and per function.
 *
 * The functions: the first --funcs N (or all) of the kernel's traceable
 * functions, by the rule of kernel/checks/lib/traceable.h (a BTF FUNC
 * once in available_filter_functions and in kallsyms, with a prototype
 * a trampoline takes, not an alias, not on its skip list; upstream's
 * attach benchmark's rule) in name order, those whose names start with
 * --prefix (default: every name). Every method gets the same list; its
 * count ("functions") and a hash of its names ("funcs_hash", the low 32
 * bits of FNV-1a 64; the whole hash is on stderr) are recorded with the
 * results, so that a comparison can see when two kernels' lists differ.
 *
 * Variants (methods):
 *   fentry         one BPF_TRACE_FENTRY program and link per function,
 *                  attached one after the other (BPF_LINK_CREATE), then
 *                  detached one after the other (close): what bpftrace
 *                  does for a wildcard;
 *   kprobe_multi   one BPF_TRACE_KPROBE_MULTI link (fprobe) over all of
 *                  them: 6.12's batched attach, the reference;
 *   tracing_multi  one BPF_TRACE_FENTRY_MULTI link over their BTF ids
 *                  (upstream 7.2, issue 27), made with a raw bpf() call
 *                  since the ABI is newer than the libbpf linked here.
 *                  Absent on a kernel without it (the baseline).
 * The programs are "r0 = 0; exit".
 *
 * A sample loads the programs (load_ns: N for fentry, one otherwise),
 * attaches every function (attach_ns), detaches them (detach_ns) and
 * closes the programs (not timed); the per-function metrics divide the
 * phase by N. After the detach it sleeps --settle_ms, so that the RCU
 * work the detach queued (trampoline images, ftrace hashes) is done
 * before the next sample.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "kbbench.h"
#include "../kernel/checks/lib/traceable.h"

/* upstream 7.2's values (spec section 1) */
#define KB_TRACE_FENTRY_MULTI	59
#define KB_FUNCS_MAX		200000

/* BPF_LINK_CREATE's attr with link_create.tracing_multi (upstream 7.2) */
struct kb_tm_link_create {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 ids;
	__u64 cookies;
	__u32 cnt;
	__u32 pad;
};
static_assert(offsetof(struct kb_tm_link_create, ids) == 16, "layout");
static_assert(offsetof(struct kb_tm_link_create, cookies) == 24, "layout");
static_assert(offsetof(struct kb_tm_link_create, cnt) == 32, "layout");

static const char *funcs_arg = "50";
static unsigned long nfuncs;	/* 0: all */
static unsigned long settle_ms = 100;
static const char *prefix = "";
static enum { V_FENTRY, V_KPROBE_MULTI, V_TRACING_MULTI } variant;

static struct tfuncs all;
static __u32 *ids;
static const char **syms;
static unsigned long n;		/* the functions timed */
static int *progs, *links;
static uint64_t names_hash;	/* FNV-1a 64 of the n names */

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static const struct kb_opt att_opts[] = {
	{ "funcs", KB_OPT_STR, &funcs_arg,
	  "functions to attach to: 1..200000 or all (default 50)" },
	{ "prefix", KB_OPT_STR, &prefix,
	  "only traceable functions whose names start with it (default: all)" },
	{ "settle_ms", KB_OPT_ULONG, &settle_ms,
	  "sleep after a sample's detach, 0..10000 (default 100)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_ATTACH,
	M_DETACH,
	M_ATTACH_SET,
	M_DETACH_SET,
	M_LOAD_SET,
	M_FUNCS,
	M_HASH,
	NR_M,
};

static const struct kb_metric att_metrics[NR_M] = {
	[M_ATTACH] = { "attach_ns_per_func", "ns", KB_LOWER },
	[M_DETACH] = { "detach_ns_per_func", "ns", KB_LOWER },
	[M_ATTACH_SET] = { "attach_ns", "ns", KB_LOWER },
	[M_DETACH_SET] = { "detach_ns", "ns", KB_LOWER },
	[M_LOAD_SET] = { "load_ns", "ns", KB_LOWER },
	[M_FUNCS] = { "functions", "count", KB_INFO },
	[M_HASH] = { "funcs_hash", "count", KB_INFO },
};

static int att_validate(void)
{
	char *end;

	if (!strcmp(kb_variant, "fentry")) {
		variant = V_FENTRY;
	} else if (!strcmp(kb_variant, "kprobe_multi")) {
		variant = V_KPROBE_MULTI;
	} else if (!strcmp(kb_variant, "tracing_multi")) {
		variant = V_TRACING_MULTI;
	} else {
		fprintf(stderr, "kbbench: bpf_attach: --variant: '%s' is not fentry, kprobe_multi or tracing_multi\n",
			kb_variant);
		return -1;
	}
	if (!strcmp(funcs_arg, "all")) {
		nfuncs = 0;
	} else {
		errno = 0;
		nfuncs = strtoul(funcs_arg, &end, 10);
		if (*funcs_arg < '0' || *funcs_arg > '9' || *end || errno) {
			fprintf(stderr, "kbbench: bpf_attach: --funcs: '%s' is not a number or all\n",
				funcs_arg);
			return -1;
		}
		if (kb_check_range("bpf_attach", "funcs", nfuncs, 1,
				   KB_FUNCS_MAX))
			return -1;
	}
	return kb_check_range("bpf_attach", "settle_ms", settle_ms, 0, 10000);
}

/* ret0 as a program of type/attach on BTF id; fd or -errno */
static int load(enum bpf_prog_type type, __u32 attach, __u32 id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .attach_btf_id = id,
		    .expected_attach_type = attach);
	int fd = bpf_prog_load(type, "kb_attach", "GPL", ret0,
			       sizeof(ret0) / sizeof(ret0[0]), &o);

	return fd < 0 ? -errno : fd;
}

static int tracing_multi_link(int prog)
{
	struct kb_tm_link_create a = {
		.prog_fd = prog, .attach_type = KB_TRACE_FENTRY_MULTI,
		.ids = (uintptr_t)ids, .cnt = n,
	};
	long r = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));

	return r < 0 ? -errno : (int)r;
}

/* 0 if this kernel loads a tracing_multi program, else KB_ABSENT or -1 */
static int probe_tracing_multi(void)
{
	int fd = load(BPF_PROG_TYPE_TRACING, KB_TRACE_FENTRY_MULTI, 0);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd == -EINVAL) {
		fprintf(stderr, "kbbench: bpf_attach: tracing_multi is not in this kernel: loading a BPF_TRACE_FENTRY_MULTI (59) program gives EINVAL\n");
		return KB_ABSENT;
	}
	fprintf(stderr, "kbbench: bpf_attach: loading a BPF_TRACE_FENTRY_MULTI program: %s\n",
		strerror(-fd));
	return -1;
}

/* Room for a program and a link per function */
static int raise_nofile(void)
{
	struct rlimit rl;
	rlim_t want = 2 * (rlim_t)n + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	if (rl.rlim_cur >= want)
		return 0;
	if (rl.rlim_max < want)
		rl.rlim_max = want;
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		fprintf(stderr, "kbbench: bpf_attach: RLIMIT_NOFILE to %llu for %lu functions: %s\n",
			(unsigned long long)want, n, strerror(errno));
		return -1;
	}
	return 0;
}

static int att_setup(void)
{
	size_t plen = strlen(prefix), i;
	int err = variant == V_TRACING_MULTI ? probe_tracing_multi() : 0;
	uint64_t hash;

	if (err)
		return err;
	err = traceable_funcs(&all);
	if (err) {
		fprintf(stderr, "kbbench: bpf_attach: the traceable functions (BTF, %s/available_filter_functions, /proc/kallsyms): %s\n",
			TRACEFS, strerror(-err));
		return -1;
	}
	ids = calloc(all.n + 1, sizeof(*ids));
	syms = calloc(all.n + 1, sizeof(*syms));
	if (!ids || !syms)
		return -1;
	n = 0;
	for (i = 0; i < all.n && (!nfuncs || n < nfuncs); i++) {
		struct tfunc t = all.f[n];

		if (strncmp(all.f[i].name, prefix, plen))
			continue;
		/* the chosen ones to the front, in order, for the hash */
		all.f[n] = all.f[i];
		all.f[i] = t;
		ids[n] = all.f[n].id;
		syms[n] = all.f[n].name;
		n++;
	}
	if (!n || (nfuncs && n < nfuncs)) {
		fprintf(stderr, "kbbench: bpf_attach: only %lu traceable functions named %s* (of %zu: %zu BTF functions, not in ftrace %zu, not once in kallsyms %zu, aliases %zu, prototype %zu, skipped %zu); --funcs %s asks for more\n",
			n, prefix, all.n, all.btf_funcs, all.not_ftrace,
			all.not_kallsyms, all.alias, all.proto, all.skipped,
			funcs_arg);
		return -1;
	}
	hash = tfuncs_hash(&all, n);
	fprintf(stderr, "kbbench: bpf_attach: %lu functions (%s .. %s) of %zu traceable; names FNV-1a %016llx\n",
		n, syms[0], syms[n - 1], all.n, (unsigned long long)hash);
	names_hash = hash;
	progs = calloc(n, sizeof(*progs));
	links = calloc(n, sizeof(*links));
	if (!progs || !links)
		return -1;
	return raise_nofile();
}

static void att_teardown(void)
{
	free(ids);
	free(syms);
	free(progs);
	free(links);
	ids = NULL;
	syms = NULL;
	progs = links = NULL;
	tfuncs_free(&all);
}

static void close_all(int *fds, unsigned long cnt)
{
	for (unsigned long i = 0; i < cnt; i++)
		close(fds[i]);
}

/* Phase 1: the programs; the count loaded, with an error printed */
static unsigned long load_progs(void)
{
	unsigned long i;

	if (variant == V_KPROBE_MULTI)
		progs[0] = load(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0);
	else if (variant == V_TRACING_MULTI)
		progs[0] = load(BPF_PROG_TYPE_TRACING, KB_TRACE_FENTRY_MULTI, 0);
	if (variant != V_FENTRY) {
		if (progs[0] >= 0)
			return 1;
		fprintf(stderr, "kbbench: bpf_attach: loading the %s program: %s\n",
			kb_variant, strerror(-progs[0]));
		return 0;
	}
	for (i = 0; i < n; i++) {
		progs[i] = load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, ids[i]);
		if (progs[i] < 0) {
			fprintf(stderr, "kbbench: bpf_attach: loading fentry on %s: %s\n",
				syms[i], strerror(-progs[i]));
			break;
		}
	}
	return i;
}

/* Phase 2: the links; the count made, with an error printed */
static unsigned long attach_all(void)
{
	LIBBPF_OPTS(bpf_link_create_opts, ko);
	unsigned long i;

	if (variant == V_KPROBE_MULTI) {
		ko.kprobe_multi.syms = syms;
		ko.kprobe_multi.cnt = n;
		links[0] = bpf_link_create(progs[0], 0, BPF_TRACE_KPROBE_MULTI, &ko);
		if (links[0] < 0)
			links[0] = -errno;
	} else if (variant == V_TRACING_MULTI) {
		links[0] = tracing_multi_link(progs[0]);
	}
	if (variant != V_FENTRY) {
		if (links[0] >= 0)
			return 1;
		fprintf(stderr, "kbbench: bpf_attach: a %s link on %lu functions: %s\n",
			kb_variant, n, strerror(-links[0]));
		return 0;
	}
	for (i = 0; i < n; i++) {
		links[i] = bpf_link_create(progs[i], 0, BPF_TRACE_FENTRY, NULL);
		if (links[i] < 0) {
			fprintf(stderr, "kbbench: bpf_attach: fentry on %s: %s\n",
				syms[i], strerror(errno));
			break;
		}
	}
	return i;
}

static int att_run(double *vals)
{
	unsigned long want = variant == V_FENTRY ? n : 1, np, nl;
	uint64_t t0, t1, t2, t3;

	t0 = kb_now_ns();
	np = load_progs();
	t1 = kb_now_ns();
	nl = np < want ? 0 : attach_all();
	t2 = kb_now_ns();
	close_all(links, nl);
	t3 = kb_now_ns();
	close_all(progs, np);
	if (settle_ms)
		usleep(settle_ms * 1000);
	if (np < want || nl < want)
		return -1;
	vals[M_ATTACH] = (double)(t2 - t1) / (double)n;
	vals[M_DETACH] = (double)(t3 - t2) / (double)n;
	vals[M_ATTACH_SET] = (double)(t2 - t1);
	vals[M_DETACH_SET] = (double)(t3 - t2);
	vals[M_LOAD_SET] = (double)(t1 - t0);
	vals[M_FUNCS] = (double)n;
	vals[M_HASH] = (double)(names_hash & 0xffffffffu);
	return 0;
}

static const struct kb_bench bpf_attach = {
	.name = "bpf_attach",
	.help = "BPF attach and detach cost, set and per function: fentry links one by one, one kprobe_multi or one tracing_multi link",
	.opts = att_opts,
	.metrics = att_metrics,
	.nr_metrics = NR_M,
	.validate = att_validate,
	.setup = att_setup,
	.run = att_run,
	.teardown = att_teardown,
};
KB_BENCH(bpf_attach);
