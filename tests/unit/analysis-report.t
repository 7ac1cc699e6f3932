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

echo "1..38"

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
# decade tics 10, 100, 1000 only appear on a log axis from 1 to 4096; x
# spans more than two decades, so y is logarithmic too (issue 37), though
# the medians (1.07e6 to 1e7) span less than a decade: tics 1e+06, 1e+07
# and no linear 3e+06
check "scaling over n: x over two decades, log-log" bash -c "grep -q '> 100</text>' '$run/chart-scaling-lookup-ops-n.svg' &&
	grep -q '> 1000</text>' '$run/chart-scaling-lookup-ops-n.svg' &&
	grep -q '> 1e+07</text>' '$run/chart-scaling-lookup-ops-n.svg' &&
	! grep -q '> 3e+06</text>' '$run/chart-scaling-lookup-ops-n.svg'"
check "headline charts of the primary metrics" \
	test -s "$run/chart-primary-irq-latency.svg" -a -s "$run/chart-primary-lookup-ops.svg"
check "no chart of the informational metric, no headline chart of the non-primary one" \
	bash -c "! ls '$run' | grep -q -e 'rows' -e 'chart-primary-irq-cycles'"
check "index.html opens with the headline: primary rows, then its chart, before the full table" \
	bash -c "awk '/<h2 id=\"headline\">/ { h = NR } /<section class=\"headline\" id=\"headline-irq\">/ { s = NR }
		/<caption>latency \\(ns\\): lower is better<\/caption>/ && !l { l = NR } /<figure id=\"chart-primary-irq-latency\">/ { f = NR }
		/<h2>Results/ { r = NR } END { exit !(h && h < s && s < l && l < f && f < r) }' '$run/index.html' &&
		! sed -n '/<section class=\"headline\" id=\"headline-irq\">/,/<\/section>/p' '$run/index.html' | grep -q cycles"
check "summary.txt: primary metrics, then the other judged ones, informational last" \
	bash -c "awk '/^irq: latency/ && !l { l = NR } /^other metrics:/ { o = NR }
		/^irq: cycles/ && !c { c = NR } /^informational/ { i = NR } END { exit !(l && l < o && o < c && c < i) }' '$run/summary.txt'"
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

# ---- the mail text and the answer first (issue 29) ----
# rhash absent on the baseline, 25 % faster than hash on the patched
# kernel; long points; a per-run metric (one sample a boot); a table.
m=$tmp/mail
gen_variants "$m"
check "report.sh on a run with absent variants, a table and a per-run metric" \
	env KBSTAT="$kbstat" "$top/analysis/report.sh" "$m"
wide=$(awk 'length($0) > 80 { n++ } END { print n + 0 }' "$m/summary.txt")
is "summary.txt: no line wider than 80 columns" "$wide" 0
[ "$wide" = 0 ] || diag "$(awk 'length($0) > 80' "$m/summary.txt" | head -n 5)"
check "summary.txt: the answer first, the primary rows, then the cover table with its clock note, before the rest" \
	awk '/^synth\/hash: latency/ && !h { h = NR } /^synth: rhash vs hash on patched/ { c = NR }
		/^clock icount: / && !k { k = NR } /^other metrics:|^n\/a|^one sample a boot|^ratio = median\(patched\).*with a 95/ && !r { r = NR }
		END { exit !(h && h < c && c < k && k < r) }' "$m/summary.txt"
check "summary.md: the cover table after the primary rows, before the notes" \
	awk '/^\| synth\/hash \|/ && !h { h = NR } /^### synth: rhash vs hash on patched/ { c = NR }
		/^- ratio = median\(patched\)/ && !r { r = NR } END { exit !(h && h < c && c < r) }' "$m/summary.md"
is "summary.txt: the n/a rows collapse into one line per workload, variant and reason" \
	"$(grep -c '^  synth/rhash, 4 points (8 rows): absent on baseline: map_create' "$m/summary.txt")" 1
is "summary.txt: no 'insufficient data' row for the per-run metric" \
	"$(grep -c 'run_task_clock_ms.*insufficient\|insufficient.*run_task_clock_ms' "$m/summary.txt" || true)" 0
check "summary.txt: the per-run metric said once, with the boots a verdict needs" \
	bash -c "sed -n '1,/^kbench: variant/p' '$m/summary.txt' >'$tmp/kernels.txt' &&
		[ \$(grep -c '^  synth run_task_clock_ms: 3 boots a side' '$tmp/kernels.txt') = 1 ] &&
		[ \$(grep -c 'run_task_clock_ms' '$tmp/kernels.txt') = 1 ] && grep -q 'BOOTS=5' '$tmp/kernels.txt'"
check "summary.txt: the shared parameter in the title, a point too wide for its row on a line of its own" \
	bash -c "grep -q '^synth/hash: latency (ns, lower is better, icount) at vcpus=1\$' '$m/summary.txt' &&
		grep -q '^  key_size=8;max_entries=1024;fill=100\$' '$m/summary.txt'"
