#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbstat's report shaping against hand-checked values: number formatting
# (calc fmt, calc fmtp) and every kbstat table kind, on a small results
# file (tests/fixtures/analysis/tables.json: workload w with vcpus 1, 4,
# 16 and a primary metric m whose medians span two decades, a flat metric
# and an informational one; workload c with two categorical points).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
build_kbstat
fx=$top/tests/fixtures/analysis
res=$fx/tables.json

echo "1..30"

# ---- number formatting: one digit below the CI half-width's leading digit ----
# half-width 4.6: leading digit in the units, shown to 0.1
is "fmt 1234.5678 [1230, 1239.2] -> to 0.1" \
	"$("$kbstat" calc fmt 1234.5678 1230 1239.2)" "1234.6 [1230.0, 1239.2]"
# half-width 0.01125: leading digit at 0.01, shown to 0.001
is "fmt ratio 1.03124 [1.0201, 1.0426] -> to 0.001" \
	"$("$kbstat" calc fmt 1.03124 1.0201 1.0426)" "1.031 [1.020, 1.043]"
# half-width 4500: shown to 100
is "fmt 1234567 [1230000, 1239000] -> to 100" \
	"$("$kbstat" calc fmt 1234567 1230000 1239000)" "1234600 [1230000, 1239000]"
is "fmt: a rounded zero has no sign" "$("$kbstat" calc fmt -0.4 -10 11)" "0 [-10, 11]"
# half-width 3.5e-7: to 1e-8, i.e. 4 significant digits of 1.234e-5
is "fmt small values in scientific notation" \
	"$("$kbstat" calc fmt 0.00001234 0.000012 0.0000127)" "1.234e-5 [1.200e-5, 1.270e-5]"
is "fmt without an interval: 5 significant digits" "$("$kbstat" calc fmt 3.14159265)" "3.1416"
is "fmt with a zero-width interval: 5 significant digits" "$("$kbstat" calc fmt 3 3 3)" "3 [3, 3]"
is "fmtp below 1e-6" "$("$kbstat" calc fmtp 0.0000003)" "< 1e-6"
is "fmtp at 1e-6" "$("$kbstat" calc fmtp 0.000001)" "1.0e-6"
is "fmtp 0.0123 -> 2 significant digits" "$("$kbstat" calc fmtp 0.0123)" "0.012"
is "fmtp 0.5 keeps its second digit" "$("$kbstat" calc fmtp 0.5)" "0.50"
is "fmtp 3.4e-5" "$("$kbstat" calc fmtp 0.000034)" "3.4e-5"

# ---- kbstat table primary: the headline charts ----
mkdir "$tmp/d"
"$kbstat" table primary "$res" --run "$fx/tables-run" --dir "$tmp/d" >"$tmp/primary.lst"
is "primary: manifest header, then one chart per workload's primary metric" \
	"$(cut -f1,2,7 "$tmp/primary.lst" | tr '\t' ' ')" \
	"$(printf 'name kind param\nchart-primary-c-lat primary \nchart-primary-w-m primary vcpus')"
# x 1..16 and y 9..1100 both span more than a decade: log axes
is "primary w/m: against vcpus, 2 series of 3, log x and log y" \
	"$(awk -F'\t' '$1 == "chart-primary-w-m" { print $8, $9, $10, $11, $12, $13 }' "$tmp/primary.lst")" "6 2 1 1 0 0"
is "primary w/m data: a titled block per kernel, x median lo hi label" \
	"$(head -4 "$tmp/d/chart-primary-w-m.dat" | tr '\t' ' ')" \
	"$(printf 'A loops=10\n1 10 9 11 1\n4 100 90 110 4\n16 1000 900 1100 16')"
# no parameter takes two values in c: its points are categories, y from 0
is "primary c/lat: points as categories 0, 1; y axis from 0 (never negative)" \
	"$(awk -F'\t' '$1 == "chart-primary-c-lat" { print $7 "|" $10, $11, $12 }' "$tmp/primary.lst") $(sed -n 3p "$tmp/d/chart-primary-c-lat.dat" | tr '\t' ' ')" \
	"|0 0 1 1 7 6 8 mode=b"

