#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series' history: an SQLite index of the run directories.
#
#   history.sh import [RUN...]    (re)record runs (default: every reports/* run)
#   history.sh record RUN         the same for one run; a failure is a warning
#   history.sh show [--workload W] [--metric M] [--series S] [--out DIR]
#
# The database is $HISTORY_DB (default $KBENCH_CACHE/history.sqlite).
# The run directory stays the truth: importing a run again replaces its
# rows, and the whole store can be rebuilt from reports/. Schema and
# queries: README.md, "The series' history".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE

db=${HISTORY_DB:-$KBENCH_CACHE/history.sqlite}
kbstat=${KBSTAT:-$top/build/analysis/kbstat}

need_tools() {
	command -v sqlite3 >/dev/null || kb_die "sqlite3 not found: install sqlite3 (make deps)"
	command -v jq >/dev/null || kb_die "jq not found: install jq (make deps)"
}

sql() {
	sqlite3 -batch -bail -cmd '.timeout 10000' "$db" "$@"
}

schema() {
	mkdir -p "$(dirname "$db")"
	sql <<'EOF'
CREATE TABLE IF NOT EXISTS runs (
	run_id TEXT PRIMARY KEY,	-- the run directory's name
	path TEXT NOT NULL,		-- where it was imported from
	kind TEXT NOT NULL,		-- bench-compare, regression-check, calibrate, bisect-perf
	fingerprint_sha256 TEXT,	-- of fingerprint.json without "kernels"
	fingerprint TEXT,		-- fingerprint.json itself
	imported_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kernels (
	run_id TEXT NOT NULL REFERENCES runs(run_id),
	name TEXT NOT NULL,		-- the run's label: baseline, patched, old, new
	label TEXT, key TEXT,		-- build-info label and cache key
	npatches INTEGER NOT NULL,
	series TEXT,			-- the series' title ('' for the baseline)
	revision TEXT,			-- vN (b4-style, from the mbox) or h:<sha256/12>
	rev_num INTEGER,		-- N of vN, else NULL
	series_sha256 TEXT,		-- sha256 of the patches' sha256 lines
	spec TEXT,			-- the series path, when the run recorded it
	PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS results (
	run_id TEXT NOT NULL REFERENCES runs(run_id),
	comparison TEXT NOT NULL,	-- the results file: results.json, new-vs-baseline.json, step-NN.json
	base TEXT NOT NULL, new TEXT NOT NULL,	-- kernels.name of both sides
	workload TEXT NOT NULL, variant TEXT NOT NULL, point TEXT NOT NULL,
	metric TEXT NOT NULL, unit TEXT, better TEXT, clock TEXT,
	scale TEXT,			-- ratio (new/base) or diff (new - base)
	base_n INTEGER, base_median REAL, new_n INTEGER, new_median REAL,
	estimate REAL, ci_lo REAL, ci_hi REAL,	-- 95 %
	p REAL, p_adj REAL, min_effect REAL, floor_source TEXT,
	verdict TEXT, why TEXT, is_primary INTEGER,
	PRIMARY KEY (run_id, comparison, workload, variant, point, metric)
);
CREATE INDEX IF NOT EXISTS results_metric ON results (workload, metric, point);
PRAGMA user_version = 1;
EOF
}

# rev_of SPEC SHA: the revision label of a series: vN from an mbox's
# subjects ("[PATCH v3 2/8]", as b4 am writes them; "[PATCH 2/8]" is v1,
# as for b4) or its file name (b4's v3_<date>_<who>_<title>.mbx), or
# from a git: range's head ref (my-series-v3; not the base's v6.12),
# else h:<first 12 of SHA>.
rev_of() {
	local spec=$1 sha=$2 v=
	case $spec in
	git:*)
		v=$(printf '%s\n' "${spec##*..}" | grep -oE '(^|[^[:alnum:]])v[0-9]+([-_/]|$)' | tail -n 1 |
			grep -oE 'v[0-9]+' || true)
		printf '%s\n' "${v:-h:${sha:0:12}}"
		return
		;;
	esac
	if [ -n "$spec" ] && [ -f "$spec" ]; then
		v=$(grep -m1 -aoiE '^Subject:.*\[[^]]*PATCH[^]]*[[:space:]]v[0-9]+' "$spec" 2>/dev/null |
			grep -oiE 'v[0-9]+$' | tr V v || true)
		if [ -z "$v" ] && grep -qaiE '^Subject:.*\[[^]]*PATCH[^]]*\]' "$spec" 2>/dev/null &&
			! basename "$spec" | grep -qE '(^|[^[:alnum:]])v[0-9]+([^[:alnum:]]|$)'; then
			v=v1
		fi
	fi
	if [ -z "$v" ] && [ -n "$spec" ]; then
		v=$(basename "$spec" | grep -oE '(^|[^[:alnum:]])v[0-9]+([^[:alnum:]]|$)' | head -n 1 |
			grep -oE 'v[0-9]+' || true)
	fi
	[ -n "$v" ] || v=h:${sha:0:12}
	printf '%s\n' "$v"
}

# title_of SPEC FIRST: the series' title: an mbox's cover letter subject
# (0/N) without its [PATCH ...] prefix, else the first patch's subject.
title_of() {
	local spec=$1 t=
	if [ -n "$spec" ] && [ -f "$spec" ]; then
		t=$(grep -m1 -aE '^Subject:.*\[[^]]*[[:space:]]0+/[0-9]+\]' "$spec" 2>/dev/null |
			sed -E 's/^Subject:[[:space:]]*(\[[^]]*\][[:space:]]*)*//' || true)
	fi
	[ -n "$t" ] || t=$2
	printf '%s\n' "$t"
}

# The SQL that records RUN, on stdout.
run_sql() {
	local run=$1 id kind fp name spec sha n rev num title first
	id=$(basename "$run")
	fp=$run/fingerprint.json
	[ -f "$fp" ] || kb_die "$run: no fingerprint.json (not a finished run directory)"
	[ -f "$run/results.json" ] || kb_die "$run: no results.json (make report RUN=$run writes it)"
	kind=bench-compare
	[ ! -f "$run/revisions.txt" ] || kind=regression-check
	[ ! -f "$run/bisect.tsv" ] || kind=bisect-perf
	case $id in *-aa) kind=calibrate ;; esac
	echo "BEGIN;"
	echo "DELETE FROM results WHERE run_id = '${id//\'/\'\'}';"
	echo "DELETE FROM kernels WHERE run_id = '${id//\'/\'\'}';"
	echo "DELETE FROM runs WHERE run_id = '${id//\'/\'\'}';"
	jq -r --arg id "$id" --arg path "$(cd "$run" && pwd)" --arg kind "$kind" \
		--arg now "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--arg fsha "$(jq -cS 'del(.kernels)' "$fp" | sha256sum | cut -d' ' -f1)" '
		def q: if . == null then "NULL" else "'"'"'" + (tostring | gsub("'"'"'"; "'"'"''"'"'")) + "'"'"'" end;
		"INSERT INTO runs VALUES (\($id | q), \($path | q), \($kind | q), \($fsha | q), \(tojson | q), \($now | q));"
	' "$fp"
	for name in $(jq -r '.kernels | keys[]' "$fp"); do
		n=$(jq -r --arg n "$name" '.kernels[$n].patches | length' "$fp")
		sha=$(jq -r --arg n "$name" '.kernels[$n].patches[].sha256' "$fp" | sha256sum | cut -d' ' -f1)
		spec=
		if [ -f "$run/revisions.txt" ]; then
			case $name in
			new) spec=$(sed -n 's/^NEW=\(.*\) ([^()]*)$/\1/p' "$run/revisions.txt") ;;
			old) spec=$(sed -n 's/^OLD=\(.*\) ([^()]*)$/\1/p' "$run/revisions.txt") ;;
			esac
			[ -z "$spec" ] || case $spec in /* | git:*) ;; *) spec=$top/$spec ;; esac
		fi
		if [ "$n" = 0 ]; then
			rev='' title='' num=NULL
		else
			first=$(jq -r --arg n "$name" '.kernels[$n].patches[0].subject' "$fp")
			rev=$(rev_of "$spec" "$sha")
			title=$(title_of "$spec" "$first")
			num=NULL
			case $rev in v*) num=${rev#v} ;; esac
		fi
		jq -rn --arg id "$id" --arg name "$name" --argjson k "$(jq -c --arg n "$name" '.kernels[$n]' "$fp")" \
			--arg n "$n" --arg series "$title" --arg rev "$rev" --arg num "$num" \
			--arg sha "$sha" --arg spec "$spec" '
			def q: if . == null then "NULL" else "'"'"'" + (tostring | gsub("'"'"'"; "'"'"''"'"'")) + "'"'"'" end;
			"INSERT INTO kernels VALUES (\($id | q), \($name | q), \($k.label | q), \($k.key | q), \($n), \($series | q), \($rev | q), \($num), \($sha | q), \(if $spec == "" then null else $spec end | q));"'
	done
	# a bisect's steps (orchestrate/bisect.sh): each prefix against GOOD
	for f in results.json new-vs-baseline.json $(cd "$run" && find . -maxdepth 1 -name 'step-*.json' | sort); do
		f=${f#./}
		[ -f "$run/$f" ] || continue
		jq -r --arg id "$id" --arg cmp "$f" '
			def q: if . == null then "NULL" elif type == "number" then tostring
				elif type == "boolean" then (if . then "1" else "0" end)
				else "'"'"'" + (tostring | gsub("'"'"'"; "'"'"''"'"'")) + "'"'"'" end;
			.base as $b | .new as $n | .results[] |
			"INSERT INTO results VALUES (\([$id, $cmp, $b, $n, .workload, (.variant // ""), .point,
				.metric, .unit, .better, .clock, .scale, .base.n, .base.median, .new.n,
				.new.median, .estimate, .estimate_ci_lo, .estimate_ci_hi, .p, .p_adj,
				.min_effect, .floor_source, .verdict, .why, .primary] | map(q) | join(", ")));"
		' "$run/$f"
	done
	echo "COMMIT;"
}

import_runs() {
	local run n=0 sqlf
	need_tools
	schema
	if [ $# -eq 0 ]; then
		for run in "$top"/reports/*/; do
			if [ ! -f "$run/results.json" ] || [ ! -f "$run/fingerprint.json" ]; then
				continue
			fi
			set -- "$@" "${run%/}"
		done
	fi
	sqlf=$(mktemp)
	# shellcheck disable=SC2064 # the name is fixed now
	trap "rm -f '$sqlf'" EXIT
	for run in "$@"; do
		run=${run%/}
		run_sql "$run" >"$sqlf"
		sql <"$sqlf" || kb_die "recording $run into $db failed"
		n=$((n + 1))
	done
	kb_say "history: $n run(s) recorded in $db"
}

