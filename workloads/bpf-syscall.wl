# bpf-syscall: the cost of one successful bpf() call, MAP_CREATE (a
# one-element hash map) and PROG_LOAD (a two-instruction socket filter),
# bench/bpf_syscall.c. 7.2's syscall common attributes add two syscall
# arguments and a flag; a caller that does not use them must see no
# change (plain: "same" on both kernels), and one that passes a log in
# struct bpf_common_attr pays only for the log (common: absent on the
# baseline, n/a there). One vCPU under icount: the syscall path is
# short, and its instruction count is what changes.
name = bpf-syscall
description = bpf() MAP_CREATE and PROG_LOAD cost, plain and with common attributes
bench = bpf_syscall
primary = ns_per_call
variants = plain common
# common against plain on one kernel: what the log in the common
# attributes costs
base_variant = plain
args = --loops 100
matrix.cmd = map_create prog_load
matrix.vcpus = 1
reps = 20
quick.reps = 6
warmup = 3
quick.warmup = 1
mem = 1024
clock = icount
timeout = 1800
quick.timeout = 600
