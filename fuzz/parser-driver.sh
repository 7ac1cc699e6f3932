#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One sample's output through a program workload's parser, as
# guest/run.sh runs it (workloads/parsers/parse.sh), for the fuzz
# harnesses fuzz/parser.c. Exit 0 when the rows are whole kbbench CSV
# rows, 1 with parse.sh's one error, 3 when a property breaks (a row
# that is not one, an error with rows, more than one error line).
# parse.sh runs under bash so that the harness's trace covers it.
#
#   parser-driver.sh PARSER FILE
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: parser-driver.sh PARSER FILE" >&2; exit 2; }
out=$(mktemp "${TMPDIR:-/tmp}/kbfuzz-rows.XXXXXX")
err=$out.err
trap 'rm -f "$out" "$err"' EXIT
rc=0
bash "$top/workloads/parsers/parse.sh" --parser "$1" --workload w --variant default \
	--point none --clock icount --rep 1 "$2" >"$out" 2>"$err" || rc=$?
case "$rc" in
0)
	# every row whole: nine fields, the kinds analysis/ reads
	if [ ! -s "$out" ] || grep -Evq '^w,default,none,[a-z][a-z0-9_]*,[A-Za-z0-9_/%.-]+,(lower|higher|none),icount,1,-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$' "$out"; then
		echo "parser-driver.sh: parse.sh --parser $1 exited 0 with a row that is not a kbbench CSV row (or none): $(grep -Ev '^w,default,none,' "$out" | head -n 1)" >&2
		exit 3
	fi
	[ ! -s "$err" ] || { cat "$err" >&2; exit 3; } ;;
1)
	if [ -s "$out" ] || [ "$(wc -l <"$err")" != 1 ]; then
		echo "parser-driver.sh: parse.sh --parser $1 failed with rows on stdout or not one error line" >&2
		exit 3
	fi
	cat "$err" >&2
	exit 1 ;;
*)
	cat "$err" >&2
	exit "$rc" ;;
esac
