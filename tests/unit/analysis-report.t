#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# analysis/report.sh on a fixture run: every file is written, the SVGs
# are real gnuplot output and valid XML, the page is self-contained and
# states the clock and the floor. And every analysis script passes shellcheck.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot shellcheck
build_kbstat

# well-formed XML: xmllint if present, else python's parser
xml_ok() {
	if command -v xmllint >/dev/null; then
		xmllint --noout "$1"
	else
		python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1"
	fi
}

echo "1..22"

run=$tmp/run
gen report "$run"
check "report.sh succeeds" env KBSTAT="$kbstat" "$top/analysis/report.sh" "$run"
for f in index.html summary.txt summary.md results.json; do
	check "$f written, non-empty" test -s "$run/$f"
done
check "results.json is valid JSON with 17 comparisons, irq latency primary" \
	jq -e '(.results | length == 17) and ([.results[] | select(.primary) | .workload + "/" + .metric] | unique == ["irq/latency", "lookup/ops"])' "$run/results.json"
check "a ratio chart per workload" test -s "$run/chart-ratio-lookup.svg" -a -s "$run/chart-ratio-irq.svg"
check "scaling charts for the numeric parameters n and vcpus" \
	test -s "$run/chart-scaling-lookup-ops-n.svg" -a -s "$run/chart-scaling-irq-latency-vcpus.svg"
# decade tics 10, 100, 1000 only appear on a log axis from 1 to 4096; the
# medians (1.07e6 to 1e7) span less than a decade: a linear y axis
check "scaling over n: log x, linear y" bash -c "grep -q '> 100</text>' '$run/chart-scaling-lookup-ops-n.svg' &&
	grep -q '> 1000</text>' '$run/chart-scaling-lookup-ops-n.svg' &&
	grep -q '> 3e+06</text>' '$run/chart-scaling-lookup-ops-n.svg'"
check "headline charts of the primary metrics" \
	test -s "$run/chart-primary-irq-latency.svg" -a -s "$run/chart-primary-lookup-ops.svg"
check "no chart of the informational metric, no headline chart of the non-primary one" \
	bash -c "! ls '$run' | grep -q -e 'rows' -e 'chart-primary-irq-cycles'"
check "index.html opens with the headline: primary rows, then its chart, before the full table" \
	bash -c "awk '/<h2 id=\"headline\">/ { h = NR } /<section class=\"headline\" id=\"headline-irq\">/ { s = NR }
		/<td>latency \\(ns\\)<\/td>/ && !l { l = NR } /<figure id=\"chart-primary-irq-latency\">/ { f = NR }
		/<h2>Results/ { r = NR } END { exit !(h && h < s && s < l && l < f && f < r) }' '$run/index.html' &&
		! sed -n '/<section class=\"headline\" id=\"headline-irq\">/,/<\/section>/p' '$run/index.html' | grep -q cycles"
check "summary.txt: primary metrics, then the other judged ones, informational last" \
	bash -c "awk '/^primary metrics:/ { p = NR } /^irq .* latency/ && !l { l = NR } /^other metrics:/ { o = NR }
		/^irq .* cycles/ && !c { c = NR } /^informational/ { i = NR } END { exit !(p < l && l < o && o < c && c < i) }' '$run/summary.txt'"
check "box plots per workload/variant/metric" \
	test -s "$run/chart-box-lookup-htab-ops.svg" -a -s "$run/chart-box-lookup-rhash-ops.svg" -a -s "$run/chart-box-irq-latency.svg"
bad=0
for svg in "$run"/chart-*.svg; do
	if ! xml_ok "$svg" >"$tmp/xml.log" 2>&1; then
		bad=1
		echo "# $svg:"
		sed 's/^/# /' "$tmp/xml.log"
	fi
done
ok "$bad" "every SVG is well-formed XML ($(find "$run" -name 'chart-*.svg' | wc -l) charts)"
check "index.html inlines every chart, with no XML prolog and no external reference" \
	bash -c "[ \$(grep -c '<svg' '$run/index.html') = \$(find '$run' -name 'chart-*.svg' | wc -l) ] &&
		! grep -q '<?xml' '$run/index.html' && ! grep -Eq '<(img|link|script)[ >]' '$run/index.html'"
check "index.html states the clock and the default floor" \
	bash -c "grep -q 'Clock: <b>icount</b>' '$run/index.html' && grep -q 'minimum effect 1 %' '$run/index.html'"
check "no temp files left in the run" bash -c "! ls -a '$run' | grep -Eq '^\\.report|\\.tmp'"

# FLOOR= is used and stated
"$kbstat" floor "$run" --a baseline --b patched --out "$tmp/floor.json" 2>/dev/null
check "FLOOR=file: report uses and states it" \
	bash -c "KBSTAT='$kbstat' FLOOR='$tmp/floor.json' '$top/analysis/report.sh' '$run' 2>/dev/null &&
		grep -q 'noise floor from $tmp/floor.json' '$run/index.html' &&
		jq -e '.floor_file == \"$tmp/floor.json\"' '$run/results.json' >/dev/null"

# a gnuplot that "succeeds" but writes no SVG: an error naming the chart
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/gnuplot" <<'FAKE'
#!/bin/sh
out=$(sed -n 's/^set output "\(.*\)"$/\1/p' "$1")
echo "not an svg" >"$out"
FAKE
chmod +x "$tmp/fakebin/gnuplot"
gen slow "$tmp/run2"
if PATH="$tmp/fakebin:$PATH" KBSTAT="$kbstat" "$top/analysis/report.sh" "$tmp/run2" 2>"$tmp/fake.err"; then
	ok 1 "non-SVG gnuplot output: report fails"
else
	ok 0 "non-SVG gnuplot output: report fails"
fi
check "non-SVG gnuplot output: error names the chart, no index.html" \
	bash -c "grep -q 'chart chart-primary-demo-latency: .* is not an SVG' '$tmp/fake.err' && [ ! -e '$tmp/run2/index.html' ]"

check "shellcheck passes on analysis/*.sh and the analysis tests" \
	shellcheck -x "$top"/analysis/*.sh "$top"/tests/unit/analysis-*.t "$top/tests/fixtures/analysis/lib.sh"

exit "$fail"
