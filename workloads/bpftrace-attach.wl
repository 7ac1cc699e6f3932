# bpftrace-attach: what a bpftrace user waits for on each kernel when a
# session traces a wildcard of kernel functions: start to first event
# and Ctrl-C to exit (bench/bpftrace_attach.c; issue 39 section 3).
# Debian's bpftrace 0.17 attaches kfunc:vmlinux:P* as one fentry link
# per function (each a BPF trampoline and an ftrace direct call: the
# path the ftrace-direct series moves onto one shared ops) and
# kprobe:P* as one kprobe_multi link (fprobe), so this is bpf-attach's
# fentry and kprobe_multi seen from the tool people run. Upstream quotes
# `bpftrace -e fentry:vmlinux:ksys_*` at 4.416 s before and 1.667 s
# after the single direct ops (spec, section 4).
#
# The wildcard is a list of prefixes' globs (kfunc:vmlinux:A*,... or
# kprobe:A*,...), picked in the guest from the traceable functions
# (bpf-attach's rule, kernel/checks/lib/traceable.h) by the rule in
# bench/bpftrace_attach.c: the one clean prefix nearest funcs when it is
# within 5 %, else clean prefixes that share no function, each the
# nearest to what is still missing without going over it, until that is
# within 5 %. Clean: every available_filter_functions name under it is
# traceable and none takes more than 6 arguments (bpftrace 0.17 leaves
# those out of a kfunc: glob, not of a kprobe: one), so both variants
# attach the same set. functions, probes and funcs_hash say what was
# attached on each kernel. On our kernels funcs = 10, 100 and 1000 give
# ld* (10 functions), __x64_sys_s* (96) and __x* bpf_pr* deb* jbd2_j*
# qui* unix* x8* (435 + 85 + 71 + 80 + 145 + 68 + 86 = 970), the same
# names on both; the charts put each point at its count (scale_x).
# bpftrace makes one fentry link a function for kfunc: and one
# kprobe_multi link a glob for kprobe: (7 at 1000: the links' fdinfo in
# the guest); the bench raises BPFTRACE_MAX_PROBES, without which
# bpftrace refuses more than 512 probes.
#
# attach_ns and detach_ns are what the wildcard adds to bpftrace's own
# startup and exit: each sample also runs a session of BEGIN alone
# (startup_ns, exit_ref_ns), whose LLVM compile and BTF load dominate a
# session of a few probes, and the difference of the two is reported.
# ready_ns and exit_ns are the wildcard session whole, what a user
# feels. bpftrace is a Debian package (about 60 MB with LLVM), in this
# workload's image only: the default run does not include it.
#
# Points: about 10, 100 and 1000 functions, 2 vCPUs (the attach patches
# kernel text, which stops every CPU; icount, images/README.md). Tried
# by hand on 74 vfs_* functions (issue 39): the kfunc session took
# 10.96 s on the baseline and 2.49 s on the patched kernel, the kprobe
# session 5.06 s and 5.09 s. At 1000 (970 functions), one session by
# hand (kbbench, 1 sample, 7 Dec, icount, 2 vCPUs; beside a kernel
# build and two fuzz guests on the host's 2 cores), guest seconds from
# start to BEGIN's line and from SIGINT to exit: kfunc 9.57 and 3.27 on
# the patched kernel, 11.43 and 118.47 on the baseline (each fentry
# link's detach waits for its own ftrace_ops' grace periods: 122 ms a
# function); kprobe 1.60 and 0.87 on both. A whole boot of this workload
# on the baseline (guest/run.sh, perf stat, reps as below) took 465 s
# of guest time and 22.7 minutes of the host: the kfunc exit at 970
# took 148.2 and 142.5 s there, so a kfunc sample at 1000 is about 2.5
# minutes on the baseline: 2 samples a boot and no warm-up (reps_at).
# The same boot on the patched kernel: 97 s of guest time, 11 minutes
# of the host (2.4 of them to reach runcmd), kfunc at 970 ready in
# 9.58 and 9.69 s, exit 3.06 s.
# The boot that "did not finish in 40 minutes" with a union of prefixes
# was not the union: bpftrace 0.17 misses a SIGINT that lands while it
# is out of epoll_wait, and kbbench sent it as BEGIN's line came out, so
# now and then a session waited for ever (twice in 7 Dec's guests, at
# 10 and 100 functions); bench/bpftrace_attach.c now sends it once
# bpftrace sleeps in epoll_wait, and again while it still does.
name = bpftrace-attach
description = a bpftrace session over a kfunc: (fentry) or kprobe: (kprobe_multi) wildcard of about N functions: start to first event, Ctrl-C to exit
bench = bpftrace_attach
packages = bpftrace
default_run = no
primary = attach_ns detach_ns
variants = kfunc kprobe
base_variant = kprobe
matrix.funcs = 10 100 1000
matrix.vcpus = 2
reps = 5
warmup = 1
reps_at = kfunc@funcs=1000:2 kprobe@funcs=1000:3
quick.matrix.funcs = 10
# the charts put a point at the functions it found, not at funcs
scale_x = funcs=functions
quick.reps = 2
quick.warmup = 0
claim.kfunc_attach_100 = compare=kernel variant=kfunc metric=attach_ns point=funcs=100 | bpftrace kfunc: attach, N=100 | 0.38x (bpftrace fentry:vmlinux:ksys_*, whole run)
claim.kfunc_detach_1000 = compare=kernel variant=kfunc metric=detach_ns point=funcs=1000 | bpftrace kfunc: exit, N=1000
mem = 2048
clock = icount
timeout = 7200
quick.timeout = 1800
