// SPDX-License-Identifier: GPL-2.0
/*
 * kbbench: runs one registered benchmark in the guest and prints its
 * samples as CSV rows that analysis/ reads directly:
 *
 *   workload,variant,point,metric,unit,better,clock,rep,value
 *
 * One row per metric per measured sample; warm-up samples are run but
 * not printed. rep counts measured samples from 1.
 *
 * "kbbench check NAME [args]" parses and validates a command line as a
 * run would, without setup, samples or perf counters, so the host can
 * reject a bad workload plan before any guest boots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kbbench.h"
/* window markers for the kbcache model plugin (MODEL=cache) */
#include "../model/kbmark.h"

/* The linker defines these for the "kb_benches" section (see KB_BENCH). */
extern const struct kb_bench *const __start_kb_benches[] __attribute__((weak));
extern const struct kb_bench *const __stop_kb_benches[] __attribute__((weak));

#define CSV_HEADER "workload,variant,point,metric,unit,better,clock,rep,value"

struct kb_common {
	unsigned long reps;
	unsigned long warmup;
	const char *point;
	const char *clock;
	const char *variant;
	const char *workload;
	unsigned long quiesce_ms;
	int perf;
};

/* Software counters that work without a PMU (TCG guests have none). */
static const struct {
	struct kb_metric m;
	unsigned long long config;
	double scale;		/* counter unit to metric unit */
} perf_sw[] = {
	/* CPU time is the cost; event counts only help explain it */
	{ { "task_clock_ms", "ms", KB_LOWER }, PERF_COUNT_SW_TASK_CLOCK, 1e-6 },
	{ { "context_switches", "count", KB_INFO },
	  PERF_COUNT_SW_CONTEXT_SWITCHES, 1.0 },
	{ { "page_faults", "count", KB_INFO }, PERF_COUNT_SW_PAGE_FAULTS, 1.0 },
};

const char *kb_variant = "default";

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NR_PERF_SW ARRAY_SIZE(perf_sw)

static int perf_fd[NR_PERF_SW];

uint64_t kb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int kb_check_range(const char *bench, const char *opt, unsigned long val,
		   unsigned long lo, unsigned long hi)
{
	if (val >= lo && val <= hi)
		return 0;
	fprintf(stderr, "kbbench: %s: --%s: %lu is not in %lu..%lu\n", bench,
		opt, val, lo, hi);
	return -1;
}

