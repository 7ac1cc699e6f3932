// SPDX-License-Identifier: GPL-2.0
/*
 * directcheck: BPF trampolines on ftrace direct calls, as the ftrace-direct
 * series changes them (all trampolines on one shared direct ftrace_ops,
 * updated with update_ftrace_direct_add/del/mod). What a user sees must
 * not change, so every case holds on both kernels:
 *
 *   directcheck [-l] [-v] [-t PATTERN]...   (../lib/harness.h)
 *
 * fentry and fexit programs (raw instructions, bpf(BPF_PROG_LOAD), no
 * libbpf) count the calls this process makes to eight syscall functions
 * (__do_sys_getppid, ...: BTF names these; a zero-argument syscall's
 * __x64_sys_ entry is only an alias) into an array map, one slot a
 * program. Each round calls syscall i i+1 times and compares every slot
 * with what the attached programs must have counted, so a call lost or
 * counted twice, on any function, fails the round. The rounds walk
 * ftrace's paths: first attach (the ops registers), more functions (its
 * filter grows), one detached (it shrinks), fexit on a traced function
 * (the trampoline is rebuilt: a modify), a kprobe on a traced function
 * (ftrace's list function calls the trampoline: the per-function
 * lookup), a second program while the kprobe is there (a modify under
 * the list function), a kprobe first and the trampoline after it, 64
 * more functions at once and their detach, everything detached (the ops
 * unregisters, nothing counts), and one attach again (it registers
 * anew).
 *
 * Each case attaches what it needs that an earlier one would have (the
 * eight fentry programs, once), so that -t runs it alone. Prints TAP;
 * exit 1 if a case failed, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdlib.h>

#include "../lib/bpf.h"
#include "../lib/btf.h"
#include "../lib/harness.h"

#define NFUNC		8
#define SLOT_FEXIT0	8	/* fexit on function 0 */
#define SLOT_SECOND1	9	/* a second fentry on function 1 */
#define SLOT_MASS	10	/* the 64 programs of the mass attach */
#define SLOT_AGAIN2	11	/* fentry on function 2 after all detached */
#define NSLOT		12
#define NMASS		64

static const struct {
	const char *name;
	long nr;
} func[NFUNC] = {
	{ "__do_sys_getppid", SYS_getppid },
	{ "__do_sys_getpgrp", SYS_getpgrp },
	{ "__do_sys_getuid", SYS_getuid },
	{ "__do_sys_geteuid", SYS_geteuid },
	{ "__do_sys_getgid", SYS_getgid },
	{ "__do_sys_getegid", SYS_getegid },
	{ "__do_sys_gettid", SYS_gettid },
	{ "__do_sys_getpid", SYS_getpid },
};

/* An attached program: its slot, the function it counts, its link fd */
struct probe {
	int slot, f, link;
};

static struct probe probes[NSLOT + NMASS];
static int nprobe, counters;
/* read once: a getpid() call later would be counted */
static pid_t self;
static uint64_t want[NSLOT];
static int fid[NFUNC];

/*
 * Loads a program of type @attach (BPF_TRACE_FENTRY or FEXIT) on BTF
 * function @btf_id that adds one to counter @slot when this process
 * calls it. Returns its fd or -errno.
 */
static int count_prog(uint32_t attach, uint32_t btf_id, int slot)
{
	struct bpf_insn insn[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid),
		INSN(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_0, 0, 0, 32),
		/* another process: to the exit */
		INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 9, self),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, slot),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD,
		     0, counters),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0,
		     BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[1 << 16];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = attach;
	a.attach_btf_id = btf_id;
	a.insns = (uintptr_t)insn;
	a.insn_cnt = sizeof(insn) / sizeof(insn[0]);
	a.license = (uintptr_t)"GPL";
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0 || fd == -ENOENT || fd == -EINVAL)
		return fd;
	/* Unexpected: say why */
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	log[0] = '\0';
	if (sys_bpf(BPF_PROG_LOAD, &a) < 0)
		printf("# verifier log of btf id %u: %.2000s\n", btf_id, log);
	return fd;
}

/* Loads and attaches a counting program; its probe, or -errno */
static int attach(uint32_t type, uint32_t btf_id, int slot, int f)
{
	union bpf_attr a;
	int prog, link;

	prog = count_prog(type, btf_id, slot);
	if (prog < 0)
		return prog;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = type;
	link = sys_bpf(BPF_LINK_CREATE, &a);
	close(prog);
	if (link < 0)
		return link;
	probes[nprobe] = (struct probe){ .slot = slot, .f = f, .link = link };
	return nprobe++;
}