# show: per metric, its value against the baseline across the series'
# revisions (the latest run of each), with the change points.
# show_query WHERE FILE: the latest estimate of every revision against
# the baseline, one row a key and revision, into FILE
show_query() {
	local where=$1
	sql -separator $'\t' -noheader >"$2" <<EOF
WITH rows AS (
	SELECT k.series, k.revision, k.rev_num, r.*,
		row_number() OVER (PARTITION BY k.series, k.revision, r.workload, r.variant,
			r.point, r.metric ORDER BY r.run_id DESC) AS latest,
		min(r.run_id) OVER (PARTITION BY k.series, k.revision) AS first_run
	FROM results r
	JOIN kernels k ON k.run_id = r.run_id AND k.name = r.new
	JOIN kernels b ON b.run_id = r.run_id AND b.name = r.base
	WHERE b.npatches = 0 AND k.npatches > 0 AND r.estimate IS NOT NULL
		AND r.comparison NOT LIKE 'step-%' $where
)
SELECT series, workload, variant, point, metric, unit, better, scale, revision, run_id,
	estimate, ci_lo, ci_hi, verdict, min_effect
FROM rows WHERE latest = 1
ORDER BY series, workload, variant, point, metric, rev_num IS NULL, rev_num, first_run;
EOF
}

