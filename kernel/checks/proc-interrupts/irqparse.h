/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc/interrupts parser of the proc-interrupts checks, shared by
 * irqcompat (the command-line tool) and irqcheck (the boot check, on
 * ../lib/harness.h): a read in the 6.12 or the reworked 7.2 format
 * (spec section 4) into a struct table, and the comparisons
 *
 *   compare_tables()  a 6.12 read against a 7.2 read
 *   grow_tables()     two reads of one kernel
 *   statsum()         against /proc/stat's intr line
 *   percpu_check()    against the descriptors' per-CPU counters (sysfs)
 *
 * each of which reports one violation() per difference and counts them
 * in nr_violations. Its lines are plain (irqcompat's output), or TAP
 * diagnostics on stdout when irq_tap is set (irqcheck).
 */
#ifndef KB_PROC_INTERRUPTS_IRQPARSE_H
#define KB_PROC_INTERRUPTS_IRQPARSE_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each count column is "%10u " in both formats. */
#define COUNT_W		10
#define COUNT_STRIDE	(COUNT_W + 1)

struct row {
	int numbered;		/* "N:" device row, else a named arch row */
	unsigned long irq;
	char label[32];
	size_t line;
	int total_only;		/* one count, no per-CPU columns (6.12 ERR/MIS) */
	unsigned long long *counts;
	size_t ncounts;
	char *chip;		/* device rows */
	char *hwirq;		/* digits, may be empty */
	char *trigger;		/* text after '-', may be empty */
	char *actions;		/* "a, b", may be empty */
	char *desc;		/* named rows */
	/* layout of the chip column, for the format report */
	int has_hw;
	size_t chip_lead, chip_len, chip_gap, hw_digits;
	/*
	 * blanks between ':' and the first count column (1, or 0 for an
	 * "IPI%u:" row at prec 3); between the hwirq-flow token and the
	 * actions (device rows); before the text (named rows)
	 */
	size_t sep, act_gap, desc_gap;
};

struct table {
	const char *path;
	size_t ncpu;
	unsigned long *cpus;
	int prec;
	struct row *rows;
	size_t nrows;
	size_t cap;
};

/* 7.2 hides these until their first event. */
static const char *const hide_until_event[] = { "SPU", "RTR", "ERR", "MIS", NULL };
/* 7.2 shows these only when their (optional) vector is allocated. */
static const char *const vector_rows[] = {
	"PLT", "HYP", "HRE", "HVS", "PIN", "NPI", "PIW", "PMN", NULL
};
/* A single total in 6.12, per-CPU counters in 7.2. */
static const char *const percpu_in_72[] = { "ERR", "MIS", NULL };
/*
 * Named rows that 6.12's arch_irq_stat_cpu()/arch_irq_stat() add to the
 * first number of /proc/stat's intr line (TLB, DFR, MIS, PIN, NPI, PIW and
 * PMN are not added).
 */
static const char *const stat_counted[] = {
	"NMI", "LOC", "SPU", "PMI", "IWI", "RTR", "PLT", "RES", "CAL", "TRM",
	"THR", "HYP", "HRE", "HVS", "MCE", "MCP", "ERR", NULL
};

static size_t nr_violations;
static int irq_tap;	/* irqcheck: every line below a TAP diagnostic */
static const char *irq_prog = "irqcompat";	/* names it in errors */

/* One line: plain on f, or "# ..." on stdout under irq_tap. */
static inline void __attribute__((format(printf, 2, 0)))
irq_vline(FILE *f, const char *fmt, va_list ap)
{
	if (irq_tap) {
		f = stdout;
		fputs("# ", f);
	}
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

static inline void __attribute__((format(printf, 2, 3)))
irq_line(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	irq_vline(f, fmt, ap);
	va_end(ap);
}

static inline int in_set(const char *const *set, const char *s)
{
	for (; *set; set++)
		if (!strcmp(*set, s))
			return 1;
	return 0;
}

static inline void __attribute__((format(printf, 1, 2)))
violation(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	irq_vline(stdout, fmt, ap);
	va_end(ap);
	nr_violations++;
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("irqcompat");
		exit(2);
	}
	return p;
}

static inline char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/*
 * Whole file, NUL-terminated; /proc files report size 0, so read to EOF.
 * NULL after naming path and the error.
 */
static inline char *read_all(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 64 * 1024;
	char *buf;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	ssize_t n;

	if (fd < 0) {
		irq_line(stderr, "%s: %s: %s", irq_prog, path, strerror(errno));
		return NULL;
	}
	buf = xrealloc(NULL, cap);
	for (;;) {
		if (cap - len < 32 * 1024) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			irq_line(stderr, "%s: %s: %s", irq_prog, path, strerror(errno));
			if (fd)
				close(fd);
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	if (fd)
		close(fd);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

/* "FILE:LINE: what" on stderr; returns -1 for the caller to pass up. */
static inline int __attribute__((format(printf, 3, 4)))
parse_error(const struct table *t, size_t line, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	irq_line(stderr, "%s:%zu: %s", t->path, line, what);
	return -1;
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline size_t skip_spaces(const char *s, size_t i, size_t len)
{
	while (i < len && s[i] == ' ')
		i++;
	return i;
}

static inline int parse_header(struct table *t, const char *s, size_t len)
{
	size_t i = skip_spaces(s, 0, len), cap = 0;

	/* "%*s" of prec + 8 blanks, then "CPU%-8d" per online CPU */
	if (i < 9)
		return parse_error(t, 1, "header does not start with at least 9 blanks");
	t->prec = (int)i - 8;
	while (i < len) {
		char *end;
		unsigned long cpu;

		if (len - i < 4 || memcmp(s + i, "CPU", 3) || !is_digit(s[i + 3]))
			return parse_error(t, 1, "header: expected CPUn at column %zu",
					   i + 1);
		cpu = strtoul(s + i + 3, &end, 10);
		if (t->ncpu && cpu <= t->cpus[t->ncpu - 1])
			return parse_error(t, 1, "header: CPU%lu after CPU%lu", cpu,
					   t->cpus[t->ncpu - 1]);
		if (t->ncpu == cap) {
			cap = cap ? cap * 2 : 64;
			t->cpus = xrealloc(t->cpus, cap * sizeof(*t->cpus));
		}
		t->cpus[t->ncpu++] = cpu;
		i = skip_spaces(s, (size_t)(end - s), len);
	}
	if (!t->ncpu)
		return parse_error(t, 1, "header lists no CPU");
	return 0;
}

/* "5-edge", "-edge" (no domain) or "5" (no flow name) */
static inline int is_hw_token(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_digit(s[i]))
		i++;
	if (i == n)
		return n > 0;
	return s[i] == '-' && i + 1 < n;
}

static inline int parse_device_rest(struct table *t, struct row *r, const char *s,
				    size_t len)
{
	size_t i = skip_spaces(s, 0, len), start, tok;

	r->chip_lead = i;
	if (i == len)
		return parse_error(t, r->line, "row %lu: no chip name", r->irq);
	start = i;
	while (i < len && s[i] != ' ')
		i++;
	/*
	 * A chip name may have blanks ("RISC-V INTC", "SiFive PLIC"): words
	 * one blank apart are the chip when a hwirq-flow token follows them.
	 */
	for (tok = i; tok < len && s[tok] == ' ';) {
		size_t w0 = skip_spaces(s, tok, len), e = w0;

		while (e < len && s[e] != ' ')
			e++;
		if (w0 < len && is_hw_token(s + w0, e - w0)) {
			i = tok;
			break;
		}
		if (w0 != tok + 1)
			break;
		tok = e;
	}
	r->chip = xstrndup(s + start, i - start);
	r->chip_len = i - start;
	tok = skip_spaces(s, i, len);
	r->chip_gap = tok - i;
	i = tok;
	while (i < len && s[i] != ' ')
		i++;
	if (tok < len && is_hw_token(s + tok, i - tok)) {
		const char *dash = memchr(s + tok, '-', i - tok);
		size_t nd = dash ? (size_t)(dash - (s + tok)) : i - tok;

		r->has_hw = 1;
		r->hwirq = xstrndup(s + tok, nd);
		r->hw_digits = nd;
		r->trigger = dash ? xstrndup(dash + 1, (size_t)(s + i - dash - 1)) :
				    xstrndup("", 0);
		tok = skip_spaces(s, i, len);
		r->act_gap = tok - i;
	} else {
		r->hwirq = xstrndup("", 0);
		r->trigger = xstrndup("", 0);
	}
	/* the action list runs to the end of the line */
	while (len > tok && s[len - 1] == ' ')
		len--;
	r->actions = xstrndup(s + tok, len - tok);
	return 0;
}

static inline struct row *find_row(const struct table *t, const struct row *k)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];

		if (r->numbered != k->numbered)
			continue;
		if (r->numbered ? r->irq == k->irq : !strcmp(r->label, k->label))
			return (struct row *)r;
	}
	return NULL;
}

