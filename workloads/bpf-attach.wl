# bpf-attach: what attaching and detaching BPF tracing programs costs,
# for the set and per function, at N = 1, 10, 100, 1000 and all
# traceable functions (bench/bpf_attach.c; issue 27 section 4).
# The functions: the first N by name of the kernel's traceable ones
# (kernel/checks/lib/traceable.h: a BTF FUNC once in
# available_filter_functions and in kallsyms, a prototype a trampoline
# takes, no alias, not on the skip list; about 22,600 on our kernels),
# the same list for every method; its count (functions) and a hash of
# its names (funcs_hash) are recorded with the samples, so a comparison
# shows when the two kernels' lists differ.
# Methods (variants):
#   fentry         one program and link per function, attached one after
#                  the other, then detached one after the other (what
#                  bpftrace does for a wildcard): each gives its function
#                  a BPF trampoline and an ftrace direct call. On 6.12
#                  each trampoline has an ftrace_ops of its own; the
#                  ftrace-direct series puts them on one shared direct ops;
#   kprobe_multi   one fprobe link over all of them: 6.12's batched attach;
#   tracing_multi  one BPF_TRACE_FENTRY_MULTI link over their BTF ids
#                  (upstream 7.2): absent on the baseline (n/a, not a
#                  failure).
# Metrics: attach_ns, detach_ns (the set), attach_ns_per_func,
# detach_ns_per_func, and load_ns, the programs' load apart from the
# attach (N programs for fentry, one otherwise). Two vCPUs: attach
# patches kernel text, which synchronizes every CPU. Under icount the
# time includes the guest's waits for RCU and tasks-RCU grace periods
# (virtual time, advanced while idle).
name = bpf-attach
description = BPF attach and detach cost, set and per function, N = 1 .. all: fentry one by one, kprobe_multi and tracing_multi at once
bench = bpf_attach
primary = attach_ns_per_func
variants = fentry kprobe_multi tracing_multi
base_variant = fentry
matrix.funcs = 1 10 100 1000 all
# the scaling charts put "all" at the number of functions it found
scale_x = funcs=functions
quick.matrix.funcs = 1 10
# The default (MATRIX=claims): N = 1 to 1000; "all" (about 22,400
# functions) is MATRIX=full: fentry there takes hours on the baseline.
claims.matrix.funcs = 1 10 100 1000
matrix.vcpus = 2
reps = 10
quick.reps = 3
warmup = 1
quick.warmup = 1
# fentry one function at a time is the slow method. Measured under
# icount, 2 vCPUs, one sample: at N = 1000 the baseline takes 5.1 s to
# attach and 125.7 s to detach (each detach waits for its own
# ftrace_ops' tasks-RCU synchronization), the patched kernel 8.5 s and
# 8.6 s. At all (about 22,400 functions) a sample would take about 49 minutes
# of guest time on the baseline by that rate, and more: with thousands
# of functions traced every call goes through a trampoline, the guest
# slows down and tasks-RCU grace periods take 10-40 s (a run was not
# done after 28 minutes of host time, 276 s of guest time). So fentry
# gets 3 samples at 1000 and 1 at all, no warm-up; the points stay in
# the plan (with 1 sample a boot, "all" gets a verdict only from 5
# boots or more: its figure is reported beside the function count).
reps_at = fentry@funcs=1000:3 fentry@funcs=all:1
# MATRIX=claims: fentry at 1000 two samples a boot (6 in 3 boots, enough
# for a verdict), at 100 five: the baseline's detach of 1000 takes about
# two minutes a sample
claims.reps_at = fentry@funcs=1000:2 fentry@funcs=100:5
claim.tm_1000 = compare=variant base=fentry new=tracing_multi kernel=patched metric=attach_ns_per_func point=funcs=1000 | multi/fentry attach 1000
claim.tm_detach_1000 = compare=variant base=fentry new=tracing_multi kernel=patched metric=detach_ns_per_func point=funcs=1000 | multi/fentry detach 1000
claim.fentry_detach_1000 = compare=kernel variant=fentry metric=detach_ns_per_func point=funcs=1000 | fentry detach, N=1000 | 0.38x (bpftrace ksys_*, whole run)
claim.fentry_attach_1000 = compare=kernel variant=fentry metric=attach_ns_per_func point=funcs=1000 | fentry attach, N=1000
claim.fentry_attach_1 = compare=kernel variant=fentry metric=attach_ns_per_func point=funcs=1 | fentry attach, N=1
# some 22,400 fentry programs, links and trampolines at once
mem = 3072
clock = icount
# a baseline boot: fentry at all takes hours (above), the rest about
# 15 minutes of guest time
timeout = 21600
quick.timeout = 900