/* What an attach gave, for a case's name: "attached" or the errno */
static const char *att_name(int p)
{
	return p < 0 ? err_name(p) : "attached";
}

/* Detaches probe @p (its program goes with its link) */
static void detach(int p)
{
	close(probes[p].link);
	probes[p].link = -1;
}

/* A perf kprobe on function @f, counting this process's hits; fd or -errno */
static int kprobe_open(int f)
{
	struct perf_event_attr pa;
	char buf[32] = "";
	int fd, type;
	FILE *tf;

	tf = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	if (!tf)
		return -errno;
	if (!fgets(buf, sizeof(buf), tf))
		buf[0] = '\0';
	fclose(tf);
	type = atoi(buf);
	if (type <= 0)
		return -ENODEV;
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = type;
	pa.config1 = (uintptr_t)func[f].name;	/* kprobe_func, offset 0 */
	fd = syscall(__NR_perf_event_open, &pa, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static uint64_t kprobe_count(int fd)
{
	uint64_t n = 0;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return UINT64_MAX;
	return n;
}

/* Calls syscall f f+1 times; adds what the attached probes must count */
static void round_calls(void)
{
	for (int f = 0; f < NFUNC; f++) {
		for (int i = 0; i <= f; i++)
			syscall(func[f].nr);
		for (int p = 0; p < nprobe; p++)
			if (probes[p].link >= 0 && probes[p].f == f)
				want[probes[p].slot] += f + 1;
	}
}

/*
 * 1 if every slot holds what it must; the differences as diagnostics.
 * The mass programs' slot is not checked: they count this process's
 * other syscalls too (bpf(), read(), ...).
 */
static int counts_ok(void)
{
	uint64_t got;
	int ok = 1;

	for (uint32_t s = 0; s < NSLOT; s++) {
		union bpf_attr a;

		if (s == SLOT_MASS)
			continue;
		memset(&a, 0, sizeof(a));
		a.map_fd = counters;
		a.key = (uintptr_t)&s;
		a.value = (uintptr_t)&got;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) < 0 || got != want[s]) {
			printf("# slot %u: %llu calls counted, %llu made\n", s,
			       (unsigned long long)got,
			       (unsigned long long)want[s]);
			ok = 0;
		}
	}
	return ok;
}

/* One round of calls and its check */
static int round_ok(void)
{
	round_calls();
	return counts_ok();
}

struct mass {
	int tried, attached, first_err;
};

/* btf_funcs() callback: attach a counter to one more __x64_sys_ function */
static long mass_one(const char *name, uint32_t id, void *arg)
{
	struct mass *m = arg;
	int p;

	(void)name;
	p = attach(BPF_TRACE_FENTRY, id, SLOT_MASS, -1);
	m->tried++;
	if (p >= 0)
		m->attached++;
	else if (!m->first_err)
		m->first_err = p;
	return m->tried == NMASS;
}

/* Once: the BTF ids of the eight functions and the counters' map */
static bool setup(void)
{
	static int done;	/* 1 set up, -1 failed */
	long id;

	if (done)
		return done > 0;
	done = -1;
	self = getpid();
	for (int f = 0; f < NFUNC; f++) {
		id = btf_func_id(func[f].name);
		fid[f] = id;
		if (id < 0) {
			ASSERT_TRUE(0, "BTF id of %s (%s)", func[f].name,
				    err_name(id));
			return false;
		}
	}
	counters = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, NSLOT, 0, 0);
	if (!ASSERT_FD(counters, "the BTF ids of %d syscall functions, and an array map for the counters",
		       NFUNC))
		return false;
	done = 1;
	return true;
}

/* Once: fentry on each of the eight, its counter in its own slot */
static bool eight(void)
{
	static int done;	/* 1 attached, -1 failed */
	int p;

	if (done || !setup())
		return done > 0;
	done = -1;
	for (int f = 0; f < NFUNC; f++) {
		p = attach(BPF_TRACE_FENTRY, fid[f], f, f);
		if (p < 0) {
			ASSERT_TRUE(0, "fentry on %s (%s)", func[f].name,
				    err_name(p));
			return false;
		}
	}
	done = 1;
	return true;
}