static inline void free_row(struct row *r)
{
	free(r->counts);
	free(r->chip);
	free(r->hwirq);
	free(r->trigger);
	free(r->actions);
	free(r->desc);
}

/*
 * "IPI<n>": the IPI rows of arm64, riscv, csky and loongarch, printed as
 * "%*s%u:%s" with prec - 1, "IPI", n and a blank only when prec >= 4
 * (arm prints "%*s%u: ", always with the blank). Returns the digits of n,
 * or 0 for any other label.
 */
static inline size_t ipi_digits(const char *label)
{
	size_t i = 3;

	if (strncmp(label, "IPI", 3) || !is_digit(label[3]))
		return 0;
	while (is_digit(label[i]))
		i++;
	return label[i] ? 0 : i - 3;
}

/* One row into t->rows[t->nrows]; on an error that row is freed. */
static inline int parse_row(struct table *t, const char *s, size_t len, size_t line)
{
	const char *colon = memchr(s, ':', len);
	size_t lw, lstart, i, k, want, ipi, co;
	struct row *r;

	if (!len)
		return parse_error(t, line, "empty line");
	if (!colon)
		return parse_error(t, line, "no ':' after the row label");
	lw = (size_t)(colon - s);
	lstart = skip_spaces(s, 0, lw);
	if (lstart == lw || lw - lstart >= sizeof(r->label))
		return parse_error(t, line, "bad row label");
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 128;
		t->rows = xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->line = line;
	memcpy(r->label, s + lstart, lw - lstart);
	r->numbered = 1;
	for (i = lstart; i < lw; i++)
		if (!is_digit(s[i]))
			r->numbered = 0;
	if (r->numbered)
		r->irq = strtoul(r->label, NULL, 10);
	/*
	 * labels are "%*d" / "%*s" with the header's precision, IPI rows
	 * "%*s%u" with prec - 1 (at least "IPI")
	 */
	ipi = r->numbered ? 0 : ipi_digits(r->label);
	want = (size_t)t->prec > lw - lstart ? (size_t)t->prec : lw - lstart;
	if (ipi)
		want = (t->prec > 4 ? (size_t)t->prec - 1 : 3) + ipi;
	if (lw != want) {
		parse_error(t, line, "row %s: label is %zu wide, header says %d",
			    r->label, lw, t->prec);
		goto bad;
	}
	/*
	 * ": " then the counts; an IPI row at prec < 4 may have no blank:
	 * then its first count column ends one character earlier.
	 */
	co = lw + 2;
	if (ipi && t->prec < 4 && len > lw + 1 &&
	    (s[lw + 1] != ' ' || len <= lw + 11 || !is_digit(s[lw + 11])))
		co = lw + 1;
	else if (len < lw + 2 || s[lw + 1] != ' ') {
		parse_error(t, line, "row %s: no blank after ':'", r->label);
		goto bad;
	}
	r->sep = co - lw - 1;

	r->counts = xrealloc(NULL, t->ncpu * sizeof(*r->counts));
	for (k = 0; k < t->ncpu; k++) {
		size_t f = co + k * COUNT_STRIDE, j;
		unsigned long long v = 0;

		if (f + COUNT_W > len) {
			parse_error(t, line, "row %s: %zu count columns, header has %zu CPUs",
				    r->label, k, t->ncpu);
			goto bad;
		}
		j = skip_spaces(s, f, f + COUNT_W);
		if (j == f + COUNT_W) {
			parse_error(t, line, "row %s: count column %zu is blank",
				    r->label, k + 1);
			goto bad;
		}
		for (; j < f + COUNT_W; j++) {
			if (!is_digit(s[j])) {
				parse_error(t, line, "row %s: count column %zu (CPU%lu) is "
					    "'%.*s', not a right-justified %d-wide number "
					    "(header has %zu CPUs)", r->label, k + 1,
					    t->cpus[k], COUNT_W, s + f, COUNT_W, t->ncpu);
				goto bad;
			}
			v = v * 10 + (unsigned long long)(s[j] - '0');
		}
		r->counts[k] = v;
		r->ncounts = k + 1;
		if (f + COUNT_W == len && k == 0 && !r->numbered) {
			/* "%*s: %10u\n": a single total */
			r->total_only = 1;
			break;
		}
		if (f + COUNT_W == len || s[f + COUNT_W] != ' ') {
			parse_error(t, line, "row %s: %zu count columns, header has %zu CPUs",
				    r->label, k + 1, t->ncpu);
			goto bad;
		}
	}
	i = co + r->ncounts * COUNT_STRIDE;
	if (r->total_only)
		i = len;
	if (r->numbered) {
		if (parse_device_rest(t, r, s + i, len - i))
			goto bad;
	} else {
		size_t e = len;

		r->desc_gap = skip_spaces(s, i, len) - i;
		i += r->desc_gap;
		while (e > i && s[e - 1] == ' ')
			e--;
		r->desc = xstrndup(s + i, e - i);
	}

	/* device rows ascend and come before the arch rows */
	if (t->nrows) {
		const struct row *p = &t->rows[t->nrows - 1];

		if (r->numbered && !p->numbered) {
			parse_error(t, line, "device row %s after arch row %s",
				    r->label, p->label);
			goto bad;
		}
		if (r->numbered && r->irq <= p->irq) {
			parse_error(t, line, "row %lu after row %lu", r->irq, p->irq);
			goto bad;
		}
	}
	if (!r->numbered && find_row(t, r)) {
		parse_error(t, line, "row %s twice", r->label);
		goto bad;
	}
	t->nrows++;
	return 0;
bad:
	free_row(r);
	return -1;
}

