// SPDX-License-Identifier: GPL-2.0
/*
 * bpftrace_attach: what a bpftrace user waits for when a session traces
 * a wildcard of kernel functions, on each kernel: from the start of
 * bpftrace to its first event, and from Ctrl-C to its exit.
 *
 * Debian's bpftrace 0.17 attaches a kfunc: wildcard as one fentry
 * program and link per function (the BPF trampolines and ftrace direct
 * calls that the ftrace-direct series puts on one shared ops) and a
 * kprobe: wildcard as one kprobe_multi link (fprobe). So this is the
 * client-side view of bpf_attach's fentry and kprobe_multi methods.
 *
 * The wildcard: bpftrace matches globs, so the functions are those of
 * a list of prefixes (kfunc:vmlinux:A*,kfunc:vmlinux:B* or
 * kprobe:A*,kprobe:B*; bpftrace 0.17 makes one kprobe_multi link for
 * each kprobe: glob of the list). A prefix may be used when it is clean:
 * every name available_filter_functions has under it is a traceable one
 * (the rule of kernel/checks/lib/traceable.h, the one bpf_attach uses)
 * and none takes more than 6 arguments (bpftrace 0.17 leaves those out
 * of a kfunc: glob, not of a kprobe: one), so bpftrace's own match is
 * the same set for both variants. The prefixes, by a fixed rule:
 *   - the one clean prefix whose functions number nearest --funcs N
 *     (ties: more functions, then the shorter prefix, then the first by
 *     name), when it is within 5 % of N;
 *   - else a union: clean prefixes that share no function, each the
 *     nearest (with the same ties) to what is still missing without
 *     going over it, until that is within 5 % of N or 16 are taken;
 *     the union is kept when it comes nearer N than the one prefix.
 * The count ("functions"), the probes bpftrace said it attached beyond
 * BEGIN ("probes": one a function for kfunc, one kprobe_multi probe a
 * prefix for kprobe) and a hash of the names ("funcs_hash", in name
 * order) are recorded, so a comparison sees when the two kernels' sets
 * differ.
 *
 * A sample is two bpftrace sessions, each started and then stopped with
 * SIGINT as a user's Ctrl-C (sent once bpftrace sleeps in its event
 * loop, and again while it still does: see interrupt(); a SIGINT sent as
 * BEGIN's line came out was lost one time in a few, and the session,
 * and the boot, waited for ever):
 *   the reference   BEGIN { printf("kbready\n"); }: bpftrace's own
 *                   startup (LLVM, BTF, the BEGIN uprobe) and exit;
 *   the wildcard    the same BEGIN and the probe list { @hits =
 *                   count(); }, with BPFTRACE_MAX_PROBES raised above
 *                   the functions (bpftrace refuses more than 512
 *                   probes without it). bpftrace fires BEGIN once every
 *                   probe is attached, so its line is the first event a
 *                   user sees.
 * Metrics: ready_ns (start to BEGIN's line, the wildcard session),
 * startup_ns (the same, the reference), attach_ns = ready_ns -
 * startup_ns (what the wildcard adds: its expansion, its programs'
 * loads and the attach), exit_ns and exit_ref_ns (SIGINT to the
 * process's end: the detach and teardown) and detach_ns = exit_ns -
 * exit_ref_ns. The differences are of two sessions of one sample, so
 * they can be negative when the wildcard adds nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kbbench.h"
#include "../kernel/checks/lib/traceable.h"

#define BT_PATH		"/usr/bin/bpftrace"
#define BT_FUNCS_MAX	20000
#define BT_PREFIX_MAX	24
/* a wildcard's prefixes at most, and how near funcs is near enough */
#define BT_PARTS_MAX	16
#define BT_NEAR_PCT	5
/* bpftrace 0.17 leaves out of a kfunc: wildcard a function of more */
#define BT_MAX_ARGS	6
/* guest seconds a session may take to attach or to exit */
#define BT_WAIT_S	1800
/* SIGINT again when bpftrace still sleeps in its event loop this late */
#define BT_RESEND_MS	200

