/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel checks' harness (#include "../lib/harness.h", after
 * _GNU_SOURCE; it brings ../lib/tap.h and main()):
 *
 *   KB_CASE(name) { ... }        a case, registered in the "kb_cases"
 *                                linker section as the bench registry
 *                                does (bench/kbbench.h KB_BENCH); the
 *                                cases run in the order of the source
 *   ASSERT_TRUE(cond, fmt, ...)  one TAP line each, "ok N - MSG" or
 *   ASSERT_EQ(got, want, ...)    "not ok N - MSG"; all but ASSERT_TRUE
 *   ASSERT_OK(ret, ...)          end MSG with ": got G, want W", and a
 *   ASSERT_ERRNO(ret, err, ...)  failure adds "#   at FILE:LINE"; each
 *   ASSERT_FD(ret, ...)          is true when it held, so a case may
 *                                "if (!ASSERT_FD(...)) return;"
 *   kb_absent(FEATURE, fmt, ...) the one way to say that this kernel
 *                                lacks what the program checks: one
 *                                line "ok N # SKIP FEATURE absent: why"
 *                                (FEATURE one word, as RHASH or
 *                                COMMON_ATTRS), and no case runs after
 *                                the current one; not a failure
 *   kb_verbose                   1 with -v (a case prints more)
 *
 * ret is what a raw call returns: an fd or 0, or -errno; err is a
 * positive errno (EINVAL). Options of every check program:
 *
 *   PROG [-l] [-v] [-t PATTERN]...
 *
 * -l lists the cases as TOPIC/CASE (TOPIC is the directory of the
 * program's source, kernel/checks/TOPIC/) and runs nothing; -t runs the
 * cases whose TOPIC/CASE contains one of the patterns ("-t plain",
 * "-t common-attrs/map_"); a pattern that matches no case is a usage
 * error. Before each case a "# case TOPIC/CASE" line; at the end the
 * plan, the failed cases by name, and the exit status: 0 when every
 * assertion held (or the feature is absent), 1 when one failed, 2 on
 * usage errors.
 *
 * A case that needs what an earlier one set up calls that setup itself
 * (once, remembered in a static), so that -t can select it alone.
 *
 * A program with options of its own (the map type, a duration) declares
 * them once, at file scope:
 *
 *   KB_OPTIONS("k:s:", "[-k KEY_SIZE] [-s SECONDS]", parse);
 *
 * getopt letters (not l, v or t), their synopsis for the usage line,
 * and int parse(int opt, const char *arg), called for each; it returns
 * 0, or -1 for a bad value (a usage error, exit 2).
 */
#ifndef KB_CHECKS_HARNESS_H
#define KB_CHECKS_HARNESS_H

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"

struct kb_case {
	const char *name;
	const char *file;	/* __FILE__: its directory names the topic */
	int line;		/* the order the cases run in */
	void (*fn)(void);
};

#define KB_CASE(n)							\
	static void kb_case_fn_##n(void);				\
	static const struct kb_case kb_case_##n = {			\
		#n, __FILE__, __LINE__, kb_case_fn_##n,			\
	};								\
	static const struct kb_case *const kb_case_ptr_##n		\
	__attribute__((used, section("kb_cases"),			\
		       aligned(sizeof(void *)))) = &kb_case_##n;	\
	static void kb_case_fn_##n(void)

/* The linker defines these for the "kb_cases" section (see KB_CASE). */
extern const struct kb_case *const __start_kb_cases[] __attribute__((weak));
extern const struct kb_case *const __stop_kb_cases[] __attribute__((weak));

static int kb_verbose;
static bool kb_is_absent;
static const char *kb_where_file;
static int kb_where_line;

/*
 * One assertion's line: MSG from fmt, then ": got G, want W" when got
 * is given; on a failure the place of the assertion as a diagnostic.
 */
static inline bool kb_vcheck(bool good, const char *got, const char *want,
			     const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (got)
		result(good, "%s: got %s, want %s", msg, got, want);
	else
		result(good, "%s", msg);
	if (!good)
		printf("#   at %s:%d\n", kb_where_file, kb_where_line);
	return good;
}

static inline bool __attribute__((format(printf, 2, 3)))
kb_check_true(bool good, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = kb_vcheck(good, NULL, NULL, fmt, ap);
	va_end(ap);
	return r;
}

static inline bool __attribute__((format(printf, 3, 4)))
kb_check_eq(long long got, long long want, const char *fmt, ...)
{
	char g[32], w[32];
	va_list ap;
	bool r;

	snprintf(g, sizeof(g), "%lld", got);
	snprintf(w, sizeof(w), "%lld", want);
	va_start(ap, fmt);
	r = kb_vcheck(got == want, g, w, fmt, ap);
	va_end(ap);
	return r;
}

/* "fd N", "0" or the errno's name, for a raw call's return */
static inline const char *kb_ret_name(long ret)
{
	static __thread char buf[4][24];
	static __thread int slot;

	if (ret <= 0)
		return err_name(ret);
	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "fd %ld", ret);
	return buf[slot];
}

/* want: -1 any fd, 0 zero, >0 that errno */
static inline bool __attribute__((format(printf, 3, 4)))
kb_check_ret(long ret, int want, const char *fmt, ...)
{
	bool good = want < 0 ? ret >= 0 : ret == -want;
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = kb_vcheck(good, kb_ret_name(ret),
		      want < 0 ? "an fd" : err_name(want), fmt, ap);
	va_end(ap);
	return r;
}