static inline void free_table(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		free_row(&t->rows[i]);
	free(t->rows);
	free(t->cpus);
}

/*
 * The table in buf[0..len) (NUL-terminated) read from path. Returns 0,
 * or -1 after an error naming path and line, with nothing left to free.
 */
static inline int parse_buf(struct table *t, const char *path, const char *buf,
			    size_t len)
{
	size_t line = 1, off = 0;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	t->path = path;
	if (!len)
		return parse_error(t, 1, "empty file");
	if (buf[len - 1] != '\n')
		return parse_error(t, 1, "file does not end in a newline (truncated read?)");
	while (!ret && off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = (size_t)(nl - (buf + off));

		if (line == 1)
			ret = parse_header(t, buf + off, n);
		else
			ret = parse_row(t, buf + off, n, line);
		off += n + 1;
		line++;
	}
	if (ret)
		free_table(t);
	return ret;
}

static inline unsigned long long row_sum(const struct row *r)
{
	unsigned long long s = 0;
	size_t k;

	for (k = 0; k < r->ncounts; k++)
		s += r->counts[k];
	return s;
}

/*
 * 7.2's chip column as printed: the chip field of every device row with
 * a hwirq (the name, then blanks up to the hwirq field) is one width, at
 * least the longest name of the read and at least 8. It may be wider:
 * the kernel keeps the longest name of any interrupt shown since boot,
 * and that one may be gone (seen on a debug kernel: 24 wide, 21 the
 * longest name left). 0 when the rows disagree or a name overflows it.
 */
