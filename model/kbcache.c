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
 * Asynchronous interrupts are left out of windows (pause.h): given the
 * guest kernel's entry points (entries=PATH, written by model/entries.sh
 * from its vmlinux), an external-interrupt or system-vector entry stub
 * pauses the window's vCPU until the iretq that returns from it; the
 * paused instructions are counted apart (irq_insns) and the paused
 * accesses never reach the model.
 *
 * Arguments (-plugin libkbcache.so,key=value,...): the fields of struct
 * kbc_params (sizes take a K, M or G suffix), outfile=PATH, the host
 * file that gets one CSV line per window (default: QEMU's log), and
 * entries=PATH. See model/README.md.
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
#include "pause.h"
#include "qemu-plugin-api.h"

#define KBC_EXPORT __attribute__((visibility("default")))

KBC_EXPORT int qemu_plugin_version = KBC_PLUGIN_API_VERSION;

enum { MARK_NONE, MARK_SAMPLE, MARK_WARMUP, MARK_END };

/* Kernel code the entries file names (model/entries.sh). */
enum { ENT_IRQ, ENT_EXC, ENT_SWITCH };

struct kbc_entry {
	uint64_t start, size, stride;
	int type;
};

/* Sorted by start, disjoint. */
static struct kbc_entry *entries;
static size_t nr_entries;
static const char *entries_path;

/* What a kernel-entry or return callback is: the low 2 bits of udata. */
enum { KE_IRQ, KE_EXC, KE_IRET };
/* Which __switch_to_asm access a switch callback is. */
enum { SW_OUT = 1, SW_IN };

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
/* Per vCPU: the span of an interrupt being left out of the window. */
static struct kbc_pause *pauses;
/* The open window's excluded spans and their instructions. */
static uint64_t win_irqs, win_irq_insns;
/* Over the boot: interrupt entries run; windows that ended in a span. */
static uint64_t nr_irqs, nr_unbalanced;
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

/*
 * x86-64's cpu_entry_area (4-level paging: one 512 GiB slot from
 * CPU_ENTRY_AREA_BASE): the read-only IDT and GDT, the TSS and the
 * entry stacks. What the CPU itself reads and pushes there when it
 * delivers an interrupt or exception is not the window's work, and QEMU
 * 7.2 reports those helper accesses to whichever instruction's memory
 * callbacks ran last (its plugin_mem_cbs is not reset when a block is
 * left for an interrupt), so they would land in the window, a few or
 * none depending on where the interrupt hit.
 */
#define CEA_BASE	0xfffffe0000000000ull
#define CEA_SIZE	0x0000008000000000ull
static uint64_t nr_cea_skipped;

static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	(void)udata;
	if (!__atomic_load_n(&window_open, __ATOMIC_RELAXED) || vcpu >= nr_cpus ||
	    pauses[vcpu].depth)
		return;
	if (vaddr - CEA_BASE < CEA_SIZE) {
		__atomic_fetch_add(&nr_cea_skipped, 1, __ATOMIC_RELAXED);
		return;
	}
	kbc_access(&cpus[vcpu], vaddr, 1u << qemu_plugin_mem_size_shift(info));
}

/*
 * __switch_to_asm saves the old task's stack pointer to its thread.sp
 * and loads the new task's: the two addresses name the tasks.
 */
static void switch_cb(unsigned int vcpu, qemu_plugin_meminfo_t info,
		      uint64_t vaddr, void *udata)
{
	if (vcpu < nr_cpus) {
		pthread_mutex_lock(&win_lock);
		if ((uintptr_t)udata == SW_OUT)
			kbc_pause_switch_out(&pauses[vcpu], vaddr);
		else
			kbc_pause_switch_in(&pauses[vcpu], vaddr);
		pthread_mutex_unlock(&win_lock);
	}
	mem_cb(vcpu, info, vaddr, NULL);
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
	for (i = 0; i < nr_cpus; i++) {
		cpus[i].n = zero;
		pauses[i] = (struct kbc_pause){ 0 };
	}
	win_irqs = 0;
	win_irq_insns = 0;
	win_kind = kind;
	win_vcpu = vcpu;
	win_insn_start = start;
	__atomic_store_n(&window_open, 1, __ATOMIC_RELAXED);
}

