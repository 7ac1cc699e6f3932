#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The report's charts draw every (variant, kernel) pair the data holds:
# on a bpf-attach-like run (fentry, kprobe_multi and tracing_multi at
# N = 1 .. 1000; tracing_multi absent on the baseline) the headline and
# scaling charts have a line for each of the five pairs that ran, the
# absent one is named in the legend, and x over two decades gives
# log-log axes. A control run whose x spans less than two decades keeps
# a linear y.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
build_kbstat

# attach_run DIR POINTS: three variants, tracing_multi absent on the baseline
attach_run() {
	perl "$top/tests/fixtures/analysis/synth.pl" "$1" seed=5 \
		variants=fentry,kprobe_multi,tracing_multi \
		vscale=kprobe_multi:0.5,tracing_multi:0.1 absent=baseline:tracing_multi \
		points="$2" metric=attach_ns_per_func,ns,lower
	mkdir -p "$1/workloads"
	printf '%s\n' 'name = synth' 'bench = bpf_attach' 'primary = attach_ns_per_func' \
		'variants = fentry kprobe_multi tracing_multi' 'base_variant = fentry' >"$1/workloads/synth.wl"
}

# series SVG: "SEGMENTS<TAB>TITLE" per plot of a gnuplot SVG; a plot with
# only its key sample (3 segments) drew no data
series() {
	awk '
	/<g id="gnuplot_plot_/ { g++; t[g] = ""; l[g] = 0; inp = 0; next }
	g && /<text>/ && t[g] == "" { s = $0; sub(/.*<text>/, "", s); sub(/<\/text>.*/, "", s); t[g] = s }
	g && /<path stroke=.black/ { g = 0 }
	g && /<path/ { inp = 1 }
	g && inp { l[g] += gsub(/L[0-9]/, "&"); if ($0 ~ /\/>/) inp = 0 }
	END { for (i = 1; i in t; i++) print l[i] "\t" t[i] }' "$1"
}

echo "1..11"

run=$tmp/run
attach_run "$run" 'vcpus=2;funcs=1|vcpus=2;funcs=10|vcpus=2;funcs=100|vcpus=2;funcs=1000'
check "report.sh on a run with tracing_multi absent on the baseline" \
	env KBSTAT="$kbstat" "$top/analysis/report.sh" "$run"

mkdir "$tmp/d"
"$kbstat" table primary "$run/results.json" --run "$run" --dir "$tmp/d" >"$tmp/primary.lst"
is "table primary: one data set per (variant, kernel) that ran, and the absent pair named" \
	"$(grep -v '^[0-9N]' "$tmp/d/chart-primary-synth-attach_ns_per_func.dat" | grep . | tr '\n' '|')" \
	"baseline fentry vcpus=2|baseline kprobe_multi vcpus=2|baseline tracing_multi: absent|patched fentry vcpus=2|patched kprobe_multi vcpus=2|patched tracing_multi vcpus=2|"
is "table primary: x over three decades: logx and logy" \
	"$(awk -F'\t' '$1 == "chart-primary-synth-attach_ns_per_func" { print $7, $9, $10, $11 }' "$tmp/primary.lst")" \
	"funcs 6 1 1"

svg=$run/chart-primary-synth-attach_ns_per_func.svg
series "$svg" >"$tmp/primary.series"
is "headline chart: six legend entries, in order" \
	"$(cut -f2 "$tmp/primary.series" | tr '\n' '|')" \
	"baseline fentry vcpus=2|baseline kprobe_multi vcpus=2|baseline tracing_multi: absent|patched fentry vcpus=2|patched kprobe_multi vcpus=2|patched tracing_multi vcpus=2|"
is "headline chart: a drawn line for each of the five pairs that ran, tracing_multi on patched included" \
	"$(awk -F'\t' '$1 > 3 { print $2 }' "$tmp/primary.series" | tr '\n' '|')" \
	"baseline fentry vcpus=2|baseline kprobe_multi vcpus=2|patched fentry vcpus=2|patched kprobe_multi vcpus=2|patched tracing_multi vcpus=2|"
is "headline chart: the absent pair is a legend entry without data" \
	"$(awk -F'\t' '$2 ~ /absent/ { print $1 }' "$tmp/primary.series")" 3
# log tics: 1, 10, 100, 1000 on x; decades on y (medians 100 .. 1000)
check "headline chart: log-log axes (decade tics on both, no linear tic)" \
	bash -c "grep -q '<text> 1000</text>' '$svg' && grep -q '<text> 10000</text>' '$svg' &&
		! grep -Eq '<text> (200|500|1500|2000)</text>' '$svg'"

ssvg=$run/chart-scaling-synth-attach_ns_per_func-funcs.svg
check "the scaling chart against funcs exists" test -s "$ssvg"
series "$ssvg" >"$tmp/scaling.series"
is "scaling chart: five drawn pairs and the absent one named" \
	"$(awk -F'\t' '{ print ($1 > 3 ? "line " : "key ") $2 }' "$tmp/scaling.series" | tr '\n' '|')" \
	"line baseline fentry vcpus=2|line baseline kprobe_multi vcpus=2|key baseline tracing_multi: absent|line patched fentry vcpus=2|line patched kprobe_multi vcpus=2|line patched tracing_multi vcpus=2|"
check "index.html inlines the headline chart with the tracing_multi line" \
	bash -c "sed -n '/<figure id=\"chart-primary-synth-attach_ns_per_func\">/,/<\/figure>/p' '$run/index.html' |
		grep -q 'patched tracing_multi vcpus=2'"

# control: x from 1 to 50 (more than a decade, less than two), y within
# a decade (kprobe_multi half of fentry): log x, linear y
c=$tmp/ctl
perl "$top/tests/fixtures/analysis/synth.pl" "$c" seed=6 variants=fentry,kprobe_multi \
	vscale=kprobe_multi:0.5 points='vcpus=2;funcs=1|vcpus=2;funcs=50' metric=attach_ns_per_func,ns,lower
mkdir "$tmp/c"
"$kbstat" compare "$c" --base baseline --new patched --out "$tmp/c.json" 2>/dev/null
"$kbstat" table primary "$tmp/c.json" --dir "$tmp/c" >"$tmp/c.lst"
is "control: x over less than two decades: log x, linear y, no absent entry" \
	"$(awk -F'\t' 'NR == 2 { print $9, $10, $11 }' "$tmp/c.lst") $(grep -c absent "$tmp/c/chart-primary-synth-attach_ns_per_func.dat" || true)" \
	"4 1 0 0"

exit "$fail"
