// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_attach: what attaching and detaching BPF tracing programs to many
 * kernel functions costs, per function.
 *
 * The functions: the first --funcs FUNC entries of the kernel's BTF whose
 * names start with --prefix (default __x64_sys_, the syscall entries), in
 * name order, that an fentry program attaches to on this kernel (setup
 * tries each once; a function ftrace cannot patch is left out, and the
 * count is reported as the "functions" metric, so both kernels are seen
 * to time the same set).
 *
 * Variants:
 *   fentry        one BPF_TRACE_FENTRY program and link per function,
 *                 attached one after the other (BPF_LINK_CREATE), then
 *                 detached one after the other (close). Each attach gives
 *                 a function its own BPF trampoline and ftrace direct
 *                 call: what the ftrace-direct series changes (one shared
 *                 direct ftrace_ops instead of one per trampoline);
 *   kprobe_multi  one BPF_TRACE_KPROBE_MULTI link (fprobe) over all of
 *                 them, attached and detached in one call each: 6.12's
 *                 batched attach, as a reference.
 * The programs are "r0 = 0; exit", loaded in setup (not timed).
 *
 * A sample times the attach of all functions and then their detach;
 * each metric is the phase's time divided by the number of functions.
 * After the detach the sample sleeps --settle_ms, so that the RCU work
 * the detach queued (trampoline images, ftrace hashes) is done before
 * the next sample.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "kbbench.h"

static unsigned long nfuncs = 50;
static unsigned long settle_ms = 100;
static const char *prefix = "__x64_sys_";
static enum { V_FENTRY, V_KPROBE_MULTI } variant;

/* the functions: BTF id and name (in the BTF's string section) */
static struct func {
	__u32 id;
	const char *name;
} *funcs;
static unsigned long nfound;
static struct btf *vmlinux_btf;
static int *progs, *links, kmulti_prog = -1;
static const char **syms;

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static const struct kb_opt att_opts[] = {
	{ "funcs", KB_OPT_ULONG, &nfuncs,
	  "functions to attach to, 1..1000 (default 50)" },
	{ "prefix", KB_OPT_STR, &prefix,
	  "the BTF function name prefix they are taken from (default __x64_sys_)" },
	{ "settle_ms", KB_OPT_ULONG, &settle_ms,
	  "sleep after a sample's detach, 0..10000 (default 100)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_ATTACH,
	M_DETACH,
	M_FUNCS,
	NR_M,
};

static const struct kb_metric att_metrics[NR_M] = {
	[M_ATTACH] = { "attach_ns_per_func", "ns", KB_LOWER },
	[M_DETACH] = { "detach_ns_per_func", "ns", KB_LOWER },
	[M_FUNCS] = { "functions", "count", KB_INFO },
};

static int att_validate(void)
{
	if (!strcmp(kb_variant, "fentry")) {
		variant = V_FENTRY;
	} else if (!strcmp(kb_variant, "kprobe_multi")) {
		variant = V_KPROBE_MULTI;
	} else {
		fprintf(stderr, "kbbench: bpf_attach: --variant: '%s' is not fentry or kprobe_multi\n",
			kb_variant);
		return -1;
	}
	if (!*prefix) {
		fprintf(stderr, "kbbench: bpf_attach: --prefix: empty\n");
		return -1;
	}
	if (kb_check_range("bpf_attach", "funcs", nfuncs, 1, 1000))
		return -1;
	return kb_check_range("bpf_attach", "settle_ms", settle_ms, 0, 10000);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct func *)a)->name,
		      ((const struct func *)b)->name);
}

/* Every BTF function with the prefix, sorted by name; -1 after printing */
static int collect(struct func **all, unsigned long *n)
{
	__u32 id, cnt;
	size_t plen = strlen(prefix);

	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf) {
		fprintf(stderr, "kbbench: bpf_attach: the kernel's BTF (/sys/kernel/btf/vmlinux): %s\n",
			strerror(errno));
		return -1;
	}
	cnt = btf__type_cnt(vmlinux_btf);
	*all = calloc(cnt, sizeof(**all));
	if (!*all)
		return -1;
	*n = 0;
	for (id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(vmlinux_btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(vmlinux_btf, t->name_off);
		if (name && !strncmp(name, prefix, plen))
			(*all)[(*n)++] = (struct func){ .id = id, .name = name };
	}
	qsort(*all, *n, sizeof(**all), by_name);
	return 0;
}

/* An fentry program on BTF function id; its fd or -errno */
static int load_fentry(__u32 id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .attach_btf_id = id,
		    .expected_attach_type = BPF_TRACE_FENTRY);

	return bpf_prog_load(BPF_PROG_TYPE_TRACING, "kb_attach", "GPL", ret0,
			     sizeof(ret0) / sizeof(ret0[0]), &o);
}

