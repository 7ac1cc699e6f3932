// SPDX-License-Identifier: GPL-2.0
/*
 * kbbench: runs one registered benchmark in the guest and prints its
 * samples as CSV rows that analysis/ reads directly:
 *
 *   workload,variant,point,metric,unit,better,clock,rep,value
 *
 * One row per metric per measured sample; warm-up samples are run but
 * not printed. rep counts measured samples from 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kbbench.h"

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
	int perf;
};

/* Software counters that work without a PMU (TCG guests have none). */
static const struct {
	struct kb_metric m;
	unsigned long long config;
	double scale;		/* counter unit to metric unit */
} perf_sw[] = {
	{ { "task_clock_ms", "ms", KB_LOWER }, PERF_COUNT_SW_TASK_CLOCK, 1e-6 },
	{ { "context_switches", "count", KB_LOWER },
	  PERF_COUNT_SW_CONTEXT_SWITCHES, 1.0 },
	{ { "page_faults", "count", KB_LOWER }, PERF_COUNT_SW_PAGE_FAULTS, 1.0 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NR_PERF_SW ARRAY_SIZE(perf_sw)

static int perf_fd[NR_PERF_SW];

uint64_t kb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

static int cmp_bench(const void *a, const void *b)
{
	const struct kb_bench *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static void list_benches(void)
{
	size_t n = nr_benches(), i;
	const struct kb_bench **v = calloc(n ? n : 1, sizeof(*v));

	if (!v) {
		perror("kbbench");
		exit(1);
	}
	memcpy(v, __start_kb_benches, n * sizeof(*v));
	/* Section order is link order; sort so the listing is stable. */
	qsort(v, n, sizeof(*v), cmp_bench);
	for (i = 0; i < n; i++)
		printf("%s\t%s\n", v[i]->name, v[i]->help);
	free(v);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kbbench --list\n"
		"       kbbench NAME --help\n"
		"       kbbench NAME --reps R --warmup W --clock icount|wall\n"
		"               [--point k=v;...] [--variant V] [--workload W]\n"
		"               [--perf] [bench options]\n"
		"Prints CSV: " CSV_HEADER "\n"
		"--perf adds per-sample software counters (task_clock_ms,\n"
		"context_switches, page_faults) read with perf_event_open.\n");
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
		       b->metrics[i].better == KB_HIGHER ? "higher" : "lower");
}

static int parse_ulong(const char *opt, const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		goto bad;
	*v = strtoul(s, &end, 10);
	if (errno || *end)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "kbbench: --%s: '%s' is not a non-negative integer\n",
		opt, s ? s : "");
	return -1;
}

/* CSV fields must not break the row: no commas, quotes or blanks. */
static int check_token(const char *opt, const char *s, const char *extra)
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
	fprintf(stderr, "kbbench: --%s: '%s' must be non-empty and use only "
		"[A-Za-z0-9_.+-%s]\n", opt, s, extra);
	return -1;
}

static int check_point(const char *s)
{
	const char *p = s;

	if (check_token("point", s, "=;:/"))
		return -1;
	if (!strcmp(s, "none"))
		return 0;
	/* k=v;k=v: every element has one '=' with text on both sides */
	while (*p) {
		size_t len = strcspn(p, ";");
		const char *eq = memchr(p, '=', len);

		if (!eq || eq == p || eq == p + len - 1 ||
		    memchr(eq + 1, '=', len - (size_t)(eq - p) - 1)) {
			fprintf(stderr, "kbbench: --point: '%s' is not "
				"k=v[;k=v...] or 'none'\n", s);
			return -1;
		}
		p += len;
		if (*p == ';' && !*++p) {
			fprintf(stderr, "kbbench: --point: trailing ';' in '%s'\n", s);
			return -1;
		}
	}
	return 0;
}

/* Split "--key=val" or "--key val"; returns the value or NULL. */
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

static int set_bench_opt(const struct kb_bench *b, const char *key,
			 const char *val)
{
	const struct kb_opt *o;

	for (o = b->opts; o && o->name; o++) {
		if (strcmp(o->name, key))
			continue;
		if (o->type == KB_OPT_ULONG)
			return parse_ulong(key, val, o->dst);
		*(const char **)o->dst = val;
		return 0;
	}
	fprintf(stderr, "kbbench: %s: unknown option --%s (see kbbench %s --help)\n",
		b->name, key, b->name);
	return -1;
}

static int parse_args(const struct kb_bench *b, int argc, char **argv,
		      struct kb_common *c)
{
	int have_reps = 0, have_warmup = 0, i;
	char key[64];

	for (i = 2; i < argc; i++) {
		const char *arg = argv[i], *val;

		if (strncmp(arg, "--", 2) || !arg[2]) {
			fprintf(stderr, "kbbench: unexpected argument '%s'\n", arg);
			return -1;
		}
		if (!strcmp(arg, "--perf")) {
			c->perf = 1;
			continue;
		}
		val = opt_value(argc, argv, &i, arg + 2, key, sizeof(key));
		if (!val) {
			fprintf(stderr, "kbbench: --%s needs a value\n", key);
			return -1;
		}
		if (!strcmp(key, "reps")) {
			if (parse_ulong(key, val, &c->reps))
				return -1;
			have_reps = 1;
		} else if (!strcmp(key, "warmup")) {
			if (parse_ulong(key, val, &c->warmup))
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
		} else if (set_bench_opt(b, key, val)) {
			return -1;
		}
	}
	/* The analysis needs to know these; never guess them. */
	if (!have_reps || !have_warmup || !c->clock) {
		fprintf(stderr, "kbbench: %s: --reps, --warmup and --clock are required\n",
			b->name);
		return -1;
	}
	if (c->reps < 1 || c->reps > 1000000 || c->warmup > 1000000) {
		fprintf(stderr, "kbbench: --reps must be 1..1000000, --warmup 0..1000000\n");
		return -1;
	}
	if (strcmp(c->clock, "icount") && strcmp(c->clock, "wall")) {
		fprintf(stderr, "kbbench: --clock must be icount or wall, not '%s'\n",
			c->clock);
		return -1;
	}
	if (check_point(c->point) || check_token("variant", c->variant, "") ||
	    check_token("workload", c->workload, ""))
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
	       c->point, m->name, m->unit,
	       m->better == KB_HIGHER ? "higher" : "lower", c->clock, rep, v);
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
	if (b->setup && b->setup())
		goto out_free;
	printf("%s\n", CSV_HEADER);
	for (s = 0; s < c->warmup + c->reps; s++) {
		if (c->perf && perf_read(p0))
			goto out;
		if (b->run(vals)) {
			fprintf(stderr, "kbbench: %s: sample %lu failed\n",
				b->name, s + 1);
			goto out;
		}
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
	size_t i;

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
	b = find_bench(argv[1]);
	if (!b) {
		fprintf(stderr, "kbbench: no benchmark '%s' (kbbench --list)\n",
			argv[1]);
		return 2;
	}
	if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		bench_help(b);
		return 0;
	}
	/* Default workload name: the bench name with '-', as in workloads/. */
	snprintf(workload, sizeof(workload), "%s", b->name);
	for (i = 0; workload[i]; i++)
		if (workload[i] == '_')
			workload[i] = '-';
	c.workload = workload;
	if (parse_args(b, argc, argv, &c))
		return 2;
	if (b->validate && b->validate())
		return 2;
	if (run_bench(b, &c))
		return 1;
	/* A full disk or closed pipe must not look like a good run. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kbbench: writing results: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
