// SPDX-License-Identifier: GPL-2.0
/*
 * irqcheck: the proc-interrupts series' check of a booted kernel, on
 * ../lib/harness.h (its boot-check runs it). It reads, in this order,
 * the descriptors' own per-CPU counters (/sys/kernel/irq/N/per_cpu_count,
 * which no /proc/interrupts shortcut touches), /proc/interrupts, the
 * counters again and /proc/stat, and judges the reads with irqparse.h,
 * as irqcompat's parse, statsum and percpu commands do:
 *
 *   parse    /proc/interrupts parses in the 6.12 or the 7.2 format
 *   statsum  its counts agree with the intr line of /proc/stat
 *   percpu   each device count lies between the descriptor's per-CPU
 *            counter read just before and the one read just after it
 *   format   which of the two it is: the 7.2 format (chip column
 *            left-justified to one run-time width, at least the
 *            longest name; precision at least 4)
 *            passes, the 6.12 format (" %8s", precision 3 below 1000
 *            interrupts) is PROC_INTERRUPTS_REWORK absent, a mix fails
 *
 *   irqcheck [-l] [-v] [-t PATTERN]... [-o DIR] [-r DIR]
 *
 * -o DIR keeps the reads there (percpu-before.txt, interrupts.txt,
 * percpu-after.txt, stat.txt); -r DIR judges those files instead of the
 * running kernel's (on the host: fixtures, or a guest's results). Both
 * formats parse; only the last case says which, so that a kernel built
 * with the rework but printing the 6.12 table reports it absent (a
 * failure there, tests/vm/boot-kernels.t) after every other case ran. The
 * reads are made once, by the first case that runs, so that -t runs any
 * case alone. Violations are TAP diagnostics; exit 1 if a case failed,
 * 2 on usage errors.
 */
#define _GNU_SOURCE
#include <dirent.h>

#include "../lib/harness.h"
#include "irqparse.h"

enum { R_BEFORE, R_INTERRUPTS, R_AFTER, R_STAT, NREAD };

/* the file of each read, in -o DIR and -r DIR */
static const char *const read_file[NREAD] = {
	"percpu-before.txt", "interrupts.txt", "percpu-after.txt", "stat.txt",
};

static const char *out_dir, *in_dir;
static char *rd[NREAD];			/* NULL: not read (the why printed) */
static size_t rd_len[NREAD];
static char rd_path[NREAD][4096];	/* where each read came from */
static struct table tbl;
static bool parsed;

static int options(int opt, const char *arg)
{
	if (opt == 'o')
		out_dir = arg;
	else if (opt == 'r')
		in_dir = arg;
	else
		return -1;
	return 0;
}

KB_OPTIONS("o:r:", "[-o DIR] [-r DIR]", options);

/* only the numbered directories of /sys/kernel/irq */
static int is_irq_dir(const struct dirent *d)
{
	return d->d_name[0] && strspn(d->d_name, "0123456789") == strlen(d->d_name);
}

/*
 * "N c0,c1,..." a line for every /sys/kernel/irq/N/per_cpu_count (a
 * count for each possible CPU), as percpu_check() reads it; NULL after
 * saying why.
 */
