#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/lib.sh's kb_conf: a setting not in the environment comes from
# make's own reading of bench.local.conf and bench.conf (the Makefile's
# two include lines), so =, ?=, := and $(VAR) mean what they mean to
# make; the environment (KEY=value given to make, exported) wins; a key
# neither file sets is an error naming it. On a scratch tree with its
# own lib.sh copy, so KB_TOP is that tree.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..6"

mkdir -p "$tmp/t/scripts"
cp "$top/scripts/lib.sh" "$tmp/t/scripts/lib.sh"
cat >"$tmp/t/bench.conf" <<'CONF'
# a comment
KB_A ?= 1
KB_B ?= $(KB_A)x
KB_C := $(KB_HOMEISH)/cache
KB_D = two words  
CONF
# conf KEY...: each key's value after kb_conf, in a clean shell
# shellcheck disable=SC2016 # the inner shell expands them
conf() {
	env -i PATH="$PATH" HOME="$HOME" KB_HOMEISH=/h ${KB_ENV:+"$KB_ENV"} bash -c '
		. "$1/scripts/lib.sh"; shift
		kb_conf "$@"
		for k in "$@"; do printf "%s=[%s]\n" "$k" "${!k}"; done' conf "$tmp/t" "$@"
}

is "the defaults, with \$(VAR) from the environment and ?= of another key" \
	"$(conf KB_A KB_B KB_C | tr '\n' ' ')" "KB_A=[1] KB_B=[1x] KB_C=[/h/cache] "
is "trailing blanks go, inner ones stay" "$(conf KB_D)" "KB_D=[two words]"
printf 'KB_A = 2\nKB_B = local\n' >"$tmp/t/bench.local.conf"
is "bench.local.conf overrides what bench.conf sets with ?= (as bench.conf does)" \
	"$(conf KB_A KB_B | tr '\n' ' ')" "KB_A=[2] KB_B=[local] "
is "the environment wins over both files" "$(KB_ENV=KB_A=env conf KB_A)" "KB_A=[env]"
rm -f "$tmp/t/bench.local.conf"
rc=0
conf KB_NOPE >/dev/null 2>"$tmp/err" || rc=$?
t "a key neither file sets is an error naming it (exit $rc: $(cat "$tmp/err"))" \
	bash -c "[ $rc != 0 ] && grep -q 'setting KB_NOPE is not set' '$tmp/err'"
echo 'this line is not make' >>"$tmp/t/bench.conf"
rc=0
conf KB_A >/dev/null 2>"$tmp/err" || rc=$?
t "a bench.conf make cannot read is an error that says so (exit $rc: $(tail -n 1 "$tmp/err"))" \
	bash -c "[ $rc != 0 ] && grep -q 'make could not read' '$tmp/err'"
exit "$fail"