static unsigned long nfuncs = 100;
static unsigned long settle_ms = 200;
static enum { V_KFUNC, V_KPROBE } variant;

/* one prefix of the wildcard: its functions are l->f[first..+count) */
struct part {
	size_t first, len;
	unsigned long count;
	char name[BT_PREFIX_MAX + 1];
};

static struct part parts[BT_PARTS_MAX];
static size_t nparts;
static unsigned long nmatch;	/* traceable functions under the prefixes */
static uint64_t names_hash;
static char script[BT_PARTS_MAX * (BT_PREFIX_MAX + 24) + 128];

static const struct kb_opt bt_opts[] = {
	{ "funcs", KB_OPT_ULONG, &nfuncs,
	  "about this many functions in the wildcard, 1..20000 (default 100)" },
	{ "settle_ms", KB_OPT_ULONG, &settle_ms,
	  "sleep after each session's exit, 0..10000 (default 200)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_ATTACH,
	M_DETACH,
	M_READY,
	M_EXIT,
	M_STARTUP,
	M_EXIT_REF,
	M_FUNCS,
	M_PROBES,
	M_HASH,
	NR_M,
};

static const struct kb_metric bt_metrics[NR_M] = {
	[M_ATTACH] = { "attach_ns", "ns", KB_LOWER },
	[M_DETACH] = { "detach_ns", "ns", KB_LOWER },
	[M_READY] = { "ready_ns", "ns", KB_LOWER },
	[M_EXIT] = { "exit_ns", "ns", KB_LOWER },
	[M_STARTUP] = { "startup_ns", "ns", KB_LOWER },
	[M_EXIT_REF] = { "exit_ref_ns", "ns", KB_LOWER },
	[M_FUNCS] = { "functions", "count", KB_INFO },
	[M_PROBES] = { "probes", "count", KB_INFO },
	[M_HASH] = { "funcs_hash", "count", KB_INFO },
};

static int bt_validate(void)
{
	if (!strcmp(kb_variant, "kfunc")) {
		variant = V_KFUNC;
	} else if (!strcmp(kb_variant, "kprobe")) {
		variant = V_KPROBE;
	} else {
		fprintf(stderr, "kbbench: bpftrace_attach: --variant: '%s' is not kfunc or kprobe\n",
			kb_variant);
		return -1;
	}
	if (kb_check_range("bpftrace_attach", "funcs", nfuncs, 1, BT_FUNCS_MAX))
		return -1;
	return kb_check_range("bpftrace_attach", "settle_ms", settle_ms, 0,
			      10000);
}

/* Names of s (sorted) that start with p[0..len): their count, with dups */
static unsigned long set_prefix_count(const struct name_set *s,
				      const char *p, size_t len)
{
	size_t lo = 0, hi = s->n;
	unsigned long c = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(s->v[mid].name, p, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->n && !strncmp(s->v[lo].name, p, len); lo++)
		c += s->v[lo].count;
	return c;
}

/* Is a better than b for a target of want? */
static bool better_pick(unsigned long ca, size_t la, const char *pa,
			unsigned long cb, size_t lb, const char *pb,
			unsigned long want)
{
	unsigned long da = ca > want ? ca - want : want - ca;
	unsigned long db = cb > want ? cb - want : want - cb;

	if (da != db)
		return da < db;
	if (ca != cb)
		return ca > cb;
	if (la != lb)
		return la < lb;
	return strncmp(pa, pb, la) < 0;
}

/* Does the prefix p[0..len) share a function with one of parts? */
static bool overlaps(const char *p, size_t len, const struct part *parts,
		     size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t m = len < parts[k].len ? len : parts[k].len;

		if (!strncmp(p, parts[k].name, m))
			return true;
	}
	return false;
}

