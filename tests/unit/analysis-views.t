#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One model, three views (analysis/model.c, issue 38 item 3). On the
# stored run (tests/fixtures/analysis/stored), report.sh's index.html,
# summary.md and summary.txt show the rows kbstat model holds: the same
# judged rows in the same order, with the same medians, ratios, p-values
# and verdicts. And no view spells a constant of the method: the view
# sources hold no literal CI level, threshold or minimum (method.h is the
# only place), and a results file whose recorded constants differ (80 %
# CI, p < 0.3 for a boot effect, alpha 0.01, 4 boots and 6 samples, a 2 %
# minimum effect) is shown with those, nowhere with the defaults.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
build_kbstat
echo "1..13"

stored=$top/tests/fixtures/analysis/stored
# report RESULTS DIR: report.sh on a copy of the stored run, showing RESULTS
report() {
	mkdir -p "$2"
	cp -r "$stored/run" "$2/run"
	if ! RESULTS=$1 HISTORY=0 KBSTAT=$kbstat "$top/analysis/report.sh" "$2/run" \
		>"$2/report.log" 2>&1; then
		echo "Bail out! report.sh failed on the stored run:"
		sed 's/^/# /' "$2/report.log"
		exit 1
	fi
}
# same DESC WANT GOT: the two files are equal (their diff if not)
same() {
	if diff "$2" "$3" >"$tmp/d"; then
		ok 0 "$1"
	else
		ok 1 "$1"
		head -n 20 "$tmp/d" | sed 's/^/# /'
	fi
}
report "$stored/results.json" "$tmp/a"
run=$tmp/a/run
"$kbstat" model "$run/results.json" --run "$run" >"$tmp/model.json"

# the judged rows of the model, in the columns of a table (kbstat
# model's "columns": index.html's "html", summary.md's "md")
judged_rows() {
	jq -r --arg t "$1" '(.columns | map(select(.tables | index($t)) | .key)) as $k |
		.rows[] | select(.section == "primary" or .section == "judged") | [.[$k[]]] |
		if $t == "md" then "| " + join(" | ") + " |" else @tsv end' "$tmp/model.json"
}
# a column's place in a table (1 is the first)
col_at() {
	jq -r --arg t "$1" --arg k "$2" \
		'[.columns[] | select(.tables | index($t)) | .key] | index($k) + 1' "$tmp/model.json"
}
judged_rows html >"$tmp/want-html.tsv"
# the composed cells are the row's own fields: metric (unit), better,
# primary; workload/variant
is "the model's composed cells: metric (unit), direction and primary, workload/variant" \
	"$(jq -r '[.rows[] | select(.metric_unit != .metric + (if .unit != "" then " (" + .unit + ")" else "" end) or
		.better_primary != .better + (if .section == "primary" then ", primary" else "" end) or
		.label != .workload + (if .variant != "" then "/" + .variant else "" end))] | length' \
		"$tmp/model.json")" 0
