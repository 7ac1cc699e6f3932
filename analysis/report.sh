#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the report of a run from its raw samples alone:
#   analysis/report.sh RUN
# Environment: BASE (default baseline), NEW_LABEL (default patched),
# FLOOR (floor file; default RUN/floor.json if it exists), SEED,
# RESULTS (a results.json kbstat compare already wrote for BASE vs
# NEW_LABEL: the report shows it instead of comparing again),
# KBSTAT (the kbstat binary; default build/analysis/kbstat, built if needed).
# Writes RUN/{results.json,summary.txt,summary.md,index.html,chart-*.svg},
# each through a temp file and a rename.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

die() {
	printf 'kbench: error: %s\n' "$*" >&2
	exit 1
}

say() {
	printf 'kbench: report: %s\n' "$*" >&2
}

[ $# -eq 1 ] || die "usage: analysis/report.sh RUN (a reports/<id> directory)"
run=${1%/}
[ -d "$run/raw" ] || die "$run/raw: no raw samples (is $run a run directory?)"
base=${BASE:-baseline}
new=${NEW_LABEL:-patched}

kbstat=${KBSTAT:-$top/build/analysis/kbstat}
if [ -z "${KBSTAT:-}" ]; then
	make -s -C "$top" analysis-tools >&2 ||
		die "cannot build kbstat: run 'make analysis-tools' and read its errors"
fi
[ -x "$kbstat" ] || die "$kbstat: not found; run 'make analysis-tools'"
command -v gnuplot >/dev/null || die "gnuplot not found: install gnuplot-nox (make deps)"
command -v jq >/dev/null || die "jq not found: install jq (make deps)"

floor=${FLOOR:-}
if [ -z "$floor" ] && [ -f "$run/floor.json" ]; then
	floor=$run/floor.json
fi
[ -z "$floor" ] || [ -f "$floor" ] || die "FLOOR=$floor: no such file"

# Temp files live in RUN, so the final rename stays on one filesystem.
tmp=$(mktemp -d "$run/.report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ -n "${RESULTS:-}" ]; then
	jq -e --arg b "$base" --arg n "$new" '.kind == "kbench-results" and .base == $b and .new == $n' \
		"$RESULTS" >/dev/null ||
		die "RESULTS=$RESULTS is not kbstat's comparison of $base vs $new"
	say "statistics: $RESULTS"
	cp "$RESULTS" "$tmp/results.json"
else
	compare=("$kbstat" compare "$run" --base "$base" --new "$new" --out "$tmp/results.json")
	[ -z "$floor" ] || compare+=(--floor "$floor")
	[ -z "${SEED:-}" ] || compare+=(--seed "$SEED")
	say "statistics: $base vs $new${floor:+, floor $floor}"
	"${compare[@]}" 2>"$tmp/kbstat.log" || {
		cat "$tmp/kbstat.log" >&2
		die "kbstat compare failed on $run (see the error above)"
	}
	if [ "${V:-0}" = 1 ]; then
		cat "$tmp/kbstat.log" >&2
	fi
fi
"$kbstat" summary "$tmp/results.json" --format txt >"$tmp/summary.txt"
"$kbstat" summary "$tmp/results.json" --format md >"$tmp/summary.md"
"$kbstat" dump "$run" >"$tmp/samples.tsv"

# File-name-safe form of a chart's identity.
slug() {
	printf '%s' "$*" | tr -c 'A-Za-z0-9._=-' '_'
}

# gnuplot string literal: escape backslash and double quote.
gpq() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}

# Run a gnuplot script and check that it really produced an SVG.
render() {
	local name=$1 script=$2 svg=$3
	if ! gnuplot "$script" >"$tmp/gnuplot.log" 2>&1; then
		cat "$tmp/gnuplot.log" >&2
		die "gnuplot failed on chart $name (its errors are above)"
	fi
	if [ ! -s "$svg" ]; then
		die "gnuplot wrote nothing for chart $name"
	fi
	case $(head -c 5 "$svg") in
	"<?xml" | "<svg"*) ;;
	*) die "chart $name: $svg is not an SVG" ;;
	esac
	charts+=("$name")
}