/*
 * The clean prefix of l's names (sorted) whose count is nearest want,
 * disjoint from taken[0..ntaken); with under, only one of at most want
 * functions. 0 with *out set, or -1 when there is none.
 */
static int nearest_prefix(const struct tfuncs *l, const struct name_set *ftr,
			  unsigned long want, bool under,
			  const struct part *taken, size_t ntaken,
			  struct part *out)
{
	const char *best = NULL;
	bool wide;

	for (size_t len = 2; len <= BT_PREFIX_MAX; len++) {
		for (size_t i = 0, j; i < l->n; i = j) {
			const char *p = l->f[i].name;

			if (strlen(p) < len) {
				j = i + 1;
				continue;
			}
			wide = l->f[i].nargs > BT_MAX_ARGS;
			for (j = i + 1; j < l->n && !strncmp(l->f[j].name, p, len); j++)
				wide |= l->f[j].nargs > BT_MAX_ARGS;
			if (wide || (under && j - i > want))
				continue;
			if (best && !better_pick(j - i, len, p, out->count,
						 out->len, best, want))
				continue;
			if (overlaps(p, len, taken, ntaken))
				continue;
			/* bpftrace's glob must see these and no others */
			if (set_prefix_count(ftr, p, len) != j - i)
				continue;
			best = p;
			*out = (struct part){ .first = i, .count = j - i, .len = len };
		}
	}
	if (!best)
		return -1;
	memcpy(out->name, best, out->len);
	out->name[out->len] = '\0';
	return 0;
}

static unsigned long distance(unsigned long a, unsigned long b)
{
	return a > b ? a - b : b - a;
}

static int part_cmp(const void *a, const void *b)
{
	const struct part *pa = a, *pb = b;

	return pa->first < pb->first ? -1 : pa->first > pb->first;
}

/*
 * The wildcard for nfuncs: the one clean prefix nearest it when that is
 * within BT_NEAR_PCT percent; else clean prefixes, disjoint, each the
 * nearest to what is still missing without going over it, until that
 * is within BT_NEAR_PCT percent or BT_PARTS_MAX are taken (the union is
 * kept if it comes nearer than the one prefix). 0 with parts, nparts,
 * nmatch and names_hash set; -ENOENT (no clean prefix) or -ENOMEM.
 */
static int pick_prefixes(const struct tfuncs *l, const struct name_set *ftr)
{
	unsigned long near = nfuncs * BT_NEAR_PCT / 100, total = 0;
	struct part one, fill[BT_PARTS_MAX];
	struct tfuncs sel = { 0 };
	size_t n = 0;

	if (nearest_prefix(l, ftr, nfuncs, false, NULL, 0, &one))
		return -ENOENT;
	if (distance(one.count, nfuncs) > near) {
		while (n < BT_PARTS_MAX && nfuncs - total > near &&
		       !nearest_prefix(l, ftr, nfuncs - total, true, fill, n,
				       &fill[n]))
			total += fill[n++].count;
	}
	if (n && distance(total, nfuncs) < distance(one.count, nfuncs)) {
		/* name order, as bpf_attach hashes the names */
		qsort(fill, n, sizeof(fill[0]), part_cmp);
		memcpy(parts, fill, n * sizeof(fill[0]));
		nparts = n;
		nmatch = total;
	} else {
		parts[0] = one;
		nparts = 1;
		nmatch = one.count;
	}
	sel.f = calloc(nmatch, sizeof(*sel.f));
	if (!sel.f)
		return -ENOMEM;
	for (size_t k = 0; k < nparts; k++) {
		memcpy(sel.f + sel.n, l->f + parts[k].first,
		       parts[k].count * sizeof(*sel.f));
		sel.n += parts[k].count;
	}
	names_hash = tfuncs_hash(&sel, sel.n);
	free(sel.f);
	return 0;
}

