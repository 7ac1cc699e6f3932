#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kfuzz's smoke run (issue 40): the plain patched kernel boots once
# (2 vCPUs, icount) through kernel/fuzz/run.sh, the one entry point of
# make fuzz-kernel, and runs kfuzz as root for KFUZZ_SMOKE_S guest
# seconds (default 30, about two minutes of this host's time under TCG;
# no trinity: make fuzz-kernel has it). Checks:
# the boot and the run end, the serial log has no splat (splat-scan.sh),
# kfuzz's counts show every interface called and succeeding (rhash,
# batches, iterators, tracing_multi, fentry, tp_btf, perf, the common
# attributes), links attached and maps resized, and the ring holds the
# last 1000 operations of the printed seed, each with its result.
# SEED=N runs another seed (default 4043, so that make test runs the
# same sequence every time); KB_SMOKE_KERNEL names another kernel (label or
# directory). Outputs kept on failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-kfuzz-smoke.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck disable=SC2317 # the EXIT trap calls it
finish() {
	if [ "$fail" = 0 ]; then rm -rf "$tmp"; else diag "outputs kept in $tmp"; fi
}
trap finish EXIT

echo "1..7"
make_or_bail kfuzz-tools
kernel=${KB_SMOKE_KERNEL:-patched}
secs=${KFUZZ_SMOKE_S:-30}
seed=${SEED:-4043}
out=$tmp/run
t0=$(date +%s)
rc=0
KFUZZ_KERNELS=$kernel KFUZZ_SECONDS=$secs SEED=$seed KFUZZ_OUT=$out KFUZZ_BOOT_SLACK=900 \
	"$top/kernel/fuzz/run.sh" >"$tmp/run.log" 2>&1 || rc=$?
took=$(($(date +%s) - t0))
name=$(basename "$kernel")
res=$out/$name/results
ok "$rc" "$name: booted, kfuzz ran $secs s with seed $seed and the serial log has no splat (run.sh exit $rc, ${took} s)"
if [ "$rc" != 0 ]; then
	diag "$(tail -n 40 "$tmp/run.log")"
fi

kout=$res/kfuzz-root.out
if [ -f "$kout" ] && grep -q "^kfuzz: seed $seed\$" "$kout" && grep -q '^kfuzz: end' "$kout"; then
	ok 0 "kfuzz printed its seed first and its counts at the end"
else
	ok 1 "kfuzz's output ($kout) lacks the seed line or the end counts"
fi
[ ! -f "$kout" ] || diag "$(grep -A 20 '^kfuzz: \(setup\|function\|lock\|end\)' "$kout" | grep -v '^--$')"

# the end counts: "kfuzz:   NAME   CALLS calls   OK ok"
zero=
for i in rhash batch iter tracing_multi fentry tp_btf perf common_attrs trigger; do
	okc=$(sed -n '/^kfuzz: end/,$p' "$kout" 2>/dev/null | awk -v i="$i" '$2 == i { print $5 }')
	[ -n "$okc" ] && [ "$okc" -gt 0 ] || zero="$zero $i"
done
if [ -z "$zero" ]; then
	ok 0 "every interface was called and succeeded at least once"
else
	ok 1 "interfaces with no successful call:$zero"
fi

end=$(grep '^kfuzz: end' "$kout" 2>/dev/null || true)
links=$(sed -n 's/.* \([0-9]*\) links attached.*/\1/p' <<<"$end")
resized=$(sed -n 's/.* \([0-9]*\) maps resized.*/\1/p' <<<"$end")
if [ "${links:-0}" -gt 0 ] && [ "${resized:-0}" -gt 0 ]; then
	ok 0 "links attached ($links) and maps resized ($resized)"
else
	ok 1 "links attached '${links:-}', maps resized '${resized:-}': want both > 0 ($end)"
fi

ring=$res/kfuzz-root.ring
nl=0
if [ -f "$ring" ]; then
	nl=$(sort -n "$ring" | grep -c '^[0-9]\{10\} T[0-9]* #[0-9]* [a-z_]* .* = -\{0,1\}[0-9]' || true)
fi
if [ "$nl" = 1000 ]; then
	ok 0 "the ring holds 1000 finished operations with their results"
else
	ok 1 "the ring ($ring) holds $nl finished operations, want 1000"
fi

# the ring's operations are the seed's: the dry run of the same seed
# prints each of them (worker, number, text), which is what makes a
# finding replayable
ops=0 found=0
if [ -f "$ring" ]; then
	sort -n "$ring" | sed 's/ *$//' | sed -n 's/^[0-9]* \(T[0-9]* #[0-9]* .*\) = [^=]*$/\1/p' >"$tmp/ops"
	ops=$(wc -l <"$tmp/ops")
	maxn=$(sed -n 's/^T[0-9]* #\([0-9]*\) .*/\1/p' "$tmp/ops" | sort -n | tail -n 1)
	if [ -n "$maxn" ] && "$top/build/kfuzz/kfuzz" -n -s "$seed" -c "$((maxn + 1))" >"$tmp/dry"; then
		found=$(grep -cxF -f "$tmp/ops" "$tmp/dry" || true)
	fi
fi
if [ "$ops" -gt 0 ] && [ "$found" = "$ops" ]; then
	ok 0 "the ring's $ops operations are in the dry run of seed $seed, each as the ring has it"
else
	ok 1 "of the ring's $ops operations, $found are in the dry run of seed $seed"
fi

if [ -f "$res/info.txt" ]; then
	diag "$(cat "$res/info.txt")"
	ok 0 "the guest recorded its kernel and whether unprivileged bpf() is allowed"
else
	ok 1 "no info.txt in the results ($res)"
fi
exit "$fail"