static inline size_t chip_col_width(const struct table *t)
{
	size_t w = 0, min = 8, i, hw_pad, c;

	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].numbered && t->rows[i].chip_len > min)
			min = t->rows[i].chip_len;
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];

		if (!r->numbered || !r->has_hw)
			continue;
		hw_pad = (size_t)t->prec > r->hw_digits ? (size_t)t->prec - r->hw_digits : 0;
		if (r->chip_lead != 1 || r->chip_len + r->chip_gap < 1 + hw_pad)
			return 0;
		c = r->chip_len + r->chip_gap - 1 - hw_pad;
		if (w && c != w)
			return 0;
		w = c;
	}
	return w >= min ? w : 0;
}

/* How the chip column is aligned: "right8" (6.12), "leftW" (7.2), "mixed". */
static inline void chip_layout(const struct table *t, char *out, size_t outsz)
{
	size_t i, w, hw_pad;
	int right = 1, any = 0;

	w = chip_col_width(t);
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];

		if (!r->numbered || !r->has_hw)
			continue;
		any = 1;
		hw_pad = (size_t)t->prec > r->hw_digits ? (size_t)t->prec - r->hw_digits : 0;
		/* 6.12: " %8s" then " %*lu" */
		if (r->chip_lead != 1 + (r->chip_len < 8 ? 8 - r->chip_len : 0) ||
		    r->chip_gap != 1 + hw_pad)
			right = 0;
	}
	/* 7.2: " %-*s" to the column's width (chip_col_width), " %*lu" */
	if (!any)
		snprintf(out, outsz, "unknown");
	else if (right && w)
		snprintf(out, outsz, "right8=left%zu", w);
	else if (right)
		snprintf(out, outsz, "right8");
	else if (w)
		snprintf(out, outsz, "left%zu", w);
	else
		snprintf(out, outsz, "mixed");
}

