/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP for the series' checks in the guest (#include "../lib/tap.h",
 * after _GNU_SOURCE): result() prints "ok N - ..." or "not ok N - ..."
 * (behind tap_prefix if set), skip() an "ok N - ... # SKIP", tap_done()
 * the plan and main's exit status; err_name() names an errno.
 */
#ifndef KB_CHECKS_TAP_H
#define KB_CHECKS_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static int ntest, nfail;
static const char *tap_prefix;	/* "ok N - PREFIX: ..." when set */

/*
 * One case. The number and the line are one step under stdout's lock,
 * so that threads may report too (rhashstress's threads note their
 * errors and the main thread reports them after the join).
 */
static inline void __attribute__((format(printf, 2, 3)))
result(int good, const char *fmt, ...)
{
	va_list ap;

	flockfile(stdout);
	printf("%sok %d - ", good ? "" : "not ", ++ntest);
	if (tap_prefix)
		printf("%s: ", tap_prefix);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!good)
		nfail++;
	funlockfile(stdout);
}

static inline void skip(const char *what, const char *why)
{
	flockfile(stdout);
	printf("ok %d - ", ++ntest);
	if (tap_prefix)
		printf("%s: ", tap_prefix);
	printf("%s # SKIP %s\n", what, why);
	funlockfile(stdout);
}

/* The plan after the last case; returns main's exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}

/*
 * The name of an errno (negative or not; 0 is "0"). Four calls may
 * share one printf; each thread has its own buffers.
 */
static inline const char *err_name(int err)
{
	static __thread char buf[4][24];
	static __thread int slot;

	if (err < 0)
		err = -err;
	switch (err) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	case EBADF: return "EBADF";
	case ENOSPC: return "ENOSPC";
	case EFAULT: return "EFAULT";
	case ELOOP: return "ELOOP";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case ESRCH: return "ESRCH";
	}
	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "errno %d", err);
	return buf[slot];
}

/* err_name() of what returns an fd, or -errno: "0" for an fd */
static inline const char *fd_err_name(int fd)
{
	return err_name(fd < 0 ? fd : 0);
}

/*
 * "(<release>)": a kbench release is <version>-kb<content key>, which
 * says which build it is but not its label (baseline, patched, ...);
 * the host that booted it names the kernel in its own output.
 */
static inline const char *tap_kernel_name(void)
{
	static char buf[sizeof(((struct utsname *)0)->release) + 4];
	struct utsname u;

	if (uname(&u))
		return "(unknown kernel)";
	snprintf(buf, sizeof(buf), "(%s)", u.release);
	return buf;
}

#endif /* KB_CHECKS_TAP_H */
