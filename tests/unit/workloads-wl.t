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
echo "1..21"
# make exports MATRIX (bench.conf: small); the cases below set their own
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
