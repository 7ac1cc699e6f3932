# bpf-syscall: the cost of one successful bpf() call, MAP_CREATE (a
# one-element hash map, and a one-element array map) and PROG_LOAD (a
# two-instruction socket filter), bench/bpf_syscall.c. A hash map's
# creation is mostly the per-CPU allocator's area search, whose cost
# moves from boot to boot by several percent; the array map's has no
# per-CPU allocation. 7.2's syscall common attributes add two syscall
# arguments and a flag; a caller that does not use them must see no
# change (plain: "same" on both kernels). flag sets BPF_COMMON_ATTRS
# with no log: against plain, the extension's own cost. common passes a
# level-1 log in struct bpf_common_attr: against plain for MAP_CREATE
# (no log is written on success), against attrlog (the same log in
# union bpf_attr, PROG_LOAD only) for PROG_LOAD, whose verifier writes
# its trace into any level-1 log. flag and common are absent on the
# baseline (n/a there); the runner rotates the variants' order from
# boot to boot, so no variant always runs first. One vCPU under icount:
# the syscall path is short, and its instruction count is what changes.
name = bpf-syscall
description = bpf() MAP_CREATE and PROG_LOAD cost, plain and with common attributes
bench = bpf_syscall
primary = ns_per_call
variants = plain flag attrlog common
# flag, attrlog and common against plain on one kernel (common against
# attrlog: build/analysis/kbstat compare RUN --kernel patched --base-variant attrlog
# --new-variant common)
base_variant = plain
args = --loops 100
matrix.cmd = map_create array_create prog_load
matrix.vcpus = 1
claim.plain_prog = compare=kernel variant=plain metric=ns_per_call point=cmd=prog_load | PROG_LOAD, plain
claim.flag_prog = compare=variant base=plain new=flag kernel=patched metric=ns_per_call point=cmd=prog_load | PROG_LOAD flag/plain
reps = 20
quick.reps = 6
warmup = 3
quick.warmup = 1
mem = 1024
clock = icount
timeout = 1800
quick.timeout = 600