# ---- scaling and ratio ----
"$kbstat" table scaling "$res" --dir "$tmp/d" >"$tmp/scaling.lst"
is "scaling: only w/m vs vcpus (flat, informational and one-valued loops get none)" \
	"$(tail -n +2 "$tmp/scaling.lst" | cut -f1)" "chart-scaling-w-m-vcpus"
# scale_x: bpf-attach's funcs = all at the number of functions it found
mkdir -p "$tmp/sx/workloads"
printf 'name = a\nprimary = t\nmatrix.funcs = 1 10 all\nscale_x = funcs=functions\n' >"$tmp/sx/workloads/a.wl"
# sx POINT METRIC BETTER BASE NEW: one results row
sx() {
	printf '{"workload": "a", "variant": "fentry", "point": "%s", "metric": "%s", "unit": "ns", "better": "%s", "clock": "icount", "base": {"n": 3, "median": %s, "ci_lo": %s, "ci_hi": %s}, "new": {"n": 3, "median": %s, "ci_lo": %s, "ci_hi": %s}, "verdict": "%s"}' \
		"$1" "$2" "$3" "$4" "$4" "$4" "$5" "$5" "$5" "$([ "$3" = none ] && echo informational || echo same)"
}
{
	printf '{"kind": "kbench-results", "base": "A", "new": "B", "warnings": [], "results": ['
	sx 'vcpus=2;funcs=1' t lower 100 110; printf ','
	sx 'vcpus=2;funcs=10' t lower 50 60; printf ','
	sx 'vcpus=2;funcs=all' t lower 5 6; printf ','
	sx 'vcpus=2;funcs=all' functions none 22442 22488
	printf ']}\n'
} >"$tmp/sx.json"
mkdir -p "$tmp/sxd" "$tmp/sxd2"
"$kbstat" table scaling "$tmp/sx.json" --dir "$tmp/sxd" --run "$tmp/sx" >"$tmp/sx.lst"
is "scale_x: funcs=all drawn at each kernel's function count, after 1 and 10" \
	"$(grep -v '^$' "$tmp/sxd/chart-scaling-a-t-funcs.dat" | cut -f1,2,5 | tr '\t\n' ' |')" \
	"A fentry vcpus=2|1 100 1|10 50 10|22442 5 all (22442)|B fentry vcpus=2|1 110 1|10 60 10|22488 6 all (22488)|"
is "... on log-log axes (x spans 1 to 22488, y 5 to 110)" \
	"$(awk -F'\t' '$1 == "chart-scaling-a-t-funcs"' "$tmp/sx.lst" | cut -f10,11)" "$(printf '1\t1')"
"$kbstat" table scaling "$tmp/sx.json" --dir "$tmp/sxd2" >/dev/null
is "without the run's workload file, funcs=all is left out (not a number)" \
	"$(grep -c '^22' "$tmp/sxd2/chart-scaling-a-t-funcs.dat" || true)" 0
"$kbstat" table ratio "$res" --dir "$tmp/d" >"$tmp/ratio.lst"
is "ratio: one chart per workload, judged rows only (c 2, w 5)" \
	"$(tail -n +2 "$tmp/ratio.lst" | cut -f1,8 | tr '\t' ' ' | tr '\n' ' ')" "chart-ratio-c 2 chart-ratio-w 5 "
is "ratio data: label, ratio, CI, verdict" \
	"$(head -1 "$tmp/d/chart-ratio-c.dat" | tr '\t' ' ')" "mode=a lat 1.2 1.1 1.3 worse"