/*
 * script: BEGIN and the probe list of parts, "kfunc:vmlinux:A*,
 * kfunc:vmlinux:B* { ... }" or "kprobe:A*,kprobe:B* { ... }"; 0, or -1
 * when it does not fit.
 */
static int build_script(void)
{
	size_t o = 0;
	int r;

	r = snprintf(script, sizeof(script), "BEGIN { printf(\"kbready\\n\"); } ");
	for (size_t k = 0; k <= nparts && r >= 0; k++) {
		o += r;
		if (o >= sizeof(script))
			return -1;
		if (k == nparts)
			r = snprintf(script + o, sizeof(script) - o,
				     " { @hits = count(); }");
		else
			r = snprintf(script + o, sizeof(script) - o, "%s%s%s*",
				     k ? "," : "",
				     variant == V_KFUNC ? "kfunc:vmlinux:" : "kprobe:",
				     parts[k].name);
	}
	return r >= 0 && o + r < sizeof(script) ? 0 : -1;
}

static int bt_setup(void)
{
	struct name_set ftr = { 0 };
	struct tfuncs all;
	struct rlimit rl;
	char maxp[24];
	int err;

	if (access(BT_PATH, X_OK)) {
		fprintf(stderr, "kbbench: bpftrace_attach: %s: %s (the workload's packages = bpftrace puts it in the image)\n",
			BT_PATH, strerror(errno));
		return -1;
	}
	err = traceable_funcs(&all);
	if (!err)
		err = read_ftrace_funcs(&ftr);
	if (err) {
		fprintf(stderr, "kbbench: bpftrace_attach: the traceable functions (BTF, %s/available_filter_functions, /proc/kallsyms): %s\n",
			TRACEFS, strerror(-err));
		tfuncs_free(&all);
		name_set_free(&ftr);
		return -1;
	}
	err = pick_prefixes(&all, &ftr);
	if (err == -ENOENT)
		fprintf(stderr, "kbbench: bpftrace_attach: no prefix of the %zu traceable functions is clean (every function of available_filter_functions under it traceable, none of more than %d arguments)\n",
			all.n, BT_MAX_ARGS);
	else if (err)
		fprintf(stderr, "kbbench: bpftrace_attach: the names of %lu functions: %s\n",
			nmatch, strerror(-err));
	tfuncs_free(&all);
	name_set_free(&ftr);
	if (err)
		return -1;
	fprintf(stderr, "kbbench: bpftrace_attach: --funcs %lu: %lu traceable functions under",
		nfuncs, nmatch);
	for (size_t k = 0; k < nparts; k++)
		fprintf(stderr, " %s* (%lu)", parts[k].name, parts[k].count);
	fprintf(stderr, "; names FNV-1a %016llx\n",
		(unsigned long long)names_hash);
	if (build_script()) {
		fprintf(stderr, "kbbench: bpftrace_attach: the probe list of %zu prefixes is longer than %zu bytes\n",
			nparts, sizeof(script));
		return -1;
	}
	/* bpftrace refuses more than 512 probes unless this says more */
	snprintf(maxp, sizeof(maxp), "%lu", nmatch + 64);
	if (setenv("BPFTRACE_MAX_PROBES", maxp, 1)) {
		perror("kbbench: bpftrace_attach: setenv BPFTRACE_MAX_PROBES");
		return -1;
	}
	/* a program and a link per function: bpftrace inherits the room */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 2 * nmatch + 1024) {
		rl.rlim_cur = 2 * nmatch + 1024;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			fprintf(stderr, "kbbench: bpftrace_attach: RLIMIT_NOFILE to %llu: %s\n",
				(unsigned long long)rl.rlim_cur, strerror(errno));
			return -1;
		}
	}
	return 0;
}

struct session {
	uint64_t ready_ns, exit_ns;
	unsigned long probes;
};

