#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbstat compare/floor/summary on generated fixture runs: an injected 5 %
# slowdown, an A/A run, too few samples, corrupt lines; and fpdiff.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl
build_kbstat

echo "1..24"

for k in slow aa small; do
	gen "$k" "$tmp/$k"
	"$kbstat" compare "$tmp/$k" --base baseline --new patched \
		--out "$tmp/$k.json" 2>"$tmp/$k.err"
done
r() {
	jq -r ".results[0].$2" "$tmp/$1.json"
}

# 5 % slower, lower is better, 3 boots x 10 samples, 0.5 % noise
is "5 % slowdown: verdict worse" "$(r slow verdict)" worse
near "5 % slowdown: ratio ~1.05" "$(r slow ratio)" 1.05 0.005
check "5 % slowdown: ratio CI excludes 1 and brackets the ratio" \
	jq -e '.results[0] | .ratio_ci_lo > 1 and .ratio_ci_lo <= .ratio and .ratio <= .ratio_ci_hi' "$tmp/slow.json"
is "5 % slowdown: 30 samples in 3 boots per side" \
	"$(r slow base.n) $(r slow base.boots) $(r slow new.n)" "30 3 30"
is "5 % slowdown: the test matches the unit (Welch on boot medians / Mann-Whitney on samples)" \
	"$(jq -r '.results[0] | if .decision_unit == "boot" then (.p_method == "welch-boot-medians") else (.p_method | startswith("mwu-")) end' "$tmp/slow.json")" true
check "5 % slowdown: BH p < 0.01, clock icount, default floor 1 %" \
	jq -e '.results[0] | .p_adj < 0.01 and .clock == "icount" and .min_effect == 0.01 and .floor_source == "default"' "$tmp/slow.json"
is "A/A: verdict same" "$(r aa verdict)" same
near "A/A: ratio ~1" "$(r aa ratio)" 1 0.005
is "n=3: insufficient data" "$(r small verdict)" "insufficient data"
is "n=3: no p-value" "$(r small p)" null

# reproducible: same seed, same bytes
"$kbstat" compare "$tmp/slow" --base baseline --new patched --out "$tmp/slow2.json" 2>/dev/null
check "results.json identical across two runs (fixed seed)" cmp "$tmp/slow.json" "$tmp/slow2.json"

# a bigger noise floor than the effect turns "worse" into "same"
jq '.floors[0].floor = 0.06' <("$kbstat" floor "$tmp/aa" --a baseline --b patched 2>/dev/null) >"$tmp/big-floor.json"
"$kbstat" compare "$tmp/slow" --base baseline --new patched --floor "$tmp/big-floor.json" \
	--out "$tmp/slow-fl.json" 2>/dev/null
is "floor 6 % > 5 % effect: verdict same" "$(r slow-fl verdict)" same
"$kbstat" floor "$tmp/aa" --a baseline --b patched --out "$tmp/floor.json" 2>/dev/null
check "A/A floor: kind kbench-floor, floor >= 0.01 and >= |ratio-1|" \
	jq -e '.kind == "kbench-floor" and (.floors[0] | .floor >= 0.01 and .floor >= (.ratio - 1 | fabs))' "$tmp/floor.json"
"$kbstat" compare "$tmp/slow" --base baseline --new patched --floor "$tmp/floor.json" \
	--out "$tmp/slow-aa.json" 2>/dev/null
is "A/A floor used: still worse, floor source recorded" \
	"$(r slow-aa verdict) $(r slow-aa floor_source)" "worse floor file"

# corrupt lines: an error that names file:line, never a skip
gen corrupt "$tmp/corrupt"
if "$kbstat" compare "$tmp/corrupt" --base baseline --new patched >/dev/null 2>"$tmp/c.err"; then
	ok 1 "corrupt line (8 fields): compare fails"
else
	ok 0 "corrupt line (8 fields): compare fails"
fi
check "corrupt line: error names file:line" \
	grep -q "raw/patched/b02/demo.csv:6: 8 fields" "$tmp/c.err"
# shellcheck disable=SC2317 # called through check
bad_line() {
	rm -rf "$tmp/bad"
	cp -r "$tmp/slow" "$tmp/bad"
	sed -i "$2" "$tmp/bad/raw/baseline/b01/demo.csv"
	! "$kbstat" compare "$tmp/bad" --base baseline --new patched >/dev/null 2>"$tmp/bad.err" &&
		grep -q "raw/baseline/b01/demo.csv:$1: $3" "$tmp/bad.err"
}
check "non-numeric value: error at file:4" bad_line 4 '4s/,[^,]*$/,12abc/' "value '12abc' is not a plain decimal number"
check "unknown better: error at file:3" bad_line 3 '3s/,lower,/,smaller,/' "better is 'smaller'"
check "bad header: error at file:1" bad_line 1 '1s/value/val/' "header is not"
# shellcheck disable=SC2317
bad_label() {
	! "$kbstat" compare "$tmp/slow" --base baseline --new nope >/dev/null 2>"$tmp/l.err" &&
		grep -q "raw/nope: no such kernel label; the run has: baseline patched" "$tmp/l.err"
}
check "unknown kernel label: error lists the labels" bad_label

# summary tables
"$kbstat" summary "$tmp/slow.json" --format txt >"$tmp/s.txt"
"$kbstat" summary "$tmp/slow.json" --format md >"$tmp/s.md"
check "txt summary: the workload's metric, unit, direction and clock, then a 'worse' row with ratio [CI]" \
	bash -c "grep -q '^demo: latency (ns, lower is better, icount) at vcpus=1$' '$tmp/s.txt' &&
		grep -q '^ *baseline  *patched  *ratio \[95% CI\]  *verdict$' '$tmp/s.txt' &&
		grep -Eq '^ +[0-9.]+ +[0-9.]+ +1\.05[0-9]* \[1\.0[0-9]*, 1\.0[0-9]*\]  worse$' '$tmp/s.txt'"
check "md summary: a Markdown table with the same row" \
	bash -c "grep -q '^| workload | point | metric |' '$tmp/s.md' && grep -q '^| demo | vcpus=1 | latency (ns) |.*| worse | icount |$' '$tmp/s.md'"

# fingerprints: all but the kernels must match
fp=$tmp/slow/fingerprint.json
jq '.kernel.patched.sha = "other"' "$fp" >"$tmp/fp-k.json"
jq '.qemu_version = "9.0" | .kernel.x = 1' "$fp" >"$tmp/fp-q.json"
check "fpdiff: only the kernel differs -> exit 0" "$top/analysis/fpdiff.sh" "$fp" "$tmp/fp-k.json"
if "$top/analysis/fpdiff.sh" "$fp" "$tmp/fp-q.json" >"$tmp/fpd.out"; then
	ok 1 "fpdiff: qemu_version differs -> exit 1, field named"
else
	is "fpdiff: qemu_version differs -> exit 1, field named" \
		"$(cat "$tmp/fpd.out")" 'qemu_version: "7.2.0" != "9.0"'
fi

exit "$fail"
