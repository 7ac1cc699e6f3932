// SPDX-License-Identifier: GPL-2.0
/*
 * irqcompat: parse /proc/interrupts in the 6.12 format and in the
 * reworked 7.2 format (spec section 4), and check that the patched kernel
 * changes only what the rework is allowed to change.
 *
 *   irqcompat parse [-q] FILE              normalized summary (TSV)
 *   irqcompat compare BASE PATCHED         6.12 read vs 7.2 read
 *   irqcompat grow FIRST SECOND            two reads of one kernel
 *   irqcompat statsum INTERRUPTS STAT      against /proc/stat's intr line
 *   irqcompat percpu INTERRUPTS BEFORE AFTER  against the descriptors'
 *                                          per-CPU counters (sysfs)
 *
 * FILE may be "-" for stdin or a /proc file. Exit 0 when everything holds,
 * 1 with one line per violation (or a parse error naming file and line),
 * 2 on usage errors. The parser and the comparisons are irqparse.h's,
 * which irqcheck (the boot check) shares.
 */
#define _GNU_SOURCE
#include "irqparse.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* A file that cannot be read ends the program (exit 1). */
static char *xread_all(const char *path, size_t *lenp)
{
	char *buf = read_all(path, lenp);

	if (!buf)
		exit(1);
	return buf;
}

/* A parse error ends the program (exit 1), as the usage above says. */
static void parse_table(struct table *t, const char *path)
{
	size_t len;
	char *buf = xread_all(path, &len);

	if (parse_buf(t, path, buf, len))
		exit(1);
	free(buf);
}

static int cmd_parse(int argc, char **argv)
{
	struct table t;
	int quiet = 0;

	if (argc == 2 && !strcmp(argv[0], "-q")) {
		quiet = 1;
		argv++;
		argc--;
	}
	if (argc != 1)
		return -1;
	parse_table(&t, argv[0]);
	if (!quiet)
		print_table(&t);
	free_table(&t);
	return 0;
}

static int cmd_compare(int argc, char **argv)
{
	struct table b, p;

	if (argc != 2)
		return -1;
	parse_table(&b, argv[0]);
	parse_table(&p, argv[1]);
	compare_tables(&b, &p);
	free_table(&b);
	free_table(&p);
	return 0;
}

static int cmd_grow(int argc, char **argv)
{
	struct table a, b;

	if (argc != 2)
		return -1;
	parse_table(&a, argv[0]);
	parse_table(&b, argv[1]);
	grow_tables(&a, &b);
	free_table(&a);
	free_table(&b);
	return 0;
}

static int cmd_statsum(int argc, char **argv)
{
	struct table t;
	size_t len;
	char *buf;

	if (argc != 2)
		return -1;
	parse_table(&t, argv[0]);
	buf = xread_all(argv[1], &len);
	if (statsum(&t, buf, argv[1]))
		exit(1);
	free(buf);
	free_table(&t);
	return 0;
}

static int cmd_percpu(int argc, char **argv)
{
	struct percpu_snap *be, *af;
	size_t nb, na, len;
	struct table t;
	char *buf;
	int err;

	if (argc != 3)
		return -1;
	parse_table(&t, argv[0]);
	buf = xread_all(argv[1], &len);
	err = parse_percpu_buf(buf, argv[1], &be, &nb);
	free(buf);
	if (err)
		exit(1);
	buf = xread_all(argv[2], &len);
	err = parse_percpu_buf(buf, argv[2], &af, &na);
	free(buf);
	if (err)
		exit(1);
	percpu_check(&t, be, nb, af, na);
	free_percpu(be, nb);
	free_percpu(af, na);
	free_table(&t);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: irqcompat parse [-q] FILE\n"
		"       irqcompat compare BASE_FILE PATCHED_FILE\n"
		"       irqcompat grow FIRST_FILE SECOND_FILE\n"
		"       irqcompat statsum INTERRUPTS_FILE PROC_STAT_FILE\n"
		"       irqcompat percpu INTERRUPTS_FILE BEFORE_FILE AFTER_FILE\n"
		"FILE may be - (stdin). Exit 0: holds; 1: violations or a parse "
		"error; 2: usage.\n");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "parse", cmd_parse },
		{ "compare", cmd_compare },
		{ "grow", cmd_grow },
		{ "statsum", cmd_statsum },
		{ "percpu", cmd_percpu },
	};
	size_t i;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	for (i = 0; argc >= 2 && i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		if (cmds[i].fn(argc - 2, argv + 2)) {
			usage(stderr);
			return 2;
		}
		if (fflush(stdout) || ferror(stdout)) {
			perror("irqcompat: stdout");
			return 2;
		}
		return nr_violations ? 1 : 0;
	}
	usage(stderr);
	return 2;
}