/* "kbbench: BENCH: message" on stderr; every command-line error uses it. */
static void __attribute__((format(printf, 2, 3)))
kb_err(const struct kb_bench *b, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kbbench: %s: ", b->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *better_name(enum kb_better b)
{
	switch (b) {
	case KB_LOWER:
		return "lower";
	case KB_HIGHER:
		return "higher";
	case KB_INFO:
		break;
	}
	return "none";
}

static size_t nr_benches(void)
{
	if (!__start_kb_benches)
		return 0;
	return (size_t)(__stop_kb_benches - __start_kb_benches);
}

static const struct kb_bench *find_bench(const char *name)
{
	size_t i;

	for (i = 0; i < nr_benches(); i++)
		if (!strcmp(__start_kb_benches[i]->name, name))
			return __start_kb_benches[i];
	return NULL;
}

/*
 * Put every bench's options back to the values the program started
 * with (saved on the first call). main() runs once per process, except
 * in the fuzz harness (fuzz/kbbench_args.c), which calls it per input:
 * a string option would otherwise still point into an earlier, freed
 * argv, and an earlier input's values would leak into the next one.
 */
#define MAX_SAVED_OPTS 256

static void reset_options(void)
{
	static union {
		unsigned long ul;
		const char *str;
	} saved[MAX_SAVED_OPTS];
	static int have_saved;
	const struct kb_opt *o;
	size_t i, k = 0;

	for (i = 0; i < nr_benches(); i++) {
		for (o = __start_kb_benches[i]->opts; o && o->name; o++, k++) {
			if (k == MAX_SAVED_OPTS) {
				fprintf(stderr, "kbbench: more than %d bench options: raise MAX_SAVED_OPTS\n",
					MAX_SAVED_OPTS);
				abort();
			}
			if (o->type == KB_OPT_ULONG) {
				if (have_saved)
					*(unsigned long *)o->dst = saved[k].ul;
				else
					saved[k].ul = *(unsigned long *)o->dst;
			} else {
				if (have_saved)
					*(const char **)o->dst = saved[k].str;
				else
					saved[k].str = *(const char **)o->dst;
			}
		}
	}
	have_saved = 1;
}

static int cmp_bench(const void *a, const void *b)
{
	const struct kb_bench *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* The benches sorted by name; section order is link order. */
static const struct kb_bench **sorted_benches(size_t *n)
{
	const struct kb_bench **v;

	*n = nr_benches();
	v = calloc(*n ? *n : 1, sizeof(*v));
	if (!v) {
		perror("kbbench");
		exit(1);
	}
	if (*n)
		memcpy(v, __start_kb_benches, *n * sizeof(*v));
	qsort(v, *n, sizeof(*v), cmp_bench);
	return v;
}

static void list_benches(void)
{
	size_t n, i;
	const struct kb_bench **v = sorted_benches(&n);

	for (i = 0; i < n; i++)
		printf("%s\t%s\n", v[i]->name, v[i]->help);
	free(v);
}

static void unknown_bench(const char *name)
{
	size_t n, i;
	const struct kb_bench **v = sorted_benches(&n);

	fprintf(stderr, "kbbench: no benchmark '%s'; known:", name);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", v[i]->name);
	fprintf(stderr, "%s\n", n ? "" : " none");
	free(v);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kbbench --list\n"
		"       kbbench NAME --help\n"
		"       kbbench NAME --reps R --warmup W --clock icount|wall\n"
		"               [--point k=v;...] [--variant V] [--workload W]\n"
		"               [--perf] [--quiesce_ms MS] [bench options]\n"
		"       kbbench check NAME [options as above]\n"
		"Prints CSV: " CSV_HEADER "\n"
		"better is lower, higher or none (informational).\n"
		"--perf adds per-sample software counters (task_clock_ms,\n"
		"context_switches, page_faults) read with perf_event_open.\n"
		"--quiesce_ms MS waits, after setup and at most MS ms (0..600000,\n"
		"default 0: not at all), until all CPUs are idle for 150 ms.\n"
		"check validates the options without running anything (--reps,\n"
		"--warmup and --clock are optional there): exit 0 if valid, 2 if not.\n");
}

static void bench_help(const struct kb_bench *b)
{
	const struct kb_opt *o;
	size_t i;

	printf("%s: %s\n", b->name, b->help);
	printf("options:\n");
	for (o = b->opts; o && o->name; o++)
		printf("  --%s %s\t%s\n", o->name,
		       o->type == KB_OPT_ULONG ? "N" : "STR", o->help);
	printf("metrics (name,unit,better):\n");
	for (i = 0; i < b->nr_metrics; i++)
		printf("  %s,%s,%s\n", b->metrics[i].name, b->metrics[i].unit,
		       better_name(b->metrics[i].better));
}

/*
 * Decimal digits only: strtoul alone would take blanks, a sign (and
 * negate "-1" into ULONG_MAX) and stop quietly at trailing garbage.
 */
static int parse_ulong(const struct kb_bench *b, const char *opt,
		       const char *s, unsigned long *v)
{
	unsigned long x;
	const char *p;
	char *end;

	if (!*s)
		goto bad;
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			goto bad;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || *end) {
		kb_err(b, "--%s: '%s' is too large (max %lu)", opt, s, ULONG_MAX);
		return -1;
	}
	*v = x;
	return 0;
bad:
	kb_err(b, "--%s: '%s' is not a non-negative integer", opt, s);
	return -1;
}

/* CSV fields must not break the row: no commas, quotes or blanks. */
static int check_token(const struct kb_bench *b, const char *opt,
		       const char *s, const char *extra)
{
	const char *p;

	if (!*s)
		goto bad;
	for (p = s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_.+-", *p) ||
		    strchr(extra, *p))
			continue;
		goto bad;
	}
	return 0;
bad:
	kb_err(b, "--%s: '%s' must be non-empty and use only "
	       "[A-Za-z0-9_.+-%s]", opt, s, extra);
	return -1;
}

