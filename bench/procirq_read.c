// SPDX-License-Identifier: GPL-2.0
/*
 * procirq_read: the cost of reading /proc/interrupts, which the 7.2
 * rework (spec section 4) makes cheaper. One sample opens, reads to EOF
 * and closes the file --loops times; the time is per whole read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbbench.h"

/* One read() call asks for this much; seq_file then fills it in one go. */
#define READ_CHUNK	(256 * 1024)

static unsigned long loops = 200;
static const char *path = "/proc/interrupts";
static char *buf;
static size_t buf_cap;

static const struct kb_opt procirq_opts[] = {
	{ "loops", KB_OPT_ULONG, &loops, "reads per sample (default 200)" },
	{ "file", KB_OPT_STR, &path, "file to read (default /proc/interrupts)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_NS_PER_READ,
	M_BYTES_PER_READ,
	M_IRQ_ROWS,
	M_CPU_COLUMNS,
	NR_M,
};

/*
 * Only the time is a cost. Bytes, rows and columns are informational:
 * they show that both kernels printed the same table.
 */
static const struct kb_metric procirq_metrics[NR_M] = {
	[M_NS_PER_READ] = { "ns_per_read", "ns", KB_LOWER },
	[M_BYTES_PER_READ] = { "bytes_per_read", "bytes", KB_INFO },
	[M_IRQ_ROWS] = { "irq_rows", "count", KB_INFO },
	[M_CPU_COLUMNS] = { "cpu_columns", "count", KB_INFO },
};

/* Also run by "kbbench check" on the host: no file access here. */
static int procirq_validate(void)
{
	if (kb_check_range("procirq_read", "loops", loops, 1, 10000000))
		return -1;
	return 0;
}

static int grow_buf(void)
{
	size_t cap = buf_cap ? buf_cap * 2 : 2 * READ_CHUNK;
	char *n = realloc(buf, cap);

	if (!n) {
		perror("procirq_read");
		return -1;
	}
	buf = n;
	buf_cap = cap;
	return 0;
}

static int procirq_setup(void)
{
	return grow_buf();
}

static void procirq_teardown(void)
{
	free(buf);
	buf = NULL;
	buf_cap = 0;
}

/* Read the whole file into buf; returns its length or -1. */
static ssize_t read_once(void)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "procirq_read: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		/* Only a larger table than ever before grows the buffer. */
		if (buf_cap - len < READ_CHUNK && grow_buf())
			goto fail;
		n = read(fd, buf + len, READ_CHUNK);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "procirq_read: read %s: %s\n", path,
				strerror(errno));
			goto fail;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	return (ssize_t)len;
fail:
	close(fd);
	return -1;
}

/* Rows after the header, and "CPUn" columns in the header. */
static void count_table(size_t len, double *rows, double *cols)
{
	const char *p = buf, *end = buf + len, *nl;
	unsigned long r = 0, c = 0;

	nl = memchr(p, '\n', len);
	if (!nl)
		nl = end;
	for (; p + 3 <= nl; p++)
		if (!memcmp(p, "CPU", 3) && (p == buf || p[-1] == ' '))
			c++;
	for (p = nl; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl > p)
			r++;
	}
	*rows = (double)r;
	*cols = (double)c;
}

static int procirq_run(double *vals)
{
	unsigned long long bytes = 0;
	unsigned long i;
	uint64_t t0, t1;
	ssize_t len = 0;

	t0 = kb_now_ns();
	for (i = 0; i < loops; i++) {
		len = read_once();
		if (len < 0)
			return -1;
		bytes += (unsigned long long)len;
	}
	t1 = kb_now_ns();
	vals[M_NS_PER_READ] = (double)(t1 - t0) / (double)loops;
	vals[M_BYTES_PER_READ] = (double)bytes / (double)loops;
	/* outside the timed loop: the last read is still in buf */
	count_table((size_t)len, &vals[M_IRQ_ROWS], &vals[M_CPU_COLUMNS]);
	return 0;
}

static const struct kb_bench procirq_read = {
	.name = "procirq_read",
	.help = "open, read to EOF and close /proc/interrupts --loops times per sample",
	.opts = procirq_opts,
	.metrics = procirq_metrics,
	.nr_metrics = NR_M,
	.validate = procirq_validate,
	.setup = procirq_setup,
	.run = procirq_run,
	.teardown = procirq_teardown,
};
KB_BENCH(procirq_read);
