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

echo "1..18"

run=$tmp/run
gen report "$run"
check "report.sh succeeds" env KBSTAT="$kbstat" "$top/analysis/report.sh" "$run"
for f in index.html summary.txt summary.md results.json; do
	check "$f written, non-empty" test -s "$run/$f"
done
check "results.json is valid JSON with 11 comparisons" \
	jq -e '.results | length == 11' "$run/results.json"
check "a ratio chart per workload" test -s "$run/chart-ratio-lookup.svg" -a -s "$run/chart-ratio-irq.svg"
check "scaling charts for the numeric parameters n and vcpus" \
	test -s "$run/chart-scaling-lookup-ops-n.svg" -a -s "$run/chart-scaling-irq-latency-vcpus.svg"
# decade tics 10, 100, 1000 only appear on a log axis from 1 to 4096
check "scaling over n is log-log" bash -c "grep -q '> 100</text>' '$run/chart-scaling-lookup-ops-n.svg' &&
	grep -q '> 1e+06</text>' '$run/chart-scaling-lookup-ops-n.svg'"
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
	bash -c "grep -q 'chart chart-ratio-demo: .* is not an SVG' '$tmp/fake.err' && [ ! -e '$tmp/run2/index.html' ]"

check "shellcheck passes on analysis/*.sh and the analysis tests" \
	shellcheck -x "$top"/analysis/*.sh "$top"/tests/unit/analysis-*.t "$top/tests/fixtures/analysis/lib.sh"

exit "$fail"
