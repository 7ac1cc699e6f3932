#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reject unknown keys in bench.local.conf: every key must be one that
# bench.conf defines. A typo would otherwise be silently ignored. make
# reads both files, as for the Makefile and kb_conf: its database gives
# the variables each one sets and the line of each, so :=, =, ?=,
# export, override, a value continued with \ and a conditional mean here
# what they mean to make.
#
#   check-conf.sh bench.conf [bench.local.conf]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || kb_die "usage: check-conf.sh bench.conf [bench.local.conf]"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2016 # make's variable
printf 'include $(KB_CONF_FILE)\nkb-check-conf: ;\n' >"$tmp/read.mk"

# make_vars FILE: make's reading of FILE, alone and with no environment
# (a key set there would keep its ?= from defining it), into
# $tmp/vars ("FILE<tab>LINE<tab>KEY" for each variable it sets, by line)
# and $tmp/goal (the first target it defines a rule for, if any); make's
# errors into $tmp/err. Fails if make does.
make_vars() {
	[ -r "$1" ] || kb_die "$1: no such readable file"
	env -i PATH="$PATH" make -pn -r -R --no-print-directory -f "$tmp/read.mk" \
		KB_CONF_FILE="$1" kb-check-conf >"$tmp/db" 2>"$tmp/err" || return 1
	awk -v prog="$tmp/read.mk" -v goal="$tmp/goal" '
	/^# Variables$/ { in_vars = 1; next }
	/^# variable set hash-table stats:/ { in_vars = 0 }
	!in_vars { next }
	in_def { if ($0 == "endef") in_def = 0; next }
	/^# (makefile|'\''override'\'' directive) \(from '\''.*'\'', line [0-9]+\)$/ {
		file = $0; sub(/^[^(]*\(from '\''/, "", file); sub(/'\'', line [0-9]+\)$/, "", file)
		line = $0; sub(/.*'\'', line /, "", line); sub(/\)$/, "", line)
		from = 1; next
	}
	{ k = $1 == "define" ? $2 : $1; in_def = $1 == "define" }
	from && file != prog && k != "MAKEFILE_LIST" { print file "\t" line "\t" k }
	{ from = 0 }
	$1 == ".DEFAULT_GOAL" && $3 != "kb-check-conf" { print $3 >goal }' "$tmp/db" | sort -t "$(printf '\t')" -k2,2n >"$tmp/vars"
}

# line_of FILE N: line N of FILE for a message, without NUL bytes (make
# ignores the rest of a line after one; bash would warn about it)
line_of() { sed -n "${2}p" "$1" | tr -d '\000'; }

defaults=$1
make_vars "$defaults" ||
	kb_die "make could not read $defaults: $(grep -m1 . "$tmp/err"); fix the line it names"
# in bench.conf's order: kb_closest takes the first of two as near
known=$(cut -f3 "$tmp/vars" | awk '!seen[$0]++')
[ $# -ge 2 ] || exit 0
local_conf=$2
: >"$tmp/goal"
if ! make_vars "$local_conf"; then
	# make's own error names the line: say which line that is
	err=$(grep -m1 . "$tmp/err")
	lineno=${err#"$local_conf":} lineno=${lineno%%:*}
	case "$lineno" in
	"" | *[!0-9]*) kb_die "make could not read $local_conf: $err; fix the line it names" ;;
	esac
	why=${err#*\*\*\* }
	kb_die "$local_conf:$lineno: not a KEY = value line: $(line_of "$local_conf" "$lineno") (make: ${why%.  Stop.})"
fi
# a rule (KEY: value): make reads it, and it sets nothing
if [ -s "$tmp/goal" ]; then
	target=$(cat "$tmp/goal")
	lineno=$(awk -v t="$target" '{ s = $0; sub(/:.*/, "", s); gsub(/[[:space:]]/, "", s) } s == t { print NR; exit }' "$local_conf")
	kb_die "$local_conf:${lineno:-?}: not a KEY = value line: ${lineno:+$(line_of "$local_conf" "$lineno") }(make reads a rule for '$target')"
fi
while IFS=$'\t' read -r file lineno k; do
	# a here-string, not a pipe: under pipefail, grep -q may leave
	# the writer of a pipe to die of SIGPIPE and fail the test
	if ! grep -qxF "$k" <<<"$known"; then
		# shellcheck disable=SC2086 # one candidate per word
		near=$(kb_closest "$k" $known)
		kb_die "$file:$lineno: unknown key '$k'${near:+ (did you mean $near?)}; the known keys are those $defaults sets"
	fi
done <"$tmp/vars"