# ---- rows: formatted, primary first, informational last ----
"$kbstat" table rows "$res" --run "$fx/tables-run" >"$tmp/rows.tsv"
# rows_cols COLUMN,...: those columns of rows.tsv (named by its header), a row a line
rows_cols() {
	awk -F'\t' -v OFS='\t' -v want="$1" 'NR == 1 {
		n = split(want, w, ",")
		for (i = 1; i <= NF; i++)
			at[$i] = i
		next
	}
	{
		s = $at[w[1]]
		for (k = 2; k <= n; k++)
			s = s OFS $at[w[k]]
		print s
	}' "$tmp/rows.tsv"
}
is "rows: sections in report order" \
	"$(rows_cols section,workload,metric | tr '\t' ' ' | tr '\n' ',')" \
	"primary c lat,primary c lat,primary w m,primary w m,primary w m,judged w flat,judged w flat,informational w rows,informational w rows,"
is "rows: medians, ratio and p at the digits their CI supports" \
	"$(rows_cols base,new,estimate,p,p_adj | sed -n 1p | tr '\t' '|')" "5.0 [4.0, 6.0]|6.0 [5.0, 7.0]|1.20 [1.10, 1.30]|0.010|0.020"
is "rows: why is kept for an inconclusive row" "$(rows_cols verdict,why | sed -n 2p)" "inconclusive	run with BOOTS=9"
is "rows without --run and no primary field: every judged metric leads" \
	"$("$kbstat" table rows "$res" | cut -f1 | sort | uniq -c | awk '{ printf "%s %s,", $2, $1 }')" "informational 2,primary 7,section 1,"

# ---- box: samples over the baseline median, from a run ----
gen report "$tmp/run"
"$kbstat" compare "$tmp/run" --base baseline --new patched --out "$tmp/run.json" 2>/dev/null
"$kbstat" table box "$tmp/run.json" "$tmp/run" --dir "$tmp/d" >"$tmp/box.lst"
is "box: per workload/variant/judged metric; none for the informational rows" \
	"$(tail -n +2 "$tmp/box.lst" | cut -f1,14 | tr '\t' ' ' | tr '\n' ',')" \
	"chart-box-irq-cycles bnbnbn,chart-box-irq-latency bnbnbn,chart-box-lookup-htab-ops bnbnbnbn,chart-box-lookup-rhash-ops bnbnbnbn,"
check "box: each data set is x and sample / baseline median; the last names the points" \
	bash -c "awk -F'\t' 'NF == 2 && \$1 == 0 { n++; if (\$2 < 0.9 || \$2 > 1.1) bad = 1 } END { exit !(n == 24 && !bad) }' '$tmp/d/chart-box-irq-latency.dat' &&
		[ \"\$(tail -3 '$tmp/d/chart-box-irq-latency.dat' | cut -f2 | tr '\n' ' ')\" = 'vcpus=1;mode=read vcpus=2;mode=read vcpus=4;mode=read ' ]"

# ---- profile: self shares, binomial SE, largest change first ----
printf 'a;b_[k] 3\na;c 1\n' >"$tmp/base.folded"
printf 'a;b_[k] 1\n\na;c 1\n' >"$tmp/new.folded"
# b: 3/4 -> 1/2, c: 1/4 -> 1/2; both |delta| 25 pp, so by name ('.' < 'k').
# 2 SE = 200 * sqrt(.75 * .25 / 4 + .5 * .5 / 2) = 82.9156
is "profile: shares, delta, 2 SE and counts" \
	"$("$kbstat" table profile "$tmp/base.folded" "$tmp/new.folded" --labels A B | tr '\t' ' ')" \
	"$(printf 'symbol A_pct B_pct A_samples B_samples\n' | awk '{ print $1, $2, $3, "delta_pp two_se_pp", $4, $5 }')
[.] c 25.0000 50.0000 +25.0000 82.9156 1 1
[k] b 75.0000 50.0000 -25.0000 82.9156 3 1"
printf 'a;b 3\nno count here\n' >"$tmp/bad.folded"
check "profile: a malformed line is an error naming file:line" \
	bash -c "! '$kbstat' table profile '$tmp/bad.folded' '$tmp/new.folded' 2>'$tmp/p.err' && grep -q 'bad.folded:2: not a folded stack' '$tmp/p.err'"

exit "$fail"
