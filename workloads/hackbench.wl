# hackbench (rt-tests): groups of 20 senders and 20 receivers passing
# 100-byte messages over sockets, as processes or as threads; it
# prints the time to pass them all. The scheduler's wake-up and the
# socket path with many runnable tasks: the benchmark scheduler series
# have quoted for twenty years. A program workload (README.md):
# Debian's rt-tests, parsed by parsers/hackbench.awk. Not in the
# default run; select it with WORKLOADS=hackbench.
#
# Points: 2 vCPUs; tasks process and threads; 4 groups (160 tasks) of
# 100 messages: about 1 s of guest time under icount as processes (2
# groups of 50 took 0.225 s as processes, 0.097 s as threads:
# tests/fixtures/programs/hackbench-*.out; three QUICK samples 0.210 to
# 0.220 s). 8 samples after one warm-up.
#
# timeout: TCG runs a guest second of these programs in 5 (an idle
# host) to 16 (a loaded one) seconds of the host: all six program
# workloads together at 2 vCPUs are about 135 s of guest time a boot
# (one sample of each point: 24.5 s of guest time, 115 s of a host at
# load 5), so a boot may take longer than the default 900 s without
# hanging.
name = hackbench
description = hackbench: 4 groups of 20 senders and 20 receivers over sockets, processes or threads, total time
command = hackbench --{tasks} -g {groups} -l {loops}
packages = rt-tests
parser = hackbench
default_run = no
primary = time_s
matrix.vcpus = 2
matrix.tasks = process threads
matrix.groups = 4
matrix.loops = 100
reps = 8
warmup = 1
timeout = 1800
quick.matrix.tasks = process
quick.matrix.groups = 2
quick.matrix.loops = 50
quick.reps = 3
quick.warmup = 0