charts=()
gp_head() {
	printf 'set terminal svg size %d,%d noenhanced font "sans,11" background "white"\n' "$1" "$2"
	printf 'set output "%s"\n' "$3"
	printf 'set datafile separator "\\t"\n'
	printf 'set grid ytics\nset key outside right top\n'
}

mapfile -t workloads < <(jq -r '[.results[].workload] | unique | .[]' "$tmp/results.json")

# Ratio chart per workload: new/base with its CI, verdicts marked.
for w in "${workloads[@]}"; do
	name=chart-ratio-$(slug "$w")
	dat=$tmp/$name.dat
	jq -r --arg w "$w" '.results[] | select(.workload == $w and .ratio != null and .better != "none")
		| [((if .variant == "" then "" else .variant + " " end) + .point + " " + .metric),
		   .ratio, .ratio_ci_lo, .ratio_ci_hi, .verdict] | @tsv' \
		"$tmp/results.json" >"$dat"
	rows=$(wc -l <"$dat")
	[ "$rows" -gt 0 ] || continue
	width=$((rows * 70 + 300))
	[ "$width" -ge 640 ] || width=640
	{
		gp_head "$width" 480 "$tmp/$name.svg"
		printf 'set title %s\n' "$(gpq "$w: $new / $base, median ratio with 95% CI")"
		printf 'set ylabel "ratio"\nset xtics rotate by -30 left\n'
		printf 'set xrange [-0.5:%d - 0.5]\nset offsets 0, 0, graph 0.1, graph 0.1\n' "$rows"
		printf 'plot 1 with lines lc rgb "black" dt 2 notitle, \\\n'
		printf '  "%s" using 0:2:3:4:xticlabels(1) with yerrorbars pt 7 lc rgb "gray40" title "ratio, 95%% CI", \\\n' "$dat"
		# shellcheck disable=SC2016 # $2 is gnuplot's column 2
		printf '  "" using 0:(strcol(5) eq "worse" ? $2 : NaN) with points pt 7 ps 1.5 lc rgb "red" title "worse", \\\n'
		# shellcheck disable=SC2016
		printf '  "" using 0:(strcol(5) eq "better" ? $2 : NaN) with points pt 7 ps 1.5 lc rgb "forest-green" title "better"\n'
	} >"$tmp/$name.gp"
	render "$name" "$tmp/$name.gp" "$tmp/$name.svg"
done

