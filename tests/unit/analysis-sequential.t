#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbstat sequential: the adaptive-boots rule (analysis/seq.c). Its bounds
# against closed forms, single decisions on fixed boot medians, and its
# error rates on seeded simulations (the table in analysis/README.md,
# "Adaptive boots"): the false-verdict rate holds when the data is
# looked at after every boot pair, where the fixed 90 % interval's does not.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
build_kbstat

echo "1..20"

seqk() { "$kbstat" sequential "$@"; }

# O'Brien-Fleming type spending: the first look (3 of 10 boots) spends
# 1 - Phi(z_0.95 / sqrt(0.3)), so its bound is 1.644854 / 0.547723
b=$(seqk bounds --boots-max 10)
near "obf: first bound z = 1.644854 / sqrt(0.3)" "$(awk 'NR == 2 { print $2 }' <<<"$b")" 3.0031 0.0001
near "obf: alpha spent by the last look = 0.05" "$(awk 'END { print $4 }' <<<"$b")" 0.05 1e-9
# Pocock type: 0.05 * ln(1 + (e - 1) * 0.3) at the first look
b=$(seqk bounds --boots-max 10 --spend pocock)
near "pocock: first look's level = 0.05 ln(1 + (e-1) 0.3)" \
	"$(awk 'NR == 2 { print $3 }' <<<"$b")" 0.0207875 1e-6
# one look only: the fixed one-sided test
near "one look (first = max = 5): z = z_0.95" \
	"$(seqk bounds --boots-max 5 --first 5 | awk 'NR == 2 { print $2 }')" 1.6449 0.0001
# every later look is passed at a level below alpha, and above 0
ok "$(awk 'NR > 1 && !($3 > 0 && $3 < 0.05) { bad = 1 } END { exit bad }' <<<"$(seqk bounds --boots-max 24)"; echo $?)" \
	"obf, 24 boots: every look's level in (0, 0.05)"

# Decisions on fixed boot medians (lower is better).
out=$(seqk decide --boots-max 10 1000 1010 990 -- 1100 1110 1090)
is "10 % slower, boots agree: worse at 3 boots" "$(cut -f1,2 <<<"$out")" "worse	3"
out=$(seqk decide --boots-max 10 --better higher 1000 1010 990 -- 1100 1110 1090)
is "the same, higher is better: better" "$(cut -f1 <<<"$out")" better
out=$(seqk decide --boots-max 10 1000 1030 970 -- 1010 1040 980)
is "1 % apart, boot SD 3 %, 3 of 10 boots: continue" "$(cut -f1 <<<"$out")" continue
out=$(seqk decide --boots-max 3 1000 1030 970 -- 1010 1040 980)
is "the same at BOOTS_MAX = 3: inconclusive" "$(cut -f1 <<<"$out")" inconclusive
out=$(seqk decide --boots-max 10 1000 1030 -- 1010 1040)
is "2 boots a side: insufficient data" "$(cut -f1 <<<"$out")" "insufficient data"
med=(1000 1001 999 1000.5 999.5 1000 1001 999 1000.2 999.8)
out=$(seqk decide --boots-max 10 "${med[@]}" -- "${med[@]}")
is "equal kernels, 10 boots of 0.1 % spread: same" "$(cut -f1 <<<"$out")" same
if seqk decide 1 2 3 -- 1 2 3 2>/dev/null; then r=0; else r=$?; fi
is "no --boots-max: usage error (exit 2)" "$r" 2

# On a run's raw samples (synth.pl): each judged key's decision.
need perl
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/slow" seed=1 boots=3 effect=0.1 cv=0.005
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/noisy" seed=2 boots=3 bootsd=0.02 cv=0.001
out=$(seqk run "$tmp/slow" --base baseline --new patched --boots-max 10)
is "run: 10 % slower, 3 boots: worse" "$(awk -F'\t' 'NR == 2 { print $1, $3, $4, $5, $6 }' <<<"$out")" \
	"synth vcpus=1 latency worse 3"
out=$(seqk run "$tmp/noisy" --base baseline --new patched --boots-max 10)
is "run: no effect, boot SD 2 %, 3 of 10 boots: continue (add a pair)" \
	"$(awk -F'\t' 'NR == 2 { print $5 }' <<<"$out")" continue
if seqk run "$tmp/noisy" --base baseline --new nope --boots-max 10 2>/dev/null; then r=0; else r=$?; fi
is "run: an unknown kernel is an error (exit 1)" "$r" 1

# The issue's goals, seeded: boot SD 2 %, 25 samples a boot, CV 0.1 %.
sim() { seqk sim --boot-sd 0.02 --cv 0.001 --samples 25 --runs 4000 "$@" | tail -n 1; }
rate() { awk -v w="$(field worse "$1")" -v b="$(field better "$1")" 'BEGIN { print (w + b) / 4000 }'; }

s=$(sim --boots-max 10 --effect 0 --seed 1)
echo "# no effect, BOOTS_MAX=10, sequential: $s"
f_seq=$(rate "$s")
ok "$(awk -v r="$f_seq" 'BEGIN { exit !(r <= 0.05) }'; echo $?)" \
	"no effect, BOOTS_MAX=10: false better/worse $f_seq <= 1/20"
s=$(sim --boots-max 10 --effect 0 --seed 1 --naive)
echo "# the same, fixed 90 % interval at every look: $s"
f_naive=$(rate "$s")
ok "$(awk -v a="$f_seq" -v b="$f_naive" 'BEGIN { exit !(b > 0.05 && a < b / 2) }'; echo $?)" \
	"looking after every pair with the fixed interval: $f_naive > 1/20; the rule's is under half of it"
# the worst case under the null: the true effect on the floor itself
s=$(sim --boots-max 20 --effect 0.01 --seed 2)
echo "# 1 % slower (= the floor), BOOTS_MAX=20: $s"
w=$(awk -v w="$(field worse "$s")" 'BEGIN { print w / 4000 }')
ok "$(awk -v r="$w" 'BEGIN { exit !(r <= 0.06) }'; echo $?)" \
	"effect on the floor: 'worse' $w, alpha 0.05 up to Monte Carlo and t error (<= 0.06)"
s=$(sim --boots-max 24 --effect 0.03 --seed 3)
echo "# 3 % slower, BOOTS_MAX=24: $s"
w=$(awk -v w="$(field worse "$s")" 'BEGIN { print w / 4000 }')
ok "$(awk -v r="$w" 'BEGIN { exit !(r >= 0.9) }'; echo $?)" \
	"3 % slower, boot SD 2 %, BOOTS_MAX=24: worse $w >= 9/10, median boots $(field median_boots "$s")"
s=$(sim --boots-max 10 --effect 0.03 --seed 3)
echo "# 3 % slower, BOOTS_MAX=10: $s"
w=$(awk -v w="$(field worse "$s")" 'BEGIN { print w / 4000 }')
ok "$(awk -v r="$w" 'BEGIN { exit !(r >= 0.6 && r < 0.9) }'; echo $?)" \
	"3 % slower, BOOTS_MAX=10: worse $w (0.6-0.9: 10 boots cannot reach 9/10, README)"
exit "$fail"
