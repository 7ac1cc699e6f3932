# perf bench sched pipe: two processes pass a token back and forth
# through a pair of pipes, N round trips; perf reports the time of one
# (usecs/op). Each round trip is two wake-ups and two context switches,
# so it measures the scheduler's wake-up and switch path and the pipe's
# read/write, the path a scheduler series changes (perf's own
# tools/perf/bench/sched-pipe.c). A program workload (README.md): Debian's
# linux-perf, parsed by parsers/perf-bench.awk. Not in the default run
# (default_run: it is not about our series); WORKLOADS=perf-sched-pipe
# selects it.
#
# Points: 1 vCPU (both tasks on one CPU: a switch per message) and 2
# (the partner runs on the other CPU: cross-CPU wake-ups, IPIs). loops:
# 50000 round trips take about 0.5 s of guest time at 1 vCPU and 0.7 s
# at 2 under icount (20000 took 0.281 s, 14.08 us each, on the patched
# kernel at 2 vCPUs: tests/fixtures/programs/perf-pipe-l20000.out). At
# 100000 and 1 vCPU, two boots of each kernel gave 9.36 us a round
# trip on both, every sample within 0.9 % (ratio 0.99998 [0.99966,
# 1.00045]): half that is steady enough, and a pipe round trip is
# slow under TCG (a 1-vCPU boot took 3.5 minutes of a loaded host for
# 11 s of guest time). 8 samples a boot after one warm-up. icount: the
# guest's time is its instruction count, so the wake-up path's length
# is what is compared.
#
# timeout: TCG runs a guest second of these programs in 5 (an idle
# host) to 16 (a loaded one) seconds of the host: all six program
# workloads together at 2 vCPUs are about 135 s of guest time a boot
# (one sample of each point: 24.5 s of guest time, 115 s of a host at
# load 5), so a boot may take longer than the default 900 s without
# hanging.
name = perf-sched-pipe
description = perf bench sched pipe: one pipe round trip between two processes (two wake-ups, two context switches)
command = perf bench sched pipe -l {loops}
packages = linux-perf
parser = perf-bench
default_run = no
primary = usecs_per_op
matrix.vcpus = 1 2
matrix.loops = 50000
reps = 8
warmup = 1
timeout = 1800
quick.matrix.vcpus = 1
quick.matrix.loops = 2000
quick.reps = 3
quick.warmup = 0
