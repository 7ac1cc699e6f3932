#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A regression check's report leads with its gate (kbstat gate, through
# analysis/report.sh on a run with revisions.txt): PASS or REGRESSION on
# the first line of summary.txt, summary.md and index.html; every failed
# row with NEW vs OLD and NEW vs baseline; the undecided rows with what
# settles them; the series behind NEW and OLD. kbstat gate's verdict on
# each kind of row; and on the stored runs of tests/fixtures/gate, the
# verdict and text it gave when they were stored, byte for byte.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
build_kbstat

echo "1..40"

# regress_run DIR EFFECT [synth.pl settings...]: a regression check's
# run as regress.sh leaves it before the report: raw/{baseline,old,new},
# revisions.txt, series.tsv, new-vs-baseline.json; NEW is EFFECT slower
# than OLD and than the baseline.
regress_run() {
	local d=$1 e=$2
	shift 2
	perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/s1" seed=4 cv=0.003 effect="$e" "$@"
	perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/s2" seed=5 cv=0.003 "$@"
	mkdir -p "$d/raw"
	mv "$tmp/s1/raw/baseline" "$d/raw/old"
	mv "$tmp/s1/raw/patched" "$d/raw/new"
	mv "$tmp/s2/raw/baseline" "$d/raw/baseline"
	cp "$tmp/s1/fingerprint.json" "$d/" 2>/dev/null || true
	rm -rf "$tmp/s1" "$tmp/s2"
	printf 'NEW=/x/new-series (new)\nOLD=kernel/series (patched)\nREF=\n' >"$d/revisions.txt"
	printf 'NEW\t/x/new-series\tnew\t5\t0123456789abcdef0123\nOLD\tkernel/series\tpatched\t4\tfedcba9876543210fedc\nbaseline\tlinux-source-6.12 6.12.57-1\tbaseline\t0\t00aa11bb22cc33dd\n' \
		>"$d/series.tsv"
	"$kbstat" compare "$d" --base baseline --new new --out "$d/new-vs-baseline.json" 2>/dev/null
}
report() {
	KBSTAT=$kbstat "$top/analysis/report.sh" "$1" >/dev/null 2>"$tmp/report.err" || {
		sed 's/^/# /' "$tmp/report.err"
		return 1
	}
}
# the widest line of a file
width() {
	awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$1"
}

# ---- NEW 5 % slower than OLD: REGRESSION first ----
r=$tmp/slow
regress_run "$r" 0.05
check "report.sh writes a regression check's report" report "$r"
is "summary.txt: the first line is the gate's verdict" \
	"$(head -n 1 "$r/summary.txt")" "REGRESSION: NEW is worse than OLD in 1 metric"
is "summary.md: the first line is the gate's verdict" \
	"$(head -n 1 "$r/summary.md")" "# REGRESSION: NEW is worse than OLD in 1 metric"
