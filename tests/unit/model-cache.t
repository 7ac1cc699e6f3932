#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# model/: the kbcache model core (cache.c) on synthetic address streams,
# driven on the host by build/model/test-cache, against hand-computed
# hit and miss counts; the plugin's build and its exported ABI symbols;
# and the window markers kbbench emits (model/kbmark.h) in its binary.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tc=$top/build/model/test-cache
so=$top/build/model/libkbcache.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..28"
make_or_bail model-tools

# counts_are DESC WANT CMD...: the last output line of CMD is exactly WANT
counts_are() {
	local desc=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1 | tail -n 1) || true
	if [ "$got" = "$want" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		diag "wanted: $want" "got:    $got"
	fi
}
# lap_line CMD... LAP: the counts of one lap
lap_line() { "$tc" "$@"; }

# 2-set, 2-way L1D (256 B), 4-set 2-way LLC: A=0, B=0x80, C=0x100 all map
# to L1D set 0. A B A C B: C evicts B (least recently used, A was just
# used), so B misses again: 4 L1D misses (FIFO would give 3). In the LLC
# A and C share set 0 and B has set 2: A, B, C miss, B hits.
small='l1d_size=256 l1d_ways=2 llc_size=512 llc_ways=2'
# shellcheck disable=SC2086 # one parameter per word
counts_are "LRU order: A B A C B in one 2-way set" \
	"lap=1 accesses=5 l1d_misses=4 llc_misses=3 dtlb_misses=1 model_cycles=785" \
	sh -c "printf '0\n80\n0\n100\n80\n' | $tc $small addrs"
# model_cycles = 5 instructions + 4 x 40 + 3 x 200 + 1 x 20 = 785 (above)
# shellcheck disable=SC2086
counts_are "named penalties change model_cycles: 5 + 4x1 + 3x10 + 1x100" \
	"lap=1 accesses=5 l1d_misses=4 llc_misses=3 dtlb_misses=1 model_cycles=139" \
	sh -c "printf '0\n80\n0\n100\n80\n' | $tc $small l1d_penalty=1 llc_penalty=10 dtlb_penalty=100 addrs"
counts_are "an access crossing a line touches two lines, counts once" \
	"lap=1 accesses=1 l1d_misses=2 llc_misses=2 dtlb_misses=1 model_cycles=501" \
	sh -c "printf '3c:8\n' | $tc addrs"
counts_are "an access crossing a page touches two DTLB entries" \
	"lap=1 accesses=1 l1d_misses=2 llc_misses=2 dtlb_misses=2 model_cycles=521" \
	sh -c "printf 'ffc:8\n' | $tc addrs"
counts_are "a repeated access hits everywhere" \
	"lap=1 accesses=3 l1d_misses=1 llc_misses=1 dtlb_misses=1 model_cycles=263" \
	sh -c "printf '1000\n1008\n1038:8\n' | $tc addrs"
counts_are "after a DTLB flush (a warm-up's end) the page misses again, its line still hits" \
	"lap=1 accesses=2 l1d_misses=1 llc_misses=1 dtlb_misses=2 model_cycles=282" \
	sh -c "printf '1000\nflush-dtlb\n1008\n' | $tc addrs"

# Defaults (Skylake client: 32 KiB 8-way L1D, 8 MiB 16-way LLC, 64 B
# lines, 64-entry 4-way DTLB of 4 KiB pages).
lap_line seq 32768 2 >"$tmp/seq32k"
counts_are "seq 32 KiB, lap 1: 512 cold lines, 8 cold pages" \
	"lap=1 accesses=512 l1d_misses=512 llc_misses=512 dtlb_misses=8 model_cycles=123552" \
	head -n 1 "$tmp/seq32k"
counts_are "seq 32 KiB, lap 2: fits the L1D exactly, no miss" \
	"lap=2 accesses=512 l1d_misses=0 llc_misses=0 dtlb_misses=0 model_cycles=512" \
	cat "$tmp/seq32k"
# 64 KiB: 16 lines per L1D set, reused in the same order: LRU misses all
counts_are "seq 64 KiB, lap 3: every L1D access misses, LLC and DTLB hit" \
	"lap=3 accesses=1024 l1d_misses=1024 llc_misses=0 dtlb_misses=0 model_cycles=41984" \
	lap_line seq 65536 3
counts_are "chase 16 KiB, lap 2: L1D hits" \
	"lap=2 accesses=256 l1d_misses=0 llc_misses=0 dtlb_misses=0 model_cycles=256" \
	lap_line chase 16384 2 1
counts_are "chase 256 KiB, lap 3: 64 pages fill the DTLB, L1D misses" \
	"lap=3 accesses=4096 l1d_misses=4096 llc_misses=0 dtlb_misses=0 model_cycles=167936" \
	lap_line chase 262144 3 1
