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
 * The wildcard: bpftrace matches a glob, so the functions are those of
 * a prefix. Of the kernel's traceable functions (the rule of
 * kernel/checks/lib/traceable.h, the one bpf_attach uses), the prefix
 * whose functions number nearest --funcs N is taken, among the prefixes
 * that are clean: every name available_filter_functions has under the
 * prefix is a traceable one, so bpftrace's own match is the same set
 * (ties: more functions, then the shorter prefix, then the first by
 * name). Its count ("functions"), the probes bpftrace said it attached
 * ("probes": one a function for kfunc, one kprobe_multi probe for
 * kprobe) and a hash of the names ("funcs_hash") are recorded, so a
 * comparison sees when the two kernels' sets differ.
 *
 * A sample is two bpftrace sessions, each started and then stopped with
 * SIGINT as a user's Ctrl-C:
 *   the reference   BEGIN { printf("kbready\n"); }: bpftrace's own
 *                   startup (LLVM, BTF, the BEGIN uprobe) and exit;
 *   the wildcard    the same BEGIN and kfunc:vmlinux:P* (or kprobe:P*)
 *                   { @hits = count(); }. bpftrace fires BEGIN once
 *                   every probe is attached, so its line is the first
 *                   event a user sees.
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
/* guest seconds a session may take to attach or to exit */
#define BT_WAIT_S	1800

static unsigned long nfuncs = 100;
static unsigned long settle_ms = 200;
static enum { V_KFUNC, V_KPROBE } variant;

static char prefix[BT_PREFIX_MAX + 1];
static unsigned long nmatch;	/* traceable functions under prefix */
static uint64_t names_hash;
static char script[256];

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

/*
 * The clean prefix of l's names (sorted) whose count is nearest want;
 * 0 with prefix, nmatch and names_hash set, or -1.
 */
static int pick_prefix(const struct tfuncs *l, const struct name_set *ftr)
{
	const char *best = NULL;
	unsigned long bestc = 0;
	size_t bestl = 0, bestfirst = 0;

	for (size_t len = 2; len <= BT_PREFIX_MAX; len++) {
		for (size_t i = 0, j; i < l->n; i = j) {
			const char *p = l->f[i].name;

			if (strlen(p) < len) {
				j = i + 1;
				continue;
			}
			for (j = i + 1; j < l->n && !strncmp(l->f[j].name, p, len); j++)
				;
			if (best && !better_pick(j - i, len, p, bestc, bestl,
						 best, nfuncs))
				continue;
			/* bpftrace's glob must see these and no others */
			if (set_prefix_count(ftr, p, len) != j - i)
				continue;
			best = p;
			bestc = j - i;
			bestl = len;
			bestfirst = i;
		}
	}
	if (!best)
		return -1;
	memcpy(prefix, best, bestl);
	prefix[bestl] = '\0';
	nmatch = bestc;
	/* the hash bpf_attach gives the same names */
	names_hash = tfuncs_hash(&(struct tfuncs){ .f = l->f + bestfirst,
						   .n = bestc }, bestc);
	return 0;
}

static int bt_setup(void)
{
	struct name_set ftr = { 0 };
	struct tfuncs all;
	struct rlimit rl;
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
	err = pick_prefix(&all, &ftr);
	if (err)
		fprintf(stderr, "kbbench: bpftrace_attach: no prefix of the %zu traceable functions is clean (every function of available_filter_functions under it traceable)\n",
			all.n);
	else
		fprintf(stderr, "kbbench: bpftrace_attach: --funcs %lu: prefix %s*, %lu traceable functions; names FNV-1a %016llx\n",
			nfuncs, prefix, nmatch,
			(unsigned long long)names_hash);
	tfuncs_free(&all);
	name_set_free(&ftr);
	if (err)
		return -1;
	if (variant == V_KFUNC)
		snprintf(script, sizeof(script),
			 "BEGIN { printf(\"kbready\\n\"); } kfunc:vmlinux:%s* { @hits = count(); }",
			 prefix);
	else
		snprintf(script, sizeof(script),
			 "BEGIN { printf(\"kbready\\n\"); } kprobe:%s* { @hits = count(); }",
			 prefix);
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
		t0 = kb_now_ns();
		kill(pid, SIGINT);
		/* the rest of its output (the map) until it closes stdout */
		while (read(pfd[0], buf, sizeof(buf) - 1) > 0)
			;
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
	/* kfunc: a probe a function and BEGIN; kprobe: one multi probe */
	if (variant == V_KFUNC && wild.probes != nmatch + 1)
		fprintf(stderr, "kbbench: bpftrace_attach: bpftrace attached %lu probes for %s*, %lu traceable functions and BEGIN expected\n",
			wild.probes, prefix, nmatch);
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
