#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One column registry (analysis/model.c's columns[], issue 38 item 3):
# every table of the three views takes its columns, their order and
# their heads from the model (kbstat model's "columns"). On the stored
# run (tests/fixtures/analysis/stored), each table the registry names
# (summary.md's judged, informational and n/a tables, summary.txt's
# groups, index.html's judged, headline, informational and n/a tables)
# has exactly the model's heads, in its order, and each of its rows one
# cell per column. Then a kbstat whose registry has one more column (a
# stand-in statistic, one line added to model.c) writes it into
# summary.md, summary.txt and index.html with no other source changed:
# a new statistic costs its computation, results.json, one entry.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot cc
build_kbstat
echo "1..21"

stored=$top/tests/fixtures/analysis/stored
tables=(md md-info md-na txt html html-headline html-info html-na)

# report KBSTAT DIR: report.sh with KBSTAT on a copy of the stored run
report() {
	mkdir -p "$2"
	cp -r "$stored/run" "$2/run"
	if ! RESULTS=$stored/results.json HISTORY=0 KBSTAT=$1 "$top/analysis/report.sh" "$2/run" \
		>"$2/report.log" 2>&1; then
		echo "Bail out! report.sh failed on the stored run:"
		sed 's/^/# /' "$2/report.log"
		exit 1
	fi
	"$1" model "$2/run/results.json" --run "$2/run" >"$2/model.json"
}

# table_check MODEL TABLE FILE: "" if FILE shows TABLE with the model's
# heads and one cell per column in each row, else what is wrong.
table_check() {
	jq -r --arg t "$2" '.columns[] | select(.tables | index($t)) |
		[(if $t == "txt" then .head_txt // .head else .head end), .align] | @tsv' \
		"$1" >"$tmp/heads.tsv"
	perl -e '
		my ($t, $heads, $file) = @ARGV;
		open my $h, "<", $heads or die; my (@head, @align);
		while (<$h>) { chomp; my ($x, $a) = split /\t/, $_, -1; push @head, $x; push @align, $a }
		die "the model has no column for $t\n" unless @head;
		open my $f, "<", $file or die; my @l = <$f>; chomp @l;
		sub esc { my $s = shift; $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; $s =~ s/"/&quot;/g; $s }
		my ($rows, $i) = (0);
		if ($t =~ /^md/) {
			my $want = "| " . join(" | ", @head) . " |";
			my $rule = "|" . join("|", map { $_ eq "right" ? "---:" : "---" } @align) . "|";
			($i) = grep { $l[$_] eq $want && $l[$_ + 1] eq $rule } 0 .. $#l - 1;
			die "no head \"$want\" over \"$rule\"\n" unless defined $i;
			for ($i += 2; $i < @l && $l[$i] =~ /^\|/; $i++, $rows++) {
				my $cells = () = $l[$i] =~ /\|/g;
				die "row \"$l[$i]\": @{[$cells - 1]} cells, not @{[scalar @head]}\n"
					if $cells != @head + 1;
			}
		} elsif ($t eq "txt") {
			# the heads, 2 or more blanks apart; a group row has a verdict
			my @h = grep { $_ ne "" } @head;
			my $re = "^ +" . join(" {2,}", map { quotemeta } @h) . "\$";
			my @at = grep { $l[$_] =~ /$re/ } 0 .. $#l;
			die "no line is the heads \"@h\"\n" unless @at;
			for my $a (@at) {
				for ($i = $a + 1; $i < @l && $l[$i] =~ /^  \S|^ +[-0-9.]/; $i++) {
					$rows++ if $l[$i] =~ / (better|worse|same|inconclusive|insufficient data)$/;
				}
			}
		} else {
			my $want = "<tr>" . join("", map { "<th>" . esc($_) . "</th>" } @head) . "</tr>";
			($i) = grep { $l[$_] eq $want } 0 .. $#l;
			die "no head \"$want\"\n" unless defined $i;
			for ($i++; $i < @l && $l[$i] =~ /^<tr class=/; $i++, $rows++) {
				my $cells = () = $l[$i] =~ /<td[ >]/g;
				die "row $rows: $cells cells, not @{[scalar @head]}\n" if $cells != @head;
			}
		}
		die "no row under the heads\n" unless $rows;
	' "$2" "$tmp/heads.tsv" "$3" 2>&1 || true
}

# views_check DIR: each table of each view, as the model of DIR says
views_check() {
	local t f
	for t in "${tables[@]}"; do
		case $t in
		md*) f=summary.md ;;
		txt) f=summary.txt ;;
		*) f=index.html ;;
		esac
		# the kernel comparison's part: each variant comparison has a
		# model of its own (the end of summary.md and summary.txt, a
		# section of index.html)
		awk '/^(## )?kbench: variant/ { exit } /id="variants"/ { v = 1 } v && /^<h2/ && !/id="variants"/ { v = 0 }
			!v' "$1/run/$f" >"$1/$f.head"
		is "$(basename "$1"): $f shows $t with the model's heads, a cell per column" \
			"$(table_check "$1/model.json" "$t" "$1/$f.head")" ""
	done
}

report "$kbstat" "$tmp/a"
views_check "$tmp/a"
# the columns no table shows are the model's alone (a row's section,
# its direction, its minimum effect and floor apart): the checks above
# cover the others
is "the columns in no table: section, better, min_effect, floor_source" \
	"$(jq -r '[.columns[] | select(.tables == []) | .key] | join(" ")' "$tmp/a/model.json")" \
	"section better min_effect floor_source"
is "the model's rows have every column's cell" \
	"$(jq -r '(.columns | map(.key) | sort) as $k | [.rows[] | select((keys | sort) != $k)] | length' \
		"$tmp/a/model.json")" 0

# A kbstat with one more column: a stand-in statistic (the sample counts'
# cell under the head "probe n") in summary.md's and index.html's judged
# tables and summary.txt's groups, one line in the registry.
mkdir "$tmp/src"
cp "$top"/analysis/*.c "$top"/analysis/*.h "$tmp/src/"
perl -i -pe 'print "\t{ \"probe\", \"probe n\", NULL, T_MD | T_TXT | T_HTML, 0, 1, NULL, c_n },\n" if /^\t\{ "verdict", /' \
	"$tmp/src/model.c"
ok "$(grep -c '"probe"' "$tmp/src/model.c" | grep -qx 1; echo $?)" "the probe is one line in model.c's registry"
if ! cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/kbstat-probe" "$tmp"/src/*.c \
	"${kbstat_libs[@]}" >"$tmp/cc.log" 2>&1; then
	echo "Bail out! kbstat with the probe column does not build:"
	sed 's/^/# /' "$tmp/cc.log"
	exit 1
fi
report "$tmp/kbstat-probe" "$tmp/probe"
is "the probe's model: its column in md, txt and html" \
	"$(jq -r '.columns[] | select(.key == "probe") | .tables | join(" ")' "$tmp/probe/model.json")" "md txt html"
views_check "$tmp/probe"
# its cells: each judged row's sample counts, in the three views
want=$(jq -r '[.rows[] | select(.section == "primary" or .section == "judged") | .probe] | unique | join(" ")' \
	"$tmp/probe/model.json")
got=$(awk '/<table id="results-table">/ { r = 1 } r && /<\/table>/ { exit } r' "$tmp/probe/run/index.html" |
	grep -oE '<td class="num"><span>[0-9]+/[0-9]+</span></td><td class="verdict">' |
	grep -oE '[0-9]+/[0-9]+' | sort -u | tr '\n' ' ')
is "index.html: the probe's cells before each verdict ($want)" "${got% }" "$want"

exit "$fail"
