# rhash-mem: the memory of a BPF hash map after it is filled and after
# every element is overwritten once, hash against 7.2's resizable rhash
# (absent on the baseline), at 32-byte and 4-KiB values, as upstream's
# rhtab-mem bench: the map's own accounting (fdinfo memlock) and what
# its memory cgroup was charged (memory.current of kbbench's own
# cgroup), bench/map_mem.c. Memory does not depend on the clock; icount keeps
# the guest quiet and the run deterministic.
name = rhash-mem
description = BPF hash map memory, filled and overwritten: hash against rhash
bench = map_mem
primary = map_bytes_filled
variants = hash rhash
# the cover letter's table: rhash against hash, bytes after the fill
base_variant = hash
table = value=value_size
table_metric = map_bytes_filled
args = --max_entries 16384
matrix.value_size = 32 4096
claim.mem_32 = compare=variant base=hash new=rhash kernel=patched metric=map_bytes_filled point=value_size=32 | rhash/hash mem, 32 B | 1.008x (+0.8 %)
claim.mem_4096 = compare=variant base=hash new=rhash kernel=patched metric=map_bytes_filled point=value_size=4096 | rhash/hash mem, 4 KiB | 0.96x (-4 %)
reps = 5
warmup = 1
mem = 2048
clock = icount
timeout = 1800
quick.timeout = 900
