#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One sample of a program workload: its output through the parser
# NAME.awk next to this file, into kbbench's CSV rows (no header):
#
#   parse.sh --parser NAME --workload W --variant V --point P
#            --clock icount|wall --rep N FILE
#
# prints workload,variant,point,metric,unit,better,clock,rep,value for
# each row the parser gives, the layout of bench/kbbench.c and
# bench/perfstat2csv.sh, so analysis/ reads them as it reads a bench's.
# A parser prints "METRIC<TAB>UNIT<TAB>BETTER<TAB>VALUE" lines, or
# "error<TAB>WHY" and exits 1 (README.md). Every row is checked here: a
# metric name of [a-z0-9_] starting with a letter, a unit without commas
# or blanks, better lower, higher or none, a decimal number, no metric
# twice, at least one row. Exit 0, or 1 after one line
# "kbench: error: parser NAME: FILE: WHY". POSIX sh and awk: it runs in
# the guest (guest/run.sh), with whatever awk the image has.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "kbench: error: $*" >&2
	exit 1
}
usage() {
	die "usage: parse.sh --parser NAME --workload W --variant V --point P --clock icount|wall --rep N FILE"
}

parser='' workload='' variant='' point='' clock='' rep='' file=''
while [ $# -gt 0 ]; do
	case "$1" in
	--parser | --workload | --variant | --point | --clock | --rep)
		[ $# -ge 2 ] || usage
		case "$1" in
		--parser) parser=$2 ;;
		--workload) workload=$2 ;;
		--variant) variant=$2 ;;
		--point) point=$2 ;;
		--clock) clock=$2 ;;
		--rep) rep=$2 ;;
		esac
		shift 2 ;;
	-*) usage ;;
	*) [ -z "$file" ] || usage; file=$1; shift ;;
	esac
done
for f in "$parser" "$workload" "$variant" "$point" "$file"; do
	[ -n "$f" ] || usage
done
case "$parser" in
*[!a-z0-9-]* | -*) die "parse.sh: --parser: '$parser' is not a parser name" ;;
esac
[ -f "$here/$parser.awk" ] || die "parse.sh: no parser '$parser' ($here/$parser.awk)"
case "$clock" in icount | wall) ;; *) die "parse.sh: --clock must be icount or wall, not '$clock'" ;; esac
case "$rep" in '' | *[!0-9]*) die "parse.sh: --rep must be a whole number, not '$rep'" ;; esac
for f in "$workload" "$variant" "$point"; do
	case "$f" in *[,\ \"]*) die "parse.sh: '$f' must not contain commas, blanks or quotes" ;; esac
done
[ -r "$file" ] || die "parser $parser: $file: no such file (did the command write it? the workload's output key names it)"

# The parser's lines, into a file (the output may hold any byte, a NUL
# too); its own stderr is an awk error (a parser bug), passed on as it is.
lines=$(mktemp "${TMPDIR:-/tmp}/kbparse.XXXXXX")
trap 'rm -f "$lines"' EXIT
prc=0
awk -f "$here/$parser.awk" "$file" >"$lines" || prc=$?
csv=$(awk -F '\t' -v p="$parser" -v f="$file" -v prc="$prc" \
	-v w="$workload" -v v="$variant" -v pt="$point" -v c="$clock" -v r="$rep" '
function bad(why) {
	if (!err)
		err = why
}
# what the parser quotes of the output: printable, one line
{ gsub(/[^\t -~]/, "?") }
$1 == "error" { bad($2); next }
/^$/ { next }
{
	if (NF != 4)
		bad("parser line " NR " is not METRIC, UNIT, BETTER, VALUE: " $0)
	else if ($1 !~ /^[a-z][a-z0-9_]*$/)
		bad("metric name \"" $1 "\" is not [a-z][a-z0-9_]*")
	else if ($2 == "" || $2 ~ /[^A-Za-z0-9_\/%.-]/)
		bad("metric " $1 ": unit \"" $2 "\" is empty or has a character other than A-Za-z0-9_/%.-")
	else if ($3 != "lower" && $3 != "higher" && $3 != "none")
		bad("metric " $1 ": better \"" $3 "\" is not lower, higher or none")
	else if ($4 !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/)
		bad("metric " $1 ": value \"" $4 "\" is not a decimal number")
	else if ($1 in seen)
		bad("metric " $1 " twice in one sample")
	else {
		seen[$1] = 1
		out[++n] = w "," v "," pt "," $1 "," $2 "," $3 "," c "," r "," $4
	}
}
END {
	if (!err && prc != 0)
		err = "the parser failed (exit " prc ")"
	if (!err && !n)
		err = "no rows: nothing the parser knows in it"
	if (err) {
		printf "kbench: error: parser %s: %s: %s\n", p, f, err
		exit 1
	}
	for (i = 1; i <= n; i++)
		print out[i]
}' "$lines") || {
	# the one error line (the rows are printed only when there is none)
	printf '%s\n' "$csv" >&2
	exit 1
}
printf '%s\n' "$csv"
