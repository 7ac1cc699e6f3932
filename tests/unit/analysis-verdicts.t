#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbstat's verdict rates on synthetic runs with known effects (seeds
# 1..N of tests/fixtures/analysis/synth.pl, 25 samples a boot), and the
# inputs it must refuse. The thresholds are the ones issue 9 set; the
# rates before and after the boot-aware rule are in analysis/README.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl
build_kbstat

echo "1..22"

# rate NSEEDS SETTINGS...: the counts line of rates.sh
rate() {
	"$top/tests/fixtures/analysis/rates.sh" "$kbstat" "$tmp" "$@"
}
# total COUNTS FIELD [FIELD2]: the sum of the named counts
total() {
	local s
	s=$(field "$2" "$1")
	if [ $# -gt 2 ]; then s=$((s + $(field "$3" "$1"))); fi
	echo "$s"
}
# atleast DESC COUNTS MIN FIELD [FIELD2]: the counts' sum >= MIN
atleast() {
	local got
	got=$(total "$2" "${@:4}")
	if [ "$got" -ge "$3" ]; then ok 0 "$1 ($got)"; else ok 1 "$1 ($got)"; diag "$2"; fi
}
# atmost DESC COUNTS MAX FIELD [FIELD2]: the counts' sum <= MAX
atmost() {
	local got
	got=$(total "$2" "${@:4}")
	if [ "$got" -le "$3" ]; then ok 0 "$1 ($got)"; else ok 1 "$1 ($got)"; diag "$2"; fi
}

r=$(rate 20 cv=0.005)
atleast "A/A, CV 0.5 %, 3 boots: same in >= 19/20" "$r" 19 same
r=$(rate 20 bootsd=0.02 cv=0.001)
atmost "boot offsets SD 2 %, no effect, 3 boots: better/worse in <= 1/20" "$r" 1 better worse
r=$(rate 20 bootsd=0.02 cv=0.001 boots=1)
atleast "the same with 1 boot a side: insufficient data in 20/20" "$r" 20 insufficient
r=$(rate 10 effect=0.03 cv=0.003)
atleast "3 % slowdown, CV 0.3 %: worse in 10/10" "$r" 10 worse
r=$(rate 10 effect=0.02 cv=0.005)
atleast "2 % slowdown, CV 0.5 %: worse in >= 9/10" "$r" 9 worse
atleast "2 % slowdown: the 95 % ratio CI contains 1.02 in >= 9/10" "$r" 9 ci_has_true
r=$(rate 10 effect=0.05 bootsd=0.02 boots=5)
atleast "5 % slowdown, boot SD 2 %, 5 boots: worse in >= 8/10" "$r" 8 worse
r=$(rate 10 effect=0.005 cv=0.02)
atmost "0.5 % shift at CV 2 %: worse in <= 1/10" "$r" 1 worse
# Seed 8 draws 33 of the 75 baseline samples in the high mode (44 %,
# a 0.6 % event at P = 0.3): there the median itself can jump a mode and
# "inconclusive" is the right answer, so 9 of 10 seeds say "same".
r=$(rate 10 bimodal=0.03,0.3 cv=0.003)
atleast "bimodal noise (modes 3 % apart, P 0.3), same both sides: same in >= 9/10" "$r" 9 same
atmost "bimodal noise: better/worse in 0/10" "$r" 0 better worse
r=$(rate 10 zeros=0.5)
atleast "count metric, 50 % zeros: finite CI bracketing the estimate in 10/10" "$r" 10 finite_bracket
atmost "count metric, 50 % zeros: no undefined verdict" "$r" 0 other

# One comparison: what an inconclusive row says.
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/inc" seed=3 effect=0.005 cv=0.02
"$kbstat" compare "$tmp/inc" --base baseline --new patched --out "$tmp/inc.json" 2>/dev/null
"$kbstat" summary "$tmp/inc.json" >"$tmp/inc.txt"
check "inconclusive: summary.txt names it and says run with BOOTS=N" \
	bash -c "sed -n '/^undecided, and what would settle it:/,/^\$/p' '$tmp/inc.txt' | tr -s ' \n' ' ' |
		grep -Eq ' synth vcpus=1 latency: inconclusive 90% interval .* straddles the floor .*BOOTS=[0-9]+'"
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/one" seed=3 boots=2
"$kbstat" compare "$tmp/one" --base baseline --new patched --out "$tmp/one.json" 2>/dev/null
check "2 boots a side: insufficient data, medians and CI still given" \
	jq -e '.results[0] | .verdict == "insufficient data" and (.why | test("BOOTS=3")) and (.base.median | type) == "number" and (.estimate_ci_lo | type) == "number"' "$tmp/one.json"
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/per" seed=3 samples=1
"$kbstat" compare "$tmp/per" --base baseline --new patched --out "$tmp/per.json" 2>/dev/null
check "3 boots of one sample each (a per-run metric): the boots that give 5 samples, BOOTS=5" \
	jq -e '.results[0] | .verdict == "insufficient data" and (.why | test("BOOTS=5 or more"))' "$tmp/per.json"
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/z" seed=2 zeros=0.5
"$kbstat" floor "$tmp/z" --a baseline --b patched --out "$tmp/zf.json" 2>/dev/null
check "floor of a count metric: a number, difference scale, not dropped" \
	jq -e '.floors[0] | .scale == "difference" and (.floor | type) == "number" and .floor >= 0.01' "$tmp/zf.json"

# Input that is wrong is an error naming file:line, exit != 0.
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/ok" seed=1
# refuse NAME PATTERN: compare on $tmp/bad fails and stderr matches
refuse() {
	if "$kbstat" compare "$tmp/bad" --base baseline --new patched >/dev/null 2>"$tmp/bad.err"; then
		ok 1 "$1: refused"
	elif grep -q "$2" "$tmp/bad.err"; then
		ok 0 "$1: refused, names it"
	else
		ok 1 "$1: refused, names it"
		diag "$(cat "$tmp/bad.err")"
	fi
}
csv=raw/baseline/b01/synth.csv
fresh() { rm -rf "$tmp/bad"; cp -r "$tmp/ok" "$tmp/bad"; }
fresh
perl -pi -e 's/,icount,2,/,icount,2\0,/ if $. == 3' "$tmp/bad/$csv"
refuse "NUL byte in a line" "$csv:3: NUL byte"
fresh
head -1 "$tmp/ok/$csv" >"$tmp/bad/$csv"
refuse "header-only CSV" "$csv:1: header only"
fresh
sed -i '4s/,[^,]*$/,0x3e8/' "$tmp/bad/$csv"
refuse "hex value" "$csv:4: value '0x3e8' is not a plain decimal number"
fresh
sed -i '5s/,\([^,]*\)$/, \1/' "$tmp/bad/$csv"
refuse "space-padded value" "$csv:5: value ' [0-9.]*' is not a plain decimal number"
fresh
cp "$tmp/ok/$csv" "$tmp/bad/raw/baseline/synth.csv"
refuse "CSV outside a boot directory" "raw/baseline/synth.csv: CSV outside a boot directory"
fresh
mkdir "$tmp/bad/raw/patched/b09"
refuse "empty boot directory" "raw/patched/b09: boot directory with no \*.csv"

exit "$fail"
