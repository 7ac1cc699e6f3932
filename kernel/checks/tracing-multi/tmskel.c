// SPDX-License-Identifier: GPL-2.0
/*
 * tmskel: the tracing_multi link through the patched tree's libbpf, as a
 * program written against upstream libbpf 1.8 uses it: a skeleton whose
 * SEC("fentry.multi/__do_sys_getp*") and SEC("fexit.multi/__do_sys_getppid")
 * programs the skeleton attaches by pattern. TAP on stdout.
 *
 * The calls: getppid 5 times, getpgrp 3 times (raw syscalls, so libc
 * caches nothing); the fentry.multi program counts them by function
 * address and must see exactly those numbers at __do_sys_getppid and
 * __do_sys_getpgrp (addresses from /proc/kallsyms); the fexit.multi one
 * the return value of the last getppid. The link's info says
 * tracing_multi. On a kernel without the link (the baseline) the skeleton
 * does not load, and the one case says the feature is absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tmskel.skel.h"
#include "../lib/tap.h"

/* Whether this kernel's BTF names BPF_TRACE_FENTRY_MULTI in bpf_attach_type */
static int kernel_names_multi(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, i, found = 0;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, e = t ? btf_enum(t) : NULL; t && i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off),
			    "BPF_TRACE_FENTRY_MULTI"))
			found = 1;
	}
	btf__free(btf);
	return found;
}

/* The address /proc/kallsyms gives @name, or 0 */
static unsigned long long kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

static unsigned long long hits_at(struct tmskel_bpf *skel, unsigned long long ip)
{
	__u64 key = ip, val = 0;

	if (bpf_map__lookup_elem(skel->maps.entry_hits, &key, sizeof(key),
				 &val, sizeof(val), 0))
		return 0;
	return val;
}

int main(void)
{
	unsigned long long ppid_ip, pgrp_ip;
	struct bpf_link_info info = {};
	__u32 info_len = sizeof(info);
	struct tmskel_bpf *skel;
	long ppid = 0;
	int i, err;

	libbpf_set_print(NULL);
	skel = tmskel_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		if (!kernel_names_multi()) {
			result(1, "tracing_multi absent on this kernel: the skeleton's fentry.multi programs do not load (%s) and its BTF has no BPF_TRACE_FENTRY_MULTI",
			       err_name(err));
			return tap_done();
		}
		result(0, "the skeleton loads on a kernel whose BTF names BPF_TRACE_FENTRY_MULTI (%s)",
		       err_name(err));
		return tap_done();
	}
	result(1, "the skeleton's fentry.multi and fexit.multi programs load");
	skel->bss->target_pid = getpid();

	err = tmskel_bpf__attach(skel);
	result(!err, "the skeleton attaches SEC(\"fentry.multi/__do_sys_getp*\") and SEC(\"fexit.multi/__do_sys_getppid\") by pattern (%s)",
	       err_name(err));
	if (err) {
		tmskel_bpf__destroy(skel);
		return tap_done();
	}

	for (i = 0; i < 5; i++)
		ppid = syscall(SYS_getppid);
	for (i = 0; i < 3; i++)
		syscall(SYS_getpgrp);

	ppid_ip = kallsyms_addr("__do_sys_getppid");
	pgrp_ip = kallsyms_addr("__do_sys_getpgrp");
	result(ppid_ip && hits_at(skel, ppid_ip) == 5,
	       "fentry.multi counted 5 calls at __do_sys_getppid (%#llx): %llu",
	       ppid_ip, hits_at(skel, ppid_ip));
	result(pgrp_ip && hits_at(skel, pgrp_ip) == 3,
	       "fentry.multi counted 3 calls at __do_sys_getpgrp (%#llx): %llu",
	       pgrp_ip, hits_at(skel, pgrp_ip));
	result(skel->bss->fexit_ret == (__u64)ppid && skel->bss->fexit_ip == ppid_ip,
	       "fexit.multi saw getppid's return value %ld (got %llu at %#llx)",
	       ppid, (unsigned long long)skel->bss->fexit_ret,
	       (unsigned long long)skel->bss->fexit_ip);

	err = bpf_link_get_info_by_fd(bpf_link__fd(skel->links.entry_getp),
				      &info, &info_len);
	result(!err && info.type == BPF_LINK_TYPE_TRACING_MULTI &&
	       info.tracing.attach_type == BPF_TRACE_FENTRY_MULTI,
	       "the link's info says tracing_multi (type %u, attach type %u)",
	       info.type, info.tracing.attach_type);

	tmskel_bpf__detach(skel);
	syscall(SYS_getppid);
	result(hits_at(skel, ppid_ip) == 5,
	       "after the skeleton detaches, getppid is no longer counted (%llu)",
	       hits_at(skel, ppid_ip));

	{
		struct bpf_link *none;

		none = bpf_program__attach_tracing_multi(skel->progs.entry_getp,
							 "kbench_no_such_function_*",
							 NULL);
		err = none ? 0 : -errno;
		bpf_link__destroy(none);
		result(err == -ENOENT,
		       "a pattern that matches no traceable function gives ENOENT (%s)",
		       err_name(err));
	}
	tmskel_bpf__destroy(skel);
	return tap_done();
}
