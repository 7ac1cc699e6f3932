# perf bench sched messaging: groups of 20 senders and 20 receivers
# (processes), each sender writing N 100-byte messages to every
# receiver of its group over a socketpair; perf reports the time until
# every message is read. Many tasks waking each other at once: the
# scheduler's wake-up, load balancing and the socket path under
# contention (perf's tools/perf/bench/sched-messaging.c, hackbench's
# descendant). A program workload (README.md): Debian's linux-perf,
# parsed by parsers/perf-bench.awk. Not in the default run; select it
# with WORKLOADS=perf-sched-messaging.
#
# Points: 2 vCPUs (wake-ups across CPUs, as perf's own default runs on
# every CPU), 4 groups (160 tasks) of 50 messages: about 1 s of guest
# time under icount (2 groups of 20 took 0.212 s on the patched kernel:
# tests/fixtures/programs/perf-messaging-g2-l20.out), so perf's
# millisecond total time resolves 0.1 %. 8 samples after one warm-up.
#
# timeout: TCG runs a guest second of these programs in 5 (an idle
# host) to 16 (a loaded one) seconds of the host: all six program
# workloads together at 2 vCPUs are about 135 s of guest time a boot
# (one sample of each point: 24.5 s of guest time, 115 s of a host at
# load 5), so a boot may take longer than the default 900 s without
# hanging.
name = perf-sched-messaging
description = perf bench sched messaging: groups of 20 senders and 20 receivers passing 100-byte messages, total time
command = perf bench sched messaging -g {groups} -l {loops}
packages = linux-perf
parser = perf-bench
default_run = no
primary = total_time_s
matrix.vcpus = 2
matrix.groups = 4
matrix.loops = 50
reps = 8
warmup = 1
timeout = 1800
quick.matrix.groups = 1
quick.matrix.loops = 20
quick.reps = 3
quick.warmup = 0