/* Wait for fd to be readable until deadline (kb_now_ns); 1, 0 or -1 */
static int wait_readable(int fd, uint64_t deadline)
{
	uint64_t now = kb_now_ns();
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	if (now >= deadline)
		return 0;
	r = poll(&p, 1, (int)((deadline - now) / 1000000) + 1);
	return r < 0 ? -1 : r > 0;
}

/* The output so far has "Attaching N probes" and the BEGIN line? */
static void scan_output(const char *buf, struct session *s, bool *ready)
{
	const char *a = strstr(buf, "Attaching ");

	if (a && !s->probes)
		s->probes = strtoul(a + 10, NULL, 10);
	*ready = strstr(buf, "kbready\n") != NULL;
}

static void show_output(const char *what, const char *buf, const char *errf)
{
	char line[512];
	FILE *f = fopen(errf, "r");

	fprintf(stderr, "kbbench: bpftrace_attach: %s; bpftrace's output: %.400s\n",
		what, buf);
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "kbbench: bpftrace_attach: stderr: %s", line);
	if (f)
		fclose(f);
}

/* Is pid asleep in epoll_wait (bpftrace's event loop)? */
static bool in_epoll_wait(pid_t pid)
{
	char path[32], w[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, w, sizeof(w) - 1);
	close(fd);
	if (n <= 0)
		return false;
	w[n] = '\0';
	return strstr(w, "epoll_wait") != NULL;
}

/*
 * A user's Ctrl-C to the session pid, and the rest of its output (the
 * map) read from fd until it closes it; *t0 is when SIGINT was sent. 0,
 * or -1 when bpftrace did not end in BT_WAIT_S.
 *
 * bpftrace 0.17 leaves its event loop only when epoll_wait fails with
 * EINTR: a SIGINT that lands while it is out of epoll_wait (printing
 * BEGIN's line, the very line that tells us to send it) only sets its
 * flag, and the session runs on. So SIGINT is sent once bpftrace sleeps
 * in epoll_wait again, and once more whenever it still sleeps there
 * BT_RESEND_MS later (it leaves at once when the signal got through).
 */
static int interrupt(pid_t pid, int fd, uint64_t *t0, const char *errf)
{
	uint64_t deadline = kb_now_ns() + BT_RESEND_MS * 1000000ULL;
	char buf[4096];

	while (!in_epoll_wait(pid) && kb_now_ns() < deadline)
		usleep(1000);
	*t0 = kb_now_ns();
	kill(pid, SIGINT);
	deadline = *t0 + (uint64_t)BT_WAIT_S * 1000000000ULL;
	for (;;) {
		uint64_t next = kb_now_ns() + BT_RESEND_MS * 1000000ULL;
		int w = wait_readable(fd, next < deadline ? next : deadline);

		if (w < 0) {
			show_output("poll failed after SIGINT", "", errf);
			return -1;
		}
		if (w > 0) {
			if (read(fd, buf, sizeof(buf)) <= 0)
				return 0;
			continue;
		}
		if (kb_now_ns() >= deadline) {
			show_output("no exit in time after SIGINT", "", errf);
			return -1;
		}
		if (in_epoll_wait(pid))
			kill(pid, SIGINT);
	}
}

