// SPDX-License-Identifier: GPL-2.0
/*
 * tmskel's programs: tracing_multi through the tree's libbpf, by pattern
 * (SEC("fentry.multi/PATTERN"), auto-attached by the skeleton). Each
 * counts its calls by function address, so user space can tell which of
 * the matched functions ran and how often.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} entry_hits SEC(".maps");

/* the pid whose calls count: the check's own */
int target_pid;
/* the last return value fexit.multi saw of __do_sys_getppid's pattern */
__u64 fexit_ret;
__u64 fexit_ip;

static void count(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx), one = 1, *v;

	v = bpf_map_lookup_elem(&entry_hits, &ip);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&entry_hits, &ip, &one, BPF_NOEXIST);
}

/* a global subprogram of a multi program: freplace must not extend it */
__noinline int tm_sub(int x)
{
	return x == target_pid;
}

SEC("fentry.multi/__do_sys_getp*")
int entry_getp(void *ctx)
{
	if (tm_sub(bpf_get_current_pid_tgid() >> 32))
		count(ctx);
	return 0;
}

/* loaded only by tmskel's freplace case, against entry_getp's tm_sub */
SEC("freplace/tm_sub")
int ext_tm_sub(int x)
{
	return 1;
}

SEC("fexit.multi/__do_sys_getppid")
int exit_getppid(void *ctx)
{
	__u64 ret = 0;

	if ((bpf_get_current_pid_tgid() >> 32) != target_pid)
		return 0;
	if (!bpf_get_func_ret(ctx, &ret)) {
		fexit_ret = ret;
		fexit_ip = bpf_get_func_ip(ctx);
	}
	return 0;
}
