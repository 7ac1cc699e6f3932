# fio random 4 KiB reads with O_DIRECT from the workload's own virtio
# disk (disks = virtio-blk: a scratch disk of its own in every boot,
# $KB_DISK1 in the guest), through libaio at queue depth 1 and 16, for
# 3 s a sample; fio's JSON gives IOPS, bandwidth and the completion
# latency percentiles. This is the block layer and virtio-blk path a
# block series changes; the host file behind the disk sits in the
# host's page cache, so what differs between kernels is the guest's
# side. A program workload (README.md): Debian's fio, parsed by
# parsers/fio.awk. Not in the default run; select it with
# WORKLOADS=fio-randread.
#
# Points: 2 vCPUs (completions may land on the other CPU), iodepth 1
# (one read at a time: per-I/O latency) and 16 (the queue kept full:
# IOPS). The percentiles are fio's --percentile_list, 50 90 99 99.9
# (read_clat_p50_ns ... read_clat_p99_9_ns). psync at depth 1 gave
# 11.7 K IOPS, libaio at 8 with 2 jobs 78.6 K, under icount
# (tests/fixtures/programs/fio-randread*.out). 5 samples after one
# warm-up: 18 s of reads a point.
#
# Under icount the guest idles at host speed while QEMU reads the disk
# (sleep=on, images/README.md), so fio's figures carry the host's I/O
# timing as well as the guest kernel's path: two samples of one boot
# (QUICK=1, patched kernel, depth 1) gave 12.9 K and 16.6 K IOPS, and
# a median completion latency of 18.3 us and 1.4 us. read_iops leads
# (the whole path, averaged over 3 s); the interleaved boots put the
# host's share on both kernels, and the noise floor of an A/A run
# (make calibrate WORKLOADS=fio-randread) says how small a difference
# it can see. The latency percentiles are kept for the report, not
# as a hardware figure.
#
# timeout: TCG runs a guest second of these programs in 5 (an idle
# host) to 16 (a loaded one) seconds of the host: all six program
# workloads together at 2 vCPUs are about 135 s of guest time a boot
# (one sample of each point: 24.5 s of guest time, 115 s of a host at
# load 5), so a boot may take longer than the default 900 s without
# hanging.
name = fio-randread
description = fio: random 4 KiB O_DIRECT reads from a virtio-blk disk, libaio, queue depth 1 and 16
command = fio --name=randread --filename=$KB_DISK1 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth={iodepth} --runtime=3 --time_based --percentile_list=50:90:99:99.9 --output-format=json
packages = fio
parser = fio
default_run = no
disks = virtio-blk
primary = read_iops
matrix.vcpus = 2
matrix.iodepth = 1 16
reps = 5
warmup = 1
timeout = 1800
quick.matrix.iodepth = 1
quick.reps = 2
quick.warmup = 0