check "index.html: the title and the first heading say REGRESSION" \
	bash -c "grep -q '<title>REGRESSION: ' '$r/index.html' &&
		[ \"\$(grep -o '<h[1-3][^>]*>[^<]*' '$r/index.html' | head -n 1)\" = \
		'<h1 class=\"gate-REGRESSION\" id=\"gate\">REGRESSION: NEW is worse than OLD in 1 metric' ]"
check "index.html: not titled 'new vs old', and the gate comes before the headline" \
	bash -c "! grep -q '<h1>kbench: new vs old' '$r/index.html' &&
		awk '/id=\"gate\"/ { g = NR } /id=\"headline\"/ { h = NR } END { exit !(g && h && g < h) }' '$r/index.html'"
sed -n '/^Failed the gate/,/^$/p' "$r/summary.txt" >"$tmp/failed.txt"
diag "$(cat "$tmp/failed.txt")"
check "the failed row: workload, point, metric, then NEW vs OLD with its interval" \
	bash -c "grep -q '^  synth  vcpus=1  latency (ns)\$' '$tmp/failed.txt' &&
		grep -Eq '^    NEW vs OLD: +ratio 1\\.0[45][0-9]* \\[1\\.0[0-9]+, 1\\.0[0-9]+\\]  worse, lower is better\$' '$tmp/failed.txt'"
check "... and the same row of NEW against the baseline" \
	grep -Eq '^    NEW vs baseline: ratio 1\.0[45][0-9]* \[1\.0[0-9]+, 1\.0[0-9]+\]  worse$' "$tmp/failed.txt"
sed -n '/^Series:/,/^$/p' "$r/summary.txt" >"$tmp/series.txt"
check "the series behind NEW and OLD: path, label, patch count, cache key" \
	bash -c "grep -q '^  NEW: /x/new-series (label new, 5 patches, cache key 0123456789ab)\$' '$tmp/series.txt' &&
		grep -q '^  OLD: kernel/series (label patched, 4 patches, cache key fedcba987654)\$' '$tmp/series.txt'"
check "index.html: the gate's rows and series in the first section" \
	bash -c "sed -n '/id=\"gate\"/,/<\\/pre>/p' '$r/index.html' | grep -q 'NEW vs baseline: ratio' &&
		sed -n '/id=\"gate\"/,/<\\/pre>/p' '$r/index.html' | grep -q 'NEW: /x/new-series'"
"$kbstat" gate "$r/results.json" --baseline "$r/new-vs-baseline.json" --series "$r/series.tsv" >"$tmp/gate.txt" || true
is "the gate's text fits 80 columns" "$(( $(width "$tmp/gate.txt") <= 80 ))" 1

# ---- NEW as fast as OLD, one boot a side: PASS, undecided listed ----
r=$tmp/same
regress_run "$r" 0 boots=1
check "report.sh on a passing check" report "$r"
is "summary.txt: PASS first" "$(head -n 1 "$r/summary.txt")" \
	"PASS: no metric of NEW is worse than OLD (some undecided, below)"
check "index.html: the title and first heading say PASS" \
	bash -c "grep -q '<title>PASS: ' '$r/index.html' && grep -q '<h1 class=\"gate-PASS\" id=\"gate\">PASS: ' '$r/index.html'"
sed -n '/^Undecided/,/^$/p' "$r/summary.txt" >"$tmp/und.txt"
diag "$(cat "$tmp/und.txt")"
check "the undecided row and what would settle it (BOOTS=3)" \
	bash -c "grep -q '^  synth  vcpus=1  latency (ns): insufficient data\$' '$tmp/und.txt' &&
		grep -q 'run with BOOTS=3 or more' '$tmp/und.txt'"
is "no 'Failed the gate' section on a pass" "$(grep -c '^Failed the gate' "$r/summary.txt" || true)" 0

# ---- rows that share a reason give it once ----
r=$tmp/many
regress_run "$r" 0 boots=1 variants=hash,rhash points='vcpus=1;n=1|vcpus=1;n=2'
report "$r"
sed -n '/^Undecided/,/^$/p' "$r/summary.txt" >"$tmp/und4.txt"
is "four undecided rows with one reason: the rows, the reason once" \
	"$(grep -c ': insufficient data$' "$tmp/und4.txt") $(grep -c 'BOOTS=3' "$tmp/und4.txt")" "4 1"

# ---- a plain bench-compare run has no gate ----
gen report "$tmp/plain"
report "$tmp/plain"
check "no revisions.txt: no gate, the page is 'patched vs baseline'" \
	bash -c "! grep -q 'PASS\\|REGRESSION' '$tmp/plain/summary.txt' && grep -q '<h1>kbench: patched vs baseline</h1>' '$tmp/plain/index.html'"

# ---- kbstat gate's verdict on each kind of row ----
# verdict NAME RESULTS WANT: kbstat gate exits WANT (0 PASS, 1 REGRESSION);
# its text in $tmp/kg.txt
verdict() {
	local a=0
	"$kbstat" gate "$2" >"$tmp/kg.txt" 2>&1 || a=$?
	is "$1: kbstat gate exits $3" "$a" "$3"
}
verdict "worse" "$tmp/slow/results.json" 1
verdict "undecided" "$tmp/same/results.json" 0
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/ab" seed=11 variants=hash,rhash absent=baseline:rhash
"$kbstat" compare "$tmp/ab" --base baseline --new patched --out "$tmp/ab.json" 2>/dev/null
verdict "absent on OLD" "$tmp/ab.json" 0
jq '(.results[] | select(.verdict == "n/a")).absent = "new"' "$tmp/ab.json" >"$tmp/lost.json"
verdict "absent on NEW" "$tmp/lost.json" 1
check "absent on NEW: named in the gate's text" grep -q 'ABSENT on NEW, which OLD ran: ' "$tmp/kg.txt"
jq '.failed_boots = [{"kernel":"new","boot":"b04","vcpus":"1","attempt":"0","exit":"4","reason":"kernel panic","serial_log":"/p"}]' \
	"$tmp/same/results.json" >"$tmp/crash.json"
verdict "NEW crashes where OLD does not" "$tmp/crash.json" 1
check "a crash of NEW is named in the gate's text" grep -q 'NEW fails to boot or crashes: b04' "$tmp/kg.txt"

# ---- stored runs: the verdict and the text they had when stored ----
# tests/fixtures/gate/cases.tsv: name, results, exit, arguments; the
# expected texts NAME.txt and NAME.md beside it (its README)
fx=$top/tests/fixtures/gate
while IFS=$'\t' read -r name res want args; do
	case $name in '#'* | '') continue ;; esac
	read -ra argv <<<"$args"
	got=
	for fmt in txt md; do
		rc=0
		(cd "$fx" && "$kbstat" gate "$res" "${argv[@]}" --format "$fmt") \
			>"$tmp/fx.$fmt" 2>"$tmp/fx.err" || rc=$?
		got="$got${got:+ }$rc"
		[ ! -s "$tmp/fx.err" ] || diag "$name ($fmt): $(cat "$tmp/fx.err")"
	done
	is "stored run $name: kbstat gate exits $want, as when stored (txt, md)" "$got" "$want $want"
	if cmp -s "$tmp/fx.txt" "$fx/$name.txt" && cmp -s "$tmp/fx.md" "$fx/$name.md"; then
		ok 0 "stored run $name: the gate's text is the stored one (txt, md)"
	else
		ok 1 "stored run $name: the gate's text is the stored one (txt, md)"
		diag "$(diff -u "$fx/$name.txt" "$tmp/fx.txt"; diff -u "$fx/$name.md" "$tmp/fx.md")"
	fi
done <"$fx/cases.tsv"

exit "$fail"