# show_group I: group I of show() (a series and metric key) as text,
# and as a chart and table added to html when --out is given. Uses
# show()'s locals (tmp, out, html).
show_group() {
	local i=$1 title unit better scale fl s w v p m
	# cut, not read: an empty variant must stay a field
	s=$(cut -f1 "$tmp/g$i.key") w=$(cut -f2 "$tmp/g$i.key") v=$(cut -f3 "$tmp/g$i.key")
	p=$(cut -f4 "$tmp/g$i.key") m=$(cut -f5 "$tmp/g$i.key")
	unit=$(head -n 1 "$tmp/g$i.rows" | cut -f6)
	better=$(head -n 1 "$tmp/g$i.rows" | cut -f7)
	scale=$(head -n 1 "$tmp/g$i.rows" | cut -f8)
	fl=$(awk -F'\t' '$15 > f { f = $15 } END { print f ? f : 0.01 }' "$tmp/g$i.rows")
	if [ "$scale" = ratio ]; then
		cut -f9,11,12,13 "$tmp/g$i.rows" | "$kbstat" changepoint --floor "$fl" >"$tmp/g$i.cp"
	else
		cut -f9 "$tmp/g$i.rows" | sed 's/$/\t-/' >"$tmp/g$i.cp"
	fi
	title="$s: $w${v:+/$v} $p $m ($unit, $better is better)"
	printf '== %s\n' "$title"
	printf '%-14s %-20s %-32s %-13s %s\n' revision run "$([ "$scale" = ratio ] && echo "ratio [95% CI]" || echo "difference [95% CI]")" verdict change
	paste "$tmp/g$i.rows" "$tmp/g$i.cp" | awk -F'\t' '{
		printf "%-14s %-20s %-32s %-13s %s\n", $9, $10, sprintf("%.4g [%.4g, %.4g]", $11, $12, $13), $14,
			($17 == "change" ? "<- change point" : "")
	}'
	[ "$scale" = ratio ] || echo "(a difference: no change points are searched)"
	echo
	if [ -n "$out" ]; then
		paste "$tmp/g$i.rows" "$tmp/g$i.cp" | awk -F'\t' '{ print NR - 1, $11, $12, $13, $9, ($17 == "change") }' >"$tmp/g$i.dat"
		chart "$tmp/g$i.dat" "$title" "$scale" "$tmp/g$i.svg"
		html="$html<h2>$(esc "$title")</h2>$(cat "$tmp/g$i.svg")<table><tr><th>revision</th><th>run</th><th>estimate [95 % CI]</th><th>verdict</th><th>change point</th></tr>$(paste "$tmp/g$i.rows" "$tmp/g$i.cp" | esc | awk -F'\t' '{ printf "<tr><td>%s</td><td>%s</td><td>%.4g [%.4g, %.4g]</td><td>%s</td><td>%s</td></tr>", $9, $10, $11, $12, $13, $14, ($17 == "change" ? "yes" : "") }')</table>"
	fi
}

