#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Workload files: parsing, QUICK overrides, the parameter matrix, and the
# errors for unknown keys and bad values; bench.local.conf key checking.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=workloads/wl.sh
. "$top/workloads/wl.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..32"
# make exports MATRIX (bench.conf: claims); the cases below set their own
unset MATRIX

# Every shipped workload file loads.
r=0
for f in "$top"/workloads/*.wl; do
	(wl_load "$f") 2>"$tmp/err" || { r=1; sed 's/^/# /' "$tmp/err"; }
done
ok "$r" "every shipped workload file parses"

cat >"$tmp/demo.wl" <<'WL'
# demo
name = demo
bench = procirq_read
matrix.vcpus = 1 8
matrix.key = 8 32
matrix.max = 1024
reps = 20
quick.reps = 5
quick.matrix.vcpus = 1
quick.matrix.key = 8
claims.matrix.vcpus = 8
claims.reps_at = *@key=32:3
claim.big = compare=kernel metric=ns point=vcpus=8;key=32 | the claim at 8 vCPUs | 1.5x
WL
wl_load "$tmp/demo.wl"
[ "${WL[reps]}" = 20 ] && r=0 || r=1
ok "$r" "reps read as 20"
QUICK=1 wl_load "$tmp/demo.wl"
[ "${WL[reps]}" = 5 ] && r=0 || r=1
ok "$r" "QUICK=1 applies quick.reps"
MATRIX=small wl_load "$tmp/demo.wl"
is "MATRIX=small: the quick.matrix.* points, the file's own reps" \
	"${WL[matrix.vcpus]} ${WL[matrix.key]} ${WL[matrix.max]} ${WL[reps]}" "1 8 1024 20"
MATRIX=claims wl_load "$tmp/demo.wl"
is "MATRIX=claims: claims.matrix.* where given, else matrix.*; claims.reps_at" \
	"${WL[matrix.vcpus]}|${WL[matrix.key]}|${WL[reps_at]}|$(wl_reps_at default 'key=32')" "8|8 32|*@key=32:3|3 0"
is "a claim is kept whole" "${WL[claim.big]}" "compare=kernel metric=ns point=vcpus=8;key=32 | the claim at 8 vCPUs | 1.5x"
for bad in 'compare=both metric=m | d' 'compare=variant metric=m base=default | d' \
	'compare=kernel metric=m point=size=1 | d' 'compare=kernel metric=m'; do
	printf 'name = x\nbench = y\nclaim.c = %s\n' "$bad" >"$tmp/claim.wl"
	if (wl_load "$tmp/claim.wl") 2>"$tmp/err"; then r=1; else
		grep -q 'claim.wl:3: claim.c: ' "$tmp/err" && r=0 || r=1
	fi
	ok "$r" "a bad claim is refused with its file and line: '$bad' ($(head -n1 "$tmp/err"))"
done
MATRIX=full wl_load "$tmp/demo.wl"
is "MATRIX=full: every point" "${WL[matrix.vcpus]} ${WL[matrix.key]} ${WL[reps]}" "1 8 8 32 20"
QUICK=0 wl_load "$tmp/demo.wl"
pts=$(wl_points | tr '\t\n' '| ')
[ "$pts" = "key=8;max=1024|--key 8 --max 1024 key=32;max=1024|--key 32 --max 1024 " ] && r=0 || r=1
ok "$r" "the in-guest matrix is the product of non-vcpus params, each point with its label and bench arguments ($pts)"
[ "${WL[clock]}" = icount ] && [ "${WL[warmup]}" = 2 ] && r=0 || r=1
ok "$r" "defaults: clock icount, warmup 2"

printf 'name = x\nbench = y\n# extra devices\ndisks = virtio-blk,queues=vcpus virtio-blk,queues=4 virtio-blk\n' >"$tmp/disks.wl"
(wl_load "$tmp/disks.wl") 2>"$tmp/err" && r=0 || r=1
ok "$r" "disks: virtio-blk with queues=vcpus, queues=N or none are accepted"
printf 'name = x\nbench = y\n\ndisks = virtio-blk,queues=lots\n' >"$tmp/disks.wl"
if (wl_load "$tmp/disks.wl") 2>"$tmp/err"; then r=1; else
	grep -q "disks.wl:4: disks: 'virtio-blk,queues=lots' is not virtio-blk\[,queues=N|vcpus\]" "$tmp/err" && r=0 || r=1
fi
ok "$r" "disks: a bad value is an error naming file:line"
printf 'name = x\nbench = y\nrepz = 3\n' >"$tmp/typo.wl"
(wl_load "$tmp/typo.wl") 2>"$tmp/err" && r=1 || r=0
ok "$r" "an unknown key fails"
grep -q "typo.wl:3: unknown key 'repz'" "$tmp/err" && r=0 || r=1
ok "$r" "the error names the file and line"
printf 'name = x\nbench = y\nquick.nope = 3\n' >"$tmp/q.wl"
(wl_load "$tmp/q.wl") 2>"$tmp/err" && r=1 || r=0
ok "$r" "an unknown quick.<key> fails"
# wl_rejects TEXT FILE MESSAGE DESCRIPTION: loading TEXT as FILE fails,
# and its error contains MESSAGE.
wl_rejects() {
	printf '%b' "$1" >"$tmp/$2"
	(wl_load "$tmp/$2") 2>"$tmp/err" && r=1 || r=0
	grep -qF "$3" "$tmp/err" && [ "$r" = 0 ] && r=0 || r=1
	ok "$r" "$4"
}
wl_rejects 'name = x\nbench = y\nclock = tsc\n' c.wl 'clock must be icount or wall' \
	"a bad clock is rejected"
printf 'name = x\nbench = y\nmodel = cache\nquick.model = none\n' >"$tmp/m.wl"
wl_load "$tmp/m.wl"
m1=${WL[model]}
QUICK=1 wl_load "$tmp/m.wl"
m2=${WL[model]}
wl_load "$tmp/demo.wl"
[ "$m1" = cache ] && [ "$m2" = none ] && [ "${WL[model]}" = none ] && r=0 || r=1
ok "$r" "model: cache is read, quick.model applies, the default is none"
wl_rejects 'name = x\nbench = y\n\nmodel = lru\n' m.wl "m.wl:4: model must be none or cache, not 'lru'" \
	"model: a bad value is an error naming file:line"
wl_rejects 'name = x\nbench = y\nmodle = cache\n' m.wl "m.wl:3: unknown key 'modle' (did you mean model?)" \
	"model: a typo of the key is named, with the key it means"
wl_rejects 'name = x\nbench = y\njust words\n' w.wl "w.wl:3: expected 'key = value'" \
	"a line that is not key = value is rejected with file:line"

# reps_at: fewer samples at slow points, by variant and parameters
cat >"$tmp/ra.wl" <<'WL'
name = ra
bench = bpf_attach
variants = fentry kprobe_multi
matrix.funcs = 1 1000 all
matrix.size = 8 64
reps = 10
warmup = 2
# fentry at 1000 and all takes hours: fewer samples there
reps_at = fentry@funcs=1000:3 fentry@funcs=all,size=64:1/1 *@size=64:5/1
WL
wl_load "$tmp/ra.wl"
got=$(for v in fentry kprobe_multi; do
	while IFS=$'\t' read -r pt _; do printf '%s %s %s|' "$v" "$pt" "$(wl_reps_at "$v" "$pt")"; done < <(wl_points)
done)
want="fentry funcs=1;size=8 10 2|fentry funcs=1;size=64 5 1|fentry funcs=1000;size=8 3 0|fentry funcs=1000;size=64 3 0|"
want+="fentry funcs=all;size=8 10 2|fentry funcs=all;size=64 1 1|"
want+="kprobe_multi funcs=1;size=8 10 2|kprobe_multi funcs=1;size=64 5 1|kprobe_multi funcs=1000;size=8 10 2|"
want+="kprobe_multi funcs=1000;size=64 5 1|kprobe_multi funcs=all;size=8 10 2|kprobe_multi funcs=all;size=64 5 1|"
if [ "$got" = "$want" ]; then r=0; else
	r=1
	diag "got:  $got" "want: $want"
fi
ok "$r" "reps_at: the first entry whose variant and every PARAM=VALUE match sets reps and warm-up (0 unless given); other points keep reps"
ra() { printf 'name = x\nbench = y\nvariants = a b\nmatrix.n = 1 2\nreps = 5\nreps_at = %s\n' "$1"; }
wl_rejects "$(ra 'c@n=2:1')" r1.wl "r1.wl:6: reps_at: 'c@n=2:1': variant 'c' is not one of variants (a b) or *" \
	"reps_at: an unknown variant is named with file:line"
wl_rejects "$(ra 'a@m=2:1')" r2.wl "r2.wl:6: reps_at: 'a@m=2:1': 'm' is not a matrix parameter" \
	"reps_at: an unknown parameter is named"
wl_rejects "$(ra 'a@n=2:6')" r3.wl "r3.wl:6: reps_at: 'a@n=2:6': 6 reps is not in 1..5 (reps)" \
	"reps_at: more reps than reps is refused: it is for fewer"
wl_rejects "$(ra 'a@n=2')" r4.wl "r4.wl:6: reps_at: 'a@n=2' is not VARIANT@PARAM=VALUE[,PARAM=VALUE]:REPS[/WARMUP]" \
	"reps_at: an entry without reps is refused"

# bench.local.conf: unknown keys are errors naming file and line.
printf 'BOOTS = 5\nBOOST = 5\n' >"$tmp/local.conf"
"$top/scripts/check-conf.sh" "$top/bench.conf" "$tmp/local.conf" 2>"$tmp/err" && r=1 || r=0
grep -q "local.conf:2: unknown key 'BOOST'" "$tmp/err" && [ "$r" = 0 ] && r=0 || r=1
ok "$r" "bench.local.conf: unknown key named with file:line"
[ "$r" = 0 ] || diag "check-conf.sh said:" "$(cat "$tmp/err")"
printf 'BOOTS = 5\nQUICK ?= 1\n' >"$tmp/good.conf"
"$top/scripts/check-conf.sh" "$top/bench.conf" "$tmp/good.conf" && r=0 || r=1
ok "$r" "bench.local.conf: known keys pass"
printf 'MODEL = cache\n' >"$tmp/model.conf"
"$top/scripts/check-conf.sh" "$top/bench.conf" "$tmp/model.conf" && r=0 || r=1
ok "$r" "bench.local.conf: MODEL is a known key"
printf 'BOOTS = 5\nMODLE = cache\n' >"$tmp/model.conf"
"$top/scripts/check-conf.sh" "$top/bench.conf" "$tmp/model.conf" 2>"$tmp/err" && r=1 || r=0
grep -q "model.conf:2: unknown key 'MODLE' (did you mean MODEL?)" "$tmp/err" && [ "$r" = 0 ] && r=0 || r=1
ok "$r" "bench.local.conf: a typo of MODEL is named, with the key it means"
exit "$fail"