static int check_point(const struct kb_bench *b, const char *s)
{
	const char *p = s;

	if (check_token(b, "point", s, "=;:/"))
		return -1;
	if (!strcmp(s, "none"))
		return 0;
	/* k=v;k=v: every element has one '=' with text on both sides */
	while (*p) {
		size_t len = strcspn(p, ";");
		const char *eq = memchr(p, '=', len);

		if (!eq || eq == p || eq == p + len - 1 ||
		    memchr(eq + 1, '=', len - (size_t)(eq - p) - 1)) {
			kb_err(b, "--point: '%s' is not k=v[;k=v...] or 'none'", s);
			return -1;
		}
		p += len;
		if (*p == ';' && !*++p) {
			kb_err(b, "--point: trailing ';' in '%s'", s);
			return -1;
		}
	}
	return 0;
}

/*
 * Split "--key=val" or "--key val"; returns the value or NULL. A key too
 * long for the buffer is cut, which no option name is, so it stays unknown.
 */
static const char *opt_value(int argc, char **argv, int *i, const char *arg,
			     char *key, size_t keysz)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);

	if (len >= keysz)
		len = keysz - 1;
	memcpy(key, arg, len);
	key[len] = '\0';
	if (eq)
		return eq + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static const struct kb_opt *find_opt(const struct kb_bench *b, const char *key)
{
	const struct kb_opt *o;

	for (o = b->opts; o && o->name; o++)
		if (!strcmp(o->name, key))
			return o;
	return NULL;
}

static int set_bench_opt(const struct kb_bench *b, const struct kb_opt *o,
			 const char *val)
{
	if (o->type == KB_OPT_ULONG)
		return parse_ulong(b, o->name, val, o->dst);
	/* an empty path or name is a plan mistake, not a value */
	if (!*val) {
		kb_err(b, "--%s: empty value", o->name);
		return -1;
	}
	*(const char **)o->dst = val;
	return 0;
}

static int is_common_opt(const char *key)
{
	static const char *const common[] = {
		"reps", "warmup", "point", "clock", "variant", "workload",
		"quiesce_ms",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(common); i++)
		if (!strcmp(key, common[i]))
			return 1;
	return 0;
}

/*
 * argv[first..] are options. A run needs --reps, --warmup and --clock;
 * check (need_all 0) lets the runner add them later but validates any
 * that are given exactly as a run would.
 */
static int parse_args(const struct kb_bench *b, int argc, char **argv,
		      int first, int need_all, struct kb_common *c)
{
	int have_reps = 0, have_warmup = 0, i;
	const struct kb_opt *o;
	char key[64];

	for (i = first; i < argc; i++) {
		const char *arg = argv[i], *val;

		if (strncmp(arg, "--", 2) || !arg[2]) {
			kb_err(b, "unexpected argument '%s'", arg);
			return -1;
		}
		if (!strcmp(arg, "--perf")) {
			c->perf = 1;
			continue;
		}
		if (!strncmp(arg, "--perf=", 7)) {
			kb_err(b, "--perf takes no value");
			return -1;
		}
		val = opt_value(argc, argv, &i, arg + 2, key, sizeof(key));
		/* kbbench's own options win; name an unknown one before its value */
		o = is_common_opt(key) ? NULL : find_opt(b, key);
		if (!o && !is_common_opt(key)) {
			kb_err(b, "unknown option --%s (see kbbench %s --help)",
			       key, b->name);
			return -1;
		}
		if (!val) {
			kb_err(b, "--%s needs a value", key);
			return -1;
		}
		if (o) {
			if (set_bench_opt(b, o, val))
				return -1;
		} else if (!strcmp(key, "reps")) {
			if (parse_ulong(b, key, val, &c->reps))
				return -1;
			have_reps = 1;
		} else if (!strcmp(key, "warmup")) {
			if (parse_ulong(b, key, val, &c->warmup))
				return -1;
			have_warmup = 1;
		} else if (!strcmp(key, "point")) {
			c->point = val;
		} else if (!strcmp(key, "clock")) {
			c->clock = val;
		} else if (!strcmp(key, "variant")) {
			c->variant = val;
		} else if (!strcmp(key, "workload")) {
			c->workload = val;
		} else if (!strcmp(key, "quiesce_ms")) {
			if (parse_ulong(b, key, val, &c->quiesce_ms))
				return -1;
		}
	}
	/* The analysis needs to know these; never guess them. */
	if (need_all && (!have_reps || !have_warmup || !c->clock)) {
		kb_err(b, "--reps, --warmup and --clock are required");
		return -1;
	}
	if (have_reps && (c->reps < 1 || c->reps > 1000000)) {
		kb_err(b, "--reps: %lu is not in 1..1000000", c->reps);
		return -1;
	}
	if (have_warmup && c->warmup > 1000000) {
		kb_err(b, "--warmup: %lu is not in 0..1000000", c->warmup);
		return -1;
	}
	if (c->quiesce_ms > 600000) {
		kb_err(b, "--quiesce_ms: %lu is not in 0..600000", c->quiesce_ms);
		return -1;
	}
	if (c->clock && strcmp(c->clock, "icount") && strcmp(c->clock, "wall")) {
		kb_err(b, "--clock: '%s' is not icount or wall", c->clock);
		return -1;
	}
	if (check_point(b, c->point) || check_token(b, "variant", c->variant, "") ||
	    check_token(b, "workload", c->workload, ""))
		return -1;
	return 0;
}

