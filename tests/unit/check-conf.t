#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-conf.sh learns the keys of bench.conf, and those
# bench.local.conf sets with their lines, from make: a key bench.conf
# defines with :=, =, export, override, define or leading blanks is
# known; in bench.local.conf a value continued with \, a conditional,
# export and override are settings; a key the environment holds (make
# exports them) is still known. Unknown keys, rules and lines make
# cannot read are errors naming file:line, with the nearest key.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cc=$top/scripts/check-conf.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..14"
command -v make >/dev/null || { echo "Bail out! make is not installed (make deps installs it)"; exit 1; }

cat >"$tmp/bench.conf" <<'CONF'
# the usual form
KB_A ?= 1
# forms a sed of ?= lines did not see
KB_COMPILER := gcc
  KB_C = 3
export KB_D ?= 4
override KB_E = 5
define KB_F
two
lines
endef
KB_G ?= a \
	b
CONF
# lconf TEXT: TEXT as $tmp/local.conf
lconf() { printf '%s\n' "$1" >"$tmp/local.conf"; }
# passes DESC: check-conf.sh accepts $tmp/local.conf
passes() { check_rc "$1" 0 "$cc" "$tmp/bench.conf" "$tmp/local.conf"; }
# refused DESC MESSAGE: check-conf.sh fails with MESSAGE
refused() {
	local rc=0
	"$cc" "$tmp/bench.conf" "$tmp/local.conf" >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" != 0 ] && grep -qF -- "$2" "$tmp/err"; then ok 0 "$1"; else
		ok 1 "$1 (exit $rc)"
		diag "wanted: $2" "got: $(cat "$tmp/err")"
	fi
}

lconf 'KB_A = 2'
passes "a ?= key of bench.conf may be set"
lconf "$(printf 'KB_COMPILER = clang\nKB_C := 4\nKB_D = 5\nKB_E = 6\nKB_F = 7\nKB_G = 8')"
passes "keys bench.conf defines with :=, =, leading blanks, export, override, define, a continued value"
check_rc "bench.conf alone: nothing to check" 0 "$cc" "$tmp/bench.conf"
lconf "$(printf 'KB_A = 2\nKB_COMPILR = clang')"
refused "an unknown key: file:line and the nearest key (learned from := )" \
	"$tmp/local.conf:2: unknown key 'KB_COMPILR' (did you mean KB_COMPILER?); the known keys are those $tmp/bench.conf sets"
lconf "$(printf 'KB_A = a \\\n\tb\nKB_GG = 1')"
refused "a value continued with \\ is one setting: the next key's line is right" \
	"local.conf:3: unknown key 'KB_GG' (did you mean KB_G?)"
lconf "$(printf 'ifeq (1,1)\nKB_A = 2\nendif\nexport KB_C = 1\noverride KB_D := 2')"
passes "a conditional, export and override in bench.local.conf set keys as make reads them"
lconf "$(printf 'ifeq (1,1)\nKB_AA = 2\nendif')"
refused "... and the key set inside a conditional is checked" "local.conf:2: unknown key 'KB_AA' (did you mean KB_A?)"
lconf 'KB_A = 2'
check_rc "a key the environment holds (make exports it) is still a key of bench.conf" 0 \
	env KB_A=9 KB_D=1 MAKEFLAGS=-j2 MAKELEVEL=1 "$cc" "$tmp/bench.conf" "$tmp/local.conf"
lconf "$(printf 'KB_A = 2\nKB_A: 3')"
refused "a rule is not a setting: named with its line" \
	"local.conf:2: not a KEY = value line: KB_A: 3 (make reads a rule for 'KB_A')"
lconf "$(printf '# a comment\nKB_A = 2\nthis is not make')"
refused "a line make cannot read: named with its line and make's reason" \
	"local.conf:3: not a KEY = value line: this is not make (make: missing separator)"
refused "... and the usual form" "local.conf:3: not a KEY = value line: this is not make"
printf 'KB_A ?= 1\nnot make\n' >"$tmp/bad.conf"
check_rc "a bench.conf make cannot read is an error naming it" 1 "$cc" "$tmp/bad.conf"
t "... with make's line" grep -q "make could not read $tmp/bad.conf: $tmp/bad.conf:2: \*\*\* missing separator" "$tmp/err"

# The repository's bench.conf: every key it sets with ?= may be set
sed -n 's/^\([A-Z_][A-Z0-9_]*\)[[:space:]]*?=.*/\1 = x/p' "$top/bench.conf" >"$tmp/all.conf"
check_rc "bench.local.conf may set every key of the repository's bench.conf ($(grep -c . "$tmp/all.conf") keys)" 0 \
	"$cc" "$top/bench.conf" "$tmp/all.conf"
exit "$fail"
