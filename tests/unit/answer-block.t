#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The answer block (kbstat answer, issue 37) on a fixture run with known
# effects: three workload files with claims (irq: patched 0.5x of the
# baseline; synth: patched 5 % slower, rhash 0.8x of hash on the patched
# kernel and absent on the baseline; tiny: one sample a boot, too
# few). Its rows come in file then claim order, each with the ratio and interval of its results row,
# the verdict, the upstream figure; a claim whose point was not run says
# "not run (MATRIX=full)"; then the worse primary rows and the count of
# undecided ones with the boots they ask for. summary.txt, summary.md and
# index.html lead with it; a regression check keeps its gate first.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
build_kbstat

# add RUN NAME SYNTH-ARGS...: synth.pl's samples as workload NAME of RUN
add() {
	local run=$1 name=$2 f
	shift 2
	perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/part-$name" "$@"
	for f in "$tmp/part-$name"/raw/*/*/synth.*; do
		local d=${f%/*}
		d=$run/raw/${d#"$tmp/part-$name"/raw/}
		mkdir -p "$d"
		sed "s/^synth,/$name,/" "$f" >"$d/$name.${f##*.}"
	done
}

run=$tmp/run
add "$run" irq seed=31 effect=-0.5 points='vcpus=1|vcpus=8'
add "$run" synth seed=32 effect=0.05 variants=hash,rhash vscale=rhash:0.8 \
	absent=baseline:rhash points='vcpus=1;key_size=8|vcpus=1;key_size=64'
add "$run" tiny seed=33 samples=1 points='vcpus=1'
mkdir -p "$run/workloads"
cat >"$run/workloads/synth.wl" <<'EOF'
name = synth
bench = map_lookup
variants = hash rhash
primary = latency
claim.v8 = compare=variant base=hash new=rhash kernel=patched metric=latency point=key_size=8 | rhash vs hash, key 8 | 0.80x (upstream's cover letter)
claim.k8 = compare=kernel variant=hash metric=latency point=key_size=8 | hash, key 8
claim.na = compare=kernel variant=rhash metric=latency point=key_size=8 | rhash, kernel vs kernel
EOF
cat >"$run/workloads/irq.wl" <<'EOF'
# comes first: file order is by name
name = irq
bench = procirq_read
primary = latency
claim.r8 = compare=kernel metric=latency point=vcpus=8 | irq read, 8 vCPUs | 0.50x
claim.r1 = compare=kernel metric=latency point=vcpus=1 | irq read, 1 vCPU
claim.r64 = compare=kernel metric=latency point=vcpus=64 | irq read, 64 vCPUs
EOF
cat >"$run/workloads/tiny.wl" <<'EOF'
name = tiny
bench = tiny
claim.t = compare=kernel metric=latency point=vcpus=1 | tiny | +0.8 % (1.008x)
EOF

echo "1..28"

check "report.sh on the fixture run" env KBSTAT="$kbstat" "$top/analysis/report.sh" "$run"
check "RUN/answer.txt written" test -s "$run/answer.txt"
a=$run/answer.txt

# the claim rows: between the column header and "worse:"
sed -n '/^  claim /,/^worse/p' "$a" | sed '1d;$d' >"$tmp/rows"
is "seven claim rows, in file order (irq, synth, tiny) then claim order" \
	"$(sed -E 's/^  (.{1,30}[^ ]) {2,}.*/\1/' "$tmp/rows" | tr '\n' '|')" \
	"irq read, 8 vCPUs|irq read, 1 vCPU|irq read, 64 vCPUs|rhash vs hash, key 8|hash, key 8|rhash, kernel vs kernel|tiny|"

# row DESC: the claim's line
row() {
	grep -F "  $1  " "$tmp/rows"
}
# re TEXT: TEXT as an extended regular expression matching itself
re() {
	printf '%s' "$1" | sed 's/[]()+*?^$|.[\\]/\\&/g'
}
# want W V P M [FILE]: "ratio [lo,hi]" of a results row, three significant
# digits each, as the answer prints it (the details carry every digit)
want() {
	local j
	j=$(jq -r --arg w "$1" --arg v "$2" --arg p "$3" --arg m "$4" \
		'.results[] | select(.workload == $w and .variant == $v and .point == $p and .metric == $m) |
		"\(.estimate) \(.estimate_ci_lo) \(.estimate_ci_hi)"' "${5:-$run/results.json}")
	# shellcheck disable=SC2086 # three numbers
	printf '%.3g [%.3g,%.3g]' $j
}
r8=$(want irq "" vcpus=8 latency)
check "irq 8 vCPUs: the results row's ratio and interval ($r8), better, upstream 0.50x" \
	bash -c "grep -F '  irq read, 8 vCPUs  ' '$tmp/rows' | grep -Eq -- ' $(re "$r8") +better +0\\.50x\$'"
near "irq 8 vCPUs: the ratio is about 0.5" "$(row 'irq read, 8 vCPUs' | awk '{ print $5 }')" 0.5 0.01
check "irq 1 vCPU: better, no upstream figure" \
	bash -c "grep -F '  irq read, 1 vCPU  ' '$tmp/rows' | grep -Eq ' better\$'"
check "irq 64 vCPUs: not run (MATRIX=full)" \
	bash -c "grep -F '  irq read, 64 vCPUs  ' '$tmp/rows' | grep -Eq ' not run \\(MATRIX=full\\)\$'"
v8=$(want synth rhash vcpus=1\;key_size=8 latency "$run/variants-patched-rhash-vs-hash.json")
check "rhash against hash on patched: the variant comparison's ratio ($v8), better, upstream's 0.80x" \
	bash -c "grep -F '  rhash vs hash, key 8  ' '$tmp/rows' | grep -Eq -- ' $(re "$v8") +better +0\\.80x\$'"
near "rhash against hash: the ratio is about 0.8" "$(row 'rhash vs hash, key 8' | awk '{ print $6 }')" 0.8 0.01
k8=$(want synth hash vcpus=1\;key_size=8 latency)
check "hash, key 8, kernel against kernel: $k8, worse" \
	bash -c "grep -F '  hash, key 8  ' '$tmp/rows' | grep -Eq -- ' $(re "$k8") +worse\$'"
check "rhash kernel against kernel: n/a (absent on baseline) across ratio and verdict" \
	bash -c "grep -F '  rhash, kernel vs kernel  ' '$tmp/rows' | grep -Eq '  n/a \\(absent on baseline\\)\$'"
check "tiny: insufficient data, with its few samples (n); an upstream text that is not NUMBERx is below, as written" \
	bash -c "grep -F '  tiny  ' '$tmp/rows' | grep -Eq ' insufficient data n=[0-9] +below\$' &&
		grep -qxF '  tiny: +0.8 % (1.008x)' '$a'"
check "the clock said once: icount, not a hardware figure" \
	bash -c "[ \$(grep -c 'icount: instruction count, not a hardware figure' '$a') = 1 ]"
is "worse: the two primary rows of synth/hash, each with its ratio" \
	"$(sed -n '/^worse:/,/^undecided/p' "$a" | sed '$d' | sed -E 's/ [0-9.]+ \[.*//' | tr '\n' '|')" \
	"worse: 2 primary rows of patched against baseline:|  synth/hash vcpus=1;key_size=8 latency|  synth/hash vcpus=1;key_size=64 latency|"
boots=$(jq -r '[.results[] | select(.workload == "tiny" and .why) | .why | capture("BOOTS=(?<n>[0-9]+)").n | tonumber] | max' "$run/results.json")
check "undecided: one primary row, insufficient data, BOOTS=$boots would settle it" \
	bash -c "sed -n '/^undecided/,\$p' '$a' | tr -s ' \n' ' ' | grep -q '^undecided: 1 primary row (0 inconclusive, 1 insufficient data); BOOTS=$boots would settle it'"
check "upstream, in full: a figure the column shortened" \
	grep -q '^  rhash vs hash, key 8: 0.80x (upstream.s cover letter)$' "$a"
wide=$(awk 'length($0) > 80 { n++ } END { print n + 0 }' "$a")
is "answer.txt: no line wider than 80 columns" "$wide" 0

# ---- where the block goes ----
check "summary.txt: its first lines are the answer, the details after" \
	bash -c "cmp -s <(head -n \$(wc -l <'$a') '$run/summary.txt') '$a' &&
		grep -n '^kbench: patched vs baseline' '$run/summary.txt' | grep -qv '^1:'"
check "summary.txt: every claim within the first 25 lines" \
	bash -c "head -n 25 '$run/summary.txt' | sed -n '/^  claim /,/^worse/p' | sed '1d;\$d' | cmp -s - '$tmp/rows'"
check "summary.md: the answer block before the kernel comparison's tables" \
	awk '/^## The answer/ { a = NR } /^  rhash vs hash, key 8 / { r = NR } /^## kbench: patched vs baseline/ { k = NR }
		END { exit !(a && a < r && r < k) }' "$run/summary.md"
check "index.html: the answer section right after the title, before the headline" \
	awk '/<h1>/ { h = NR } /<section id="answer">/ { a = NR } /irq read, 8 vCPUs/ && !r { r = NR } /<h2 id="headline">/ { l = NR }
		END { exit !(h && h < a && a < r && r < l) }' "$run/index.html"

# a run whose workload files make no claim (a program workload): the
# answer lists its primary rows, by workload and metric, each point with
# its results row's ratio and verdict, and the clock
nc=$tmp/noclaims
mkdir -p "$nc/workloads"
cp -r "$run/raw" "$nc/"
grep -v '^claim\.' "$run/workloads/irq.wl" >"$nc/workloads/irq.wl"
grep -v '^claim\.' "$run/workloads/tiny.wl" >"$nc/workloads/tiny.wl"
rm -rf "$nc/raw"/*/*/synth.*
KBSTAT=$kbstat "$top/analysis/report.sh" "$nc" >/dev/null 2>&1 || true
want=$(jq -r '[.results[] | select(.workload == "irq" and .metric == "latency")] | sort_by(.point) | .[] | "\(.point) \(.verdict)"' "$nc/results.json" | tr '\n' '|')
got=$(sed -n '/^  irq\/\{0,1\}[a-z]* latency:$/,/^  [^ ]/p' "$nc/answer.txt" | awk '/^    / { print $1, $NF }' | sort | tr '\n' '|')
is "no claims: the irq rows under 'irq latency:', each point with its verdict" "$got" "$want"
check "no claims: the block says so and the clock (icount, not a hardware figure) is on its ratio line" \
	bash -c "grep -q '^  no claims (claim.<id> = ... in a workload file); the [0-9]* primary rows:\$' '$nc/answer.txt' &&
		grep -q '^ratio new/base .*; clock icount' '$nc/answer.txt'"

# a regression check's page: its gate first, the answer after it
g=$tmp/gate
mkdir -p "$g"
cp -r "$run/raw" "$run/workloads" "$g/"
mv "$g/raw/baseline" "$g/raw/old"
mv "$g/raw/patched" "$g/raw/new"
printf 'old\tv1\nnew\tv2\n' >"$g/revisions.txt"
KBSTAT=$kbstat "$top/analysis/report.sh" "$g" >/dev/null 2>&1 || true
check "regression check: summary.txt opens with the gate, then the answer of new against old" \
	bash -c "head -n 1 '$g/summary.txt' | grep -Eq '^(PASS|REGRESSION)' &&
		awk '/^kbench: what the series does, new against old/ { a = NR } /^kbench: new vs old/ { k = NR }
			END { exit !(a > 1 && a < k) }' '$g/summary.txt' &&
		awk '/<h1 class=\"gate-/ { h = NR } /<section id=\"answer\">/ { a = NR } END { exit !(h && h < a) }' '$g/index.html'"

# Upstream's figure pointing the other way (the main run: rhash 1.25x
# hash's lookups at 1K under icount, upstream's 0.80x on hardware). Here
# rhash's latency is 0.8x of hash's, better; an upstream 1.25x of the
# latency says worse. The row is marked, and the block says in words
# why both stand (the clock) and which run to set against upstream. The
# same direction (0.80x) and a figure within the minimum effect
# (1.005x) are not marked.
o=$tmp/opposite
mkdir -p "$o"
cp -r "$run/raw" "$run/workloads" "$o/"
{
	echo 'claim.o64 = compare=variant base=hash new=rhash kernel=patched metric=latency point=key_size=64 | rhash vs hash, key 64 | 1.25x'
	echo 'claim.e64 = compare=variant base=hash new=rhash kernel=patched metric=latency point=key_size=64 | rhash vs hash, key 64, e | 1.005x'
} >>"$o/workloads/synth.wl"
for w in 80 132; do
	"$kbstat" answer "$run/results.json" --run "$o" --variants "$run/variants-patched-rhash-vs-hash.json" \
		--width "$w" >"$o/answer-$w.txt" 2>"$o/answer.err" || sed 's/^/# /' "$o/answer.err"
done
v64=$(want synth rhash vcpus=1\;key_size=64 latency "$run/variants-patched-rhash-vs-hash.json")
check "opposite: the row is marked after upstream's figure ($v64 better, 1.25x), at 80 and 132 columns" \
	bash -c "grep -F '  rhash vs hash, key 64  ' '$o/answer-80.txt' | grep -Eq -- ' $(re "$v64") +better +1\\.25x !\$' &&
		grep -F '  rhash vs hash, key 64  ' '$o/answer-132.txt' | grep -Eq -- ' better +1\\.25x !\$'"
check "opposite: the same direction (0.80x) and a figure within the minimum effect (1.005x) are not marked" \
	bash -c "grep -F '  rhash vs hash, key 8  ' '$o/answer-80.txt' | grep -Eq ' 0\\.80x\$' &&
		grep -F '  rhash vs hash, key 64, e  ' '$o/answer-80.txt' | grep -Eq ' 1\\.005x\$' &&
		[ \$(grep -c ' !\$' '$o/answer-80.txt') = 1 ]"
check "opposite: the block names the clock in plain words, and the row's verdict here and upstream's" \
	bash -c "tr -s ' \n' '  ' <'$o/answer-80.txt' |
		grep -qF \"! upstream's figure points the other way, and both can stand: this run's clock is icount, the count of instructions the guest ran\" &&
		grep -qxF '  rhash vs hash, key 64: better here ($v64), worse upstream (1.25x)' '$o/answer-80.txt'"
is "opposite: answer.txt still within 80 columns" "$(awk 'length($0) > 80' "$o/answer-80.txt")" ""

exit "$fail"