# index.html's results table: each cell's text (a point's <wbr> and
# a verdict's folded why left out), one row a line
perl -ne '
	$in = 1 if /<table id="results-table">/;
	next unless $in;
	$in = 0, next if m{</table>};
	next unless /^<tr class=/;
	s{<details><summary>(.*?)</summary>.*?</details>}{$1}g;
	my @c = map { s/<[^>]*>//gr } m{<td[^>]*>(.*?)</td>}g;
	s/&lt;/</g, s/&gt;/>/g, s/&quot;/"/g, s/&amp;/&/g for @c;
	print join("\t", @c), "\n";
' "$run/index.html" >"$tmp/got-html.tsv"
is "index.html: as many judged rows as the model ($(wc -l <"$tmp/want-html.tsv"))" \
	"$(wc -l <"$tmp/got-html.tsv")" "$(wc -l <"$tmp/want-html.tsv")"
same "index.html: every judged row's cells are the model's (medians, ratio, p, p (BH), min effect, verdict)" "$tmp/want-html.tsv" "$tmp/got-html.tsv"
# the medians index.html shows before their intervals are those
# summary.md and summary.txt show (one row, one number of digits)
jq -r '.rows[] | select(.section == "primary" or .section == "judged") |
	[.base_median, .new_median] | @tsv' "$tmp/model.json" >"$tmp/want-med.tsv"
awk -F'\t' -v OFS='\t' -v b="$(col_at html base)" -v n="$(col_at html new)" \
	'{ sub(/ \[.*/, "", $b); sub(/ \[.*/, "", $n); print $b, $n }' \
	"$tmp/got-html.tsv" >"$tmp/got-med.tsv"
same "index.html: each row's two medians at the digits summary.md and summary.txt show" "$tmp/want-med.tsv" "$tmp/got-med.tsv"

# summary.md: one table line per judged row, in the model's order (the
# rows under each head of the judged table; the kernel comparison's
# part: each variant comparison's summary follows)
judged_rows md >"$tmp/want-md.txt"
head_md=$(jq -r '"| " + ([.columns[] | select(.tables | index("md")) | .head] | join(" | ")) + " |"' \
	"$tmp/model.json")
awk -v h="$head_md" '/^## kbench: variant/ { exit } $0 == h { r = 2; next } r == 2 { r = 1; next }
	r == 1 && /^\|/ { print; next } { r = 0 }' "$run/summary.md" >"$tmp/got-md.txt"
same "summary.md: the judged rows, in order, are the model's ($(wc -l <"$tmp/want-md.txt") rows)" "$tmp/want-md.txt" "$tmp/got-md.txt"

# summary.txt: each judged row's medians, ratio and verdict on one line
# (the point before them may be shortened to what its group does not
# share); a per-run metric, too few boots, is said once instead
jq -r '.rows[] | select(.section == "primary" or .section == "judged") |
	[.workload, .metric, .base_median, .new_median, .estimate, .verdict] | @tsv' \
	"$tmp/model.json" >"$tmp/want-txt.tsv"
missing=$(perl -e '
	open my $t, "<", $ARGV[1] or die; my @txt = <$t>;
	open my $w, "<", $ARGV[0] or die;
	my $miss = 0;
	while (<$w>) {
		chomp; my ($wl, $m, $b, $n, $e, $v) = split /\t/;
		my $re = qr/\Q$b\E +\Q$n\E +\Q$e\E +\Q$v\E$/;
		next if grep { /$re/ } @txt;
		next if $v eq "insufficient data" && grep { /^  \Q$wl $m\E: \d+ boots a side/ } @txt;
		print "$wl $m $b $n $e $v\n"; $miss++;
	}' "$tmp/want-txt.tsv" "$run/summary.txt")
is "summary.txt: every judged row's medians, ratio and verdict are the model's" "$missing" ""

# the method's notes: the same words in the three views
jq -r '.method.notes[]' "$tmp/model.json" >"$tmp/notes"
nbad=0
while IFS= read -r line; do
	# escaped as report.sh escapes it (jq's @html: & < > ' ")
	html=$(jq -rn --arg s "$line" '$s | @html')
	grep -qxF -- "- $line" "$run/summary.md" && grep -qF -- "<p>$html</p>" "$run/index.html" ||
		nbad=$((nbad + 1))
done <"$tmp/notes"
is "the method's $(wc -l <"$tmp/notes") notes: summary.md and index.html say them word for word" "$nbad" 0
is "summary.txt: the notes' words, wrapped" \
	"$(tr -s ' \n' '  ' <"$run/summary.txt" | grep -cF -- "$(head -n 1 "$tmp/notes" | cut -c1-60)")" 1

# No literal constant in a view's source (comments aside): a CI level,
# an interval's level, a p threshold, a minimum of boots or samples, a
# floor, a seed. method.h holds them; model.c words them from the run.
views=(report.sh mail.c kbstat.c answer.c gate.c variants.c table.c results.c fmt.c absent.c)
lit='[0-9]+ ?%%? (CI|interval)|p (<|&lt;) 0\.[0-9]|p \(BH\) (<|&lt;) [0-9]|[Ff]ewer than [0-9]|never below [0-9]|default [0-9]+ ?%|seed [0-9]|[0-9]+ (boots|samples) a side'
found=
for f in "${views[@]}"; do
	case $f in
	*.sh) sed 's/^[[:space:]]*#.*//' "$top/analysis/$f" ;;
	*) perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "$top/analysis/$f" ;;
	esac | grep -nE "$lit" | sed "s|^|$f:|" >>"$tmp/lit" || true
