#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Informational metrics (better=none): shown side by side, never a
# verdict, outside the Benjamini-Hochberg family, and never a reason for
# the regression gate (kbstat gate) to fail.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
build_kbstat

echo "1..10"

# add_rows RUN BASE_ROWS NEW_ROWS: an informational "rows" metric per sample
add_rows() {
	local f k rows
	for f in "$1"/raw/*/*/synth.csv; do
		k=$(basename "$(dirname "$(dirname "$f")")")
		rows=$2
		[ "$k" = baseline ] || rows=$3
		awk -F, -v r="$rows" 'NR > 1 { print "synth,,vcpus=1,irq_rows,count,none,icount," $8 "," r + NR % 3 }' \
			"$f" >"$tmp/rows.add"
		cat "$tmp/rows.add" >>"$f"
	done
}
# gate RESULTS: kbstat gate, its text in $tmp/gate.txt
gate() {
	"$kbstat" gate "$1" >"$tmp/gate.txt" 2>&1
}

# NEW prints 30 % more rows and costs the same.
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/rows" seed=4 cv=0.003
add_rows "$tmp/rows" 100 130
"$kbstat" compare "$tmp/rows" --base baseline --new patched --out "$tmp/rows.json" 2>/dev/null
check "the row count is informational: no verdict, no p, no floor" \
	jq -e '.results[] | select(.metric == "irq_rows") | .verdict == "informational" and .p == null and .p_adj == null and .why == null' "$tmp/rows.json"
check "the cost metric keeps its verdict (same)" \
	jq -e '.results[] | select(.metric == "latency") | .verdict == "same"' "$tmp/rows.json"
"$kbstat" summary "$tmp/rows.json" >"$tmp/rows.txt"
check "summary.txt: verdict table first, informational block after, BH over 1 tested row" \
	bash -c "grep -n 'latency' '$tmp/rows.txt' | head -1 | grep -q . &&
		awk '/^informational/ { i = 1 } i && /irq_rows/ { f = 1 } END { exit !f }' '$tmp/rows.txt' &&
		grep -q 'adjusted over the 1 tested rows' '$tmp/rows.txt' &&
		! grep -E '^synth +vcpus=1 +irq_rows' '$tmp/rows.txt'"
# a mail names the informational metrics, one line per workload and
# variant, without their medians (those are in summary.md and the JSON)
check "summary.txt: the informational block names irq_rows on one line, no medians" \
	bash -c "sed -n '/^informational/,/^\$/p' '$tmp/rows.txt' | grep -qE '^  [^ ]+/[^ ]*: ([a-z_]+, )*irq_rows(,|\$)' &&
		! sed -n '/^informational/,/^\$/p' '$tmp/rows.txt' | grep -qE '[0-9]{3}'"
if gate "$tmp/rows.json"; then r=0; else r=1; fi
ok "$r" "regression gate: NEW that only prints more rows passes (exit 0)"
"$kbstat" floor "$tmp/rows" --a baseline --b patched --out "$tmp/floor.json" 2>/dev/null
check "floor file: no entry for the informational metric" \
	jq -e '[.floors[] | select(.metric == "irq_rows")] | length == 0' "$tmp/floor.json"
KBSTAT=$kbstat "$top/analysis/report.sh" "$tmp/rows" 2>/dev/null
check "index.html: informational metrics in their own section, not in the verdict table" \
	bash -c "! sed -n '/<h2>Results/,/<\/table>/p' '$tmp/rows/index.html' | sed 's/<wbr>//g' | grep -q irq_rows &&
		sed -n '/<h2>Informational metrics/,/<\/table>/p' '$tmp/rows/index.html' | sed 's/<wbr>//g' | grep -q irq_rows"

# NEW costs 5 % more: the gate fails and names the metric.
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/slow" seed=4 cv=0.003 effect=0.05
add_rows "$tmp/slow" 100 100
"$kbstat" compare "$tmp/slow" --base baseline --new patched --out "$tmp/slow.json" 2>/dev/null
if gate "$tmp/slow.json"; then r=1; else r=0; fi
ok "$r" "regression gate: a 5 % slower NEW fails (exit 1)"
check "the gate names the workload and metric" grep -q '^REGRESSION: NEW is worse than OLD in 1 metric$' "$tmp/gate.txt"
check "the regression line is the latency, not the rows" \
	bash -c "sed -n '/^Failed the gate/,/^\$/p' '$tmp/gate.txt' | grep -q '^  synth  vcpus=1  latency (ns)\$' && ! grep -q 'irq_rows' '$tmp/gate.txt'"

exit "$fail"