# show_page: show()'s index.html in out, from html
show_page() {
	mkdir -p "$out"
	{
		printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>kbench history</title>'
		printf '<style>body{font-family:sans-serif;max-width:1400px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}svg{max-width:100%%;height:auto}</style></head><body>'
		printf '<h1>kbench: the series across its revisions</h1><p>Each revision against the baseline (the latest run of it), the 95 %% interval, and the change points (e-divisive means; analysis/README.md). From %s.</p>' "$(esc <<<"$db")"
		printf '%s\n</body></html>\n' "$html"
	} >"$out/.index.html.tmp"
	mv "$out/.index.html.tmp" "$out/index.html"
	kb_say "history: $out/index.html"
}

show() {
	local wl='' metric='' series='' out='' where=''
	while [ $# -gt 0 ]; do
		case $1 in
		--workload) wl=$2 ;;
		--metric) metric=$2 ;;
		--series) series=$2 ;;
		--out) out=$2 ;;
		*) kb_die "history.sh show: unknown argument '$1'" ;;
		esac
		shift 2 || kb_die "history.sh show: $1 needs a value"
	done
	need_tools
	[ -f "$db" ] || kb_die "$db: no history yet (make history-import fills it from reports/)"
	[ -x "$kbstat" ] || kb_die "$kbstat: not found; run 'make analysis-tools'"
	q() { printf "'%s'" "${1//\'/\'\'}"; }
	[ -z "$wl" ] || where="$where AND r.workload = $(q "$wl")"
	[ -z "$metric" ] || where="$where AND r.metric = $(q "$metric")"
	if [ -n "$series" ] && [ -e "$series" ]; then
		# a series spec: its title, as a run records it
		local st sl first
		st=$(mktemp -d)
		sl=$("$top/kernel/scripts/series.sh" "$series" "$st" | head -n 1) ||
			kb_die "SERIES=$series: not a series kbench can read"
		first=$(grep -m1 -a '^Subject:' "$sl" | sed -E 's/^Subject:[[:space:]]*(\[[^]]*\][[:space:]]*)*//')
		rm -rf "$st"
		where="$where AND k.series = $(q "$(title_of "$series" "$first")")"
	elif [ -n "$series" ]; then
		where="$where AND instr(k.series, $(q "$series")) > 0"
	fi
	local tmp
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # the name is fixed now
	trap "rm -rf '$tmp'" EXIT
	show_query "$where" "$tmp/rows"
	[ -s "$tmp/rows" ] || kb_die "no rows in $db against the baseline${wl:+ for WORKLOAD=$wl}${metric:+ METRIC=$metric}${series:+ SERIES=$series}"
	# one group per series and metric key
	awk -F'\t' -v d="$tmp" '{
		k = $1 FS $2 FS $3 FS $4 FS $5
		if (!(k in g)) { g[k] = ++n; print k > (d "/g" n ".key") }
		print > (d "/g" g[k] ".rows")
	} END { print n > (d "/count") }' "$tmp/rows"
	local ng i html=""
	ng=$(cat "$tmp/count")
	for ((i = 1; i <= ng; i++)); do
		show_group "$i"
	done
	[ -z "$out" ] || show_page
}

