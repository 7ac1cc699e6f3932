#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the report of a run from its raw samples alone:
#   analysis/report.sh RUN
# Environment: BASE (default baseline), NEW_LABEL (default patched),
# FLOOR (floor file; default RUN/floor.json if it exists), SEED,
# RESULTS (a results.json kbstat compare already wrote for BASE vs
# NEW_LABEL: the report shows it instead of comparing again),
# KBSTAT (the kbstat binary; default build/analysis/kbstat, built if needed).
# Writes RUN/{results.json,answer.txt,summary.txt,summary.md,index.html,chart-*.svg},
# each through a temp file and a rename.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"



[ $# -eq 1 ] || kb_die "usage: analysis/report.sh RUN (a reports/<id> directory)"
run=${1%/}
[ -d "$run/raw" ] || kb_die "$run/raw: no raw samples (is $run a run directory?)"
# A regression check's run (orchestrate/regress.sh: revisions.txt) is
# NEW against OLD, and its report leads with the gate's verdict.
gate=
if [ -f "$run/revisions.txt" ] && [ -z "${BASE:-}${NEW_LABEL:-}" ]; then
	BASE=old NEW_LABEL=new
fi
base=${BASE:-baseline}
new=${NEW_LABEL:-patched}
if [ -f "$run/revisions.txt" ] && [ "$base" = old ] && [ "$new" = new ]; then
	gate=1
fi

kbstat=${KBSTAT:-$top/build/analysis/kbstat}
if [ -z "${KBSTAT:-}" ]; then
	make -s -C "$top" analysis-tools >&2 ||
		kb_die "cannot build kbstat: run 'make analysis-tools' and read its errors"
fi
[ -x "$kbstat" ] || kb_die "$kbstat: not found; run 'make analysis-tools'"
command -v gnuplot >/dev/null || kb_die "gnuplot not found: install gnuplot-nox (make deps)"
command -v jq >/dev/null || kb_die "jq not found: install jq (make deps)"

floor=${FLOOR:-}
if [ -z "$floor" ] && [ -f "$run/floor.json" ]; then
	floor=$run/floor.json
fi
[ -z "$floor" ] || [ -f "$floor" ] || kb_die "FLOOR=$floor: no such file"

# Temp files live in RUN, so the final rename stays on one filesystem.
tmp=$(mktemp -d "$run/.report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# kbstat_compare LOG WHAT ARGS...: kbstat compare RUN ARGS, with the
# report's floor and seed; its messages go to LOG, shown if it fails.
kbstat_compare() {
	local log=$1 what=$2
	shift 2
	local cmd=("$kbstat" compare "$run" "$@")
	[ -z "$floor" ] || cmd+=(--floor "$floor")
	[ -z "${SEED:-}" ] || cmd+=(--seed "$SEED")
	kb_say "report: statistics: $what${floor:+, floor $floor}"
	"${cmd[@]}" 2>"$log" || {
		cat "$log" >&2
		kb_die "kbstat compare ($what) failed on $run (see the error above)"
	}
	if [ "${V:-0}" = 1 ]; then
		cat "$log" >&2
	fi
}

if [ -n "${RESULTS:-}" ]; then
	jq -e --arg b "$base" --arg n "$new" '.kind == "kbench-results" and .base == $b and .new == $n' \
		"$RESULTS" >/dev/null ||
		kb_die "RESULTS=$RESULTS is not kbstat's comparison of $base vs $new"
	kb_say "report: statistics: $RESULTS"
	cp "$RESULTS" "$tmp/results.json"
else
	kbstat_compare "$tmp/kbstat.log" "$base vs $new" --base "$base" --new "$new" \
		--out "$tmp/results.json"
fi
# BOOTS=auto: the adaptive-boots rule's verdicts (analysis/seq-verdicts.sh)
if [ -f "$run/sequential.tsv" ]; then
	"$top/analysis/seq-verdicts.sh" "$tmp/results.json" "$run"
fi
# The regression check's verdict first (kbstat gate: exit 1 is REGRESSION),
# with NEW against the baseline (regress.sh's new-vs-baseline.json) and
# the series behind NEW and OLD (its series.tsv), where the run has them.
: >"$tmp/summary.txt"
: >"$tmp/summary.md"
gate_verdict=
if [ -n "$gate" ]; then
	gate_args=()
	[ ! -f "$run/new-vs-baseline.json" ] || gate_args+=(--baseline "$run/new-vs-baseline.json")
	[ ! -f "$run/series.tsv" ] || gate_args+=(--series "$run/series.tsv")
	for fmt in txt md; do
		rc=0
		"$kbstat" gate "$tmp/results.json" "${gate_args[@]}" --format "$fmt" \
			>"$tmp/gate.$fmt" 2>"$tmp/gate.log" || rc=$?
		if [ "$rc" -gt 1 ]; then
			cat "$tmp/gate.log" >&2
			kb_die "kbstat gate failed on $run (see the error above)"
		fi
		cat "$tmp/gate.$fmt" >>"$tmp/summary.$fmt"
	done
	# regression-check BISECT=1: which patch (orchestrate/bisect.sh)
	if [ -f "$run/bisect.log" ]; then
		{
			printf '\nWhich patch (make bisect-perf):\n'
			sed 's/^/  /' "$run/bisect.log"
		} >>"$tmp/summary.txt"
		{
			printf '\n## Which patch (make bisect-perf)\n\n```\n'
			cat "$run/bisect.log"
			printf '```\n'
		} >>"$tmp/summary.md"
	fi
	gate_verdict=$(head -n 1 "$tmp/gate.txt" | cut -d: -f1)
fi
# Every number below is shaped by kbstat: formatted rows for the tables,
# and one .dat per chart with a manifest line (analysis/README.md).
"$kbstat" table rows "$tmp/results.json" --run "$run" >"$tmp/rows.tsv"
# the report model: the method's constants and prose as this run used them
"$kbstat" model "$tmp/results.json" --run "$run" >"$tmp/model.json" ||
	kb_die "kbstat model failed on $run"
ci=$(jq -r .method.ci "$tmp/model.json")
mkdir "$tmp/dat"
for kind in primary ratio scaling; do
	"$kbstat" table "$kind" "$tmp/results.json" --run "$run" --dir "$tmp/dat" >"$tmp/$kind.lst" ||
		kb_die "kbstat table $kind failed on $run"
done
"$kbstat" table box "$tmp/results.json" "$run" --dir "$tmp/dat" >"$tmp/box.lst" ||
	kb_die "kbstat table box failed on $run"

# Variant against variant (rhash against hash) on each kernel of the
# report that ran both: kbstat variants lists the pairs, the base being
# the workload file's base_variant. Each is a results file of its own,
# with its summary, its rows and, where the workload file names a
# "table =", the cover-letter table.
"$kbstat" variants "$run" >"$tmp/variants.tsv" 2>"$tmp/variants.log" || {
	cat "$tmp/variants.log" >&2
	kb_die "kbstat variants failed on $run"
}
vcs=()
declare -A vc_title vc_ratio chart_vc
: >"$tmp/vratio.lst"
while IFS=$'\t' read -r vk vb vn vw; do
	[ "$vk" = "$base" ] || [ "$vk" = "$new" ] || continue
	vc=variants-$(printf '%s-%s-vs-%s' "$vk" "$vn" "$vb" | tr -c 'A-Za-z0-9._=-' '_')
	kbstat_compare "$tmp/$vc.log" "variant $vn vs $vb on $vk ($vw)" --kernel "$vk" \
		--base-variant "$vb" --new-variant "$vn" --workloads "$vw" --out "$tmp/$vc.json"
	for fmt in txt md; do
		"$kbstat" summary "$tmp/$vc.json" --run "$run" --format "$fmt" >"$tmp/$vc.$fmt"
	done
	"$kbstat" table rows "$tmp/$vc.json" --run "$run" >"$tmp/$vc.rows.tsv"
	"$kbstat" model "$tmp/$vc.json" --run "$run" >"$tmp/$vc.model.json" ||
		kb_die "kbstat model failed on $vc"
	vcs+=("$vc")
	vc_title[$vc]="variant $vn vs $vb on $vk"
	# its ratio chart per workload: chart-<vc>-ratio-<workload>
	rm -rf "$tmp/vdat"
	mkdir "$tmp/vdat"
	"$kbstat" table ratio "$tmp/$vc.json" --run "$run" --dir "$tmp/vdat" >"$tmp/vdat.lst" ||
		kb_die "kbstat table ratio failed on $vc"
	while IFS=$'\t' read -r name rest; do
		[ "$name" != name ] || continue
		mv "$tmp/vdat/$name.dat" "$tmp/dat/chart-$vc-${name#chart-}.dat"
		printf 'chart-%s-%s\tv%s\n' "$vc" "${name#chart-}" "$rest"
		chart_vc[chart-$vc-${name#chart-}]=$vc
		vc_ratio[chart-$vc-${name#chart-}]="$vn / $vb on $vk"
	done <"$tmp/vdat.lst" >>"$tmp/vratio.lst"
done <"$tmp/variants.tsv"
# The answer (kbstat answer): one line per claim of the run's workload
# files, what got worse, what stayed undecided. One text, two widths:
# 80 columns for summary.txt and RUN/answer.txt, 132 for summary.md and
# index.html (a claim on one line).
answer_args=()
for vc in "${vcs[@]}"; do
	answer_args+=(--variants "$tmp/$vc.json")
done
for aw in 80 132; do
	"$kbstat" answer "$tmp/results.json" --run "$run" "${answer_args[@]}" --width "$aw" \
		>"$tmp/answer-$aw.txt" 2>"$tmp/answer.log" || {
		cat "$tmp/answer.log" >&2
		kb_die "kbstat answer failed on $run (see the error above)"
	}
done
cp "$tmp/answer-80.txt" "$tmp/answer.txt"
# after the gate (if any), a blank line between
sep=
[ -z "$gate" ] || sep=$'\n'
{
	printf '%s' "$sep"
	cat "$tmp/answer-80.txt"
	printf '\n'
} >>"$tmp/summary.txt"
{
	printf '%s' "$sep"
	printf '## The answer\n\n```text\n'
	cat "$tmp/answer-132.txt"
	printf '```\n\n'
} >>"$tmp/summary.md"
# The summaries: the gate (above), the answer, then per workload its primary metric
# and its variant comparisons' cover tables (--cover), then the rest;
# each variant comparison's own rows after.
covers=()
for vc in "${vcs[@]}"; do
	covers+=(--cover "$tmp/$vc.json")
done
for fmt in txt md; do
	"$kbstat" summary "$tmp/results.json" --format "$fmt" --run "$run" "${covers[@]}" >>"$tmp/summary.$fmt"
	for vc in "${vcs[@]}"; do
		printf '\n'
		cat "$tmp/$vc.$fmt"
	done >>"$tmp/summary.$fmt"
done

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
		kb_die "gnuplot failed on chart $name (its errors are above)"
	fi
	if [ ! -s "$svg" ]; then
		kb_die "gnuplot wrote nothing for chart $name"
	fi
	case $(head -c 5 "$svg") in
	"<?xml" | "<svg"*) ;;
	*) kb_die "chart $name: $svg is not an SVG" ;;
	esac
	charts+=("$name")
}

charts=()
declare -A chart_w chart_kind chart_cap
# The clock(s) of a workload's rows: every chart title names it.
wl_clock() {
	jq -r --arg w "$1" '[.results[] | select(.workload == $w) | .clock] | unique | join(" and ")' \
		"$tmp/results.json"
}
gp_head() {
	printf 'set terminal svg size %d,%d noenhanced font "sans,11" background "white"\n' "$1" "$2"
	printf 'set output "%s"\n' "$3"
	printf 'set datafile separator "\\t"\n'
	printf 'set grid ytics\nset key outside right top\n'
}

# One gnuplot script per manifest line (fields: analysis/README.md).
# (\x1f, not a tab, between fields: read would merge empty ones)
while IFS=$'\x1f' read -r name kind w v m u p count blocks logx logy ymin0 xmin0 sides; do
	[ "$name" != name ] || continue
	dat=$tmp/dat/$name.dat
	svg=$tmp/$name.svg
	clk=$(wl_clock "$w")
	{
		case $kind in
		ratio | vratio)
			width=$((count * 70 + 300))
			[ "$width" -ge 640 ] || width=640
			gp_head "$width" 480 "$svg"
			sides_label="$new / $base"
			[ "$kind" = ratio ] || sides_label=${vc_ratio[$name]}
			cap="$w: $sides_label, the ratio of the medians of each metric at each point, with its $ci (clock $clk)"
			printf 'set title %s\n' "$(gpq "$w: $sides_label, median ratio with $ci, clock $clk")"
			printf 'set ylabel "ratio"\nset xtics rotate by -30 left\n'
			printf 'set xrange [-0.5:%d - 0.5]\nset offsets 0, 0, graph 0.1, graph 0.1\n' "$count"
			printf 'plot 1 with lines lc rgb "black" dt 2 notitle, \\\n'
			printf '  "%s" using 0:2:3:4:xticlabels(1) with yerrorbars pt 7 lc rgb "gray40" title "ratio, %s", \\\n' "$dat" "$ci"
			# shellcheck disable=SC2016 # $2 is gnuplot's column 2
			printf '  "" using 0:(strcol(5) eq "worse" ? $2 : NaN) with points pt 7 ps 1.5 lc rgb "red" title "worse", \\\n'
			# shellcheck disable=SC2016
			printf '  "" using 0:(strcol(5) eq "better" ? $2 : NaN) with points pt 7 ps 1.5 lc rgb "forest-green" title "better"\n'
			;;
		scaling | primary)
			gp_head 800 480 "$svg"
			if [ "$kind" = primary ]; then
				printf 'set title %s\n' "$(gpq "$w: $m, median with $ci, $base and $new, clock $clk")"
			else
				printf 'set title %s\n' "$(gpq "$w: $m vs $p (median, $ci), clock $clk")"
			fi
			where="at each point"
			[ -z "$p" ] || where="against $p"
			cap="$w: $m${u:+ ($u)} $where, median with its $ci on $base and $new (clock $clk)"
			printf 'set xlabel %s\nset ylabel %s\n' "$(gpq "${p:-point}")" "$(gpq "$m${u:+ ($u)}")"
			[ "$logx" = 0 ] || printf 'set logscale x\n'
			[ "$logy" = 0 ] || printf 'set logscale y\n'
			# a count or a time is never negative: neither is its axis
			[ "$xmin0" = 0 ] || printf 'set xrange [0<*:]\n'
			[ "$ymin0" = 0 ] || printf 'set yrange [0<*:]\n'
			printf 'set offsets graph 0.05, graph 0.05, 0, 0\n'
			# a numeric parameter is a line; categories (no parameter) are
			# points: a line between two categories means nothing
			using=1:2:3:4
			style=yerrorlines
			if [ -z "$p" ]; then
				using=1:2:3:4:xtic\(5\)
				style=yerrorbars
				printf 'set xrange [-0.5:*]\nset xtics rotate by -30 left\n'
			fi
			printf 'plot for [i=0:%d] "%s" index i using %s with %s pt 7 title columnheader(1)\n' \
				"$((blocks - 1))" "$dat" "$using" "$style"
			;;
		box)
			width=$((count * 90 + 320))
			[ "$width" -ge 640 ] || width=640
			first_b=${sides%%b*}
			first_n=${sides%%n*}
			gp_head "$width" 480 "$svg"
			printf 'set title %s\n' "$(gpq "$w${v:+ $v}: $m, samples / $base median at each point, clock $clk")"
			cap="$w${v:+ $v}: every sample of $m on $base and $new over the $base median at its point (clock $clk)"
			printf 'set ylabel %s\n' "$(gpq "relative to $base median")"
			printf 'set style fill solid 0.25 border\nset style boxplot outliers pointtype 7\n'
			printf 'set pointsize 0.4\nset xrange [-0.6:%s.0]\nset xtics rotate by -30 left\n' "$count"
			printf 'sides = "%s"\n' "$sides"
			printf 'plot for [i=0:%d] "%s" index i using 1:2:(0.35) with boxplot' "$((blocks - 1))" "$dat"
			printf ' lc rgb (substr(sides, i + 1, i + 1) eq "b" ? "royalblue" : "orange-red")'
			printf ' title (i == %d ? %s : i == %d ? %s : ""), \\\n' \
				"${#first_b}" "$(gpq "$base")" "${#first_n}" "$(gpq "$new")"
			printf '  "%s" index %d using 1:(NaN):xtic(2) notitle\n' "$dat" "$blocks"
			;;
		*) kb_die "kbstat table: unknown chart kind '$kind' for $name" ;;
		esac
	} >"$tmp/$name.gp"
	render "$name" "$tmp/$name.gp" "$svg"
	chart_w[$name]=$w
	chart_kind[$name]=$kind
	chart_cap[$name]=$cap
