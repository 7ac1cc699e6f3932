#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plan is checked on the host: a bad bench, argument or matrix value
# in a workload file stops run.sh with the file and line, before a boot.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..11"

make_or_bail bench-tools
# A kernel label that exists but is never booted: the plan fails first.
mkdir -p "$tmp/cache/labels/fake"
: >"$tmp/cache/labels/fake/bzImage"
fake_image "$tmp/image.qcow2"
export IMAGE=$tmp/image.qcow2

# plan NAME WANT LINES...: a workload file of LINES makes run.sh exit 1
# with an error matching WANT, and no boot directory is created.
plan() {
	local desc=$1 want=$2 rc=0
	shift 2
	printf '%s\n' "$@" >"$tmp/t.wl"
	rm -rf "$tmp/run"
	env KBENCH_CACHE="$tmp/cache" WORKLOADS="$tmp/t.wl" BOOTS=1 \
		"$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" != 0 ] && grep -q "$want" "$tmp/out" &&
		[ -z "$(find "$tmp/run/boots" -mindepth 1 2>/dev/null)" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc (exit $rc)"
		diag "$(cat "$tmp/out")"
	fi
}
base=("name = t" "bench = procirq_read" "reps = 3" "warmup = 1")
plan "bad args value: file:line of args, before any boot" \
	"t.wl:5: procirq_read: --loops: '12x' is not a non-negative integer" \
	"${base[@]}" "args = --loops 12x"
plan "bad matrix value: file:line of the matrix key" \
	"t.wl:6: procirq_read: --loops: 'lots' is not a non-negative integer" \
	"${base[@]}" "args = --perf" "matrix.loops = 10 lots"
plan "unknown bench: file:line of bench" \
	"t.wl:2: no benchmark 'procirq_raed'" \
	"name = t" "bench = procirq_raed" "reps = 3"
plan "unknown option: file:line of args" \
	"t.wl:5: procirq_read: unknown option --lops" \
	"${base[@]}" "args = --lops 5"
rm -rf "$tmp/run"
rc=0
printf '%s\n' "${base[@]}" "args = --loops 5" >"$tmp/t.wl"
env KBENCH_CACHE="$tmp/cache" WORKLOADS="$tmp/t.wl" BOOTS=1 ACCEL=tcg \
	timeout 20 "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake >"$tmp/out" 2>&1 || rc=$?
if grep -q "boot 1/1" "$tmp/out"; then r=0; else r=1; fi
ok "$r" "a valid plan passes the check and goes on to boot (exit $rc)"
[ "$r" = 0 ] || diag "$(cat "$tmp/out")"
grep -q "plan: vcpus=1: 1 boots (a)" "$tmp/out" && grep -q "plan: estimated total" "$tmp/out" && r=0 || r=1
ok "$r" "the plan and a time estimate are printed before the first boot"
grep -q "boot 1/1: a (fake) vcpus=1 boot 1/1 clock=icount, [0-9]*m[0-9]*s elapsed, .* left (estimated[^)]*)" "$tmp/out" && r=0 || r=1
ok "$r" "the boot line shows elapsed time and an estimate of what is left"

# reps_at: a slow point gets fewer samples in plan.tsv, and is kept
rm -rf "$tmp/run"
printf '%s\n' "${base[@]}" "matrix.loops = 5 10" "reps_at = default@loops=10:1" >"$tmp/t.wl"
env KBENCH_CACHE="$tmp/cache" WORKLOADS="$tmp/t.wl" BOOTS=1 ACCEL=tcg \
	timeout 20 "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake >"$tmp/out" 2>&1 || true
got=$(cut -f4-6 "$tmp/run/payload/v1/plan.tsv" 2>/dev/null | tr '\t\n' ' |')
[ "$got" = "vcpus=1;loops=5 3 1|vcpus=1;loops=10 1 0|" ] && r=0 || r=1
ok "$r" "reps_at: plan.tsv has 1 rep and no warm-up at loops=10, the workload's 3 and 1 at loops=5 ($got)"
[ "$r" = 0 ] || diag "$(cat "$tmp/out")"
plan "reps_at: an entry with more reps than reps is named with its line" \
	"t.wl:6: reps_at: 'default@loops=10:4': 4 reps is not in 1..3 (reps)" \
	"${base[@]}" "matrix.loops = 5 10" "reps_at = default@loops=10:4"
printf '%s\n' "${base[@]}" "args = --loops 5" >"$tmp/t.wl"

# CLOCK= overrides the workload files' clock for the run.
rm -rf "$tmp/run"
env KBENCH_CACHE="$tmp/cache" WORKLOADS="$tmp/t.wl" BOOTS=1 ACCEL=tcg CLOCK=wall MEM=1024 \
	timeout 20 "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake >"$tmp/out" 2>&1 || true
cut -f7 "$tmp/run/payload/v1/plan.tsv" | grep -qx wall && grep -q "clock=wall" "$tmp/out" && r=0 || r=1
ok "$r" "CLOCK=wall overrides the workload's clock (plan.tsv and the boot line)"
[ "$r" = 0 ] || diag "$(cat "$tmp/out")"
rc=0
env KBENCH_CACHE="$tmp/cache" WORKLOADS="$tmp/t.wl" BOOTS=1 CLOCK=tsc \
	"$top/orchestrate/run.sh" --run "$tmp/run2" --kernel a=fake >"$tmp/out" 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "CLOCK must be icount or wall, not 'tsc'" "$tmp/out" && r=0 || r=1
ok "$r" "CLOCK=tsc is an error naming it"
exit "$fail"