static void window_close_locked(uint64_t end)
{
	struct kbc_counts sum = { 0 };
	uint64_t insns = end - win_insn_start - win_irq_insns;
	unsigned int i;

	__atomic_store_n(&window_open, 0, __ATOMIC_RELAXED);
	/* a window counts the events of all vCPUs: a sample may migrate */
	for (i = 0; i < nr_cpus; i++) {
		/* the end marker runs in the window's task, never in a span */
		if (pauses[i].depth)
			nr_unbalanced++;
		pauses[i] = (struct kbc_pause){ 0 };
		sum.accesses += cpus[i].n.accesses;
		sum.l1d_misses += cpus[i].n.l1d_misses;
		sum.llc_misses += cpus[i].n.llc_misses;
		sum.dtlb_misses += cpus[i].n.dtlb_misses;
	}
	/*
	 * The warm-up's page faults ran kernel code on pages whose
	 * addresses differ from boot to boot (the task's stack, page
	 * tables, struct pages); the DTLB entries they left would evict
	 * the samples' own in one boot and not in the next. Samples start
	 * from an empty DTLB instead, refilled by their first touch of each
	 * page, alike in every boot; the caches stay warm, which is what a
	 * warm-up is for.
	 */
	if (win_kind == MARK_WARMUP)
		for (i = 0; i < nr_cpus; i++)
			kbc_cache_flush(&cpus[i].dtlb);
	nr_windows++;
	emit("%" PRIu64 ",%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	     ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", nr_windows,
	     kind_name(win_kind), win_vcpu, insns, sum.accesses, sum.l1d_misses,
	     sum.llc_misses, sum.dtlb_misses,
	     kbc_model_cycles(&params, insns, &sum), win_irqs, win_irq_insns);
}

/*
 * A kernel entry (the first instruction of its stub) or an iretq runs.
 * udata: KE_* in the low 2 bits, above them the number of instructions
 * after this one in its block (the block's inline add counted them).
 */
static void kentry_cb(unsigned int vcpu, void *udata)
{
	uintptr_t u = (uintptr_t)udata;
	uint64_t after = u >> 2;
	uint64_t now = __atomic_load_n(&insn_total, __ATOMIC_RELAXED);
	uint64_t span;
	struct kbc_pause *p;

	if (vcpu >= nr_cpus)
		return;
	p = &pauses[vcpu];
	pthread_mutex_lock(&win_lock);
	switch (u & 3) {
	case KE_IRQ:
		nr_irqs++;
		if (!window_open)
			break;
		/* the span starts with this instruction */
		if (!p->depth && !p->owner)
			win_irqs++;
		kbc_pause_irq(p, now - after - 1);
		break;
	case KE_EXC:
		kbc_pause_exc(p);
		break;
	case KE_IRET:
		/* ... and ends with the iretq */
		if (kbc_pause_iret(p, now - after, &span))
			win_irq_insns += span;
		break;
	}
	pthread_mutex_unlock(&win_lock);
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

/* The entry whose range holds vaddr, or NULL. */
static const struct kbc_entry *entry_at(uint64_t vaddr)
{
	size_t lo = 0, hi = nr_entries;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kbc_entry *e = &entries[mid];

		if (vaddr < e->start)
			hi = mid;
		else if (vaddr - e->start >= e->size)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

/* iretq (48 cf): the return from an interrupt or exception */
static int is_iretq(const struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);

	return qemu_plugin_insn_size(insn) == 2 && d[0] == 0x48 && d[1] == 0xcf;
}

/*
 * In __switch_to_asm: "mov %rsp, disp(%rdi)" (48 89 a7/67) saves prev's
 * stack pointer, "mov disp(%rsi), %rsp" (48 8b a6/66) loads next's.
 */
static int switch_kind(const struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn);

	if ((len != 7 && len != 4) || d[0] != 0x48 ||
	    (d[2] & 0xc0) != (len == 7 ? 0x80 : 0x40))
		return 0;
	if (d[1] == 0x89 && (d[2] & 0x3f) == 0x27)
		return SW_OUT;
	if (d[1] == 0x8b && (d[2] & 0x3f) == 0x26)
		return SW_IN;
	return 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insn_total, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uintptr_t after = (uintptr_t)(n - i - 1) << 2;
		int kind = marker_kind(insn);
		const struct kbc_entry *e;

		if (kind != MARK_NONE) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_cb,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(after | kind));
			continue;
		}
		if (nr_entries && is_iretq(insn)) {
			/*
			 * Its loads of the iret frame are not modelled: they
			 * would come after the span that it ends.
			 */
			qemu_plugin_register_vcpu_insn_exec_cb(insn, kentry_cb,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(after | KE_IRET));
			continue;
		}
		e = nr_entries ? entry_at(qemu_plugin_insn_vaddr(insn)) : NULL;
		if (e && e->type == ENT_SWITCH && (kind = switch_kind(insn))) {
			qemu_plugin_register_vcpu_mem_cb(insn, switch_cb,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 (void *)(uintptr_t)kind);
			continue;
		}
		/* an entry point: a stub's first instruction, the IDT's target */
		if (e && e->type != ENT_SWITCH &&
		    !((qemu_plugin_insn_vaddr(insn) - e->start) % e->stride))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, kentry_cb,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(after |
							       (e->type == ENT_IRQ ?
								KE_IRQ : KE_EXC)));
		/* only instructions that access memory ever call it */
		qemu_plugin_register_vcpu_mem_cb(insn, mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
	}
}

