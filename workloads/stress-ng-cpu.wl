# stress-ng's cpu stressor: one worker per vCPU runs a CPU method (fft,
# int64 arithmetic) for a fixed 3 s; stress-ng reports its bogo ops per
# second (real time and usr+sys time) in its --yaml file. What a kernel
# change can move here is what it takes from a busy CPU: the tick,
# timer and scheduler work beside the worker. A program workload
# (README.md): Debian's stress-ng, parsed by parsers/stress-ng.awk
# (bogo ops/s per stressor). Not in the default run; select it with
# WORKLOADS=stress-ng-cpu.
#
# Another stressor, or several at once, is one more .wl file with
# another command line: the parser gives rows for every stressor in the
# YAML (cpu_bogo_ops_per_s, matrix_bogo_ops_per_s, ...).
#
# Points: 1 and 2 vCPUs ({vcpus} workers: every CPU busy), methods fft
# (floating point) and int64. 3 s a sample under icount is 3 s of
# guest time, 3 x 10^9 instructions (one fft run of 4 s gave 792 bogo ops
# at 197.9/s: tests/fixtures/programs/stress-cpu-fft.yaml; two QUICK
# samples of 5 s 197.97 and 198.43/s); 5 samples after one warm-up: 36
# s of guest time a boot, which TCG runs in several minutes at 2 vCPUs.
# Under icount the vCPUs take turns in one TCG thread and guest time
# counts the instructions of all of them: at 2 vCPUs two workers made
# 193.4 fft bogo ops/s together, 99.1/s each of CPU time, where one at
# 1 vCPU made 198: the 2-vCPU point measures what two busy CPUs cost
# the kernel (ticks, balancing), not parallel speed.
#
# timeout: TCG runs a guest second of these programs in 5 (an idle
# host) to 16 (a loaded one) seconds of the host: all six program
# workloads together at 2 vCPUs are about 135 s of guest time a boot
# (one sample of each point: 24.5 s of guest time, 115 s of a host at
# load 5), so a boot may take longer than the default 900 s without
# hanging.
name = stress-ng-cpu
description = stress-ng --cpu: bogo ops per second of a CPU method on every vCPU for 3 s
command = stress-ng --cpu {vcpus} --cpu-method {method} --timeout 3s --metrics --yaml stress-ng.yaml
packages = stress-ng
parser = stress-ng
output = stress-ng.yaml
default_run = no
primary = cpu_bogo_ops_per_s
matrix.vcpus = 1 2
matrix.method = fft int64
reps = 5
warmup = 1
timeout = 1800
quick.matrix.vcpus = 1
quick.matrix.method = fft
quick.reps = 2
quick.warmup = 0