done < <(cat "$tmp/primary.lst" "$tmp/ratio.lst" "$tmp/vratio.lst" "$tmp/scaling.lst" "$tmp/box.lst" |
	tr '\t' '\037')

# ---- PROFILE=1: top symbols, diff table and flame graphs ----
if [ -d "$run/profile" ]; then
	"$top/analysis/profile.sh" "$run" "$base" "$new" || kb_die "profile report failed on $run"
fi


# Inline an SVG: drop the XML prolog, and prefix ids so that several
# charts in one page do not share them.
inline_svg() {
	sed -n '/<svg/,$p' "$1" | sed -E \
		-e "s/id=\"([^\"]+)\"/id=\"$2-\\1\"/g" \
		-e "s/href=\"#([^\"]+)\"/href=\"#$2-\\1\"/g" \
		-e "s/url\\(#([^)]+)\\)/url(#$2-\\1)/g" \
		-e "s/id='([^']+)'/id='$2-\\1'/g" \
		-e "s/href='#([^']+)'/href='#$2-\\1'/g"
}

# An HTML table's head and rows: TABLE (html: every judged row, primary
# first; html-headline: WORKLOAD's primary rows of METRIC; html-info;
# html-na) in the columns, order and heads the model gives it (MODEL:
# kbstat model's "columns"), the cells from ROWS (kbstat table rows, by
# its header's names), escaped for HTML.
# table_html TABLE MODEL ROWS [WORKLOAD METRIC]
table_html() {
	jq -r --arg t "$1" '.columns[] | select(.tables | index($t)) |
		[.key, .head, .align, .fold // ""] | @tsv' "$2" >"$tmp/columns.tsv" ||
		kb_die "$2: no columns for table $1 (kbstat model)"
	awk -F'\t' -v mode="$1" -v want="${4:-}" -v wantm="${5:-}" '
	function h(s) {
		gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s)
		gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s)
		return s
	}
	# a number and its interval: a line break between the two
	function num(s,   i, ci, j) {
		i = index(s, " [")
		if (!i)
			return "<td class=\"num\"><span>" h(s) "</span></td>"
		# and, where the table needs it, after the comma of the interval
		ci = substr(s, i + 1)
		j = index(ci, ", ")
		if (j)
			ci = h(substr(ci, 1, j)) "</span> <span>" h(substr(ci, j + 2))
		else
			ci = h(ci)
		return "<td class=\"num\"><span>" h(substr(s, 1, i - 1)) "</span> <span>" \
			ci "</span></td>"
	}
	# text: a point may break after each of its parameters, a name
	# (kprobe_multi, memcg_bytes_overwritten; not a reason, which is
	# prose) after an underscore. A folded
	# column (the why of a verdict) is shown in full in a headline; the
	# full tables keep a row one line tall, it folded under the cell (no
	# script: <details>)
	function cell(k,   v, f, td) {
		v = c[key[k]]
		if (align[k] == "right")
			return num(v)
		v = h(v)
		gsub(/;/, ";<wbr>", v)
		if (key[k] != "why")
			gsub(/_/, "_<wbr>", v)
		f = fold[k] == "" ? "" : h(c[fold[k]])
		if (fold[k] == "")
			return "<td>" v "</td>"
		td = "<td class=\"" key[k] "\">"
		if (f == "")
			return td v "</td>"
		if (mode == "html-headline")
			return td v "<br><small>" f "</small></td>"
		return td "<details><summary>" v "</summary><small>" f "</small></details></td>"
	}
	function shown(s) {
		if (mode == "html")
			return s == "primary" || s == "judged"
		if (mode == "html-headline")
			return s == "primary" && c["workload"] == want && c["metric"] == wantm
		return s == (mode == "html-info" ? "informational" : "n/a")
	}
	FNR == NR { n++; key[n] = $1; head[n] = $2; align[n] = $3; fold[n] = $4; next }
	FNR == 1 {
		for (i = 1; i <= NF; i++)
			col[i] = $i
		line = "<tr>"
		for (k = 1; k <= n; k++)
			line = line "<th>" h(head[k]) "</th>"
		print line "</tr>"
		next
	}
	{
		for (i = 1; i <= NF; i++)
			c[col[i]] = $i
		if (!shown(c["section"]))
			next
		# the class of the row: the first word of its verdict ("n/a": na)
		cls = c["verdict"]
		sub(/ .*/, "", cls)
		gsub(/[^a-z]/, "", cls)
		line = "<tr class=\"" cls "\">"
		for (k = 1; k <= n; k++)
			line = line cell(k)
		print line "</tr>"
	}' "$tmp/columns.tsv" "$3"
}

