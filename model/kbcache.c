// SPDX-License-Identifier: GPL-2.0
/*
 * kbcache: a QEMU TCG plugin (API version 1, QEMU 7.2) that gives each
 * measured sample a deterministic, memory-aware cost. Per vCPU it models
 * an L1D and a DTLB, and one LLC shared by all vCPUs (cache.h); per
 * window it counts instructions, data accesses and misses, and
 * model_cycles = instructions + the miss penalties.
 *
 * A window is the code between two marker NOPs (kbmark.h) that the guest
 * executes around a sample. Markers are found at translation time; the
 * model runs only while a window is open: outside, the memory callback
 * returns at once and the instruction count is one inline add per block.
 *
 * Arguments (-plugin libkbcache.so,key=value,...): the fields of struct
 * kbc_params (sizes take a K, M or G suffix) and outfile=PATH, the host
 * file that gets one CSV line per window (default: QEMU's log). See
 * model/README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "kbmark.h"
#include "qemu-plugin-api.h"

#define KBC_EXPORT __attribute__((visibility("default")))

KBC_EXPORT int qemu_plugin_version = KBC_PLUGIN_API_VERSION;

enum { MARK_NONE, MARK_SAMPLE, MARK_WARMUP, MARK_END };

static struct kbc_params params = KBC_DEFAULTS;
static struct kbc_cache llc;
static struct kbc_cpu *cpus;
static unsigned int nr_cpus;

/* Every executed guest instruction, one inline add per block. */
static uint64_t insn_total;
/* Read by the memory callback on every access: is a window open? */
static int window_open;

/* Window bookkeeping, under win_lock (markers are rare). */
static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static int win_kind;
static unsigned int win_vcpu;
static uint64_t win_insn_start;
static uint64_t nr_windows, nr_stray_ends, nr_restarts;
static FILE *out;
static const char *out_path;

/* One line to the outfile (flushed: QEMU may be killed) or QEMU's log. */
static void __attribute__((format(printf, 1, 2))) emit(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (out) {
		fputs(line, out);
		fflush(out);
	} else {
		qemu_plugin_outs(line);
	}
}

static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	(void)udata;
	if (!__atomic_load_n(&window_open, __ATOMIC_RELAXED) || vcpu >= nr_cpus)
		return;
	kbc_access(&cpus[vcpu], vaddr, 1u << qemu_plugin_mem_size_shift(info));
}

static const char *kind_name(int kind)
{
	return kind == MARK_WARMUP ? "warmup" : "sample";
}

static void window_open_locked(int kind, unsigned int vcpu, uint64_t start)
{
	struct kbc_counts zero = { 0 };
	unsigned int i;

	if (window_open)
		nr_restarts++;
	for (i = 0; i < nr_cpus; i++)
		cpus[i].n = zero;
	win_kind = kind;
	win_vcpu = vcpu;
	win_insn_start = start;
	__atomic_store_n(&window_open, 1, __ATOMIC_RELAXED);
}

static void window_close_locked(uint64_t end)
{
	struct kbc_counts sum = { 0 };
	uint64_t insns = end - win_insn_start;
	unsigned int i;

	__atomic_store_n(&window_open, 0, __ATOMIC_RELAXED);
	/* a window counts the events of all vCPUs: a sample may migrate */
	for (i = 0; i < nr_cpus; i++) {
		sum.accesses += cpus[i].n.accesses;
		sum.l1d_misses += cpus[i].n.l1d_misses;
		sum.llc_misses += cpus[i].n.llc_misses;
		sum.dtlb_misses += cpus[i].n.dtlb_misses;
	}
	nr_windows++;
	emit("%" PRIu64 ",%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	     ",%" PRIu64 ",%" PRIu64 "\n", nr_windows, kind_name(win_kind),
	     win_vcpu, insns, sum.accesses, sum.l1d_misses, sum.llc_misses,
	     sum.dtlb_misses, kbc_model_cycles(&params, insns, &sum));
}

/*
 * A marker executes. udata: the kind in the low 2 bits, above them the
 * number of instructions after the marker in its block. The block's
 * inline add has already counted the whole block, so a window starts
 * after the marker and ends before the end marker, exactly.
 */
