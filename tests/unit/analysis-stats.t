#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbstat's statistics against hand-checked reference values.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
build_kbstat

echo "1..19"

is "median, odd n: {3,1,2} = 2" "$("$kbstat" calc median 3 1 2)" 2
is "median, even n: {4,1,3,2} = 2.5" "$("$kbstat" calc median 4 1 3 2)" 2.5
# linear interpolation (R type 7): q1 at position 1 + 0.25 * 7 = 2.75
is "quartiles of 1..8 = 2.75 4.5 6.25 (IQR 3.5)" \
	"$("$kbstat" calc quartiles 1 2 3 4 5 6 7 8)" "2.75 4.5 6.25"
is "quartiles of {7,1,3,5,9}: 3 5 7" "$("$kbstat" calc quartiles 7 1 3 5 9)" "3 5 7"

# x={1,2,3} y={4,5,6}: U=0; exact P(U<=0) = 1/C(6,3) = 1/20, two-sided 0.1
is "MWU {1,2,3} vs {4,5,6}: U=0, exact p=0.1" \
	"$("$kbstat" calc mwu 1 2 3 -- 4 5 6)" "U=0 U1=0 p=0.1 method=exact"
# x={1,3,5} y={2,4,6}: U1 = 3 (3>2, 5>2, 5>4); the 20 arrangements have
# U = 0..9 with counts 1,1,2,3,3,3,3,2,1,1, so P(U<=3) = 7/20, p = 0.7
is "MWU {1,3,5} vs {2,4,6}: U=3, exact p=0.7" \
	"$("$kbstat" calc mwu 1 3 5 -- 2 4 6)" "U=3 U1=3 p=0.7 method=exact"
# 5 vs 5 fully separated: p = 2 / C(10,5) = 2/252
is "MWU 5 vs 5 separated: exact p = 2/252" \
	"$("$kbstat" calc mwu 1 2 3 4 5 -- 6 7 8 9 10)" \
	"U=0 U1=0 p=0.00793650793651 method=exact"

# Ties force the normal approximation. x={1,2,2,3,4} y={2,3,5,5,6}:
# ranks 1, 3,3,3 (three 2s), 5.5,5.5 (two 3s), 7, 8.5,8.5, 10;
# R_x = 1+3+3+5.5+7 = 19.5, U1 = 19.5 - 15 = 4.5, mu = 12.5;
# ties sum(t^3-t) = 24+6+6 = 36, var = 25/12 * (11 - 36/90) = 22.0833;
# z = (|4.5-12.5| - 0.5) / 4.69929 = 1.59599, p = erfc(z/sqrt2) = 0.11049
out=$("$kbstat" calc mwu 1 2 2 3 4 -- 2 3 5 5 6)
is "MWU with ties: U=4.5, normal approximation" \
	"$(field U "$out") $(field method "$out")" "4.5 normal"
near "MWU with ties: p = 0.11049 (hand-computed)" "$(field p "$out")" 0.11049 0.00001

# BH: sorted 0.005,0.01,0.03,0.04 -> p*4/rank 0.02,0.02,0.04,0.04,
# step-up minimum keeps them; back in input order:
is "BH of {0.01,0.04,0.03,0.005} = {0.02,0.04,0.04,0.02}" \
	"$("$kbstat" calc bh 0.01 0.04 0.03 0.005)" "0.02 0.04 0.04 0.02"
# {0.9,0.8}: 0.8*2/1 = 1.6 is capped by the step-up minimum 0.9
is "BH of {0.9,0.8} = {0.9,0.9}" "$("$kbstat" calc bh 0.9 0.8)" "0.9 0.9"

boot="1 2 3 4 5 / 2 3 4 5 6 / 3 4 5 6 7"
# shellcheck disable=SC2086 # word splitting is the argument list
a=$("$kbstat" calc bootci --seed 42 $boot)
# shellcheck disable=SC2086
b=$("$kbstat" calc bootci --seed 42 $boot)
is "hierarchical bootstrap CI identical for a fixed seed" "$a" "$b"
# shellcheck disable=SC2086
c=$("$kbstat" calc bootci --seed 43 --reps 5000 $boot)
check "bootstrap CI brackets the median (seed 43)" \
	awk -v m="$(field median "$c")" -v lo="$(field ci_lo "$c")" \
	-v hi="$(field ci_hi "$c")" 'BEGIN { exit !(lo + 0 <= m + 0 && m + 0 <= hi + 0) }'
is "pooled median of the three boots is 4" "$(field median "$a")" 4
# boots {1..5},{2..6},{3..7}: each IQR/median = 2/3, 2/4, 2/5 -> median 0.5
is "within-boot spread = median of IQR/median = 0.5" \
	"$(field within "$a")" 0.5

# Numeric options take whole decimal numbers; anything else is named.
# shellcheck disable=SC2317 # called through check
refuses() {
	! "$kbstat" "$@" >/dev/null 2>"$tmp/opt.err" && grep -q "$1: '.*' is not a non-negative decimal integer" "$tmp/opt.err"
}
check "--seed abc is an error naming --seed (not seed 0)" \
	bash -c "! '$kbstat' calc bootci --seed abc 1 2 3 2>&1 >/dev/null | grep -q . && exit 1;
		'$kbstat' calc bootci --seed abc 1 2 3 2>&1 >/dev/null | grep -q \"\-\-seed: 'abc' is not\""
check "--reps 12x on compare is an error naming --reps" \
	bash -c "! '$kbstat' compare '$tmp' --base a --new b --reps 12x 2>'$tmp/r.err' && grep -q \"\-\-reps: '12x' is not\" '$tmp/r.err'"

# Above BOOT_BIG samples the bootstrap draws only the order statistics
# (binomial halving); it must agree with drawing every sample. Three
# boots of 10000 samples, built once with each path.
if ! cc -std=c11 -O2 -DBOOT_BIG=100000000 -o "$tmp/kbstat-draw" "$top"/analysis/*.c \
	"${kbstat_libs[@]}"; then
	echo "Bail out! kbstat with -DBOOT_BIG does not build"
	exit 1
fi
big=$(awk 'BEGIN { srand(5); for (b = 0; b < 3; b++) { if (b) printf " /";
	for (i = 0; i < 10000; i++) printf " %.4f", 1000 + b + 10 * (rand() + rand() + rand() - 1.5) } }')
# shellcheck disable=SC2086 # word splitting is the argument list
fast=$("$kbstat" calc bootci --seed 7 $big)
# shellcheck disable=SC2086
slow=$("$tmp/kbstat-draw" calc bootci --seed 7 $big)
diag "order statistics: $fast" "every draw:       $slow"
near "30000 samples: CI low end, order statistics vs every draw" \
	"$(field ci_lo "$fast")" "$(field ci_lo "$slow")" 0.05
near "30000 samples: CI high end, order statistics vs every draw" \
	"$(field ci_hi "$fast")" "$(field ci_hi "$slow")" 0.05

exit "$fail"