/*
 * The first --funcs functions an fentry attaches to, each with its
 * program loaded (kept for the fentry variant).
 */
static int pick(void)
{
	struct func *all;
	unsigned long n, i;
	int prog, link, skipped = 0, first_err = 0;

	if (collect(&all, &n))
		return -1;
	funcs = calloc(nfuncs, sizeof(*funcs));
	progs = calloc(nfuncs, sizeof(*progs));
	links = calloc(nfuncs, sizeof(*links));
	syms = calloc(nfuncs, sizeof(*syms));
	if (!funcs || !progs || !links || !syms) {
		free(all);
		return -1;
	}
	nfound = 0;
	for (i = 0; i < n && nfound < nfuncs; i++) {
		prog = load_fentry(all[i].id);
		link = prog < 0 ? prog : bpf_link_create(prog, 0, BPF_TRACE_FENTRY, NULL);
		if (link < 0) {
			if (prog >= 0)
				close(prog);
			skipped++;
			if (!first_err)
				first_err = link;
			continue;
		}
		close(link);
		funcs[nfound] = all[i];
		syms[nfound] = all[i].name;
		progs[nfound++] = prog;
	}
	free(all);
	if (nfound < nfuncs) {
		fprintf(stderr, "kbbench: bpf_attach: only %lu of the %lu functions named %s* in the BTF take an fentry program (%d do not, the first with %s); --funcs %lu asks for more\n",
			nfound, n, prefix, skipped,
			first_err ? strerror(-first_err) : "no error", nfuncs);
		return -1;
	}
	return 0;
}

static int att_setup(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_KPROBE_MULTI);

	if (pick())
		return -1;
	if (variant == V_KPROBE_MULTI) {
		kmulti_prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "kb_attach",
					    "GPL", ret0,
					    sizeof(ret0) / sizeof(ret0[0]), &o);
		if (kmulti_prog < 0) {
			fprintf(stderr, "kbbench: bpf_attach: loading a kprobe_multi program: %s\n",
				strerror(-kmulti_prog));
			return -1;
		}
	}
	return 0;
}

static void att_teardown(void)
{
	unsigned long i;

	for (i = 0; progs && i < nfound; i++)
		close(progs[i]);
	if (kmulti_prog >= 0)
		close(kmulti_prog);
	kmulti_prog = -1;
	free(funcs);
	free(progs);
	free(links);
	free(syms);
	funcs = NULL;
	progs = links = NULL;
	syms = NULL;
	btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
}

/* Attach every function (one link each); the count attached */
static unsigned long attach_fentry(void)
{
	unsigned long i;

	for (i = 0; i < nfound; i++) {
		links[i] = bpf_link_create(progs[i], 0, BPF_TRACE_FENTRY, NULL);
		if (links[i] < 0) {
			fprintf(stderr, "kbbench: bpf_attach: fentry on %s: %s\n",
				funcs[i].name, strerror(-links[i]));
			break;
		}
	}
	return i;
}

static int att_run(double *vals)
{
	LIBBPF_OPTS(bpf_link_create_opts, ko);
	unsigned long i, n = 0;
	uint64_t t0, t1, t2;
	int link = -1;

	ko.kprobe_multi.syms = syms;
	ko.kprobe_multi.cnt = nfound;
	t0 = kb_now_ns();
	if (variant == V_FENTRY)
		n = attach_fentry();
	else
		link = bpf_link_create(kmulti_prog, 0, BPF_TRACE_KPROBE_MULTI, &ko);
	t1 = kb_now_ns();
	if (variant == V_FENTRY) {
		for (i = 0; i < n; i++)
			close(links[i]);
	} else if (link >= 0) {
		close(link);
	}
	t2 = kb_now_ns();
	if (settle_ms)
		usleep(settle_ms * 1000);
	if (variant == V_FENTRY ? n < nfound : link < 0) {
		if (link < 0 && variant == V_KPROBE_MULTI)
			fprintf(stderr, "kbbench: bpf_attach: a kprobe_multi link on %lu functions: %s\n",
				nfound, strerror(-link));
		return -1;
	}
	vals[M_ATTACH] = (double)(t1 - t0) / (double)nfound;
	vals[M_DETACH] = (double)(t2 - t1) / (double)nfound;
	vals[M_FUNCS] = (double)nfound;
	return 0;
}

static const struct kb_bench bpf_attach = {
	.name = "bpf_attach",
	.help = "BPF attach and detach cost per function: fentry links one by one, or one kprobe_multi link",
	.opts = att_opts,
	.metrics = att_metrics,
	.nr_metrics = NR_M,
	.validate = att_validate,
	.setup = att_setup,
	.run = att_run,
	.teardown = att_teardown,
};
KB_BENCH(bpf_attach);
