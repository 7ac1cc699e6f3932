/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbbench: the registry and the interface of a benchmark.
 *
 * A benchmark is one C file in bench/ that defines a struct kb_bench and
 * registers it with KB_BENCH(). The macro puts a pointer to it into the
 * "kb_benches" linker section; kbbench.c walks that section through the
 * __start_/__stop_ symbols the linker provides. So adding a benchmark means
 * adding one file: no table, no extern, no option tree to edit.
 */
#ifndef KBBENCH_H
#define KBBENCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Which way a metric improves. KB_INFO ("none" in the CSV) is for values
 * that describe the run (bytes, rows, event counts) rather than cost it:
 * analysis/ reports them but gives them no better/worse verdict.
 */
enum kb_better {
	KB_LOWER,
	KB_HIGHER,
	KB_INFO,
};

/* One metric a benchmark reports for every sample. */
struct kb_metric {
	const char *name;	/* CSV "metric": [a-z0-9_]+ */
	const char *unit;	/* CSV "unit": ns, bytes, count, ... */
	enum kb_better better;
};

enum kb_opt_type {
	KB_OPT_ULONG,		/* decimal, stored in unsigned long */
	KB_OPT_STR,		/* stored as const char * (points into argv) */
};

/* A benchmark option: --name VALUE or --name=VALUE. */
struct kb_opt {
	const char *name;
	enum kb_opt_type type;
	void *dst;
	const char *help;
};

struct kb_bench {
	const char *name;	/* subcommand: [a-z0-9_]+ */
	const char *help;	/* one line, for --list */
	const struct kb_opt *opts;	/* NULL-name terminated, may be NULL */
	const struct kb_metric *metrics;
	size_t nr_metrics;
	/*
	 * Check option values once parsed; return 0 or print and return -1.
	 * Also used by "kbbench check" on the host: it must not open files,
	 * touch /proc or need root.
	 */
	int (*validate)(void);
	/*
	 * Called once before the first (warm-up) sample: 0, -1 after
	 * printing why, or KB_ABSENT after printing what is missing.
	 */
	int (*setup)(void);
	/*
	 * Run one sample and store one value per metric in vals[]
	 * (same order as metrics[]). Return 0, or -1 after printing why.
	 */
	int (*run)(double *vals);
	/* Called once after the last sample, also after a failure. */
	void (*teardown)(void);
};

#define KB_BENCH(b)							\
	static const struct kb_bench *const kb_bench_ptr_##b		\
	__attribute__((used, section("kb_benches"), aligned(sizeof(void *)))) = &(b)

/*
 * The variant being measured (--variant; "default" if none). Benchmarks
 * whose variants are different code paths (a map type, say) read it in
 * validate() and setup().
 */
extern const char *kb_variant;

/*
 * setup() returns KB_ABSENT when this kernel lacks what the variant
 * needs (a map type the baseline does not have): not a failure. kbbench
 * prints why and exits KB_EXIT_ABSENT; the guest runner records the
 * point as absent and the report shows it as n/a.
 */
#define KB_ABSENT	1
#define KB_EXIT_ABSENT	4

/* Monotonic time in ns; under QEMU -icount this is virtual time. */
uint64_t kb_now_ns(void);

/*
 * For validate(): 0 if lo <= val <= hi; otherwise prints
 * "kbbench: BENCH: --OPT: VAL is not in LO..HI" and returns -1.
 */
int kb_check_range(const char *bench, const char *opt, unsigned long val,
		   unsigned long lo, unsigned long hi);

#endif /* KBBENCH_H */
