#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A failed boot is a result: RUN/failed-boots.tsv (written by
# orchestrate/run.sh) reaches results.json, summary.txt and index.html;
# the regression gate fails when NEW crashes where OLD does not; a
# malformed list is an error naming file:line.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
build_kbstat
echo "1..10"

hdr=$(printf 'kernel\tboot\tvcpus\tattempt\texit\treason\tserial_log')
run=$tmp/run
perl "$top/tests/fixtures/analysis/synth.pl" "$run" seed=2
printf '%s\npatched\tb04\t1\t0\t4\tkernel panic\t/r/boots/patched/b04.attempt0/serial.log\nother\tb01\t1\t0\t6\thang\t/x\n' \
	"$hdr" >"$run/failed-boots.tsv"
check "compare reads the failed boots" \
	"$kbstat" compare "$run" --base baseline --new patched --out "$tmp/r.json"
check "results.json lists the failed boot of the compared kernels only, with reason and serial log" \
	jq -e '.failed_boots == [{"kernel":"patched","boot":"b04","vcpus":"1","attempt":"0","exit":"4","reason":"kernel panic","serial_log":"/r/boots/patched/b04.attempt0/serial.log"}]' "$tmp/r.json"
"$kbstat" summary "$tmp/r.json" >"$tmp/s.txt"
check "summary.txt names the failed boot, its reason and serial log" \
	bash -c "tr -s ' \n' ' ' <'$tmp/s.txt' | grep -q ' FAILED patched b04 (vcpus 1, attempt 0): kernel panic; serial log /r/boots/patched/b04.attempt0/serial.log '"
check_rc "regression gate: NEW crashes where OLD does not -> exit 1" 1 \
	"$kbstat" gate "$tmp/r.json"
cp "$tmp/out" "$tmp/gate.txt"
check "... and the gate names it" grep -q 'NEW fails to boot or crashes: b04 .*kernel panic' "$tmp/gate.txt"
printf '%s\npatched\tb04\t1\t0\t4\tkernel panic\t/p\nbaseline\tb02\t1\t0\t6\thang (timeout, QEMU killed)\t/b\n' \
	"$hdr" >"$run/failed-boots.tsv"
"$kbstat" compare "$run" --base baseline --new patched --out "$tmp/r2.json" 2>/dev/null
check_rc "both kernels crash: not a regression of NEW, listed as undecided" 0 \
	"$kbstat" gate "$tmp/r2.json"
cp "$tmp/out" "$tmp/gate2.txt"
check "... both named under Undecided" \
	bash -c "sed -n '/^Undecided/,/^\$/p' '$tmp/gate2.txt' | grep -q '^  patched fails to boot or crashes: b04' &&
		sed -n '/^Undecided/,/^\$/p' '$tmp/gate2.txt' | grep -q '^  baseline fails to boot or crashes: b02'"
KBSTAT=$kbstat "$top/analysis/report.sh" "$run" 2>/dev/null
check "index.html has a Failed boots section naming both" \
	bash -c "sed -n '/<h2>Failed boots/,/<\/ul>/p' '$run/index.html' | grep -q 'patched b04' &&
		sed -n '/<h2>Failed boots/,/<\/ul>/p' '$run/index.html' | grep -q 'baseline b02'"
printf '%s\npatched\tb04\t1\t0\tkernel panic\n' "$hdr" >"$run/failed-boots.tsv"
check_rc "a malformed failed-boots.tsv is refused" 1 \
	"$kbstat" compare "$run" --base baseline --new patched --out "$tmp/r3.json"
cp "$tmp/err" "$tmp/bad.err"
check "... naming file:line" grep -q 'failed-boots.tsv:2: 5 fields, expected 7' "$tmp/bad.err"
exit "$fail"