static int perf_open(void)
{
	size_t i;

	for (i = 0; i < NR_PERF_SW; i++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = perf_sw[i].config,
		};

		/* this process, any CPU; kernel time counts (reads are syscalls) */
		perf_fd[i] = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (perf_fd[i] < 0) {
			fprintf(stderr, "kbbench: perf_event_open(%s): %s "
				"(check /proc/sys/kernel/perf_event_paranoid)\n",
				perf_sw[i].m.name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int perf_read(unsigned long long *v)
{
	size_t i;

	for (i = 0; i < NR_PERF_SW; i++) {
		if (read(perf_fd[i], &v[i], sizeof(v[i])) != sizeof(v[i])) {
			fprintf(stderr, "kbbench: reading counter %s: %s\n",
				perf_sw[i].m.name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void emit(const struct kb_common *c, const struct kb_metric *m,
		 unsigned long rep, double v)
{
	printf("%s,%s,%s,%s,%s,%s,%s,%lu,%.15g\n", c->workload, c->variant,
	       c->point, m->name, m->unit, better_name(m->better), c->clock,
	       rep, v);
}

/* Busy and total time of all CPUs so far, from /proc/stat's "cpu" line. */
static int cpu_times(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	/* user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -1;
	*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	*busy = *total - v[3] - v[4];
	return 0;
}

#define QUIESCE_STEP_MS	50
#define QUIESCE_STEPS	3
#define QUIESCE_BUSY	5	/* percent of all CPUs' time */

/*
 * Wait, at most max_ms, until the CPUs have been idle for QUIESCE_STEPS
 * intervals of QUIESCE_STEP_MS in a row (busy under QUIESCE_BUSY % of
 * all CPUs' time). Work the previous point or this setup left behind
 * (a large map's deferred free, a table resize) would otherwise run
 * inside the first samples: the cache model's windows and any
 * wall-clock sample count it. Says on stderr how long it waited.
 */
static void quiesce(const struct kb_bench *b, unsigned long max_ms)
{
	unsigned long long b0, t0, b1, t1, busy_pct = 100;
	unsigned long waited = 0, quiet = 0;

	if (cpu_times(&b0, &t0)) {
		fprintf(stderr, "kbbench: %s: cannot read /proc/stat: not waiting for the system to go quiet\n",
			b->name);
		return;
	}
	while (quiet < QUIESCE_STEPS && waited < max_ms) {
		usleep(QUIESCE_STEP_MS * 1000);
		waited += QUIESCE_STEP_MS;
		if (cpu_times(&b1, &t1))
			break;
		busy_pct = t1 > t0 && b1 >= b0 ? 100 * (b1 - b0) / (t1 - t0) : 100;
		quiet = busy_pct < QUIESCE_BUSY ? quiet + 1 : 0;
		b0 = b1;
		t0 = t1;
	}
	if (quiet >= QUIESCE_STEPS)
		fprintf(stderr, "kbbench: %s: quiet after %lu ms\n", b->name, waited);
	else
		fprintf(stderr, "kbbench: %s: the system did not go quiet in %lu ms (%llu %% busy in the last %d ms): the first samples may include background work\n",
			b->name, waited, busy_pct, QUIESCE_STEP_MS);
}

static int run_bench(const struct kb_bench *b, const struct kb_common *c)
{
	unsigned long long p0[NR_PERF_SW], p1[NR_PERF_SW];
	double *vals = calloc(b->nr_metrics ? b->nr_metrics : 1, sizeof(*vals));
	unsigned long s;
	size_t i;
	int ret = -1;

	if (!vals) {
		perror("kbbench");
		return -1;
	}
	if (c->perf && perf_open())
		goto out_free;
	if (b->setup) {
		int r = b->setup();

		if (r == KB_ABSENT) {
			ret = KB_ABSENT;
			goto out;
		}
		if (r)
			goto out;
	}
	if (c->quiesce_ms)
		quiesce(b, c->quiesce_ms);
	printf("%s\n", CSV_HEADER);
	for (s = 0; s < c->warmup + c->reps; s++) {
		if (c->perf && perf_read(p0))
			goto out;
		/*
		 * The kbcache plugin models caches between these two marker
		 * NOPs (model/kbmark.h); without it they are two NOPs.
		 */
		if (s < c->warmup)
			KBMARK(KBMARK_WARMUP);
		else
			KBMARK(KBMARK_SAMPLE);
		if (b->run(vals)) {
			fprintf(stderr, "kbbench: %s: sample %lu failed\n",
				b->name, s + 1);
			goto out;
		}
		KBMARK(KBMARK_END);
		if (c->perf && perf_read(p1))
			goto out;
		if (s < c->warmup)
			continue;
		for (i = 0; i < b->nr_metrics; i++)
			emit(c, &b->metrics[i], s - c->warmup + 1, vals[i]);
		for (i = 0; c->perf && i < NR_PERF_SW; i++)
			emit(c, &perf_sw[i].m, s - c->warmup + 1,
			     (double)(p1[i] - p0[i]) * perf_sw[i].scale);
	}
	ret = 0;
out:
	if (b->teardown)
		b->teardown();
out_free:
	free(vals);
	return ret;
}

int main(int argc, char **argv)
{
	static char workload[64];
	const struct kb_bench *b;
	struct kb_common c = {
		.point = "none",
		.variant = "default",
	};
	int check = 0, first;
	size_t i;

	reset_options();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--list")) {
		list_benches();
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	/* "check" is a verb, so no bench may be called that */
	if (!strcmp(argv[1], "check")) {
		if (argc < 3) {
			fprintf(stderr, "kbbench: check: which benchmark? "
				"(kbbench check NAME [options])\n");
			return 2;
		}
		check = 1;
	}
	first = 2 + check;
	b = find_bench(argv[first - 1]);
	if (!b) {
		unknown_bench(argv[first - 1]);
		return 2;
	}
	if (!check && argc == 3 &&
	    (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		bench_help(b);
		return 0;
	}
	/* Default workload name: the bench name with '-', as in workloads/. */
	snprintf(workload, sizeof(workload), "%s", b->name);
	for (i = 0; workload[i]; i++)
		if (workload[i] == '_')
			workload[i] = '-';
	c.workload = workload;
	if (parse_args(b, argc, argv, first, !check, &c))
		return 2;
	kb_variant = c.variant;
	if (b->validate && b->validate())
		return 2;
	/* nothing more to check: setup and run are where the guest starts */
	if (check)
		return 0;
	switch (run_bench(b, &c)) {
	case 0:
		break;
	case KB_ABSENT:
		fprintf(stderr, "kbbench: %s: variant %s is absent on this kernel\n",
			b->name, c.variant);
		return KB_EXIT_ABSENT;
	default:
		return 1;
	}
	/* A full disk or closed pipe must not look like a good run. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kbbench: writing results: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
