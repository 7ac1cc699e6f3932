#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series' history (analysis/history.sh, kbstat changepoint): three
# revisions of a fixture series (synthetic run directories) give three
# rows per metric in order, the change point lands on the revision that
# brought the slowdown, a series without a step reports none, imports are
# idempotent, and a failure to record is a warning.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need sqlite3 jq gnuplot
build_kbstat
export KBSTAT=$kbstat HISTORY_DB=$tmp/history.sqlite KBENCH_CACHE=$tmp/cache
hist=$top/analysis/history.sh

echo "1..19"

# kbstat changepoint alone: a 5 % step at v2, tight intervals
out=$(printf 'v1\t1.00\t0.99\t1.01\nv2\t1.05\t1.04\t1.06\nv3\t1.05\t1.04\t1.06\n' | "$kbstat" changepoint)
is "changepoint: the step lands on v2" "$(tr '\t\n' ' ;' <<<"$out")" "v1 -;v2 change;v3 -;"
out=$(printf 'v1\t1.00\t0.99\t1.01\nv2\t1.004\t0.994\t1.014\nv3\t0.998\t0.988\t1.008\n' | "$kbstat" changepoint)
is "changepoint: no step, none" "$(grep -c change <<<"$out" || true)" 0
# a step inside the floor is no change point, however tight its intervals
out=$(printf 'a\t1.000\t0.9999\t1.0001\nb\t1.005\t1.0049\t1.0051\n' | "$kbstat" changepoint --floor 0.01)
is "changepoint: a 0.5 % step under a 1 % floor is none" "$(grep -c change <<<"$out" || true)" 0
if printf 'v1\t1.0\tx\t1.1\n' | "$kbstat" changepoint 2>/dev/null; then r=0; else r=$?; fi
is "changepoint: a bad row is an error (exit 1)" "$r" 1

# false alarms under A/A-like noise (S = 0.5 %, half the floor), seeded
for nrev in 3 8; do
	out=$("$kbstat" changepoint sim --revisions "$nrev" --sd 0.005 --runs 4000 --seed 1 | tail -n 1)
	ok "$(awk -v c="$(field any_change "$out")" 'BEGIN { exit !(c <= 200) }'; echo $?)" \
		"changepoint: $nrev revisions without a step: $(field any_change "$out")/4000 false alarms (<= 5 %)"
done

# run DIR KIND REV RATIO_LAT RATIO_THR: a finished run of revision REV
# of the fixture series (regression-check: against the baseline in
# new-vs-baseline.json; bench-compare: results.json).
mkrun() {
	local d=$1 kind=$2 rev=$3 lat=$4 thr=$5 name=new f=new-vs-baseline.json
	mkdir -p "$d"
	if [ "$kind" = regress ]; then
		printf 'From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH %s 0/2] frob: a faster frob\n\ncover\n\nFrom x Mon Sep 17 00:00:00 2001\nSubject: [PATCH %s 1/2] frob: rework\n\ndiff --git a/x b/x\n' \
			"$rev" "$rev" >"$tmp/series-$rev.mbx"
		printf 'NEW=%s (new, patches sha256 0)\nOLD=kernel/series (patched, patches sha256 0)\nREF=\n' \
			"$tmp/series-$rev.mbx" >"$d/revisions.txt"
	else
		name=patched f=results.json
	fi
	jq -n --arg n "$name" --arg rev "$rev" '{kernels: {baseline: {label: "baseline", key: "b0", patches: []},
		($n): {label: $n, key: ("k" + $rev), patches: [{file: "0001.patch",
			subject: "frob: rework", sha256: ("s" + $rev)}]}},
		qemu_version: ["8.2"], accel: ["tcg"]}' >"$d/fingerprint.json"
	row() {
		jq -nc --arg m "$1" --argjson r "$2" --arg b "$3" '{workload: "w", variant: "", point: "vcpus=1",
			metric: $m, unit: "ns", better: $b, clock: "icount", base: {n: 75, median: 100},
			new: {n: 75, median: (100 * $r)}, scale: "ratio", estimate: $r,
			estimate_ci_lo: ($r - 0.005), estimate_ci_hi: ($r + 0.005), p: 0.01, p_adj: 0.02,
			min_effect: 0.01, floor_source: "default", verdict: "same", why: null, primary: true}'
	}
	jq -n --arg n "$name" --argjson a "$(row lat "$lat" lower)" --argjson b "$(row thr "$thr" higher)" \
		'{kind: "kbench-results", base: "baseline", new: $n, results: [$a, $b]}' >"$d/$f"
	[ -f "$d/results.json" ] || jq '.base = "old"' "$d/$f" >"$d/results.json"
}
r=$tmp/reports
mkrun "$r/20261201-000000-regress" regress v1 1.000 1.000
mkrun "$r/20261202-000000-regress" regress v2 1.050 1.003
mkrun "$r/20261203-000000-regress" regress v3 1.052 0.998