# Scaling charts: for each numeric parameter of the point with >= 2
# values, the median (and CI) against it, one line per kernel and
# variant/other parameters. log-log for n and nfuncs.
jq -c '
	[.results[] as $r | select($r.better != "none")
	 | ($r.point | split(";") | map(select(contains("="))
		| {k: (split("=")[0]), v: (split("=")[1:] | join("="))})) as $ps
	 | $ps[] | select(.v | test("^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$")) as $p
	 | ([$ps[] | select(.k != $p.k) | .k + "=" + .v] | join(";")) as $rest
	 | ($r.base, $r.new) as $g | select($g.median != null)
	 | {w: $r.workload, m: $r.metric, u: $r.unit, p: $p.k, x: ($p.v | tonumber),
	    s: ([$g.label, $r.variant, $rest] | map(select(. != "")) | join(" ")),
	    y: $g.median, lo: $g.ci_lo, hi: $g.ci_hi}]
	| group_by([.w, .m, .p]) | .[]
	| select((map(.x) | unique | length) >= 2)
	| {w: .[0].w, m: .[0].m, u: .[0].u, p: .[0].p,
	   series: (group_by(.s) | map({title: .[0].s,
		pts: (sort_by(.x) | map([.x, .y, (.lo // .y), (.hi // .y)]))}))}
' "$tmp/results.json" >"$tmp/scaling.jsonl"

while IFS= read -r chart; do
	w=$(jq -r .w <<<"$chart")
	m=$(jq -r .m <<<"$chart")
	u=$(jq -r .u <<<"$chart")
	p=$(jq -r .p <<<"$chart")
	name=chart-scaling-$(slug "$w-$m-$p")
	dat=$tmp/$name.dat
	jq -r '.series[] | ((.pts[] | @tsv), "", "")' <<<"$chart" >"$dat"
	mapfile -t titles < <(jq -r '.series[].title' <<<"$chart")
	{
		gp_head 800 480 "$tmp/$name.svg"
		printf 'set title %s\n' "$(gpq "$w: $m vs $p (median, 95% CI)")"
		printf 'set xlabel %s\nset ylabel %s\n' "$(gpq "$p")" "$(gpq "$m${u:+ ($u)}")"
		if [ "$p" = n ] || [ "$p" = nfuncs ]; then
			printf 'set logscale xy\n'
		fi
		printf 'set offsets graph 0.05, graph 0.05, 0, 0\n'
		printf 'plot'
		for i in "${!titles[@]}"; do
			[ "$i" = 0 ] || printf ','
			printf ' \\\n  "%s" index %d using 1:2:3:4 with yerrorlines pt 7 title %s' \
				"$dat" "$i" "$(gpq "${titles[$i]}")"
		done
		printf '\n'
	} >"$tmp/$name.gp"
	render "$name" "$tmp/$name.gp" "$tmp/$name.svg"
done <"$tmp/scaling.jsonl"

# Box plots per workload/variant/metric: every sample of each kernel at
# each point, divided by the baseline median there so points share an axis.
jq -r '.results[] | [.workload, .variant, .point, .metric, (.base.median // "")] | @tsv' \
	"$tmp/results.json" >"$tmp/medians.tsv"
# (\x1f, not a tab, between fields: read would merge an empty variant)
jq -r '.results[] | select(.better != "none") | [.workload, .variant, .metric] | join("\u001f")' "$tmp/results.json" |
	sort -u >"$tmp/boxes.lst"
while IFS=$'\x1f' read -r w v m; do
	name=chart-box-$(slug "$w${v:+-$v}-$m")
	dat=$tmp/$name.dat
	mapfile -t points < <(awk -F'\t' -v w="$w" -v v="$v" -v m="$m" \
		'$1 == w && $2 == v && $4 == m { print $3 }' "$tmp/medians.tsv" | sort -uV)
	[ "${#points[@]}" -gt 0 ] || continue
	: >"$dat"
	clauses=()
	xt=()
	blk=0
	for i in "${!points[@]}"; do
		pt=${points[$i]}
		xt+=("$(gpq "$pt") $i.2")
		for side in 0 1; do
			lab=$base
			color=royalblue
			if [ "$side" = 1 ]; then
				lab=$new
				color=orange-red
			fi
			awk -F'\t' -v w="$w" -v v="$v" -v m="$m" -v p="$pt" -v k="$lab" '
				NR == FNR { if ($1 == w && $2 == v && $3 == p && $4 == m) med = $5; next }
				FNR > 1 && $1 == k && $3 == w && $4 == v && $5 == p && $6 == m {
					print (med != "" && med != 0) ? $10 / med : $10; n++
				}
				END { if (n) printf "\n\n"; exit !n }
			' "$tmp/medians.tsv" "$tmp/samples.tsv" >>"$dat" || continue
			title=notitle
			[ "$i" != 0 ] || title="title $(gpq "$lab")"
			clauses+=("\"$dat\" index $blk using ($i + $side * 0.4):1:(0.35) with boxplot lc rgb \"$color\" $title")
			blk=$((blk + 1))
		done
	done
	[ "${#clauses[@]}" -gt 0 ] || continue
	width=$((${#points[@]} * 90 + 320))
	[ "$width" -ge 640 ] || width=640
	{
		gp_head "$width" 480 "$tmp/$name.svg"
		printf 'set title %s\n' "$(gpq "$w${v:+ $v}: $m, samples / $base median at each point")"
		printf 'set ylabel "relative to %s median"\n' "$base"
		printf 'set style fill solid 0.25 border\nset style boxplot outliers pointtype 7\n'
		printf 'set pointsize 0.4\nset xrange [-0.6:%s.0]\n' "${#points[@]}"
		printf 'set xtics rotate by -30 left (%s)\n' "$(IFS=,; printf '%s' "${xt[*]}")"
		printf 'plot %s\n' "$(IFS=,; printf '%s' "${clauses[*]}")"
	} >"$tmp/$name.gp"
	render "$name" "$tmp/$name.gp" "$tmp/$name.svg"
done <"$tmp/boxes.lst"

# ---- PROFILE=1: top symbols, diff table and flame graphs ----
if [ -d "$run/profile" ]; then
	"$top/analysis/profile.sh" "$run" "$base" "$new" || die "profile report failed on $run"
fi

# ---- index.html: self-contained, the SVGs inlined ----
html_escape() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

# Inline an SVG: drop the XML prolog, and prefix ids so that several
# charts in one page do not share them.
inline_svg() {
	sed -n '/<svg/,$p' "$1" | sed -E \
		-e "s/id=\"([^\"]+)\"/id=\"$2-\\1\"/g" \
		-e "s/href=\"#([^\"]+)\"/href=\"#$2-\\1\"/g" \
		-e "s/url\\(#([^)]+)\\)/url(#$2-\\1)/g"
}

clocks=$(jq -r '[.results[].clock] | unique | join(", ")' "$tmp/results.json")
if [ -n "$floor" ]; then
	floor_text="noise floor from $floor (per metric, never below 1 %)"
else
	floor_text="no floor file: minimum effect 1 % (run make calibrate for an A/A floor)"
fi

{
	cat <<EOF
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kbench report: $(printf '%s' "$(basename "$run")" | html_escape)</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 1400px; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; }
td.num { text-align: right; font-family: monospace; }
tr.worse td { background: #fdd; }
tr.better td { background: #dfd; }
tr.insufficient td { background: #eee; color: #666; }
tr.inconclusive td { background: #ffe; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
figure { margin: 1em 0; }
</style>
</head>
<body>
<h1>kbench: $(printf '%s vs %s' "$new" "$base" | html_escape)</h1>
<p>Run <code>$(printf '%s' "$run" | html_escape)</code>.
Clock: <b>$(printf '%s' "$clocks" | html_escape)</b>.
Minimum effect: $(printf '%s' "$floor_text" | html_escape).</p>
<p>Ratio = median($(printf '%s' "$new" | html_escape)) / median($(printf '%s' "$base" | html_escape))
with a 95 % CI. Where a side's boots differ (Kruskal-Wallis across boots
p &lt; 0.2) the boot is the unit: Welch's t on the boot medians (logged),
the ratio their geometric mean; otherwise the sample is: a bootstrap of
the samples and Mann-Whitney U. A metric with zero or negative samples
compares the difference of the medians. p is Benjamini-Hochberg adjusted
over all rows. Verdict: better/worse only when the 90 % interval (its
ends are one-sided 95 % bounds) lies wholly beyond the minimum effect and
p (BH) &lt; 0.05; same when it lies wholly inside; otherwise inconclusive,
with what would settle it. Fewer than 3 boots or 5 samples a side gives
"insufficient data". The per-kernel median CIs resample boots, then
samples within boots.</p>
<h2>Results</h2>
<table>
<tr><th>workload</th><th>variant</th><th>point</th><th>metric</th><th>unit</th><th>better</th>
<th>n</th><th>$(printf '%s' "$base" | html_escape) median [95% CI]</th>
<th>$(printf '%s' "$new" | html_escape) median [95% CI]</th>
<th>ratio [95% CI]</th><th>p</th><th>p (BH)</th><th>min effect</th><th>verdict</th><th>clock</th></tr>
EOF
	jq -r '
		def f: if . == null then "-" else (. * 1e6 | round / 1e6 | tostring) end;
		def fp: if . == null then "-" elif . < 1e-4 then (. | tostring) else (. * 1e4 | round / 1e4 | tostring) end;
		def g(s): "\(s.median | f) [\(s.ci_lo | f), \(s.ci_hi | f)]";
		.results[] | select(.better != "none") |
		"<tr class=\"\(.verdict | split(" ")[0])\"><td>\(.workload | @html)</td><td>\(.variant | @html)</td>" +
		"<td>\(.point | @html)</td><td>\(.metric | @html)</td><td>\(.unit | @html)</td><td>\(.better)</td>" +
		"<td class=\"num\">\(.base.n)/\(.new.n)</td><td class=\"num\">\(g(.base))</td><td class=\"num\">\(g(.new))</td>" +
		"<td class=\"num\">\(if .scale == "difference" then "diff " else "" end)\(.estimate | f) [\(.estimate_ci_lo | f), \(.estimate_ci_hi | f)]</td>" +
		"<td class=\"num\">\(.p | fp)</td><td class=\"num\">\(.p_adj | fp)</td>" +
		"<td class=\"num\">\(.min_effect * 100 | . * 100 | round / 100 | tostring)% (\(.floor_source | @html))</td>" +
		"<td>\(.verdict | @html)\(if .why then "<br><small>" + (.why | @html) + "</small>" else "" end)</td><td>\(.clock | @html)</td></tr>"
	' "$tmp/results.json"
	echo "</table>"
	if jq -e 'any(.results[]; .better == "none")' "$tmp/results.json" >/dev/null; then
		echo "<h2>Informational metrics</h2>"
		echo "<p>Counts and sizes (rows, bytes, columns): both kernels' medians side by side; no test, no verdict.</p>"
		echo "<table><tr><th>workload</th><th>variant</th><th>point</th><th>metric</th><th>unit</th>"
		printf '<th>%s median</th><th>%s median</th></tr>\n' "$(printf '%s' "$base" | html_escape)" \
			"$(printf '%s' "$new" | html_escape)"
		jq -r '
			def f: if . == null then "-" else (. * 1e6 | round / 1e6 | tostring) end;
			.results[] | select(.better == "none") |
			"<tr><td>\(.workload | @html)</td><td>\(.variant | @html)</td><td>\(.point | @html)</td>" +
			"<td>\(.metric | @html)</td><td>\(.unit | @html)</td>" +
			"<td class=\"num\">\(.base.median | f)</td><td class=\"num\">\(.new.median | f)</td></tr>"
		' "$tmp/results.json"
		echo "</table>"
	fi
	if [ "$(jq '.warnings | length' "$tmp/results.json")" -gt 0 ]; then
		echo "<h2>Warnings</h2><ul>"
		jq -r '.warnings[] | "<li>\(@html)</li>"' "$tmp/results.json"
		echo "</ul>"
	fi
	echo "<h2>Plain-text summary (for a mailing-list reply)</h2><pre>"
	html_escape <"$tmp/summary.txt"
	echo "</pre>"
	echo "<h2>Charts</h2>"
	n=0
	for w in "${workloads[@]}"; do
		printf '<h3>%s</h3>\n' "$(printf '%s' "$w" | html_escape)"
		for c in "${charts[@]}"; do
			case $c in
			chart-ratio-"$(slug "$w")" | chart-scaling-"$(slug "$w")"-* | chart-box-"$(slug "$w")"-*) ;;
			*) continue ;;
			esac
			n=$((n + 1))
			printf '<figure id="%s">\n' "$c"
			inline_svg "$tmp/$c.svg" "c$n"
			printf '<figcaption>%s.svg</figcaption></figure>\n' "$c"
		done
	done
	[ ! -f "$run/profile.html" ] || cat "$run/profile.html"
	if [ -f "$run/fingerprint.json" ]; then
		echo "<h2>Fingerprint</h2><pre>"
		jq . "$run/fingerprint.json" | html_escape
		echo "</pre>"
	else
		echo "<p><b>No fingerprint.json in this run.</b></p>"
	fi
	printf '<p>Regenerate with <code>make report RUN=%s</code>.</p>\n' "$(printf '%s' "$run" | html_escape)"
	echo "</body></html>"
} >"$tmp/index.html"

# Publish: charts first, index.html last, each one a rename.
rm -f "$run"/chart-*.svg
for c in "${charts[@]}"; do
	mv -f "$tmp/$c.svg" "$run/$c.svg"
done
for f in results.json summary.txt summary.md index.html; do
	mv -f "$tmp/$f" "$run/$f"
done
say "wrote $run/index.html, summary.txt, summary.md, results.json and ${#charts[@]} charts"
