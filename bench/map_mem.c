// SPDX-License-Identifier: GPL-2.0
/*
 * map_mem: the memory of a BPF hash map, for the variants hash
 * (BPF_MAP_TYPE_HASH) and rhash (BPF_MAP_TYPE_RHASH; absent on a kernel
 * without it), as upstream's rhtab-mem bench. One sample creates a map
 * of --max_entries 8-byte keys and --value_size values, fills it, then
 * overwrites every element once, and reads after each step the map's own
 * accounting: "memlock" in /proc/self/fdinfo/<fd>, which 6.12 fills from
 * the map type's mem_usage op; and, independent of the map's own
 * arithmetic, what its memory cgroup was charged: setup moves kbbench
 * into a memory cgroup of its own (a child of the cgroup2 root), where
 * the map is created, so memory.current grows by the map's kernel
 * memory (elements, buckets, per-CPU parts) and by little else: a page
 * of this process's own that the first sample touches first. It counts
 * the per-CPU charge stock too: up to 64 pages (256 KiB) per CPU either
 * way. (Run by hand as root, this makes a cgroup on whatever machine it
 * runs on; kbench runs it only in its guests.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kbbench.h"
#include "kbbpf.h"

static unsigned long max_entries = 16384;
static unsigned long value_size = 32;
static int map_type;
static void *value;
/* kbbench's own memory cgroup, and the one it came from */
static char cg_dir[128], cg_home[600];

static const struct kb_opt mem_opts[] = {
	{ "max_entries", KB_OPT_ULONG, &max_entries,
	  "elements (the map is filled), 1..4194304 (default 16384)" },
	{ "value_size", KB_OPT_ULONG, &value_size,
	  "value bytes, 1..65536 (default 32)" },
	{ NULL, 0, NULL, NULL },
};

enum {
	M_MAP_FILLED,
	M_MAP_OVERWRITTEN,
	M_MEMCG_FILLED,
	M_MEMCG_OVERWRITTEN,
	NR_M,
};

static const struct kb_metric mem_metrics[NR_M] = {
	[M_MAP_FILLED] = { "map_bytes_filled", "bytes", KB_LOWER },
	[M_MAP_OVERWRITTEN] = { "map_bytes_overwritten", "bytes", KB_LOWER },
	/* the memory cgroup's growth from before the map was created */
	[M_MEMCG_FILLED] = { "memcg_bytes_filled", "bytes", KB_LOWER },
	[M_MEMCG_OVERWRITTEN] = { "memcg_bytes_overwritten", "bytes", KB_LOWER },
};

static int mem_validate(void)
{
	if (kb_map_variant(kb_variant, &map_type))
		return -1;
	if (kb_check_range("map_mem", "max_entries", max_entries, 1, 4194304))
		return -1;
	if (kb_check_range("map_mem", "value_size", value_size, 1, 65536))
		return -1;
	return 0;
}