#define KB_AT()	(kb_where_file = __FILE__, kb_where_line = __LINE__)
#define ASSERT_TRUE(cond, ...)	(KB_AT(), kb_check_true(!!(cond), __VA_ARGS__))
#define ASSERT_EQ(got, want, ...)					\
	(KB_AT(), kb_check_eq((long long)(got), (long long)(want), __VA_ARGS__))
#define ASSERT_OK(ret, ...)	(KB_AT(), kb_check_ret((ret), 0, __VA_ARGS__))
#define ASSERT_ERRNO(ret, err, ...)					\
	(KB_AT(), kb_check_ret((ret), (err), __VA_ARGS__))
#define ASSERT_FD(ret, ...)	(KB_AT(), kb_check_ret((ret), -1, __VA_ARGS__))

static inline void __attribute__((format(printf, 2, 3)))
kb_absent(const char *feature, const char *fmt, ...)
{
	va_list ap;

	flockfile(stdout);
	printf("ok %d # SKIP %s absent: ", ++ntest, feature);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	funlockfile(stdout);
	kb_is_absent = true;
}

/* "common-attrs" of ".../kernel/checks/common-attrs/commonattrs.c" */
static inline void kb_case_topic(const struct kb_case *c, char *buf,
				 size_t len)
{
	const char *end = strrchr(c->file, '/'), *start = end;

	if (!end) {
		snprintf(buf, len, ".");
		return;
	}
	while (start > c->file && start[-1] != '/')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
}

static inline void kb_case_full(const struct kb_case *c, char *buf,
				size_t len)
{
	char topic[128];

	kb_case_topic(c, topic, sizeof(topic));
	snprintf(buf, len, "%s/%s", topic, c->name);
}

static int kb_case_cmp(const void *a, const void *b)
{
	const struct kb_case *x = *(const struct kb_case *const *)a;
	const struct kb_case *y = *(const struct kb_case *const *)b;

	return x->line - y->line;
}

static inline bool kb_selected(const char *full, char **pat, int npat)
{
	if (!npat)
		return true;
	for (int i = 0; i < npat; i++)
		if (strstr(full, pat[i]))
			return true;
	return false;
}

struct kb_options {
	const char *letters;
	const char *usage;
	int (*parse)(int opt, const char *arg);
};

/* weak: a program without options of its own leaves it NULL */
extern const struct kb_options kb_prog_options __attribute__((weak));

#define KB_OPTIONS(letters, usage, parse)				\
	const struct kb_options kb_prog_options = { letters, usage, parse }

static inline int kb_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-l] [-v] [-t PATTERN]...%s%s\n", prog,
		&kb_prog_options ? " " : "",
		&kb_prog_options ? kb_prog_options.usage : "");
	return 2;
}

int main(int argc, char **argv)
{
	size_t n = __start_kb_cases ? (size_t)(__stop_kb_cases - __start_kb_cases) : 0;
	const struct kb_case **cases = calloc(n ? n : 1, sizeof(*cases));
	char **pat = calloc(argc, sizeof(*pat)), full[256], failed[1024] = "";
	const struct kb_options *own = &kb_prog_options;
	int opt, npat = 0, list = 0, nrun = 0, fails;
	char letters[64] = "lvt:";
	size_t i;

	if (!cases || !pat) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 2;
	}
	if (own)
		snprintf(letters, sizeof(letters), "lvt:%s", own->letters);
	while ((opt = getopt(argc, argv, letters)) != -1) {
		switch (opt) {
		case 'l':
			list = 1;
			break;
		case 'v':
			kb_verbose = 1;
			break;
		case 't':
			pat[npat++] = optarg;
			break;
		default:
			if (opt == '?' || !own || own->parse(opt, optarg))
				return kb_usage(argv[0]);
		}
	}
	if (optind < argc)
		return kb_usage(argv[0]);
	memcpy(cases, __start_kb_cases, n * sizeof(*cases));
	qsort(cases, n, sizeof(*cases), kb_case_cmp);

	for (int p = 0; p < npat; p++) {
		for (i = 0; i < n; i++) {
			kb_case_full(cases[i], full, sizeof(full));
			if (strstr(full, pat[p]))
				break;
		}
		if (i == n) {
			fprintf(stderr, "%s: -t %s matches no case (-l lists them)\n",
				argv[0], pat[p]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n && !kb_is_absent; i++) {
		kb_case_full(cases[i], full, sizeof(full));
		if (!kb_selected(full, pat, npat))
			continue;
		if (list) {
			printf("%s\n", full);
			continue;
		}
		printf("# case %s\n", full);
		fails = nfail;
		cases[i]->fn();
		nrun++;
		if (nfail > fails && strlen(failed) + strlen(full) + 2 < sizeof(failed))
			snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed),
				 " %s", full);
	}
	free(cases);
	free(pat);
	if (list)
		return 0;
	if (failed[0])
		printf("# failed cases:%s\n", failed);
	printf("# %d of %zu cases run%s\n", nrun, n,
	       kb_is_absent ? " (the feature is absent: none after that)" : "");
	return tap_done();
}

#endif /* KB_CHECKS_HARNESS_H */