static inline void print_table(const struct table *t)
{
	size_t i, k, ndev = 0;
	char layout[32];

	for (i = 0; i < t->nrows; i++)
		ndev += t->rows[i].numbered;
	chip_layout(t, layout, sizeof(layout));
	printf("summary\tcpus=%zu\tdevice_rows=%zu\tarch_rows=%zu\n", t->ncpu,
	       ndev, t->nrows - ndev);
	printf("layout\tprec=%d\tchip=%s\n", t->prec, layout);
	printf("cpus\t");
	for (k = 0; k < t->ncpu; k++)
		printf("%sCPU%lu", k ? " " : "", t->cpus[k]);
	putchar('\n');
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];

		printf("%s\t%s\t%s", r->numbered ? "irq" : "arch", r->label,
		       r->total_only ? "total " : "");
		for (k = 0; k < r->ncounts; k++)
			printf("%s%llu", k ? " " : "", r->counts[k]);
		if (r->numbered)
			printf("\t%s\t%s%s%s\t%s\n", r->chip, r->hwirq,
			       *r->trigger ? "-" : "", r->trigger, r->actions);
		else
			printf("\t%s\n", r->desc);
	}
}

static inline void cpu_list(const struct table *t, char *out, size_t outsz)
{
	size_t k, o = 0;

	out[0] = '\0';
	/* room for one more " CPU<20 digits>" and the " ..." after it */
	for (k = 0; k < t->ncpu && o + 32 < outsz; k++)
		o += (size_t)snprintf(out + o, outsz - o, "%sCPU%lu", k ? " " : "",
				      t->cpus[k]);
	if (k < t->ncpu)
		snprintf(out + o, outsz - o, " ...");
}

/*
 * The width 7.2's chip column must have: the one it has when every row
 * agrees (chip_col_width), else the longest chip name of the read, at
 * least 8, so that the rows that differ are named.
 */
static inline size_t chip_width(const struct table *t)
{
	size_t w = chip_col_width(t), i;

	if (w)
		return w;
	w = 8;
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].numbered && t->rows[i].chip_len > w)
			w = t->rows[i].chip_len;
	return w;
}

/*
 * How wide the hwirq field of a device row is (" %*lu" with prec, or
 * prec blanks without a domain), given how the chip before it is
 * printed: right-justified to 8 (6.12, w == 0) or left-justified to w
 * (7.2). -1 when the chip is not printed that way.
 */
static inline long hw_width(const struct row *r, size_t w)
{
	size_t lead = 1 + (r->chip_len < 8 ? 8 - r->chip_len : 0);

	if (!w)
		return r->chip_lead == lead ? (long)(r->chip_gap - 1 + r->hw_digits) : -1;
	if (r->chip_lead != 1 || r->chip_len + r->chip_gap < w + 1)
		return -1;
	return (long)(r->chip_len + r->chip_gap - 1 - w + r->hw_digits);
}

/*
 * The widths of a device row that the precision may change: the chip
 * column (right8 -> left w) and the hwirq field (prec wide in both). The
 * blanks before the actions do not change.
 */