static int entry_cmp(const void *a, const void *b)
{
	const struct kbc_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The entries file: "TYPE START SIZE STRIDE NAME" per line (hex
 * addresses and sizes), TYPE irq, exc or switch; '#' starts a comment.
 * An entry point is START + k * STRIDE below START + SIZE.
 */
static int read_entries(const char *path)
{
	char line[512], type[16], name[256];
	size_t cap = 0, lineno = 0, i;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "kbcache: entries %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct kbc_entry e;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%15s %" SCNx64 " %" SCNx64 " %" SCNx64 " %255s",
			   type, &e.start, &e.size, &e.stride, name) != 5 ||
		    !e.size || !e.stride) {
			fprintf(stderr, "kbcache: %s:%zu: not TYPE START SIZE STRIDE NAME\n",
				path, lineno);
			goto bad;
		}
		if (!strcmp(type, "irq")) {
			e.type = ENT_IRQ;
		} else if (!strcmp(type, "exc")) {
			e.type = ENT_EXC;
		} else if (!strcmp(type, "switch")) {
			e.type = ENT_SWITCH;
		} else {
			fprintf(stderr, "kbcache: %s:%zu: type '%s' is not irq, exc or switch\n",
				path, lineno, type);
			goto bad;
		}
		if (nr_entries == cap) {
			struct kbc_entry *n;

			cap = cap ? 2 * cap : 64;
			n = realloc(entries, cap * sizeof(*n));
			if (!n) {
				fprintf(stderr, "kbcache: out of memory for %s\n", path);
				goto bad;
			}
			entries = n;
		}
		entries[nr_entries++] = e;
	}
	fclose(f);
	if (!nr_entries) {
		fprintf(stderr, "kbcache: %s names no entry\n", path);
		return -1;
	}
	qsort(entries, nr_entries, sizeof(*entries), entry_cmp);
	for (i = 1; i < nr_entries; i++)
		if (entries[i].start - entries[i - 1].start < entries[i - 1].size) {
			fprintf(stderr, "kbcache: %s: entries at %" PRIx64 " and %" PRIx64
				" overlap\n", path, entries[i - 1].start, entries[i].start);
			return -1;
		}
	return 0;
bad:
	fclose(f);
	return -1;
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	unsigned int i;

	(void)id;
	(void)udata;
	pthread_mutex_lock(&win_lock);
	emit("# kbcache end: windows=%" PRIu64 " unclosed=%d stray_ends=%" PRIu64
	     " restarts=%" PRIu64 " entries=%zu irqs=%" PRIu64 " unbalanced=%" PRIu64
	     " cea_skipped=%" PRIu64 "\n", nr_windows, window_open, nr_stray_ends,
	     nr_restarts, nr_entries, nr_irqs, nr_unbalanced, nr_cea_skipped);
	if (out && fclose(out))
		fprintf(stderr, "kbcache: closing %s: %s\n", out_path, strerror(errno));
	out = NULL;
	pthread_mutex_unlock(&win_lock);
	for (i = 0; i < nr_cpus; i++)
		kbc_cpu_free(&cpus[i]);
	free(cpus);
	free(pauses);
	free(entries);
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
	if (klen == 7 && !strncmp(arg, "entries", 7)) {
		entries_path = eq + 1;
		return 0;
	}
	if (kbc_params_set(&params, arg, err, sizeof(err))) {
		fprintf(stderr, "kbcache: %s (and outfile, entries)\n", err);
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
	if (entries_path && read_entries(entries_path))
		return -1;
	cpus = calloc(nr_cpus, sizeof(*cpus));
	pauses = calloc(nr_cpus, sizeof(*pauses));
	if (!cpus || !pauses || kbc_cache_init(&llc, params.llc_size, params.line,
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
	/* cea and warmup_end: how the A/A fixes treat a window (README) */
	emit("# kbcache v2 machine=%s %s irq=%s cea=skip warmup_end=dtlb_flush\n",
	     is_default() ? KBC_MACHINE : "custom", hdr,
	     nr_entries ? "exclude" : "include");
	emit("window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,"
	     "dtlb_misses,model_cycles,irqs,irq_insns\n");
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
nomem:
	fprintf(stderr, "kbcache: out of memory for %u vCPUs\n", nr_cpus);
	return -1;
}