static void mark_cb(unsigned int vcpu, void *udata)
{
	uintptr_t u = (uintptr_t)udata;
	int kind = (int)(u & 3);
	uint64_t after = u >> 2;
	uint64_t now = __atomic_load_n(&insn_total, __ATOMIC_RELAXED);

	pthread_mutex_lock(&win_lock);
	if (kind == MARK_END) {
		if (window_open)
			window_close_locked(now - after - 1);
		else
			nr_stray_ends++;
	} else {
		window_open_locked(kind, vcpu, now - after);
	}
	pthread_mutex_unlock(&win_lock);
}

static int marker_kind(const struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);
	uint32_t magic;

	if (qemu_plugin_insn_size(insn) != KBMARK_LEN ||
	    memcmp(d, KBMARK_OPCODE, 4))
		return MARK_NONE;
	magic = (uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 |
		(uint32_t)d[7] << 24;
	switch (magic) {
	case KBMARK_SAMPLE:
		return MARK_SAMPLE;
	case KBMARK_WARMUP:
		return MARK_WARMUP;
	case KBMARK_END:
		return MARK_END;
	}
	return MARK_NONE;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insn_total, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int kind = marker_kind(insn);

		if (kind != MARK_NONE) {
			uintptr_t u = (uintptr_t)kind | (uintptr_t)(n - i - 1) << 2;

			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_cb,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)u);
			continue;
		}
		/* only instructions that access memory ever call it */
		qemu_plugin_register_vcpu_mem_cb(insn, mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	unsigned int i;

	(void)id;
	(void)udata;
	pthread_mutex_lock(&win_lock);
	emit("# kbcache end: windows=%" PRIu64 " unclosed=%d stray_ends=%" PRIu64
	     " restarts=%" PRIu64 "\n", nr_windows, window_open, nr_stray_ends,
	     nr_restarts);
	if (out && fclose(out))
		fprintf(stderr, "kbcache: closing %s: %s\n", out_path, strerror(errno));
	out = NULL;
	pthread_mutex_unlock(&win_lock);
	for (i = 0; i < nr_cpus; i++)
		kbc_cpu_free(&cpus[i]);
	free(cpus);
	kbc_cache_free(&llc);
}

static int parse_arg(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char err[256];
	size_t klen;

	/* QEMU before 6 passed arguments as arg=key=value */
	if (!strncmp(arg, "arg=", 4))
		return parse_arg(arg + 4);
	if (!eq) {
		fprintf(stderr, "kbcache: argument '%s' is not key=value\n", arg);
		return -1;
	}
	klen = (size_t)(eq - arg);
	if (klen == 7 && !strncmp(arg, "outfile", 7)) {
		out_path = eq + 1;
		return 0;
	}
	if (kbc_params_set(&params, arg, err, sizeof(err))) {
		fprintf(stderr, "kbcache: %s (and outfile)\n", err);
		return -1;
	}
	return 0;
}

static int is_default(void)
{
	const struct kbc_params d = KBC_DEFAULTS;

	return !memcmp(&d, &params, sizeof(d));
}

KBC_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
				   int argc, char **argv)
{
	char err[256], hdr[512];
	size_t i;
	int a;

	for (a = 0; a < argc; a++)
		if (parse_arg(argv[a]))
			return -1;
	if (kbc_params_check(&params, err, sizeof(err))) {
		fprintf(stderr, "kbcache: %s\n", err);
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "kbcache: needs system emulation\n");
		return -1;
	}
	nr_cpus = info->system.max_vcpus > 0 ? (unsigned int)info->system.max_vcpus : 1;
	cpus = calloc(nr_cpus, sizeof(*cpus));
	if (!cpus || kbc_cache_init(&llc, params.llc_size, params.line,
				    params.llc_ways))
		goto nomem;
	for (i = 0; i < nr_cpus; i++)
		if (kbc_cpu_init(&cpus[i], &params, &llc))
			goto nomem;
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, "kbcache: %s: %s\n", out_path, strerror(errno));
			return -1;
		}
	}
	/* the parameters first, as a comment: they belong in the fingerprint */
	kbc_params_format(&params, hdr, sizeof(hdr));
	emit("# kbcache v1 machine=%s %s\n", is_default() ? KBC_MACHINE : "custom",
	     hdr);
	emit("window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,"
	     "dtlb_misses,model_cycles\n");
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
nomem:
	fprintf(stderr, "kbcache: out of memory for %u vCPUs\n", nr_cpus);
	return -1;
}