# imported out of order, then again: the same rows
t "import three revisions (v3 first)" "$hist" import "$r/20261203-000000-regress" "$r/20261201-000000-regress" "$r/20261202-000000-regress"
t "import them again" "$hist" import "$r"/2026120[123]-000000-regress
is "idempotent: 3 runs, 6 kernels (baseline, new), 12 result rows" \
	"$(sqlite3 "$HISTORY_DB" 'SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM kernels), (SELECT count(*) FROM results)')" "3|6|12"
is "revision labels from the mbox subjects, series title from the cover letter" \
	"$(sqlite3 "$HISTORY_DB" "SELECT group_concat(revision || '=' || series, ';') FROM (SELECT * FROM kernels WHERE name = 'new' ORDER BY rev_num)")" \
	"v1=frob: a faster frob;v2=frob: a faster frob;v3=frob: a faster frob"

out=$("$hist" show --metric lat --out "$tmp/html" 2>/dev/null)
diag_out() { printf '%s\n' "$1" | sed 's/^/# /'; }
diag_out "$out"
is "lat: three rows, in revision order" "$(awk '/^v[0-9]/ { printf "%s ", $1 }' <<<"$out")" "v1 v2 v3 "
is "lat: the change point is on v2, the revision that brought the 5 % slowdown" \
	"$(awk '/change point$/ { print $1 }' <<<"$out")" v2
out=$("$hist" show --metric thr 2>/dev/null)
is "thr (no step): three rows, no change point" \
	"$(awk '/^v[0-9]/ { n++ } /change point$/ { c++ } END { print n + 0, c + 0 }' <<<"$out")" "3 0"
ok "$(grep -q '<svg' "$tmp/html/index.html" && grep -q 'change point' "$tmp/html/index.html"; echo $?)" \
	"history page: an SVG chart and its table"

# A series without vN (bench-compare runs): its revisions are its
# patches' hash, in the order of their runs; no step, no change point.
mkrun "$r/20261204-000000" compare a 1.010 1.0
mkrun "$r/20261205-000000" compare b 1.006 1.0
mkrun "$r/20261206-000000" compare c 1.012 1.0
t "import every run of reports/" "$hist" import "$r"/2026120[456]-000000
out=$("$hist" show --metric lat --series 'frob: rework' 2>/dev/null)
diag_out "$out"
is "hash-labelled revisions, in run order, no change point" \
	"$(awk '/^h:/ { printf "%s ", $2 } /change point$/ { printf "CHANGE " }' <<<"$out")" \
	"20261204-000000 20261205-000000 20261206-000000 "

# b4: an mbox without vN in its subjects is v1
mkrun "$tmp/nov/20261207-000000-regress" regress "" 1.0 1.0
is "an mbox whose subjects have no vN: revision v1" \
	"$(HISTORY_DB=$tmp/nov.sqlite "$hist" import "$tmp/nov/20261207-000000-regress" 2>/dev/null &&
		sqlite3 "$tmp/nov.sqlite" "SELECT revision, rev_num FROM kernels WHERE name = 'new'")" "v1|1"

# recording never fails a run
mkdir -p "$tmp/broken"
out=$("$hist" record "$tmp/broken" 2>&1) && r=0 || r=$?
ok "$([ "$r" = 0 ] && grep -q 'warning: the run was not recorded' <<<"$out"; echo $?)" \
	"record of a run without results: a warning, exit 0"
HISTORY_DB=/proc/nonexistent/h.sqlite "$hist" record "$r/20261204-000000" >"$tmp/rec" 2>&1 && r=0 || r=$?
ok "$([ "$r" = 0 ] && grep -q warning "$tmp/rec"; echo $?)" "record into an unwritable store: a warning, exit 0"

exit "$fail"
