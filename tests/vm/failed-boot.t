#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A failed boot is a result: in a short real run (2 boots a side, 1 vCPU)
# the second boot panics (init=/nonexistent on its kernel command line,
# through KB_FAULT_APPEND); the run goes on with the other boots, and the
# report and summary.txt name the failed boot, its reason and serial log.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-fb.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..5"

rc=0
KB_FAULT_APPEND="patched/v1-b01=init=/nonexistent" \
	make -C "$top" -s bench-compare QUICK=1 BOOTS=2 BENCH_VCPUS=1 WORKLOADS=procirq-read \
	>"$tmp/out.log" 2>&1 || rc=$?
ok "$rc" "the run finishes although one boot panics (make exit $rc)"
[ "$rc" = 0 ] || tail -n 30 "$tmp/out.log" | sed 's/^/# /'
run=$(sed -n 's/^kbench: \[[^]]*\] report: \(.*\)\/index.html$/\1/p' "$tmp/out.log" | tail -n 1)
[ -n "$run" ] && [ -d "$run" ] || run=$tmp/none
grep -q 'boot patched v1-b01 FAILED: kernel panic' "$tmp/out.log" && r=0 || r=1
ok "$r" "the panic is named when it happens"
order=$(grep -o 'boot [0-9]*/4: [a-z]*' "$tmp/out.log" | tr '/' ' ' | sort -k2,2n | awk '{print $4}' | tr '\n' ' ')
[ "$order" = "baseline patched baseline patched " ] && r=0 || r=1
ok "$r" "the boots after the failed one ran ($order)"
# summary.txt is 80 columns: a serial log's path that does not fit goes
# on the next line, indented
sum=$(tr '\n' ' ' <"$run/summary.txt" 2>/dev/null || true)
grep -q '  FAILED patched v1-b01 (vcpus 1, attempt 0): kernel panic; serial log *[^ ]*/boots/patched/v1-b01.attempt0/serial.log ' <<<"$sum" &&
	r=0 || r=1
ok "$r" "summary.txt names the failed boot, its reason and serial log"
grep -q 'Kernel panic' "$run/boots/patched/v1-b01.attempt0/serial.log" 2>/dev/null &&
	grep -q '<h2>Failed boots' "$run/index.html" && r=0 || r=1
ok "$r" "the serial log holds the panic, index.html lists the failed boot"

if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# log kept in $tmp/out.log"; fi
exit "$fail"