# The n/a rows of a rows file as a table, if it has any (MODEL ROWS).
na_html() {
	awk -F'\t' '$1 == "n/a" { f = 1 } END { exit !f }' "$2" || return 0
	printf '<p>Absent: the kernel lacks what the variant needs (kbbench found it missing). Not a failure, never tested.</p>\n'
	printf '<div class="wide"><table class="na">\n'
	table_html html-na "$1" "$2"
	echo "</table></div>"
}

# A variant comparison: its cover-letter table, every judged row, n/a rows.
variant_html() {
	local vc=$1
	printf '<h3 id="%s">%s</h3>\n' "$vc" "$(printf '%s' "${vc_title[$vc]}" | kb_html_escape)"
	"$kbstat" cover "$tmp/$vc.json" --run "$run" >"$tmp/$vc.cover.txt"
	if [ -s "$tmp/$vc.cover.txt" ]; then
		echo "<pre class=\"cover\">"
		kb_html_escape <"$tmp/$vc.cover.txt"
		echo "</pre>"
	fi
	echo "<div class=\"wide\"><table>"
	table_html html "$tmp/$vc.model.json" "$tmp/$vc.rows.tsv"
	echo "</table></div>"
	na_html "$tmp/$vc.model.json" "$tmp/$vc.rows.tsv"
	local c
	for c in "${charts[@]}"; do
		[ "${chart_vc[$c]:-}" = "$vc" ] || continue
		nfig=$((nfig + 1))
		printf '<figure id="%s">\n' "$c"
		inline_svg "$tmp/$c.svg" "c$nfig"
		printf '<figcaption>%s</figcaption></figure>\n' "$(printf '%s' "${chart_cap[$c]}" | kb_html_escape)"
	done
}