esc() {
	sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g'
}

# chart DAT TITLE SCALE SVG: the estimate with its interval by revision,
# a dashed line at each change point.
chart() {
	local dat=$1 title=$2 scale=$3 svg=$4 ref=1 arrows
	[ "$scale" = ratio ] || ref=0
	arrows=$(awk '$6 == 1 { printf "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb \"red\"\n", $1 - 0.5, $1 - 0.5 }' "$dat")
	gnuplot <<EOF >"$svg.tmp" 2>"$svg.log" || kb_die "gnuplot failed on $dat: $(cat "$svg.log")"
set terminal svg size 900,400 dynamic font "sans,11"
set title "$(printf '%s' "$title" | sed 's/["\\]/\\&/g')"
set ylabel "$([ "$scale" = ratio ] && echo "ratio to the baseline" || echo "difference to the baseline")"
set xlabel "revision (red dashes: change point)"
set offsets 0.5, 0.5, 0, 0
set key off
set grid y
$arrows
plot $ref with lines lc rgb "gray", "$dat" using 1:2:3:4:xtic(5) with yerrorbars pt 7 lc rgb "blue", "" using 1:2 with lines lc rgb "blue"
EOF
	sed -n '/<svg/,$p' "$svg.tmp" >"$svg"
}

[ $# -ge 1 ] || kb_die "usage: history.sh import [RUN...] | record RUN | show [--workload W] [--metric M] [--series S] [--out DIR]"
cmd=$1
shift
case $cmd in
import) import_runs "$@" ;;
record)
	[ $# -eq 1 ] || kb_die "usage: history.sh record RUN"
	# never fails the run: the run directory is the truth
	if ! (import_runs "$1") 2>"${TMPDIR:-/tmp}/kbench-history.$$.log"; then
		kb_say "warning: the run was not recorded in the history ($db): $(tail -n 1 "${TMPDIR:-/tmp}/kbench-history.$$.log"); make history-import RUN=$1 records it later"
	fi
	rm -f "${TMPDIR:-/tmp}/kbench-history.$$.log"
	;;
show) show "$@" ;;
*) kb_die "history.sh: unknown command '$cmd' (import, record, show)" ;;
esac
