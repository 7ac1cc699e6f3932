/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw bpf() for the series' checks in the guest (#include
 * "../lib/bpf.h", after _GNU_SOURCE): no libbpf, so one binary runs on
 * every kernel and needs nothing but the C library. Every wrapper
 * returns an fd or 0, or -errno.
 *
 * - sys_bpf(), map creation and element operations;
 * - a tiny assembler: INSN() and its shorthands, struct prog with
 *   labels for jumps, prog_load() (the verifier log of a failed load is
 *   printed as TAP diagnostics, and stays in vlog).
 */
#ifndef KB_CHECKS_BPF_H
#define KB_CHECKS_BPF_H

#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

static inline int sys_bpf(int cmd, union bpf_attr *attr)
{
	long r = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return r < 0 ? -errno : (int)r;
}

static inline int map_create(uint32_t type, uint32_t ksize, uint32_t vsize,
			     uint32_t max, uint32_t flags, uint64_t extra)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = ksize;
	a.value_size = vsize;
	a.max_entries = max;
	a.map_flags = flags;
	a.map_extra = extra;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static inline int elem_op(int cmd, int fd, const void *key, void *value,
			  uint64_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	a.flags = flags;
	return sys_bpf(cmd, &a);
}

static inline int elem_lookup(int fd, const void *key, void *value)
{
	return elem_op(BPF_MAP_LOOKUP_ELEM, fd, key, value, 0);
}

static inline int elem_update(int fd, const void *key, const void *value,
			      uint64_t flags)
{
	return elem_op(BPF_MAP_UPDATE_ELEM, fd, key, (void *)value, flags);
}

static inline int elem_delete(int fd, const void *key)
{
	return elem_op(BPF_MAP_DELETE_ELEM, fd, key, NULL, 0);
}

/* The key after key (NULL: the first) into next; attr.next_key is value */
static inline int next_key(int fd, const void *key, void *next)
{
	return elem_op(BPF_MAP_GET_NEXT_KEY, fd, key, next, 0);
}

/* BPF_OBJ_GET_INFO_BY_FD of fd into info (len bytes, zeroed first) */
static inline int obj_info(int fd, void *info, uint32_t len)
{
	union bpf_attr a;

	memset(info, 0, len);
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = len;
	a.info.info = (uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

static inline void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---- a tiny assembler: instructions, labels, map fds ---- */

#define INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d),		\
			    .src_reg = (s), .off = (o), .imm = (i) })
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define AND_IMM(d, i)	INSN(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define OR_IMM(d, i)	INSN(BPF_ALU64 | BPF_OR | BPF_K, d, 0, 0, i)
#define NEG(d)		INSN(BPF_ALU64 | BPF_NEG | BPF_K, d, 0, 0, 0)
#define LDX(sz, d, s, o)	INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o)	INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST_IMM(sz, d, o, i)	INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
/* lock *(u64 *)(d + o) += s; with FETCH, s gets the old value */
#define XADD(d, s, o)						\
	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
#define FETCH_ADD(d, s, o)						\
	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD | BPF_FETCH)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* jumps: the offset is filled in from a label */
#define J_IMM(op, d, i)	INSN(BPF_JMP | (op) | BPF_K, d, 0, 0, i)
#define JA()		INSN(BPF_JMP | BPF_JA, 0, 0, 0, 0)

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define FP BPF_REG_10

#define MAX_INSNS	128
#define MAX_LABELS	16

struct prog {
	struct bpf_insn insn[MAX_INSNS];
	int n;
	int label_at[MAX_LABELS];
	int fix_insn[MAX_INSNS], fix_label[MAX_INSNS];
	int nfix;
	int overflow;
};

static inline void prog_init(struct prog *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < MAX_LABELS; i++)
		p->label_at[i] = -1;
}

static inline void emit(struct prog *p, struct bpf_insn insn)
{
	if (p->n >= MAX_INSNS) {
		p->overflow = 1;
		return;
	}
	p->insn[p->n++] = insn;
}

static inline void emit_jmp(struct prog *p, struct bpf_insn insn, int label)
{
	if (p->nfix < MAX_INSNS) {
		p->fix_insn[p->nfix] = p->n;
		p->fix_label[p->nfix++] = label;
	}
	emit(p, insn);
}

static inline void label(struct prog *p, int l)
{
	p->label_at[l] = p->n;
}

/* reg = the map behind fd (a 16-byte ld_imm64) */
static inline void emit_map(struct prog *p, int reg, int fd)
{
	emit(p, INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, fd));
	emit(p, INSN(0, 0, 0, 0, 0));
}

/* r0 = imm; exit */
static inline void emit_exit(struct prog *p, int imm)
{
	emit(p, MOV_IMM(R0, imm));
	emit(p, EXIT());
}

/* Fills in the jump offsets; -1 if the program is broken. */
static inline int prog_resolve(struct prog *p)
{
	if (p->overflow)
		return -1;
	for (int i = 0; i < p->nfix; i++) {
		int at = p->label_at[p->fix_label[i]];

		if (at < 0)
			return -1;
		p->insn[p->fix_insn[i]].off = at - p->fix_insn[i] - 1;
	}
	return 0;
}

static char vlog[1 << 18];

/* Prints the tail of the verifier log as TAP diagnostics. */
static inline void print_vlog(void)
{
	size_t len = strnlen(vlog, sizeof(vlog));
	char *s = vlog, *nl;

	if (len > 16384) {
		s = vlog + len - 16384;
		printf("# (verifier log: last 16 KiB)\n");
	}
	while (*s) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		printf("#   %s\n", s);
		if (!nl)
			break;
		s = nl + 1;
	}
}

/*
 * Loads the program (prog_flags: BPF_F_SLEEPABLE, ...); returns its fd
 * or -errno. On failure it loads it again with the verifier log on, and
 * prints the log.
 */
static inline int prog_load_flags(struct prog *p, uint32_t type,
				  uint32_t attach_type, uint32_t btf_id,
				  uint32_t prog_flags)
{
	union bpf_attr a;
	int fd;

	if (prog_resolve(p)) {
		printf("# program does not assemble (too long or bad label)\n");
		return -EINVAL;
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)p->insn;
	a.insn_cnt = p->n;
	a.license = (uintptr_t)"GPL";
	a.expected_attach_type = attach_type;
	a.attach_btf_id = btf_id;
	a.prog_flags = prog_flags;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0)
		return fd;

	vlog[0] = '\0';
	a.log_buf = (uintptr_t)vlog;
	a.log_size = sizeof(vlog);
	a.log_level = 1;
	if (sys_bpf(BPF_PROG_LOAD, &a) >= 0) {
		printf("# the load failed (%s), but succeeded with the log on\n",
		       err_name(fd));
	} else {
		printf("# verifier log:\n");
		print_vlog();
	}
	return fd;
}

static inline int prog_load(struct prog *p, uint32_t type,
			    uint32_t attach_type, uint32_t btf_id)
{
	return prog_load_flags(p, type, attach_type, btf_id, 0);
}

/*
 * The "memlock:" line of a map's fdinfo: its memory as the map type
 * accounts it, bucket tables included (-1 if the line is missing).
 */
static inline long long map_memlock(int fd)
{
	char path[64], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

#endif /* KB_CHECKS_BPF_H */
