// SPDX-License-Identifier: GPL-2.0
/*
 * map_update: overwrite updates of a full map, in a bpf_loop(), run by
 * BPF_PROG_TEST_RUN from each producer thread on its own CPU. Each CPU
 * walks all keys from its own starting point, so producers overwrite
 * different elements at any moment, as upstream's full-update bench.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_CPUS 256

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 1);
} update_map SEC(".maps");

const volatile __u64 nr_entries = 1;

/* Set by user space before each run; read back after it. */
__u32 nr_loops;
__u64 failures[MAX_CPUS];

/* each CPU's next key */
__u64 cursor[MAX_CPUS];

struct loop_ctx {
	__u32 cpu;
};

static int update_one(__u32 i, struct loop_ctx *lc)
{
	__u32 cpu = lc->cpu;
	__u64 key, val = i;

	if (cpu >= MAX_CPUS)
		return 1;
	key = cursor[cpu];
	if (bpf_map_update_elem(&update_map, &key, &val, BPF_EXIST))
		failures[cpu]++;
	if (++key >= nr_entries)
		key = 0;
	cursor[cpu] = key;
	return 0;
}

SEC("raw_tp")
int update_loop(void *ctx)
{
	struct loop_ctx lc = { .cpu = bpf_get_smp_processor_id() };

	bpf_loop(nr_loops, update_one, &lc, 0);
	return 0;
}