static inline void compare_device_widths(const struct row *rb, int pb,
					 const struct row *rp, int pp, size_t w)
{
	long hb, hp, want;

	if (!rb->has_hw || !rp->has_hw)
		return;
	hb = hw_width(rb, 0);
	hp = hw_width(rp, w);
	if (hb < 0) {
		violation("row %s: base chip '%s' is not right-justified to 8 (6.12's \" %%8s\")",
			  rb->label, rb->chip);
	} else {
		want = (long)(rb->hw_digits > (size_t)pb ? rb->hw_digits : (size_t)pb);
		if (hb != want)
			violation("row %s: base hwirq column is %ld wide, prec is %d",
				  rb->label, hb, pb);
	}
	if (hp < 0) {
		violation("row %s: patched chip '%s' is not left-justified to %zu "
			  "(the column's width: at least the longest chip name and 8)",
			  rp->label, rp->chip, w);
	} else {
		want = (long)(rp->hw_digits > (size_t)pp ? rp->hw_digits : (size_t)pp);
		if (hp != want)
			violation("row %s: patched hwirq column is %ld wide, prec is %d "
				  "(only 3 -> 4 may widen it)", rp->label, hp, pp);
	}
	if (*rb->actions && rb->act_gap != rp->act_gap)
		violation("row %s: %zu blanks before the actions in base, %zu in patched",
			  rb->label, rb->act_gap, rp->act_gap);
}

/* A 6.12 read (b) against a 7.2 read (p): one violation() per difference. */
static inline void compare_tables(const struct table *b, const struct table *p)
{
	size_t i, last = 0, w = chip_width(p);
	int header_same, want_prec = b->prec > 4 ? b->prec : 4;

	header_same = b->ncpu == p->ncpu &&
		      !memcmp(b->cpus, p->cpus, b->ncpu * sizeof(*b->cpus));
	if (!header_same) {
		char cb[256], cp[256];

		cpu_list(b, cb, sizeof(cb));
		cpu_list(p, cp, sizeof(cp));
		violation("header: CPU columns differ: base '%s', patched '%s'", cb, cp);
	}
	/*
	 * The number column, every arch row label, the hwirq field and the
	 * header's indent are "%*" with prec: at least 3 in 6.12, at least 4
	 * in 7.2, more digits only for a larger nr_irqs (the same on both).
	 */
	if (p->prec != want_prec)
		violation("layout: prec (label width) is %d in base, %d in patched; "
			  "patched must be %d (6.12's 3 becomes 7.2's 4, wider stays)",
			  b->prec, p->prec, want_prec);

	for (i = 0; i < b->nrows; i++) {
		const struct row *rb = &b->rows[i];
		const struct row *rp = find_row(p, rb);

		if (!rp) {
			if (rb->numbered)
				violation("row %s: device row missing in patched", rb->label);
			else if (!in_set(hide_until_event, rb->label) &&
				 !in_set(vector_rows, rb->label))
				violation("row %s: missing in patched (only SPU RTR ERR MIS "
					  "and vector rows may be hidden)", rb->label);
			continue;
		}
		/* the rows that both print keep their relative order */
		if (!rb->numbered) {
			size_t pi = (size_t)(rp - p->rows);

			if (pi < last)
				violation("row %s: out of order in patched", rb->label);
			last = pi;
		}
		if (rb->numbered) {
			compare_device_widths(rb, b->prec, rp, p->prec, w);
			if (strcmp(rb->chip, rp->chip))
				violation("row %s: chip differs: base '%s', patched '%s'",
					  rb->label, rb->chip, rp->chip);
			if (strcmp(rb->hwirq, rp->hwirq) || strcmp(rb->trigger, rp->trigger))
				violation("row %s: hwirq/trigger differs: base '%s-%s', "
					  "patched '%s-%s'", rb->label, rb->hwirq,
					  rb->trigger, rp->hwirq, rp->trigger);
			if (strcmp(rb->actions, rp->actions))
				violation("row %s: actions differ: base '%s', patched '%s'",
					  rb->label, rb->actions, rp->actions);
			continue;
		}
		if (rb->total_only != rp->total_only) {
			if (!rb->total_only || !in_set(percpu_in_72, rb->label))
				violation("row %s: %s in base but %s in patched", rb->label,
					  rb->total_only ? "a single total" : "per-CPU",
					  rp->total_only ? "a single total" : "per-CPU");
			/* ERR/MIS gain per-CPU columns and a text in 7.2 */
			continue;
		}
		if (strcmp(rb->desc, rp->desc))
			violation("row %s: text differs: base '%s', patched '%s'",
				  rb->label, rb->desc, rp->desc);
		else if (rb->desc_gap != rp->desc_gap)
			violation("row %s: %zu blanks before the text in base, %zu in patched",
				  rb->label, rb->desc_gap, rp->desc_gap);
		/* "IPI%u:" gains its blank only with the precision 3 -> 4 */
		if (rb->sep != rp->sep && !(b->prec < 4 && p->prec >= 4 && !rb->sep))
			violation("row %s: %zu blanks after ':' in base, %zu in patched",
				  rb->label, rb->sep, rp->sep);
	}
	for (i = 0; i < p->nrows; i++) {
		const struct row *rp = &p->rows[i];

		if (!find_row(b, rp))
			violation("row %s: only in patched", rp->label);
	}
}

