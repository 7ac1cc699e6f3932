#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kbcache model's A/A check (issue 15, model/README.md): the baseline
# kernel booted twice under the plugin at 1 vCPU with ptrchase (QUICK),
# and the two boots' windows compared window by window. Interrupts are
# left out of the windows, so every sample window's model_cycles must
# agree within 1e-4 (with interrupts counted they differed up to 7.7e-4),
# count the same instructions and accesses (the CPU's own accesses at
# interrupt delivery are left out). Bit-identical sample windows (issue
# 15's goal) are a TODO test: they held in 66 A/A runs after stop 24's
# two fixes, then one CI run (2026-12-06) had a sample window differ
# within those bounds, cause not known (model/README.md). Bit-identical
# warm-ups are a TODO test too: a warm-up's page faults run kernel code
# that depends on the boot. When any of it fails, both boots' windows
# are kept in reports/model-aa-* and the differing windows printed on
# stderr, so a CI log says what differed.
# About 2-3 minutes on the shared 2-core machine.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-model-aa.XXXXXX")
differ=0
# keep: on a failure or a differing window, the run goes to reports/
# shellcheck disable=SC2317,SC2154 # called through the trap; fail is tap.sh's
keep() {
	if [ "${fail:-0}" != 0 ] || [ "$differ" != 0 ]; then
		local dest
		dest=$top/reports/model-aa-$(date +%Y%m%d-%H%M%S)
		mkdir -p "$top/reports" && cp -a "$tmp/run" "$dest" &&
			echo "model-aa.t: both boots' windows kept in $dest" >&2
	fi
	rm -rf "$tmp"
}
trap keep EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE

echo "1..8"
make_or_bail model-tools bench-tools
[ -f "$KBENCH_CACHE/labels/baseline/vmlinux" ] ||
	{ echo "Bail out! no baseline kernel with vmlinux in $KBENCH_CACHE/labels/baseline: run make kernels"; exit 1; }

t0=$(date +%s)
check "two model boots of the baseline kernel (ptrchase, QUICK, 1 vCPU) run and join" \
	env MODEL=cache WORKLOADS=ptrchase QUICK=1 BOOTS=2 BENCH_VCPUS=1 CLOCK= PROFILE=0 \
	"$top/orchestrate/run.sh" --run "$tmp/run" --kernel baseline=baseline
diag "$(($(date +%s) - t0)) s"
w1=$tmp/run/boots/baseline/v1-b01/model-windows.csv
w2=$tmp/run/boots/baseline/v1-b02/model-windows.csv
# shellcheck disable=SC2317 # called through t
both_have() {
	grep -q 'nokaslr.*norandmaps' "$tmp/run/boots/baseline/v1-b01/qemu.cmdline" &&
		grep -q 'nokaslr.*norandmaps' "$tmp/run/boots/baseline/v1-b02/qemu.cmdline"
}
t "both boots booted with nokaslr norandmaps" both_have

# irqs: the sample windows that left an interrupt out, over both boots
irqs=$(awk -F, '$2 == "sample" && $10 > 0 { n++ } END { print n + 0 }' "$w1" "$w2" 2>/dev/null || echo 0)
if [ "$irqs" -gt 0 ]; then ok 0 "interrupts were left out of $irqs sample windows"
else ok 1 "interrupts were left out of sample windows (none was: no interrupt matched?)"; fi

# sample WINDOWS_FILE N: the number and field N of each sample window
sample() { awk -F, -v OFS=, -v f="$2" '$2 == "sample" { print $1, $f }' "$1" 2>/dev/null; }
if cmp -s <(sample "$w1" 4) <(sample "$w2" 4); then
	ok 0 "every sample window counts the same instructions in both boots"
else
	ok 1 "every sample window counts the same instructions in both boots"
	diag "$(paste -d' ' <(sample "$w1" 4) <(sample "$w2" 4) | awk '$1 != $2')"
fi
if cmp -s <(sample "$w1" 5) <(sample "$w2" 5); then
	ok 0 "every sample window counts the same accesses in both boots"
else
	ok 1 "every sample window counts the same accesses in both boots"
	diag "$(paste -d' ' <(sample "$w1" 5) <(sample "$w2" 5) | awk '$1 != $2')"
fi
# model_cycles within 1e-4 of each other in every sample window
if paste -d, <(sample "$w1" 9) <(sample "$w2" 9) | awk -F, '
	{ d = $2 - $4; if (d < 0) d = -d; if (!$2 || d / $2 > 1e-4) bad = 1; n++ }
	END { exit bad || !n }'; then
	ok 0 "every sample window's model_cycles agree within 1e-4"
else
	ok 1 "every sample window's model_cycles agree within 1e-4"
fi
# differing KIND: the windows of KIND (sample, warmup) that are not
# identical in the two files, both lines of each, for stderr
differing() {
	awk -F, -v kind="$1" '$2 != kind { next }
		NR == FNR { a[$1] = $0; next }
		{ if (a[$1] != $0) print "boot 1: " a[$1] "\nboot 2: " $0 }' "$w1" "$w2"
}
# cmpw WHAT TODO [--samples]: cmp-windows.sh's verdict as a test (a TODO
# test when TODO is not empty: reported, never a failure)
cmpw() {
	local what=$1 todo=$2 rc=0 res
	shift 2
	res=$("$top/model/cmp-windows.sh" "$@" "$w1" "$w2" 2>&1) || rc=$?
	if [ "$rc" != 0 ] && [ "${1:-}" = --samples ]; then
		differ=1
		{
			echo "model-aa.t: sample windows that differ ($res):"
			echo "window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,dtlb_misses,model_cycles,irqs,irq_insns"
			differing sample
		} >&2
	fi
	if [ -z "$todo" ]; then
		ok "$rc" "$what bit-identical ($res)"
	elif [ "$rc" = 0 ]; then
		n=$((n + 1))
		echo "ok $n - $what bit-identical ($res)"
	else
		n=$((n + 1))
		echo "not ok $n - $what bit-identical ($res) # TODO $todo"
	fi
}
cmpw "every sample window" "one CI run in 67 had a sample window differ (model/README.md)" --samples
cmpw "every window, warm-ups included" "a warm-up's page faults depend on the boot (model/README.md)"
exit "$fail"
