#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# regress.sh checks NEW= and OLD= where it reads them: once, naming the
# setting, before any kernel is built.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..4"
mkdir -p "$tmp/empty" "$tmp/cache"
# expect NAME WANT ENV...: regress.sh exits 1 with exactly one error line
# matching WANT and never reaches the kernel build
expect() {
	local desc=$1 want=$2 rc=0
	shift 2
	env KBENCH_CACHE="$tmp/cache" "$@" "$top/orchestrate/regress.sh" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" = 1 ] && [ "$(grep -c 'error' "$tmp/out")" = 1 ] &&
		grep -q "$want" "$tmp/out" && ! grep -q 'building\|SERIES=' "$tmp/out"; then
		ok 0 "$desc"
	else
		ok 1 "$desc (exit $rc)"
		diag "$(cat "$tmp/out")"
	fi
}
expect "NEW=/nonexistent: one error naming NEW=" \
	"error: NEW=/nonexistent: no such file or directory" NEW=/nonexistent
expect "NEW=<empty dir>: one error naming NEW=" \
	"error: NEW=$tmp/empty: directory holds no .patch files" NEW="$tmp/empty"
expect "OLD=/nonexistent: one error naming OLD=" \
	"error: OLD=/nonexistent: no such file" NEW=kernel/series OLD=/nonexistent
expect "no NEW=: says how to give it" \
	"needs NEW=" NEW=
exit "$fail"
