# stress-ng's scheduler stressors: switch (two tasks forcing context
# switches over a pipe) and futex (futex wait/wake storms), one pair of
# workers per vCPU, each run for a fixed 3 s; stress-ng reports bogo
# ops per second per stressor in its --yaml file. These are kernel
# paths (schedule(), the futex hash), so a scheduler or locking series
# moves them. A program workload (README.md): Debian's stress-ng,
# parsed by parsers/stress-ng.awk. Not in the default run; select it
# with WORKLOADS=stress-ng-sched.
#
# Points: 2 vCPUs (wake-ups cross CPUs), stressors switch and futex: a
# point each, so each stressor's rows are its own (switch_bogo_ops_per_s,
# futex_bogo_ops_per_s). 20000 switch ops took 0.24 s at 2 vCPUs
# (tests/fixtures/programs/stress-switch-ops.yaml), so 3 s is hundreds
# of thousands (two QUICK samples of 4 s: 531 K and 533 K switches,
# 132.7 K and 133.1 K/s); 5 samples after one warm-up.
#
# timeout: TCG runs a guest second of these programs in 5 (an idle
# host) to 16 (a loaded one) seconds of the host: all six program
# workloads together at 2 vCPUs are about 135 s of guest time a boot
# (one sample of each point: 24.5 s of guest time, 115 s of a host at
# load 5), so a boot may take longer than the default 900 s without
# hanging.
name = stress-ng-sched
description = stress-ng --switch and --futex: context switches and futex wake-ups per second, 3 s a sample
command = stress-ng --{stressor} {vcpus} --timeout 3s --metrics --yaml stress-ng.yaml
packages = stress-ng
parser = stress-ng
output = stress-ng.yaml
default_run = no
primary = switch_bogo_ops_per_s futex_bogo_ops_per_s
matrix.vcpus = 2
matrix.stressor = switch futex
reps = 5
warmup = 1
timeout = 1800
quick.matrix.stressor = switch
quick.reps = 2
quick.warmup = 0