counts_are "chase 4 MiB, lap 2: fits the 8 MiB LLC" \
	"lap=2 accesses=65536 l1d_misses=65536 llc_misses=0 dtlb_misses=61545 model_cycles=3917876" \
	lap_line chase 4194304 2 1
# 16 MiB: 32 lines per LLC set in a fixed cyclic order, 16 ways: all miss
lap_line chase 16777216 2 1 >"$tmp/c16m"
# shellcheck disable=SC2016 # awk's fields
counts_are "chase 16 MiB, lap 2: every access misses the LLC" \
	"262144 262144" awk -F'[ =]' 'NR == 2 { print $6, $8 }' "$tmp/c16m"

# The DTLB under a random chain: each 4-way set sees P/16 pages in random
# order, so LRU hits with probability 4/(P/16): miss rate 1 - 64/P.
# dtlb_rate BYTES: the lap-2 DTLB miss rate, and 1 - 64 / pages
dtlb_close() {
	local bytes=$1
	"$tc" chase "$bytes" 2 7 | awk -F'[ =]' -v p=$((bytes / 4096)) '
		NR == 2 { r = $10 / $4; w = 1 - 64 / p
			printf "measured %.4f predicted %.4f\n", r, w
			exit !(r > w * 0.97 && r < w * 1.03) }'
}
for s in 1048576 4194304 67108864; do
	if out=$(dtlb_close "$s"); then ok 0 "chase $s B: DTLB miss rate within 3 % of 1 - 64/pages ($out)"
	else ok 1 "chase $s B: DTLB miss rate within 3 % of 1 - 64/pages"; diag "$out"; fi
done

# Interrupts left out of a window (pause.h): what a window over the
# script counts. An interrupt's span runs from its entry to its iretq.
counts_are "an interrupt: its 50 instructions are left out" \
	"counted=110 excluded=50 spans=1 depth=0" \
	sh -c "printf 'run 100\nirq\nrun 50\niret\nrun 10\n' | $tc pause"
counts_are "an exception outside a span is the work's own: counted, its iretq ends nothing" \
	"counted=115 excluded=0 spans=0 depth=0" \
	sh -c "printf 'run 100\nexc\nrun 5\niret\nrun 10\n' | $tc pause"
counts_are "an exception inside a span nests: the span ends at the second iretq" \
	"counted=110 excluded=15 spans=1 depth=0" \
	sh -c "printf 'run 100\nirq\nrun 5\nexc\nrun 5\niret\nrun 5\niret\nrun 10\n' | $tc pause"
# task a (0xa0) is switched out in the interrupt; b runs, returns with
# its own iretq, takes an exception; a comes back and returns
counts_are "a task switch in a span: the other task's iretq and entries do not end it" \
	"counted=110 excluded=21 spans=1 depth=0" \
	sh -c "printf 'run 100\nirq\nrun 5\nout 0xa0\nin 0xb0\nrun 7\niret\nrun 3\nexc\nrun 2\nout 0xb0\nin 0xa0\nrun 4\niret\nrun 10\n' | $tc pause"

# bad parameters: exit 2 with the reason
check_rc "a non-power-of-two size is refused" 2 "$tc" l1d_size=300 seq 4096 1
t "... and named" grep -q "l1d: size 300" "$tmp/err"
check_rc "an unknown parameter is refused, the known ones listed" 2 "$tc" l1d_sise=1 seq 4096 1
t "... and named" grep -q "unknown parameter 'l1d_sise'; known: l1d_size" "$tmp/err"

# The plugin: QEMU 7.2 loads a plugin that exports these two (API v1).
if nm -D --defined-only "$so" | awk '{ print $3 }' | sort | tr '\n' ' ' |
	grep -qx 'qemu_plugin_install qemu_plugin_version '; then
	ok 0 "libkbcache.so exports exactly qemu_plugin_install and qemu_plugin_version"
else
	ok 1 "libkbcache.so exports exactly qemu_plugin_install and qemu_plugin_version"
	nm -D --defined-only "$so" | sed 's/^/# /'
fi

# kbbench brackets every sample with the markers (8-byte NOPs, kbmark.h)
make_or_bail bench-tools
for m in 01 02 45; do
	if od -An -v -tx1 "$top/build/bench/kbbench" | tr -d ' \n' |
		grep -q "0f1f8400${m}53424b"; then
		ok 0 "kbbench holds the marker nopl 0x4b4253$m(%rax,%rax,1)"
	else
		ok 1 "kbbench holds the marker nopl 0x4b4253$m(%rax,%rax,1)"
	fi
done
