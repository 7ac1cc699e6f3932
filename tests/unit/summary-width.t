#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# summary.txt (kbstat summary --format txt, analysis/mail.c) fits 80
# columns: every prose line and every table line, the head of a table
# included ("verdict" is one column wider than "better" under it). The
# one exception is a lone word that cannot be wrapped (a path, a long
# identifier): text_wrap gives it a line of its own, which may be longer.
# A table whose point column grows one column at a time crosses the
# 80th column on a row and on its head; neither may pass it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq
build_kbstat
echo "1..6"

stored=$top/tests/fixtures/analysis/stored

# over80 FILE: the lines wider than 80 columns that hold more than one
# word after their indentation (text the writer could have wrapped)
over80() {
	awk 'length($0) > 80 { s = $0; sub(/^ +/, "", s); if (s ~ / /) print FILENAME ":" FNR ": " length($0) ": " $0 }' "$1"
}

# the checker sees what it looks for: an 81-column table head, and not
# a long path alone on its line
{
	printf '%80s\n' 'verdict'
	printf '%81s\n' 'ratio [95%% CI]  verdict'
	printf '    /%090d\n' 0
} >"$tmp/control.txt"
is "the check finds an 81-column line and passes a lone long path" \
	"$(over80 "$tmp/control.txt" | cut -d: -f2)" 2

"$kbstat" summary "$stored/results.json" --run "$stored/run" --format txt >"$tmp/stored.txt"
is "the stored run's summary.txt: no line over 80 columns" "$(over80 "$tmp/stored.txt")" ""

# lookup/rhash (four rows, each "better"): its points made one column
# longer at each step, 0 to 60, so that the rows' width runs past 80
pads=$(seq 0 60)
wide=
limit=0
split=0
for k in $pads; do
	jq --argjson k "$k" '(.results[] | select(.workload == "lookup" and .variant == "rhash") | .point) |=
		(. + ("_" * $k))' "$stored/results.json" >"$tmp/pad.json"
	"$kbstat" summary "$tmp/pad.json" --run "$stored/run" --format txt >"$tmp/pad-$k.txt"
	wide+=$(over80 "$tmp/pad-$k.txt")
	# a table's head at exactly 80 columns: the boundary was reached
	if awk 'length($0) == 80 && /  verdict$/ { f = 1 } END { exit !f }' "$tmp/pad-$k.txt"; then
		limit=$((limit + 1))
	fi
	# the point on a line of its own above its numbers
	if grep -qx '  n=1_*' "$tmp/pad-$k.txt"; then
		split=$((split + 1))
	fi
done
is "points 0 to 60 columns longer: no line over 80 columns, a table's head included" "$wide" ""
check "the sweep reached a head of exactly 80 columns (the edge was tested)" test "$limit" -gt 0
check "the sweep went past it: the point moved to a line of its own" test "$split" -gt 0

# the run a report writes (report.sh's summary.txt is the answer, this
# text and the variant comparisons' text), on the variants fixture
m=$tmp/variants
gen_variants "$m"
if env KBSTAT="$kbstat" HISTORY=0 "$top/analysis/report.sh" "$m" >"$tmp/report.log" 2>&1; then
	is "report.sh's summary.txt on a run with variants: no line over 80 columns" "$(over80 "$m/summary.txt")" ""
else
	ok 1 "report.sh's summary.txt on a run with variants: no line over 80 columns"
	sed 's/^/# /' "$tmp/report.log"
fi

exit "$fail"