# The headline's rows of workload W (MODEL ROWS W): a table per primary
# metric, which its caption names with its unit and direction.
headline_tables() {
	local m mu better
	while IFS=$'\t' read -r m mu better; do
		printf '<table class="headline">\n<caption>%s: %s is better</caption>\n' \
			"$(printf '%s' "$mu" | kb_html_escape)" "$(printf '%s' "$better" | kb_html_escape)"
		table_html html-headline "$1" "$2" "$3" "$m"
		printf '</table>\n'
	done < <(awk -F'\t' -v w="$3" 'FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["section"] == "primary" && $col["workload"] == w && !seen[$col["metric"]]++ {
			print $col["metric"] "\t" $col["metric_unit"] "\t" $col["better"] }' "$2")
}

# The headline's answer for the variants of workload W: each variant
# comparison's cover table (kbstat cover, with its clock note), else its
# primary rows.
cover_html() {
	local vc
	for vc in "${vcs[@]}"; do
		"$kbstat" cover "$tmp/$vc.json" --run "$run" --workload "$1" >"$tmp/cover.txt"
		if [ -s "$tmp/cover.txt" ]; then
			printf '<pre class="cover">\n'
			kb_html_escape <"$tmp/cover.txt"
			printf '</pre>\n'
		elif awk -F'\t' -v w="$1" '$1 == "primary" && $2 == w { f = 1 } END { exit !f }' "$tmp/$vc.rows.tsv"; then
			printf '<h4>%s</h4>\n' "$(printf '%s' "${vc_title[$vc]}" | kb_html_escape)"
			headline_tables "$tmp/$vc.model.json" "$tmp/$vc.rows.tsv" "$1"
		fi
	done
}

