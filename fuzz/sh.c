// SPDX-License-Identifier: GPL-2.0
/*
 * Runs a shell parser on a fuzz input and checks what it did (see sh.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sh.h"

/* libFuzzer adds the counters of this section to its coverage. */
#define NR_COUNTERS	8192
static uint8_t sh_cov[NR_COUNTERS]
	__attribute__((section("__libfuzzer_extra_counters"), used));

/* What the script wrote to stderr; more than this is cut. */
#define ERR_MAX		(64 * 1024)
static char err_buf[ERR_MAX + 1];
static size_t err_len;

/* The trace line being assembled (one "+FILE:LINE cmd" per line). */
static char tr_line[256];
static size_t tr_len;

static const char *harness_name;
static char scratch[64];

static void remove_scratch(void)
{
	char cmd[128];

	/* our own directory, made by mkdtemp: nothing else is in it */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd))
		fprintf(stderr, "fuzz %s: could not remove %s\n", harness_name,
			scratch);
}

static void die(const char *what)
{
	fprintf(stderr, "kbench: error: fuzz %s: %s: %s\n", harness_name, what,
		strerror(errno));
	remove_scratch();
	abort();
}

/* A traced "+FILE:LINE": FNV-1a of FILE:LINE picks the counter. */
static void trace_line(void)
{
	const char *p = tr_line, *end;
	uint32_t h = 2166136261u;

	while (p < tr_line + tr_len && *p == '+')
		p++;
	end = memchr(p, ' ', tr_len - (size_t)(p - tr_line));
	if (!end)
		end = tr_line + tr_len;
	for (; p < end; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	if (sh_cov[h % NR_COUNTERS] != 255)
		sh_cov[h % NR_COUNTERS]++;
}

static void trace_feed(const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			trace_line();
			tr_len = 0;
		} else if (tr_len < sizeof(tr_line)) {
			tr_line[tr_len++] = buf[i];
		}
	}
}


const char *sh_init(const char *harness)
{
	harness_name = harness;
	snprintf(scratch, sizeof(scratch), "/tmp/kbfuzz-%s.XXXXXX", harness);
	if (!mkdtemp(scratch))
		die("mkdtemp");
	atexit(remove_scratch);
	/* bash sources it first: the trace that is our coverage */
	if (setenv("BASH_ENV", KB_TOP "/fuzz/trace.bash", 1) ||
	    setenv("V", "0", 1) || setenv("LC_ALL", "C", 1))
		die("setenv");
	unsetenv("QUICK");
	return scratch;
}

void sh_write(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die(path);
	if (size && fwrite(data, 1, size, f) != size)
		die(path);
	if (fclose(f))
		die(path);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Prints why the run broke the property, with its stderr, and aborts. */
static void __attribute__((noreturn))
violation(char *const argv[], const char *why)
{
	size_t i;

	fprintf(stderr, "\nkbench: fuzz %s: %s\n  command:", harness_name, why);
	for (i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n  stderr of the script:\n%.*s\n", (int)err_len, err_buf);
	/* abort() skips atexit(); libFuzzer keeps the input */
	remove_scratch();
	abort();
}

static pid_t spawn(char *const argv[], int err_w, int tr_w)
{
	pid_t pid = fork();
	int null;

	if (pid)
		return pid;
	/* child: its own process group, so a hang is killed whole */
	setpgid(0, 0);
	null = open("/dev/null", O_RDWR);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(err_w, 2) < 0 || dup2(tr_w, 9) < 0)
		_exit(126);
	execv(argv[0], argv);
	_exit(127);
}

/*
 * Reads the script's stderr and trace until both close, or kills it when
 * it runs past SH_HANG_MS. Returns its wait status.
 */
static int collect(char *const argv[], pid_t pid, int err_r, int tr_r)
{
	struct pollfd fds[2] = { { err_r, POLLIN, 0 }, { tr_r, POLLIN, 0 } };
	long deadline = now_ms() + SH_HANG_MS;
	int open_fds = 2, status;
	char buf[4096];

	while (open_fds) {
		long left = deadline - now_ms();
		int i, r;

		if (left <= 0) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			violation(argv, "hang: still running after "
				  "SH_HANG_MS (20 s); killed");
		}
		r = poll(fds, 2, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("poll");
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 1) {
				trace_feed(buf, (size_t)n);
			} else {
				size_t k = (size_t)n;

				if (k > ERR_MAX - err_len)
					k = ERR_MAX - err_len;
				memcpy(err_buf + err_len, buf, k);
				err_len += k;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return status;
}

void sh_check(char *const argv[])
{
	int err_p[2], tr_p[2], status, code, named = 0;
	const char *line, *end;
	pid_t pid;

	if (pipe2(err_p, O_CLOEXEC) || pipe2(tr_p, O_CLOEXEC))
		die("pipe");
	err_len = 0;
	tr_len = 0;
	pid = spawn(argv, err_p[1], tr_p[1]);
	if (pid < 0)
		die("fork");
	close(err_p[1]);
	close(tr_p[1]);
	status = collect(argv, pid, err_p[0], tr_p[0]);
	err_buf[err_len] = '\0';

	if (WIFSIGNALED(status))
		violation(argv, strsignal(WTERMSIG(status)));
	code = WEXITSTATUS(status);
	if (code == 126 || code == 127)
		violation(argv, "exit 126/127: bash could not run the script "
			  "or a command in it");
	if (code > 1)
		violation(argv, "exit status above 1 (kb_die exits 1)");
	/* every line is kbench's own: a bash error starts with FILE: line N: */
	for (line = err_buf; *line; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		if (end == line)
			continue;
		if (strncmp(line, "kbench: ", 8))
			violation(argv, "a stderr line that is not kbench's own "
				  "(a bash or tool error)");
		named |= !strncmp(line, "kbench: error: ", 15);
	}
	if (code == 1 && !named)
		violation(argv, "exit 1 without a 'kbench: error: ...' line");
	if (code == 0 && named)
		violation(argv, "exit 0 after a 'kbench: error: ...' line");
}