check "index.html: the headline of synth holds the cover table with its clock note" \
	bash -c "sed -n '/<section class=\"headline\" id=\"headline-synth\">/,/<\/section>/p' '$m/index.html' |
		tr '\n' ' ' | grep -q '<pre class=\"cover\"> *synth: rhash vs hash on patched.*clock icount: '"
check "the variant comparison is charted: its ratio per point with its interval, in its section" \
	bash -c "grep -q 'synth: rhash / hash on patched, median ratio with 95% CI, clock icount' '$m/chart-variants-patched-rhash-vs-hash-ratio-synth.svg' &&
		sed -n '/<h2 id=\"variants\">/,/<h2>Informational/p' '$m/index.html' | grep -q '<figure id=\"chart-variants-patched-rhash-vs-hash-ratio-synth\">'"
# boot-effect warnings: kept where the verdict is undecided only
bw='between-boot spread > 2x within-boot spread, Kruskal-Wallis p < 0.01 across boots (boot effect: add boots)'
jq --arg bw "$bw" '.warnings += ["synth/hash/vcpus=1;key_size=8;max_entries=1024;fill=100/latency: patched: " + $bw]
	| (.results[] | select(.variant == "hash" and .metric == "latency" and (.point | test("key_size=8;max_entries=1024;")))).verdict = "same"
	| .warnings += ["synth/hash/vcpus=1;key_size=64;max_entries=1024;fill=100/latency: baseline: " + $bw]
	| (.results[] | select(.variant == "hash" and .metric == "latency" and (.point | test("key_size=64;max_entries=1024;")))).verdict = "inconclusive"' \
	"$m/results.json" >"$tmp/warn.json"
"$kbstat" summary "$tmp/warn.json" --run "$m" >"$tmp/warn.txt"
check "summary.txt: a boot-effect warning on an undecided row is kept, grouped under its workload" \
	bash -c "sed -n '/^warnings:/,/^\$/p' '$tmp/warn.txt' | tr -s ' \n' ' ' | grep -q '^warnings: synth: hash/vcpus=1;key_size=64;max_entries=1024;fill=100/latency: baseline: between-boot'"
check "... one on a decided row is left out, and counted" \
	bash -c "! grep -q 'key_size=8;max_entries=1024;fill=100/latency: patched' '$tmp/warn.txt' &&
		grep -q '1 boot-effect warning on decided rows left out' '$tmp/warn.txt'"
# one row, one number of digits: the wider interval decides both medians
jq '(.results[] | select(.variant == "hash" and .metric == "latency" and (.point | test("key_size=8;max_entries=1024;"))))
	|= (.base.median = 908.123 | .base.ci_lo = 900 | .base.ci_hi = 916
	| .new.median = 1012.04 | .new.ci_lo = 1011.9 | .new.ci_hi = 1012.1)' "$m/results.json" >"$tmp/digits.json"
"$kbstat" summary "$tmp/digits.json" --run "$m" >"$tmp/digits.txt"
check "summary.txt: both medians of a row at the digits of the wider interval (908.1 and 1012.0, not 1012.04)" \
	grep -Eq '^ +908\.1 +1012\.0 +' "$tmp/digits.txt"

# ---- charts: categories are not joined by lines; captions say what ----
# sloped SVG: segments of the data paths (gnuplot_plot_N groups) whose
# two ends differ in x and in y; error bars, their ticks and the key's
# sample are vertical or horizontal, a line joining two points is not.
sloped() {
	perl -0777 -ne 'my $n = 0;
		for my $g (split /<g id="gnuplot_plot_/) {
			next unless $g =~ /^\d+"/;
			for my $d ($g =~ /\sd=.([^"\x27]*)/g) {
				my @p;
				while ($d =~ /([ML])\s*([-\d.]+),([-\d.]+)/g) {
					$n++ if $1 eq "L" && @p && $2 != $p[0] && $3 != $p[1];
					@p = ($2, $3);
				}
			}
		}
		print "$n\n"' "$1"
}
c=$tmp/cat
perl "$top/tests/fixtures/analysis/synth.pl" "$c" seed=3 effect=0.02 points='cmd=array_create|cmd=map_create|cmd=prog_load'
KBSTAT=$kbstat "$top/analysis/report.sh" "$c" 2>/dev/null
is "categorical points (cmd=...): the primary chart joins no two categories by a line" \
	"$(sloped "$c/chart-primary-synth-latency.svg")" 0
check "... while a numeric parameter's chart is a line (the detector sees lines)" \
	test "$(sloped "$run/chart-scaling-lookup-ops-n.svg")" -gt 0
check "no chart is captioned with its file name; each caption and title names the clock" \
	bash -c "! grep -q '<figcaption>[^<]*\.svg</figcaption>' '$run/index.html' '$c/index.html' &&
		[ \$(grep -c '<figcaption>[^<]*(clock icount)</figcaption>' '$c/index.html') = 3 ] &&
		grep -q 'synth: latency, median with 95% CI, baseline and patched, clock icount' '$c/chart-primary-synth-latency.svg'"

check "shellcheck passes on analysis/*.sh and the analysis tests" \
	shellcheck -x "$top"/analysis/*.sh "$top"/tests/unit/analysis-*.t "$top/tests/fixtures/analysis/lib.sh"

exit "$fail"