# Figures of the charts of one workload and kind.
figures() {
	local c
	for c in "${charts[@]}"; do
		if [ "${chart_w[$c]}" != "$1" ] || [ "${chart_kind[$c]}" != "$2" ]; then
			continue
		fi
		nfig=$((nfig + 1))
		printf '<figure id="%s">\n' "$c"
		inline_svg "$tmp/$c.svg" "c$nfig"
		printf '<figcaption>%s</figcaption></figure>\n' "$(printf '%s' "${chart_cap[$c]}" | kb_html_escape)"
	done
}

# The answer block (kbstat answer, 132 columns) as the page shows it.
answer_html() {
	printf '<section id="answer">\n<h2>The answer</h2>\n<pre class="answer">\n'
	kb_html_escape <"$tmp/answer-132.txt"
	printf '</pre>\n</section>\n'
}

mapfile -t workloads < <(awk -F'\t' 'NR > 1 && !seen[$2]++ { print $2 }' "$tmp/rows.tsv")
vc_rows=()
for vc in "${vcs[@]}"; do
	vc_rows+=("$tmp/$vc.rows.tsv")
done
# the workloads with a primary row, in the kernel comparison or a variant one
mapfile -t headline < <(awk -F'\t' 'FNR > 1 && $1 == "primary" && !seen[$2]++ { print $2 }' \
	"$tmp/rows.tsv" "${vc_rows[@]}")
