/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the BPF benchmarks (bench/NAME.c with bench/NAME.bpf.c):
 * the map type a variant names, and whether this kernel has it.
 */
#ifndef KBBPF_H
#define KBBPF_H

/*
 * BPF_MAP_TYPE_RHASH, upstream 7.2's value (spec section 1): the host's
 * uapi headers (Debian 12, 6.1) do not have it.
 */
#define KB_BPF_MAP_TYPE_RHASH 35

/* Variant "hash" or "rhash" to its map type; -1 after printing why. */
int kb_map_variant(const char *variant, int *type);

/*
 * 0 if this kernel can create a BPF_F_NO_PREALLOC map of type; KB_ABSENT
 * (printing why) if it rejects the type with EINVAL; -1 otherwise.
 */
int kb_map_supported(int type, const char *variant);

#endif /* KBBPF_H */