static char *snap(size_t *lenp)
{
	struct dirent **d;
	char path[300], *buf = NULL, *c;
	size_t clen;
	FILE *m;
	int n;

	n = scandir("/sys/kernel/irq", &d, is_irq_dir, alphasort);
	if (n < 0) {
		irq_line(stdout, "no /sys/kernel/irq (CONFIG_SPARSE_IRQ): cannot read the per-CPU counters");
		return NULL;
	}
	m = open_memstream(&buf, lenp);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/irq/%s/per_cpu_count",
			 d[i]->d_name);
		c = m ? read_all(path, &clen) : NULL;
		if (!c) {
			if (m)
				fclose(m);
			m = NULL;
		} else {
			while (clen && c[clen - 1] == '\n')
				clen--;
			fprintf(m, "%s %.*s\n", d[i]->d_name, (int)clen, c);
			free(c);
		}
		free(d[i]);
	}
	free(d);
	if (!m || fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The read i from the kernel, or from in_dir; kept in out_dir. */
static void read_one(int i)
{
	FILE *f;

	if (in_dir) {
		snprintf(rd_path[i], sizeof(rd_path[i]), "%s/%s", in_dir,
			 read_file[i]);
		rd[i] = read_all(rd_path[i], &rd_len[i]);
		return;
	}
	if (i == R_BEFORE || i == R_AFTER) {
		snprintf(rd_path[i], sizeof(rd_path[i]),
			 "/sys/kernel/irq/*/per_cpu_count (%s)",
			 i == R_BEFORE ? "before" : "after");
		rd[i] = snap(&rd_len[i]);
	} else {
		snprintf(rd_path[i], sizeof(rd_path[i]), "%s",
			 i == R_STAT ? "/proc/stat" : "/proc/interrupts");
		rd[i] = read_all(rd_path[i], &rd_len[i]);
	}
	if (!out_dir || !rd[i])
		return;
	snprintf(rd_path[i], sizeof(rd_path[i]), "%s/%s", out_dir, read_file[i]);
	f = fopen(rd_path[i], "w");
	if (!f || fwrite(rd[i], 1, rd_len[i], f) != rd_len[i] || fclose(f))
		ASSERT_TRUE(0, "keep the read in %s (%s)", rd_path[i],
			    strerror(errno));
}

/* Once: the four reads, in order, and /proc/interrupts parsed. */
static void load(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	irq_tap = 1;
	irq_prog = "irqcheck";
	for (int i = 0; i < NREAD; i++)
		read_one(i);
	parsed = rd[R_INTERRUPTS] &&
		 !parse_buf(&tbl, rd_path[R_INTERRUPTS], rd[R_INTERRUPTS],
			    rd_len[R_INTERRUPTS]);
}

/*
 * The table and the read i that a case compares it with; else one
 * failed line for the case, whose cause is printed above it.
 */
static bool have(int i, const char *what)
{
	load();
	if (!parsed)
		return ASSERT_TRUE(0, "%s: no table from %s (its error above)",
				   what, rd_path[R_INTERRUPTS]);
	if (!rd[i])
		return ASSERT_TRUE(0, "%s: %s could not be read (above)", what,
				   rd_path[i]);
	return true;
}

KB_CASE(parse)
{
	char layout[32], what[160] = "its error above";
	size_t ndev = 0;

	load();
	if (parsed) {
		chip_layout(&tbl, layout, sizeof(layout));
		for (size_t i = 0; i < tbl.nrows; i++)
			ndev += tbl.rows[i].numbered;
		snprintf(what, sizeof(what),
			 "prec=%d chip=%s, %zu CPUs, %zu device rows, %zu arch rows",
			 tbl.prec, layout, tbl.ncpu, ndev, tbl.nrows - ndev);
	}
	ASSERT_TRUE(parsed, "%s parses in the 6.12 or the 7.2 format (%s)",
		    rd_path[R_INTERRUPTS], what);
}

KB_CASE(statsum)
{
	if (!have(R_STAT, "statsum"))
		return;
	nr_violations = 0;
	if (statsum(&tbl, rd[R_STAT], rd_path[R_STAT])) {
		ASSERT_TRUE(0, "statsum: the intr line of %s (above)",
			    rd_path[R_STAT]);
		return;
	}
	ASSERT_EQ(nr_violations, 0,
		  "statsum: each device row's sum at most its irq's field of /proc/stat's intr line, with the arch rows it counts at most its total: violations");
}

KB_CASE(percpu)
{
	struct percpu_snap *be = NULL, *af = NULL;
	size_t nb = 0, na = 0;

	if (!have(R_BEFORE, "percpu") || !have(R_AFTER, "percpu"))
		return;
	if (parse_percpu_buf(rd[R_BEFORE], rd_path[R_BEFORE], &be, &nb) ||
	    parse_percpu_buf(rd[R_AFTER], rd_path[R_AFTER], &af, &na)) {
		ASSERT_TRUE(0, "percpu: the per-CPU counters read (above)");
		free_percpu(be, nb);
		return;
	}
	nr_violations = 0;
	percpu_check(&tbl, be, nb, af, na);
	ASSERT_EQ(nr_violations, 0,
		  "percpu: each device count between the descriptor's per-CPU counter read before and the one read after: violations");
	free_percpu(be, nb);
	free_percpu(af, na);
}

/*
 * The rework's visible marks (the spec's "output differences"): the
 * chip column left-justified to the run-time width, and an interrupt
 * number column at least 4 wide. Where the chip column reads both ways
 * (every name as long as the column), the width decides.
 */
KB_CASE(format)
{
	char layout[32];

	if (!have(R_INTERRUPTS, "format"))
		return;
	chip_layout(&tbl, layout, sizeof(layout));
	if (!strcmp(layout, "right8") ||
	    (!strncmp(layout, "right8=", 7) && tbl.prec < 4)) {
		kb_absent("PROC_INTERRUPTS_REWORK",
			  "/proc/interrupts is in the 6.12 format (chip column %s, precision %d)",
			  layout, tbl.prec);
		return;
	}
	ASSERT_TRUE(!strncmp(layout, "left", 4) || !strncmp(layout, "right8=left", 11),
		    "format: the 7.2 format, chip column left-justified to one width, at least the longest name (%s), precision %d",
		    layout, tbl.prec);
	ASSERT_TRUE(tbl.prec >= 4,
		    "format: the interrupt number column at least 4 wide (7.2's default): precision %d",
		    tbl.prec);
}