clocks=$(jq -r '[.results[].clock] | unique | join(", ")' "$tmp/results.json")
min_effect=$(jq -r '.method.min_effect_default * 100' "$tmp/model.json")
if [ -n "$floor" ]; then
	floor_text="noise floor from $floor (per metric, never below $min_effect %)"
else
	floor_text="no floor file: minimum effect $min_effect % (run make calibrate for an A/A floor)"
fi
hb=$(printf '%s' "$base" | kb_html_escape)
hn=$(printf '%s' "$new" | kb_html_escape)
nfig=0

{
	cat <<EOF
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${gate_verdict:+$gate_verdict: }kbench ${gate:+regression check }report: $(printf '%s' "$(basename "$run")" | kb_html_escape)</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 1400px; }
table { border-collapse: collapse; font-size: 0.9em; max-width: 100%; }
table caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
div.wide { overflow-x: auto; }
section#method p { max-width: 60em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; }
td.num span { white-space: nowrap; }
figure svg { max-width: 100%; height: auto; }
pre.cover, pre.gate { white-space: pre-wrap; }
pre.fingerprint { white-space: pre-wrap; overflow-wrap: anywhere; }
pre.answer { font-size: 13px; line-height: 1.25; border-left: 4px solid #276; }
td details, td summary { white-space: nowrap; }
td details[open] { white-space: normal; }
td.num { text-align: right; font-family: monospace; }
tr.worse td { background: #fdd; }
tr.better td { background: #dfd; }
tr.insufficient td { background: #eee; color: #666; }
tr.inconclusive td { background: #ffe; }
tr.na td { background: #eef; color: #444; }
section.headline { border-left: 4px solid #888; padding-left: 1em; margin: 1.5em 0; }
h1.gate-REGRESSION { color: #fff; background: #b00; padding: 0.3em 0.5em; }
h1.gate-PASS { color: #fff; background: #276; padding: 0.3em 0.5em; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
figure { margin: 1em 0; }
</style>
</head>
<body>
EOF
	if [ -n "$gate" ]; then
		printf '<h1 class="gate-%s" id="gate">%s</h1>\n' "$gate_verdict" \
			"$(head -n 1 "$tmp/gate.txt" | kb_html_escape)"
		printf '<pre class="gate">\n'
		tail -n +2 "$tmp/gate.txt" | kb_html_escape
		printf '</pre>\n'
		if [ -f "$run/bisect.log" ]; then
			printf '<h2 id="bisect">Which patch (make bisect-perf)</h2>\n<pre class="bisect">\n'
			kb_html_escape <"$run/bisect.log"
			printf '</pre>\n'
		fi
		answer_html
		printf '<h2>NEW against OLD in full</h2>\n'
	else
		printf '<h1>kbench: %s vs %s</h1>\n' "$hn" "$hb"
		answer_html
	fi
	cat <<EOF
<p>Run <code>$(printf '%s' "$run" | kb_html_escape)</code>.
Clock: <b>$(printf '%s' "$clocks" | kb_html_escape)</b>.
Minimum effect: $(printf '%s' "$floor_text" | kb_html_escape).</p>
<section id="method">
<h2>How to read it</h2>
EOF
	# the method as this run applied it, in the model's words and constants
	jq -r '.method.notes[] | "<p>\(@html)</p>"' "$tmp/model.json"
	cat <<EOF
</section>
<h2 id="headline">Headline</h2>
<p>Per workload, its primary metric (the workload file's <code>primary =</code>;
without one, every judged metric): the ratio median($hn) / median($hb)
with its $ci and the verdict at each point, then the medians against
the workload's main parameter; where the workload has variants, their
comparison on one kernel as the cover letter's table (the workload file's
<code>table =</code>). Numbers carry the digits their CI supports.</p>
EOF
	for w in "${headline[@]}"; do
		printf '<section class="headline" id="headline-%s">\n<h3>%s</h3>\n' \
			"$(printf '%s' "$w" | tr -c 'A-Za-z0-9._=-' '_')" "$(printf '%s' "$w" | kb_html_escape)"
		headline_tables "$tmp/model.json" "$tmp/rows.tsv" "$w"
		cover_html "$w"
		figures "$w" primary
		printf '</section>\n'
	done
	[ "${#headline[@]}" -gt 0 ] || echo "<p>No judged metric in this run.</p>"
	cat <<EOF
<h2>Results</h2>
<p>Every judged metric, the primary ones first; the method is under <a href="#method">How to read it</a>.</p>
<div class="wide"><table id="results-table">
EOF
	table_html html "$tmp/model.json" "$tmp/rows.tsv"
	echo "</table></div>"
	if awk -F'\t' '$1 == "n/a" { f = 1 } END { exit !f }' "$tmp/rows.tsv"; then
		echo "<h2 id=\"absent\">Absent (n/a)</h2>"
		na_html "$tmp/model.json" "$tmp/rows.tsv"
	fi
	if [ "${#vcs[@]}" -gt 0 ]; then
		echo "<h2 id=\"variants\">Variant against variant</h2>"
		echo "<p>Within one kernel, each variant against the workload's base variant (its file's <code>base_variant</code>, else the first of <code>variants</code>), with the same statistics, intervals and verdict rules. Both variants ran in every boot, so where boots differ the test is a paired t on the per-boot ratio of their medians.</p>"
		for vc in "${vcs[@]}"; do
			variant_html "$vc"
		done
	fi
	if awk -F'\t' '$1 == "informational" { f = 1 } END { exit !f }' "$tmp/rows.tsv"; then
		echo "<h2>Informational metrics</h2>"
		echo "<p>Counts and sizes (rows, bytes, columns): both kernels' medians side by side; no test, no verdict.</p>"
		echo "<div class=\"wide\"><table>"
		table_html html-info "$tmp/model.json" "$tmp/rows.tsv"
		echo "</table></div>"
	fi
	if jq -e '(.failed_boots // []) | length > 0' "$tmp/results.json" >/dev/null; then
		echo "<h2>Failed boots</h2>"
		echo "<p>These boots panicked, oopsed, hung or lost their QEMU: their samples are not in the statistics, which use the complete boots only.</p><ul>"
		jq -r '.failed_boots[] | "<li><b>\(.kernel | @html) \(.boot | @html)</b> (vcpus \(.vcpus), attempt \(.attempt)): \(.reason | @html); serial log <code>\(.serial_log | @html)</code></li>"' "$tmp/results.json"
		echo "</ul>"
	fi
	if [ "$(jq '.warnings | length' "$tmp/results.json")" -gt 0 ]; then
		echo "<h2>Warnings</h2><ul>"
		jq -r '.warnings[] | "<li>\(@html)</li>"' "$tmp/results.json"
		echo "</ul>"
	fi
	echo "<h2>Plain-text summary (for a mailing-list reply)</h2><pre>"
	kb_html_escape <"$tmp/summary.txt"
	echo "</pre>"
	echo "<h2>Charts</h2>"
	for w in "${workloads[@]}"; do
		printf '<h3>%s</h3>\n' "$(printf '%s' "$w" | kb_html_escape)"
		figures "$w" ratio
		figures "$w" scaling
		figures "$w" box
	done
	[ ! -f "$run/profile.html" ] || cat "$run/profile.html"
	# which host ran each boot (orchestrate/run.sh's hosts.tsv)
	if [ -f "$run/hosts.tsv" ] && [ "$(wc -l <"$run/hosts.tsv")" -gt 1 ]; then
		echo "<h2 id=\"hosts\">Hosts</h2>"
		echo "<p>The host that ran each boot: its login (<code>HOSTS=</code>; local is this machine), CPU, QEMU, kernel and accelerator.</p>"
		echo "<div class=\"wide\"><table><tr><th>kernel</th><th>boot</th><th>host</th><th>hostname</th><th>CPU</th><th>QEMU</th><th>host kernel</th><th>accel</th></tr>"
		tail -n +2 "$run/hosts.tsv" | kb_html_escape | awk -F '\t' '{
			printf "<tr>"; for (i = 1; i <= NF; i++) printf "<td>%s</td>", $i; print "</tr>" }'
		echo "</table></div>"
	fi
	if [ -f "$run/fingerprint.json" ]; then
		echo "<h2>Fingerprint</h2><pre class=\"fingerprint\">"
		jq . "$run/fingerprint.json" | kb_html_escape
		echo "</pre>"
	else
		echo "<p><b>No fingerprint.json in this run.</b></p>"
	fi
	printf '<p>Regenerate with <code>make report RUN=%s</code>.</p>\n' "$(printf '%s' "$run" | kb_html_escape)"
	echo "</body></html>"
} >"$tmp/index.html"

if [ -f "$run/hosts.tsv" ] && [ "$(wc -l <"$run/hosts.tsv")" -gt 1 ]; then
	{
		printf '\n## Hosts\n\n| kernel | boot | host | CPU | QEMU | host kernel | accel |\n|---|---|---|---|---|---|---|\n'
		tail -n +2 "$run/hosts.tsv" | awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $5, $6, $7, $8 }'
	} >>"$tmp/summary.md"
fi

# Publish: charts first, index.html last, each one a rename.
rm -f "$run"/chart-*.svg
for c in "${charts[@]}"; do
	mv -f "$tmp/$c.svg" "$run/$c.svg"
done
rm -f "$run"/variants-*.json
for vc in "${vcs[@]}"; do
	mv -f "$tmp/$vc.json" "$run/$vc.json"
done
for f in results.json answer.txt summary.txt summary.md index.html; do
	mv -f "$tmp/$f" "$run/$f"
done
kb_say "report: wrote $run/index.html, summary.txt, summary.md, results.json and ${#charts[@]} charts"

# Index the run in the series' history (analysis/history.sh; the run
# directory stays the truth): a failure to record is a warning, never a
# failed report. HISTORY=0 leaves it out; a run without a fingerprint
# (a test's synthetic run) is not recorded.
if [ "${HISTORY:-1}" != 0 ] && [ -f "$run/fingerprint.json" ]; then
	KBSTAT=$kbstat "$top/analysis/history.sh" record "$run" || true
fi
