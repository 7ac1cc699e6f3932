// SPDX-License-Identifier: GPL-2.0
/*
 * map_lookup: a loop of lookups of keys that are in the map, run in the
 * kernel by bpf_loop() from one BPF_PROG_TEST_RUN. User space sets the
 * map's type (hash or rhash), key size and size before loading.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define KEY_MAX 256

/* The key: its first 8 bytes are the element's index, the rest zero. */
struct lookup_key {
	__u64 idx;
	__u8 pad[KEY_MAX - 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(key_size, KEY_MAX);
	__uint(value_size, 8);
	__uint(max_entries, 1);
} lookup_map SEC(".maps");

const volatile __u64 nr_entries = 1;

/* Set by user space before each run; read back after it. */
__u32 nr_loops;
__u64 hits;
__u64 elapsed_ns;

/* In .bss, not on the stack: no 256-byte clear per lookup. */
static struct lookup_key key;
static __u64 cursor;

static int lookup_one(__u32 i, void *ctx)
{
	key.idx = cursor;
	if (bpf_map_lookup_elem(&lookup_map, &key))
		hits++;
	if (++cursor == nr_entries)
		cursor = 0;
	return 0;
}

/*
 * Timed here, around the loop only: time in user space would also take
 * in whatever the kernel runs when the syscall returns (the deferred
 * free of the previous point's map, seen to slow samples up to 30x).
 */
SEC("raw_tp")
int lookup_loop(void *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();

	bpf_loop(nr_loops, lookup_one, NULL, 0);
	elapsed_ns = bpf_ktime_get_ns() - t0;
	return 0;
}
