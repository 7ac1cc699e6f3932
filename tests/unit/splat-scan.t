#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel/scripts/splat-scan.sh, which make test-debug runs over the debug
# kernels' serial logs: a clean log passes; a KASAN report, a lockdep
# report, a WARNING and a might_sleep BUG each fail the scan, printed
# with their file and line and the test that was running; \r\n serial
# line ends are read; a missing log is an error of its own (exit 2).
# Between the fault-injection markers a failed allocation's report and
# its stack are expected; the same outside them, or a KASAN report inside
# them, fail.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/splat
scan=$top/kernel/scripts/splat-scan.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..16"

check "a clean boot log has no splat" "$scan" "$fx/clean.log"

check_rc "a KASAN report fails the scan" 1 "$scan" "$fx/kasan.log"
t "it is printed with its file and line" grep -qF "=== splat 1: $fx/kasan.log:5 " "$tmp/out"
t "it names the test that was running (the last marker before it)" \
	grep -qF '(running: 2/3 rhash-lookup variant=rhash point=vcpus=1;key_size=8)' "$tmp/out"
t "the report is printed to its closing line, and no further" \
	bash -c "grep -q 'kasan_report+0xb9' '$tmp/out' && ! grep -q 'nothing else happened' '$tmp/out'"
t "one report is one splat (its Call Trace does not start another)" \
	test "$(grep -c '^=== splat' "$tmp/out")" = 1

check_rc "a lockdep report before any test fails the scan" 1 "$scan" "$fx/lockdep.log"
t "it says it came during boot, before any test" grep -qF '(running: boot, before any test)' "$tmp/out"

check_rc "a WARNING and a might_sleep BUG (\\r\\n line ends) fail the scan" 1 "$scan" "$fx/warn-crlf.log"
t "they are two splats, each with its own test" \
	bash -c "[ \$(grep -c '^=== splat' '$tmp/out') = 2 ] &&
		grep -qF 'warn-crlf.log:4 (running: start proc-interrupts)' '$tmp/out' &&
		grep -qF 'warn-crlf.log:8 (running: start rhash)' '$tmp/out' &&
		! grep -q \$'\\r' '$tmp/out'"

check "fault injection: warn_alloc reports and their stacks between the markers are no splat" \
	"$scan" "$fx/fault.log"
check_rc "the same reports outside the markers fail the scan" 1 "$scan" "$fx/fault-outside.log"
t "from the first report's Call Trace" grep -qF "=== splat 1: $fx/fault-outside.log:6 " "$tmp/out"
check_rc "a KASAN report between the markers fails the scan" 1 "$scan" "$fx/fault-kasan.log"

check_rc "several logs: a splat in any one fails the scan" 1 "$scan" "$fx/clean.log" "$fx/kasan.log"
check_rc "a missing log is an error of its own (exit 2)" 2 "$scan" "$fx/clean.log" "$tmp/none.log"

exit "$fail"