done
found=$(cat "$tmp/lit")
is "no view source spells a constant of the method (method.h has them)" "$found" ""
# the check finds one: a view that said '95% CI' and 'p < 0.2'
printf 'printf("ratio [95%% CI], boots p < 0.2");\n' >"$tmp/bad.c"
ok "$(grep -qE "$lit" "$tmp/bad.c"; echo $?)" "the check finds a hard-coded '95%% CI' and 'p < 0.2'"

# A results file with other constants: every view shows them
jq '.ci_level = 0.8 | .decision_level = 0.7 | .alpha = 0.01 | .boot_effect_p = 0.3 |
	.min_boots = 4 | .min_samples = 6 | .min_effect_default = 0.02' \
	"$stored/results.json" >"$tmp/other.json"
report "$tmp/other.json" "$tmp/b"
o=$tmp/b/run
# the gate names the interval where a row fails it: one row worse
jq '(.results[] | select(.verdict == "same")) |= (.verdict = "worse")' "$tmp/other.json" >"$tmp/worse.json"
"$kbstat" gate "$tmp/worse.json" >"$tmp/gate.txt" || true
# the kernel comparison's part of each view: the variant comparisons
# (rhash against hash) are results files of their own, which report.sh
# computed with the method's real constants (in the headline too: a
# variant comparison's table under its <h4>, its own model's heads)
awk '/id="variants"/ { exit } /^<h4>variant / { v = 1 } !v { print } v && /^<\/table>/ { v = 0 }' \
	"$o/index.html" >"$o/index.head"
for f in summary.md summary.txt; do
	awk '/^(## )?kbench: variant/ { exit } { print }' "$o/$f" >"$o/$f.head"
done
stale=$(grep -lE '95% CI|95%% CI|95 % CI|p (<|&lt;) 0\.2[^0-9]|p \(BH\) (<|&lt;) 0\.05|not below 0\.05|[Ff]ewer than 3 boots|never below 1 ?%' \
	"$o/index.head" "$o/summary.md.head" "$o/summary.txt.head" "$o/answer.txt" \
	"$o"/chart-{primary,ratio,scaling,box}-*.svg "$tmp/gate.txt" || true)
is "other constants: no view shows the defaults (95% CI, p < 0.2, p (BH) < 0.05, 3 boots, 1 %)" "$stale" ""
check "other constants: index.html says 80% CI, p < 0.3, the 70% interval, p (BH) < 0.01, 4 boots or 6 samples, 2 %" \
	bash -c "grep -q 'ratio \[80% CI\]' '$o/index.html' && grep -q 'p &lt; 0.3)' '$o/index.html' &&
		grep -q 'the 70% interval' '$o/index.html' && grep -q 'p (BH) &lt; 0.01;' '$o/index.html' &&
		grep -q 'fewer than 4 boots or 6 samples' '$o/index.html' && grep -q 'not below 0.01\.' '$o/index.html' &&
		grep -q 'minimum effect 2 %' '$o/index.html'"
check "other constants: summary.txt, summary.md, the answer, the charts and the gate say 80% CI" \
	bash -c "grep -q '80% CI' '$o/summary.txt' && grep -q 'ratio \[80% CI\]' '$o/summary.md' &&
		grep -q '80% CI' '$o/answer.txt' && grep -q 'median ratio with 80% CI' '$o/chart-ratio-irq.svg' &&
		grep -q 'Failed the gate (ratio NEW/OLD with 80% CI' '$tmp/gate.txt'"

exit "$fail"