/* The value of "key:" in FILE (first number after it), or -1. */
static long long read_field(const char *file, const char *key)
{
	char line[512];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n)) {
			v = strtoll(line + n, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/* Write STR to FILE; -1 after printing why. */
static int write_file(const char *file, const char *str)
{
	int fd = open(file, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "kbbench: map_mem: opening %s: %s\n", file,
			strerror(errno));
		return -1;
	}
	n = write(fd, str, strlen(str));
	if (n != (ssize_t)strlen(str)) {
		fprintf(stderr, "kbbench: map_mem: writing '%s' to %s: %s\n",
			str, file, n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static long long memcg_current(void)
{
	char file[160];

	snprintf(file, sizeof(file), "%s/memory.current", cg_dir);
	return read_field(file, "");
}

/*
 * Move this process into a memory cgroup of its own, so that the maps
 * it creates are charged there: -1 after printing what to do.
 */
static int memcg_enter(void)
{
	char file[160], line[512];
	FILE *f;

	f = fopen("/proc/self/cgroup", "r");
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "0::", 3)) {
		fprintf(stderr, "kbbench: map_mem: /proc/self/cgroup has no cgroup2 line: the memory cgroup figures need the unified hierarchy at /sys/fs/cgroup\n");
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (snprintf(cg_home, sizeof(cg_home), "/sys/fs/cgroup%s/cgroup.procs",
		     line + 3) >= (int)sizeof(cg_home)) {
		fprintf(stderr, "kbbench: map_mem: this process's cgroup path is too long: %s\n",
			line + 3);
		cg_home[0] = 0;
		return -1;
	}
	/* the root may delegate the memory controller already (systemd does) */
	if (write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory"))
		return -1;
	snprintf(cg_dir, sizeof(cg_dir), "/sys/fs/cgroup/kbbench-map_mem-%d",
		 (int)getpid());
	if (mkdir(cg_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "kbbench: map_mem: creating the memory cgroup %s: %s\n",
			cg_dir, strerror(errno));
		cg_dir[0] = 0;
		return -1;
	}
	snprintf(file, sizeof(file), "%s/cgroup.procs", cg_dir);
	if (write_file(file, "0"))
		return -1;
	if (memcg_current() < 0) {
		fprintf(stderr, "kbbench: map_mem: %s/memory.current is not readable: no memory controller there\n",
			cg_dir);
		return -1;
	}
	return 0;
}

/* Back to where it came from, and the cgroup removed. */
static void memcg_leave(void)
{
	if (!cg_dir[0])
		return;
	if (cg_home[0])
		write_file(cg_home, "0");
	if (rmdir(cg_dir))
		fprintf(stderr, "kbbench: map_mem: removing %s: %s (remove it by hand)\n",
			cg_dir, strerror(errno));
	cg_dir[0] = 0;
	cg_home[0] = 0;
}

/*
 * memory.current once the previous sample's map is gone: maps are freed
 * after their last close by a worker and RCU, so wait until two reads
 * 20 ms apart agree (at most 5 s); -1 if it is unreadable.
 */
static long long memcg_settled(void)
{
	long long prev = memcg_current(), cur;
	int i;

	for (i = 0; i < 250 && prev >= 0; i++) {
		usleep(20000);
		cur = memcg_current();
		if (cur == prev)
			return cur;
		prev = cur;
	}
	return prev;
}

static int mem_setup(void)
{
	int r;

	r = kb_map_supported(map_type, kb_variant);
	if (r)
		return r;
	value = calloc(1, value_size);
	if (!value) {
		perror("kbbench: map_mem");
		return -1;
	}
	return memcg_enter();
}

static long long map_memlock(int fd)
{
	char file[64];

	snprintf(file, sizeof(file), "/proc/self/fdinfo/%d", fd);
	return read_field(file, "memlock:");
}

/* Update every key with flags; -1 after printing why. */
static int fill(int fd, __u64 flags, const char *what)
{
	__u64 key;

	for (key = 0; key < max_entries; key++) {
		memcpy(value, &key, value_size < sizeof(key) ? value_size : sizeof(key));
		if (bpf_map_update_elem(fd, &key, value, flags)) {
			fprintf(stderr, "kbbench: map_mem: %s the %s map, element %llu of %lu: %s\n",
				what, kb_variant, (unsigned long long)key + 1,
				max_entries, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int mem_run(double *vals)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	long long m1, m2, c0, c1, c2;
	int fd, ret = -1;

	c0 = memcg_settled();
	fd = bpf_map_create(map_type, "kb_mem", 8, value_size, max_entries, &opts);
	if (fd < 0) {
		fprintf(stderr, "kbbench: map_mem: creating the %s map: %s\n",
			kb_variant, strerror(errno));
		return -1;
	}
	if (fill(fd, BPF_NOEXIST, "filling"))
		goto out;
	m1 = map_memlock(fd);
	c1 = memcg_current();
	if (fill(fd, BPF_EXIST, "overwriting"))
		goto out;
	m2 = map_memlock(fd);
	c2 = memcg_current();
	if (m1 < 0 || m2 < 0) {
		fprintf(stderr, "kbbench: map_mem: reading memlock from fdinfo failed\n");
		goto out;
	}
	if (c0 < 0 || c1 < 0 || c2 < 0) {
		fprintf(stderr, "kbbench: map_mem: reading %s/memory.current failed\n",
			cg_dir);
		goto out;
	}
	vals[M_MAP_FILLED] = m1;
	vals[M_MAP_OVERWRITTEN] = m2;
	vals[M_MEMCG_FILLED] = c1 - c0;
	vals[M_MEMCG_OVERWRITTEN] = c2 - c0;
	ret = 0;
out:
	close(fd);
	return ret;
}

static void mem_teardown(void)
{
	memcg_leave();
	free(value);
	value = NULL;
}

static const struct kb_bench map_mem = {
	.name = "map_mem",
	.help = "memory of a filled, then overwritten, BPF hash map (variants: hash, rhash)",
	.opts = mem_opts,
	.metrics = mem_metrics,
	.nr_metrics = NR_M,
	.validate = mem_validate,
	.setup = mem_setup,
	.run = mem_run,
	.teardown = mem_teardown,
};
KB_BENCH(map_mem);
