// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_syscall: the cost of one bpf() call that succeeds, for
 * --cmd map_create (a BPF_MAP_TYPE_HASH of one 8-byte element),
 * --cmd array_create (MAP_CREATE of a one-element BPF_MAP_TYPE_ARRAY) or
 * --cmd prog_load (a two-instruction socket filter, "r0 = 0; exit").
 * A hash map's creation spends most of its time in the per-CPU
 * allocator (its lock counters and free list: pcpu_alloc's area search,
 * whose cost depends on the chunks' state at boot); an array map makes
 * no per-CPU allocation, so there the syscall's own path is most of it.
 *
 * Variants:
 *   plain    the three-argument call every existing loader makes;
 *   flag     BPF_COMMON_ATTRS with an all-zero struct bpf_common_attr:
 *            no log, so what is timed beyond plain is the extension's
 *            own path (copy and check of the struct);
 *   attrlog  the three-argument call with a 4 KiB log at level 1 in
 *            union bpf_attr, as loaders pass it today: PROG_LOAD only
 *            (MAP_CREATE has no log there), on any kernel;
 *   common   BPF_COMMON_ATTRS with the same log in struct
 *            bpf_common_attr (7.2's syscall common attributes).
 * flag and common are absent on a kernel without common attributes.
 * A successful PROG_LOAD at log level 1 writes the verifier's trace, so
 * common is to be compared with attrlog there; MAP_CREATE writes its
 * log only on failure, so common is compared with plain.
 *
 * A sample times --loops calls back to back, keeping each new fd open so
 * that no close, and no deferred free of an earlier object, falls inside
 * the timed loop; the fds are closed after it and the sample then sleeps
 * --settle_ms so that RCU and the map free worker finish before the next
 * sample. Raw syscall(2), no libbpf: what is timed is the syscall alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "kbbench.h"

/*
 * 7.2's uapi (spec section 5), under our own names: the headers this is
 * built against may or may not have them.
 */
#define KB_BPF_COMMON_ATTRS (1 << 16)
struct kb_bpf_common_attr {
	__aligned_u64 log_buf;
	__u32 log_size;
	__u32 log_level;
	__u32 log_true_size;
};
_Static_assert(sizeof(struct kb_bpf_common_attr) == 24,
	       "struct bpf_common_attr is 24 bytes in 7.2's uapi");

#define LOG_SIZE 4096

static unsigned long loops = 100;
static unsigned long settle_ms = 20;
static const char *cmd_name = "map_create";
static int cmd;
static enum bpf_map_type map_type = BPF_MAP_TYPE_HASH;
static enum { V_PLAIN, V_FLAG, V_ATTRLOG, V_COMMON } variant;
static int *fds;
/* built once in setup; common is NULL for plain and attrlog */
static union bpf_attr attr;
static struct kb_bpf_common_attr common_attr, *common;
static char log_buf[LOG_SIZE];
static const struct bpf_insn prog_insns[] = {
	/* r0 = 0 */
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static const struct kb_opt sys_opts[] = {
	{ "cmd", KB_OPT_STR, &cmd_name,
	  "map_create (a hash map), array_create (an array map) or prog_load (default map_create)" },
	{ "loops", KB_OPT_ULONG, &loops,
	  "calls per sample, each keeping its fd until the sample ends, 1..1000 (default 100)" },
	{ "settle_ms", KB_OPT_ULONG, &settle_ms,
	  "sleep after closing a sample's fds, 0..1000 (default 20)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_NS_PER_CALL,
	M_LOG_BYTES,
	NR_M,
};

static const struct kb_metric sys_metrics[NR_M] = {
	[M_NS_PER_CALL] = { "ns_per_call", "ns", KB_LOWER },
	/* what the kernel reported in log_true_size (0 without a log) */
	[M_LOG_BYTES] = { "log_bytes", "bytes", KB_INFO },
};

static int sys_validate(void)
{
	if (!strcmp(cmd_name, "map_create")) {
		cmd = BPF_MAP_CREATE;
		map_type = BPF_MAP_TYPE_HASH;
	} else if (!strcmp(cmd_name, "array_create")) {
		cmd = BPF_MAP_CREATE;
		map_type = BPF_MAP_TYPE_ARRAY;
	} else if (!strcmp(cmd_name, "prog_load")) {
		cmd = BPF_PROG_LOAD;
	} else {
		fprintf(stderr, "kbbench: bpf_syscall: --cmd: '%s' is not map_create, array_create or prog_load\n",
			cmd_name);
		return -1;
	}
	if (!strcmp(kb_variant, "plain")) {
		variant = V_PLAIN;
	} else if (!strcmp(kb_variant, "flag")) {
		variant = V_FLAG;
	} else if (!strcmp(kb_variant, "attrlog")) {
		variant = V_ATTRLOG;
	} else if (!strcmp(kb_variant, "common")) {
		variant = V_COMMON;
	} else {
		fprintf(stderr, "kbbench: bpf_syscall: --variant: '%s' is not plain, flag, attrlog or common\n",
			kb_variant);
		return -1;
	}
	if (kb_check_range("bpf_syscall", "loops", loops, 1, 1000))
		return -1;
	return kb_check_range("bpf_syscall", "settle_ms", settle_ms, 0, 1000);
}

static long sys_bpf(int c, union bpf_attr *attr, unsigned int size,
		    struct kb_bpf_common_attr *common, unsigned int size_common)
{
	return syscall(__NR_bpf, c, attr, size, common, size_common);
}

/*
 * The probe libbpf uses: PROG_LOAD with the flag and a NULL struct. A
 * kernel with common attributes fails to read it (EFAULT) before it
 * looks at the command; one without rejects the command (EINVAL).
 */
static int common_attrs_supported(void)
{
	long r = sys_bpf(BPF_PROG_LOAD | KB_BPF_COMMON_ATTRS, NULL, 0, NULL,
			 sizeof(struct kb_bpf_common_attr));

	if (r >= 0) {
		close((int)r);
		fprintf(stderr, "kbbench: bpf_syscall: the common attributes probe loaded a program: not a kernel with them\n");
		return KB_ABSENT;
	}
	if (errno == EFAULT)
		return 0;
	if (errno == EINVAL) {
		fprintf(stderr, "kbbench: bpf_syscall: bpf() common attributes are not in this kernel: the probe (PROG_LOAD | BPF_COMMON_ATTRS, NULL) gives EINVAL\n");
		return KB_ABSENT;
	}
	fprintf(stderr, "kbbench: bpf_syscall: probing bpf() common attributes: %s\n",
		strerror(errno));
	return -1;
}

/* The call every sample repeats, built once */
static void fill_attr(void)
{
	memset(&attr, 0, sizeof(attr));
	if (cmd == BPF_MAP_CREATE) {
		attr.map_type = map_type;
		/* an array map's key is its u32 index */
		attr.key_size = map_type == BPF_MAP_TYPE_ARRAY ? 4 : 8;
		attr.value_size = 8;
		attr.max_entries = 1;
		memcpy(attr.map_name, "kb_sys", 7);
	} else {
		attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
		attr.insns = (unsigned long)prog_insns;
		attr.insn_cnt = sizeof(prog_insns) / sizeof(prog_insns[0]);
		attr.license = (unsigned long)"GPL";
		memcpy(attr.prog_name, "kb_sys", 7);
	}
}

/* One call; the new fd, or -1 after printing why. */
static int call_once(void)
{
	long fd;

	if (common)
		fd = sys_bpf(cmd | KB_BPF_COMMON_ATTRS, &attr, sizeof(attr),
			     common, sizeof(*common));
	else
		fd = sys_bpf(cmd, &attr, sizeof(attr), NULL, 0);
	if (fd < 0)
		fprintf(stderr, "kbbench: bpf_syscall: %s (%s): %s\n", cmd_name,
			kb_variant, strerror(errno));
	return (int)fd;
}

static int sys_setup(void)
{
	int r, fd;

	common = NULL;
	if (variant == V_ATTRLOG && cmd != BPF_PROG_LOAD) {
		fprintf(stderr, "kbbench: bpf_syscall: MAP_CREATE takes no log in union bpf_attr (only in the common attributes): variant attrlog applies to prog_load only\n");
		return KB_ABSENT;
	}
	if (variant == V_FLAG || variant == V_COMMON) {
		r = common_attrs_supported();
		if (r)
			return r;
		memset(&common_attr, 0, sizeof(common_attr));
		if (variant == V_COMMON) {
			common_attr.log_buf = (unsigned long)log_buf;
			common_attr.log_size = sizeof(log_buf);
			common_attr.log_level = 1;
		}
		common = &common_attr;
	}
	fds = calloc(loops, sizeof(*fds));
	if (!fds) {
		perror("kbbench: bpf_syscall");
		return -1;
	}
	fill_attr();
	if (variant == V_ATTRLOG) {
		attr.log_buf = (unsigned long)log_buf;
		attr.log_size = sizeof(log_buf);
		attr.log_level = 1;
	}
	/* one call before any sample: a failure here names the reason */
	fd = call_once();
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void sys_teardown(void)
{
	free(fds);
	fds = NULL;
}

static int sys_run(double *vals)
{
	unsigned long i, n;
	uint64_t t0, t1;

	t0 = kb_now_ns();
	for (n = 0; n < loops; n++) {
		fds[n] = call_once();
		if (fds[n] < 0)
			break;
	}
	t1 = kb_now_ns();
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (settle_ms)
		usleep(settle_ms * 1000);
	if (n < loops)
		return -1;
	vals[M_NS_PER_CALL] = (double)(t1 - t0) / (double)loops;
	/*
	 * attrlog: what the log holds, with its NUL (log_true_size when it
	 * fits, as here; the field is not in every uapi header this builds
	 * against)
	 */
	if (variant == V_ATTRLOG)
		vals[M_LOG_BYTES] = log_buf[0] ? strnlen(log_buf, LOG_SIZE) + 1 : 0;
	else
		vals[M_LOG_BYTES] = common ? common->log_true_size : 0;
	return 0;
}

static const struct kb_bench bpf_syscall = {
	.name = "bpf_syscall",
	.help = "the cost of a successful bpf() MAP_CREATE or PROG_LOAD: plain, with the common attributes flag, with a log in bpf_attr or in the common attributes",
	.opts = sys_opts,
	.metrics = sys_metrics,
	.nr_metrics = NR_M,
	.validate = sys_validate,
	.setup = sys_setup,
	.run = sys_run,
	.teardown = sys_teardown,
};
KB_BENCH(bpf_syscall);
