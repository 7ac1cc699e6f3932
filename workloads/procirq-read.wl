# procirq-read: the cost of one read of /proc/interrupts (open, read to
# EOF, close), K reads per sample. Upstream's 7.2 rework targets exactly
# this; the cost grows with rows x online CPUs.
#
# Each guest gets one extra virtio-blk disk with one queue per vCPU
# (disks = virtio-blk,queues=vcpus), so the number of device interrupt rows grows with
# the vCPU count: at 64 vCPUs /proc/interrupts has well over 100 rows.
name = procirq-read
description = cost of reading /proc/interrupts
bench = procirq_read
# The answer a reviewer wants first: the cost of one read.
primary = ns_per_read
args = --loops 200 --perf
matrix.vcpus = 1 8 32 64
# The default (MATRIX=claims): 1 vCPU and 8, where the rework's gain is
# about the CPUs; 32 and 64 are MATRIX=full (a 64-vCPU boot takes 6.5
# minutes on the 2-core host). QUICK=1 and MATRIX=small: 1 and 2 vCPUs.
claims.matrix.vcpus = 1 8
quick.matrix.vcpus = 1 2
claim.read_8 = compare=kernel metric=ns_per_read point=vcpus=8 | /proc/interrupts 8 vCPUs
claim.read_1 = compare=kernel metric=ns_per_read point=vcpus=1 | /proc/interrupts 1 vCPU
claim.read_64 = compare=kernel metric=ns_per_read point=vcpus=64 | /proc/interrupts 64 vCPU
reps = 30
quick.reps = 8
warmup = 5
quick.warmup = 3
mem = 2048
# icount: guest time is the instruction count, deterministic on a busy
# host. Measured spread is below 0.1 % at 1 vCPU and a few % at 64.
clock = icount
disks = virtio-blk,queues=vcpus
timeout = 1800
quick.timeout = 600
