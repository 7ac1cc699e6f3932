# rhash-update: overwrite updates of a full BPF hash map, hash against
# 7.2's resizable rhash (absent on the baseline), from BPF programs run
# by 1 producer and by one producer per vCPU (bench/map_update.bpf.c),
# as upstream's bpf-rhashmap-full-update bench. The metric is updates
# per second per producer.
#
# Under icount (thread=single) the vCPUs take turns on one host thread
# and the clock counts every vCPU's instructions, so N producers each
# see about N times the time: per-producer rates at 4 vCPUs are not
# comparable with 1 vCPU's, only hash with rhash at the same point.
name = rhash-update
description = BPF hash map full-map overwrite updates: hash against rhash
bench = map_update
primary = mupdates_per_sec_per_producer
variants = hash rhash
# the cover letter's table: rhash against hash, per producer
base_variant = hash
table = vcpus producers
table_metric = mupdates_per_sec_per_producer
args = --max_entries 65536 --loops 100000
matrix.vcpus = 1 4
matrix.producers = 1 all
# QUICK=1 and MATRIX=small (the default): 2 vCPUs, producers 1 and 2,
# in the boots procirq-read and bpf-attach have at 2 (procirq-read.wl)
quick.matrix.vcpus = 2
# The default (MATRIX=claims): the same 2 vCPUs, 1 and all producers
claims.matrix.vcpus = 2
claim.update_all = compare=variant base=hash new=rhash kernel=patched metric=mupdates_per_sec_per_producer point=vcpus=2;producers=all | rhash/hash update 2 CPUs | 5.25x (-p 7)
claim.update_1 = compare=variant base=hash new=rhash kernel=patched metric=mupdates_per_sec_per_producer point=vcpus=2;producers=1 | rhash/hash update 1 CPU
reps = 10
quick.reps = 5
warmup = 2
quick.warmup = 1
mem = 2048
clock = icount
timeout = 3600
quick.timeout = 900