/* One session of prog: start, wait for BEGIN's line, SIGINT, wait */
static int session(const char *prog, struct session *s)
{
	char buf[8192], errf[] = "/tmp/kb-bpftrace-XXXXXX";
	size_t len = 0;
	uint64_t t0, deadline;
	bool ready = false;
	int pfd[2], efd, st;
	pid_t pid;

	memset(s, 0, sizeof(*s));
	efd = mkstemp(errf);
	if (efd < 0 || pipe2(pfd, O_CLOEXEC)) {
		perror("kbbench: bpftrace_attach: pipe or stderr file");
		return -1;
	}
	t0 = kb_now_ns();
	pid = fork();
	if (pid < 0) {
		perror("kbbench: bpftrace_attach: fork");
		return -1;
	}
	if (!pid) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(efd, STDERR_FILENO);
		execl(BT_PATH, "bpftrace", "-e", prog, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	close(efd);
	deadline = t0 + (uint64_t)BT_WAIT_S * 1000000000ULL;
	while (!ready) {
		ssize_t r;
		int w = wait_readable(pfd[0], deadline);

		if (w <= 0) {
			show_output(w ? "poll failed" : "no BEGIN line in time", buf, errf);
			kill(pid, SIGKILL);
			break;
		}
		r = read(pfd[0], buf + len, sizeof(buf) - 1 - len);
		if (r <= 0)
			break;
		len += r;
		buf[len] = '\0';
		scan_output(buf, s, &ready);
		if (len == sizeof(buf) - 1)
			len = 0;	/* keep reading; BEGIN's line is short */
	}
	if (ready) {
		s->ready_ns = kb_now_ns() - t0;
		if (interrupt(pid, pfd[0], &t0, errf))
			kill(pid, SIGKILL);
	} else {
		buf[len] = '\0';
	}
	close(pfd[0]);
	if (waitpid(pid, &st, 0) < 0) {
		perror("kbbench: bpftrace_attach: waitpid");
		unlink(errf);
		return -1;
	}
	s->exit_ns = kb_now_ns() - t0;
	if (!ready || !WIFEXITED(st) || WEXITSTATUS(st)) {
		char why[96];

		if (ready && WIFEXITED(st))
			snprintf(why, sizeof(why), "bpftrace exited %d after SIGINT", WEXITSTATUS(st));
		else if (WIFEXITED(st))
			snprintf(why, sizeof(why), "bpftrace exited %d before its BEGIN line", WEXITSTATUS(st));
		else
			snprintf(why, sizeof(why), "bpftrace killed by signal %d", WTERMSIG(st));
		fprintf(stderr, "kbbench: bpftrace_attach: bpftrace -e '%s'\n", prog);
		show_output(why, ready ? "" : buf, errf);
		unlink(errf);
		return -1;
	}
	unlink(errf);
	if (settle_ms)
		nanosleep(&(struct timespec){ settle_ms / 1000, (settle_ms % 1000) * 1000000L }, NULL);
	return 0;
}

static int bt_run(double *vals)
{
	struct session ref, wild;

	if (session("BEGIN { printf(\"kbready\\n\"); }", &ref) ||
	    session(script, &wild))
		return -1;
	/* kfunc: a probe a function and BEGIN; kprobe: a multi probe a prefix */
	if (wild.probes != (variant == V_KFUNC ? nmatch : nparts) + 1)
		fprintf(stderr, "kbbench: bpftrace_attach: bpftrace attached %lu probes for %zu prefixes of %lu traceable functions, %lu and BEGIN expected\n",
			wild.probes, nparts, nmatch,
			variant == V_KFUNC ? nmatch : (unsigned long)nparts);
	vals[M_READY] = wild.ready_ns;
	vals[M_STARTUP] = ref.ready_ns;
	vals[M_ATTACH] = (double)wild.ready_ns - (double)ref.ready_ns;
	vals[M_EXIT] = wild.exit_ns;
	vals[M_EXIT_REF] = ref.exit_ns;
	vals[M_DETACH] = (double)wild.exit_ns - (double)ref.exit_ns;
	vals[M_FUNCS] = nmatch;
	vals[M_PROBES] = wild.probes ? wild.probes - 1 : 0;
	vals[M_HASH] = names_hash & 0xffffffffu;
	return 0;
}

static const struct kb_bench bpftrace_attach = {
	.name = "bpftrace_attach",
	.help = "a bpftrace session over a kfunc:/kprobe: wildcard of about --funcs functions: start to first event, Ctrl-C to exit",
	.opts = bt_opts,
	.metrics = bt_metrics,
	.nr_metrics = NR_M,
	.validate = bt_validate,
	.setup = bt_setup,
	.run = bt_run,
};
KB_BENCH(bpftrace_attach);