/* Two reads of one kernel, a then b: counters only grow. */
static inline void grow_tables(const struct table *a, const struct table *b)
{
	size_t i, k, j;

	for (i = 0; i < a->nrows; i++) {
		const struct row *ra = &a->rows[i];
		const struct row *rb = find_row(b, ra);

		if (!rb) {
			violation("row %s: in the first read, missing in the second",
				  ra->label);
			continue;
		}
		if (ra->numbered && (strcmp(ra->chip, rb->chip) ||
				     strcmp(ra->actions, rb->actions)))
			violation("row %s: chip/actions changed: '%s %s' then '%s %s'",
				  ra->label, ra->chip, ra->actions, rb->chip, rb->actions);
		if (ra->total_only != rb->total_only) {
			violation("row %s: total/per-CPU form changed", ra->label);
			continue;
		}
		if (ra->total_only) {
			if (rb->counts[0] < ra->counts[0])
				violation("row %s: total went down: %llu then %llu",
					  ra->label, ra->counts[0], rb->counts[0]);
			continue;
		}
		/* compare the CPUs online in both reads (hotplug may differ) */
		for (k = 0, j = 0; k < a->ncpu && j < b->ncpu;) {
			if (a->cpus[k] < b->cpus[j]) {
				k++;
			} else if (a->cpus[k] > b->cpus[j]) {
				j++;
			} else {
				if (rb->counts[j] < ra->counts[k])
					violation("row %s: CPU%lu went down: %llu then %llu",
						  ra->label, a->cpus[k], ra->counts[k],
						  rb->counts[j]);
				k++;
				j++;
			}
		}
	}
}

/*
 * The table t against buf, a /proc/stat read from path: one violation()
 * per mismatch. Returns -1 after naming path when its intr line is bad.
 */
static inline int statsum(const struct table *t, const char *buf, const char *path)
{
	unsigned long long *st = NULL, total, numbered = 0, arch = 0;
	size_t n = 0, cap = 0, i;
	const char *p;
	char *end;

	p = strstr(buf, "\nintr ");
	if (!p && !strncmp(buf, "intr ", 5))
		p = buf;
	else if (p)
		p++;
	if (!p) {
		irq_line(stderr, "%s: %s: no intr line", irq_prog, path);
		return -1;
	}
	p += 5;
	/* "intr TOTAL irq0 irq1 ... irq(nr_irqs - 1)" */
	for (;;) {
		unsigned long long v;

		while (*p == ' ')
			p++;
		if (*p == '\n' || !*p)
			break;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p || errno || (*end != ' ' && *end != '\n' && *end)) {
			irq_line(stderr, "%s: %s: bad number in the intr line",
				 irq_prog, path);
			free(st);
			return -1;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			st = xrealloc(st, cap * sizeof(*st));
		}
		st[n++] = v;
		p = end;
	}
	if (!n) {
		irq_line(stderr, "%s: %s: empty intr line", irq_prog, path);
		return -1;
	}
	total = st[0];
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		unsigned long long s = row_sum(r);

		if (!r->numbered) {
			if (in_set(stat_counted, r->label))
				arch += s;
			continue;
		}
		numbered += s;
		if (r->irq + 1 >= n) {
			violation("row %lu: beyond the %zu per-irq fields of /proc/stat",
				  r->irq, n - 1);
			continue;
		}
		/* stat is read after interrupts and also counts offline CPUs */
		if (st[r->irq + 1] < s)
			violation("row %lu: /proc/stat has %llu, /proc/interrupts sums "
				  "to %llu", r->irq, st[r->irq + 1], s);
	}
	if (total < numbered + arch)
		violation("intr total %llu is below the device rows' %llu plus the "
			  "counted arch rows' %llu", total, numbered, arch);
	if (!nr_violations)
		irq_line(stdout, "statsum ok: intr=%llu device=%llu arch=%llu irq_fields=%zu",
			 total, numbered, arch, n - 1);
	free(st);
	return 0;
}

