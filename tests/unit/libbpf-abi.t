#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The patched tree's libbpf and uapi headers (build/bench/bpf/include,
# what kbbench links against) lay out what the series adds where
# upstream 7.2 has it, so that code compiled against upstream's headers
# works with ours: bpf_map_create_opts.log_opts after excl_prog_hash and
# excl_prog_hash_size (common-attrs/0007), struct bpf_common_attr 24
# bytes with its padding named (common-attrs/0001), the flag's value.
# Compiled only: nothing here calls bpf() on the host (libbpf's map
# creation probes the host kernel with a program load first).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
inc=$top/build/bench/bpf/include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..1"
if ! make -s -C "$top" bench-tools >"$tmp/make" 2>&1; then
	echo "Bail out! make bench-tools failed: $(tail -n 5 "$tmp/make" | tr '\n' ' ')"
	exit 1
fi

# each static assertion names the upstream offset it holds to
cat >"$tmp/abi.c" <<'C'
#include <stddef.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

_Static_assert(offsetof(struct bpf_map_create_opts, token_fd) == 52, "token_fd at 52");
_Static_assert(offsetof(struct bpf_map_create_opts, excl_prog_hash) == 56, "excl_prog_hash at 56");
_Static_assert(offsetof(struct bpf_map_create_opts, excl_prog_hash_size) == 64, "excl_prog_hash_size at 64");
_Static_assert(offsetof(struct bpf_map_create_opts, log_opts) == 72, "log_opts at 72");
_Static_assert(sizeof(struct bpf_map_create_opts) == 80, "bpf_map_create_opts is 80 bytes");
_Static_assert(sizeof(struct bpf_common_attr) == 24, "bpf_common_attr is 24 bytes");
_Static_assert(offsetof(struct bpf_common_attr, reserved) == 20, "reserved at 20");
_Static_assert(BPF_COMMON_ATTRS == 1 << 16, "BPF_COMMON_ATTRS is 1 << 16");
_Static_assert(BPF_MAP_TYPE_RHASH == 35, "BPF_MAP_TYPE_RHASH is 35");
int main(void) { return 0; }
C
if cc -std=gnu11 -I"$inc" -c -o "$tmp/abi.o" "$tmp/abi.c" 2>"$tmp/err"; then
	ok 0 "the patched libbpf and uapi headers have upstream's layout"
else
	ok 1 "the patched libbpf and uapi headers have upstream's layout"
	sed 's/^/# /' "$tmp/err"
fi

exit "$fail"
