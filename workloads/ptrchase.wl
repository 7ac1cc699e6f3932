# ptrchase: the latency of a dependent load, by a random pointer cycle
# over a working set (lmbench lat_mem_rd style, bench/ptrchase.c). It is
# the kbcache model's validation (model/README.md): with MODEL=cache the
# misses per access and model_cycles per access step up at the modelled
# L1D (32 KiB), DTLB (64 x 4 KiB = 256 KiB) and LLC (8 MiB) reach.
#
# Under icount ns_per_access is the instruction count (about 1.25 per
# access at every size): the clock sees no cache. Under CLOCK=wall it
# sees the host's caches through TCG, blurred by the emulation.
name = ptrchase
description = dependent-load latency over a working set (cache model check)
bench = ptrchase
primary = ns_per_access
# one lap over 64 MiB of 64-byte nodes per sample
args = --accesses 1048576
matrix.size = 4096 16384 65536 262144 1048576 4194304 16777216 67108864
quick.matrix.size = 16384 1048576 16777216
# not a claim of the series: the default (MATRIX=claims) runs the 3 sizes
claims.matrix.size = 16384 1048576 16777216
reps = 5
warmup = 1
mem = 2048
clock = icount
timeout = 1200
quick.timeout = 600