/* Detaches every attached probe that counts into @slot (-1: all) */
static void detach_slot(int slot)
{
	for (int p = 0; p < nprobe; p++)
		if ((slot < 0 || probes[p].slot == slot) && probes[p].link >= 0)
			detach(p);
}

KB_CASE(fentry_eight)
{
	if (eight())
		ASSERT_TRUE(round_ok(), "fentry on %d functions: each counts its calls",
			    NFUNC);
}

KB_CASE(detach_one)
{
	if (!eight())
		return;
	detach_slot(3);
	ASSERT_TRUE(round_ok(), "%s detached: it stops, the others count",
		    func[3].name);
}

KB_CASE(fexit)
{
	int p;

	if (!eight())
		return;
	p = attach(BPF_TRACE_FEXIT, fid[0], SLOT_FEXIT0, 0);
	ASSERT_TRUE(p >= 0 && round_ok(),
		    "fexit added to %s's trampoline (%s): both count",
		    func[0].name, att_name(p));
}

/* a kprobe beside a trampoline: ftrace's list function calls it */
KB_CASE(kprobe_beside)
{
	uint64_t kwant = 0, khits;
	int kp, ok, second;

	if (!eight())
		return;
	kp = kprobe_open(1);
	if (kp < 0) {
		ASSERT_TRUE(0, "a perf kprobe on %s (%s): the list function case "
			    "cannot run", func[1].name, err_name(kp));
		return;
	}
	kwant += 2;
	ok = round_ok();
	khits = kprobe_count(kp);
	ASSERT_TRUE(ok && khits == kwant,
		    "a kprobe on %s beside its trampoline: both count (kprobe %llu of %llu)",
		    func[1].name, (unsigned long long)khits,
		    (unsigned long long)kwant);

	second = attach(BPF_TRACE_FENTRY, fid[1], SLOT_SECOND1, 1);
	kwant += 2;
	ok = second >= 0 && round_ok();
	khits = kprobe_count(kp);
	ASSERT_TRUE(ok && khits == kwant,
		    "a second fentry on %s while the kprobe is there (%s): all count (kprobe %llu of %llu)",
		    func[1].name, att_name(second),
		    (unsigned long long)khits, (unsigned long long)kwant);
	close(kp);
	ASSERT_TRUE(round_ok(), "the kprobe closed: both fentry on %s count",
		    func[1].name);
}

/* function 3 has no trampoline here (detach_one, or run alone) */
KB_CASE(kprobe_first)
{
	uint64_t kwant = 4, khits;
	int kp, p, ok;

	if (!setup())
		return;
	detach_slot(3);
	kp = kprobe_open(3);
	p = kp < 0 ? kp : attach(BPF_TRACE_FENTRY, fid[3], 3, 3);
	ok = p >= 0 && round_ok();
	khits = kp < 0 ? 0 : kprobe_count(kp);
	ASSERT_TRUE(ok && khits == kwant,
		    "a kprobe on %s first, then fentry (%s): both count (kprobe %llu of %llu)",
		    func[3].name, att_name(p),
		    (unsigned long long)khits, (unsigned long long)kwant);
	if (kp >= 0)
		close(kp);
}

KB_CASE(mass)
{
	struct mass m = { 0 };
	long r;

	if (!eight())
		return;
	r = btf_funcs("__x64_sys_", mass_one, &m);
	ASSERT_TRUE(r >= 0 && m.attached >= NMASS * 3 / 4 && round_ok(),
		    "%d of the first %d __x64_sys_ functions attached at once "
		    "(first error %s): the %d functions count as before",
		    m.attached, m.tried,
		    m.first_err ? err_name(m.first_err) : "none", NFUNC);
	detach_slot(SLOT_MASS);
	ASSERT_TRUE(round_ok(), "the %d detached: the %d functions count as before",
		    m.attached, NFUNC);
}

KB_CASE(detach_all)
{
	if (!setup())
		return;
	detach_slot(-1);
	ASSERT_TRUE(round_ok(), "everything detached: no call is counted");
}

/* the shared ops registers anew */
KB_CASE(attach_again)
{
	int p;

	if (!setup())
		return;
	detach_slot(-1);
	p = attach(BPF_TRACE_FENTRY, fid[2], SLOT_AGAIN2, 2);
	ASSERT_TRUE(p >= 0 && round_ok(),
		    "fentry on %s again after that (%s): it counts",
		    func[2].name, att_name(p));
}
