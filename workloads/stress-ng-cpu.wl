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
# guest instructions on each vCPU (one fft run of 4 s gave 792 bogo ops
# at 197.9/s: tests/fixtures/programs/stress-cpu-fft.yaml; two QUICK
# samples of 5 s 197.97 and 198.43/s); 5 samples after one warm-up: 36
# s of guest time a boot, which TCG runs in several minutes at 2 vCPUs.
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
quick.matrix.vcpus = 1
quick.matrix.method = fft
quick.reps = 2
quick.warmup = 0
