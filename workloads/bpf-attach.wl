# bpf-attach: what attaching and detaching BPF tracing programs costs per
# function, bench/bpf_attach.c. fentry: one program and link per
# function for the first 50 __x64_sys_ functions of the BTF (name
# order), attached one after the other, then detached one after the
# other: each attach gives its function a BPF trampoline and an ftrace
# direct call. On 6.12 every trampoline has an ftrace_ops of its own;
# the ftrace-direct series puts them all on one shared direct ops
# (update_ftrace_direct_add/del/mod), the groundwork of tracing_multi.
# kprobe_multi: one fprobe link over the same functions, 6.12's batched
# attach, as the reference a batched tracing_multi link is to be held
# against. Two vCPUs: attach patches kernel text, which
# synchronizes every CPU. Under icount, the time includes the guest's
# waits for RCU grace periods (virtual time, advanced while idle).
name = bpf-attach
description = BPF attach and detach cost per function: fentry one by one, kprobe_multi at once
bench = bpf_attach
primary = attach_ns_per_func
variants = fentry kprobe_multi
base_variant = fentry
args = --funcs 50
matrix.vcpus = 2
reps = 10
quick.reps = 3
warmup = 1
quick.warmup = 1
mem = 1024
clock = icount
timeout = 3600
quick.timeout = 900