/*
 * A snapshot of /sys/kernel/irq/N/per_cpu_count, one line per interrupt:
 * "N c0,c1,...", a count for each possible CPU in order. These are the
 * descriptors' per-CPU counters themselves, read without desc->tot_count
 * or any shortcut of /proc/interrupts: an independent count.
 */
struct percpu_snap {
	unsigned long irq;
	unsigned long long *cnt;
	size_t n;
};

static inline void free_percpu(struct percpu_snap *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].cnt);
	free(v);
}

/*
 * Parses a snapshot in buf (NUL-terminated), read from path. Returns
 * -1 after naming path and line when it is bad.
 */
static inline int parse_percpu_buf(const char *buf, const char *path,
				   struct percpu_snap **vp, size_t *nsnap)
{
	struct percpu_snap *v = NULL;
	size_t n = 0, cap = 0, line = 0;
	const char *p = buf;
	char *end;

	while (*p) {
		struct percpu_snap sn = { 0 };
		size_t ccap = 0;

		line++;
		errno = 0;
		sn.irq = strtoul(p, &end, 10);
		if (end == p || *end != ' ' || errno)
			goto bad;
		p = end + 1;
		for (;;) {
			unsigned long long c;

			errno = 0;
			c = strtoull(p, &end, 10);
			if (end == p || errno)
				goto bad;
			if (sn.n == ccap) {
				ccap = ccap ? ccap * 2 : 16;
				sn.cnt = xrealloc(sn.cnt, ccap * sizeof(*sn.cnt));
			}
			sn.cnt[sn.n++] = c;
			p = end;
			if (*p != ',')
				break;
			p++;
		}
		if (*p == '\n')
			p++;
		else if (*p)
			goto bad;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = sn;
		continue;
bad:
		free(sn.cnt);
		free_percpu(v, n);
		irq_line(stderr, "%s: %s:%zu: not \"IRQ count,count,...\"",
			 irq_prog, path, line);
		return -1;
	}
	*vp = v;
	*nsnap = n;
	return 0;
}

static inline const struct percpu_snap *find_snap(const struct percpu_snap *v,
						  size_t n, unsigned long irq)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].irq == irq)
			return &v[i];
	return NULL;
}

/*
 * Each device row's count on each CPU must lie between the descriptor's
 * per-CPU counter read before /proc/interrupts and the one read after:
 * a zero printed where the CPU had counted (a tot_count shortcut taken
 * where tot_count is not kept) falls below "before".
 */
static inline void percpu_check(const struct table *t,
				const struct percpu_snap *be, size_t nb,
				const struct percpu_snap *af, size_t na)
{
	size_t i, j, checked = 0;

	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		const struct percpu_snap *b, *a;

		if (!r->numbered)
			continue;
		b = find_snap(be, nb, r->irq);
		a = find_snap(af, na, r->irq);
		if (!b || !a) {
			violation("row %lu: no /sys/kernel/irq/%lu/per_cpu_count %s",
				  r->irq, r->irq, !b ? "before" : "after");
			continue;
		}
		for (j = 0; j < r->ncounts && j < t->ncpu; j++) {
			unsigned long cpu = t->cpus[j];

			if (cpu >= b->n || cpu >= a->n) {
				violation("row %lu: CPU%lu beyond the %zu per-CPU counts",
					  r->irq, cpu, b->n < a->n ? b->n : a->n);
				continue;
			}
			checked++;
			if (r->counts[j] < b->cnt[cpu] || r->counts[j] > a->cnt[cpu])
				violation("row %lu CPU%lu: /proc/interrupts has %llu, the descriptor's counter %llu before and %llu after",
					  r->irq, cpu, r->counts[j], b->cnt[cpu],
					  a->cnt[cpu]);
		}
	}
	if (!nr_violations)
		irq_line(stdout, "percpu ok: %zu device counts between the descriptors' counters before and after",
			 checked);
}

#endif /* KB_PROC_INTERRUPTS_IRQPARSE_H */
