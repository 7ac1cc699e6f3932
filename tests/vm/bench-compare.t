#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A short real make bench-compare: both kernels booted interleaved, the
# workloads run in the guests, and a report comes out of it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-bc.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..9"
t0=$(date +%s)
rc=0
make -C "$top" -s bench-compare QUICK=1 BOOTS=2 BENCH_VCPUS=1 WORKLOADS=procirq-read >"$tmp/out.log" 2>&1 || rc=$?
t1=$(date +%s)
ok "$rc" "make bench-compare QUICK=1 BOOTS=2 BENCH_VCPUS=1 WORKLOADS=procirq-read exits 0 ($((t1 - t0)) s)"
[ "$rc" = 0 ] || tail -n 30 "$tmp/out.log" | sed 's/^/# /'

run=$(sed -n 's/^kbench: \[[^]]*\] report: \(.*\)\/index.html$/\1/p' "$tmp/out.log" | tail -n 1)
[ -n "$run" ] && [ -d "$run" ] && rc=0 || rc=1
ok "$rc" "the report path is printed (${run:-none})"
[ -n "$run" ] || run=$tmp/none

# Interleaved boots, and one CSV per kernel and boot.
nb=$(find "$run/raw/baseline" "$run/raw/patched" -name procirq-read.csv 2>/dev/null | wc -l)
[ "$nb" = 4 ] || [ "$nb" -ge 4 ] && rc=0 || rc=1
ok "$rc" "raw samples for every boot of both kernels ($nb CSV files)"
order=$(grep -o 'boot [0-9]*/[0-9]*: [a-z]*' "$tmp/out.log" | tr '/' ' ' | sort -k2,2n | awk '{print $4}' | tr '\n' ' ')
case "$order" in
"baseline patched baseline patched "*) rc=0 ;;
*) rc=1 ;;
esac
ok "$rc" "boots are interleaved A B A B ($order)"

rc=0
for f in index.html summary.md summary.txt results.json fingerprint.json; do
	[ -s "$run/$f" ] || { rc=1; echo "# missing $run/$f"; }
done
ok "$rc" "report files exist"
nsvg=$(find "$run" -maxdepth 1 -name '*.svg' | wc -l)
[ "$nsvg" -ge 2 ] && rc=0 || rc=1
ok "$rc" "gnuplot charts were written ($nsvg SVG)"
python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' "$run"/*.svg 2>"$tmp/xml.err" && rc=0 || rc=1
ok "$rc" "every SVG is well-formed XML"
grep -q 'ns_per_read' "$run/summary.txt" && grep -qi 'icount' "$run/summary.txt" && rc=0 || rc=1
ok "$rc" "summary.txt has the read cost and names the clock"
jq -e '.kernels.baseline.release and .kernels.patched.release and (.qemu_version | length == 1)' "$run/fingerprint.json" >/dev/null && rc=0 || rc=1
ok "$rc" "fingerprint.json records both kernels and the QEMU version"

if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# log kept in $tmp/out.log"; fi
exit "$fail"
