# rhash-lookup: the cost of a BPF hash-map lookup, BPF_MAP_TYPE_HASH
# (variant hash) against 7.2's resizable BPF_MAP_TYPE_RHASH (variant
# rhash), from a BPF program that loops over keys that are all in the
# map (bench/map_lookup.bpf.c), as upstream's bpf-rhashmap-lookup does.
# rhash is absent on the baseline (n/a there, not a failure).
#
# Under icount the clock counts instructions: cache and TLB misses, most
# of upstream's large-map gain, are invisible to it. Run it under
# CLOCK=wall too before comparing with upstream's hardware figures.
name = rhash-lookup
description = BPF hash map lookups: hash against rhash
bench = map_lookup
primary = ns_per_lookup
variants = hash rhash
# rhash against hash on one kernel, as upstream's cover letter has it:
# key size, max_entries, elements, both throughputs, ratio, delta
base_variant = hash
table = key=key_size max=max_entries nr=max_entries*fill/100
table_metric = mlookups_per_sec
args = --loops 100000
matrix.key_size = 8 32 256
matrix.max_entries = 1024 1048576
matrix.fill = 75 100
# The default (MATRIX=claims): key 8, 1K in 1K and 1M in 1M, the two
# ends of upstream's table (0.80x and 4.01x)
claims.matrix.key_size = 8
claims.matrix.max_entries = 1024 1048576
claims.matrix.fill = 100
claim.lookup_1k = compare=variant base=hash new=rhash kernel=patched metric=mlookups_per_sec point=key_size=8;max_entries=1024;fill=100 | rhash/hash lookup, 1K | 0.80x
claim.lookup_1m = compare=variant base=hash new=rhash kernel=patched metric=mlookups_per_sec point=key_size=8;max_entries=1048576;fill=100 | rhash/hash lookup, 1M | 4.01x
claim.lookup_1m_32 = compare=variant base=hash new=rhash kernel=patched metric=mlookups_per_sec point=key_size=32;max_entries=1048576;fill=100 | rhash/hash lookup 1M k32 | 1.19x
quick.matrix.key_size = 8
quick.matrix.max_entries = 1024
quick.matrix.fill = 100
reps = 10
quick.reps = 5
warmup = 2
quick.warmup = 1
# a 1M-element map of 256-byte keys is about 350 MB
mem = 3072
clock = icount
timeout = 5400
quick.timeout = 900
