#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# /proc/interrupts on the baseline and the patched kernel, in real guests:
# the patched table differs only as the 7.2 rework allows, counts grow,
# /proc/stat agrees, and reads parse while CPUs go offline and online.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE
ic=$top/build/checks/proc-interrupts/irqcompat
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-procirq.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
note() { sed 's/^/# /' "$@" >&2 || true; }

echo "1..13"
[ -x "$ic" ] || { echo "not ok 1 - irqcompat not built ($ic): run make check-tools"; exit 1; }

vcpus=4
# icount runs the vCPUs in one thread. Under MTTCG (--clock wall) a
# 4-vCPU boot of the baseline once died in an int3 Oops at a static key
# that text_poke_bp had already finished patching (sched_clock_cpu, at
# "sched_clock: Marking stable"): another vCPU ran the stale int3.
declare -A out
for k in baseline patched; do
	kd=$KBENCH_CACHE/labels/$k
	if [ ! -f "$kd/bzImage" ]; then
		echo "not ok $((n + 1)) - $k kernel missing ($kd/bzImage): run make kernels"
		exit 1
	fi
	pay=$tmp/payload-$k
	mkdir -p "$pay/bin"
	cp "$ic" "$pay/bin/"
	cp "$top/kernel/checks/proc-interrupts/stress.sh" "$pay/run"
	o=$tmp/$k
	truncate -s 1M "$tmp/irq-$k.img"
	rc=0
	"$top/images/launch.sh" --kernel "$kd" --payload "$pay" --out "$o" \
		--vcpus "$vcpus" --mem 2048 --clock icount --timeout 900 \
		--extra-qemu -drive "file=$tmp/irq-$k.img,if=none,id=kbirq,format=raw" \
		-device "virtio-blk-pci,drive=kbirq,num-queues=$vcpus" >"$tmp/launch-$k.log" 2>&1 || rc=$?
	ok "$rc" "$k: guest ran the capture and the hotplug stress (launch exit $rc; serial log $o/serial.log)"
	[ "$rc" = 0 ] || note "$tmp/launch-$k.log"
	out[$k]=$o/results
done

b=${out[baseline]}
p=${out[patched]}
for k in baseline patched; do
	r=${out[$k]}
	# No oops, BUG or WARNING while CPUs came and went.
	if [ -f "$r/dmesg.txt" ] && ! grep -E 'Oops|BUG:|WARNING:|general protection|Call Trace' "$r/dmesg.txt" >"$tmp/bad-$k.txt"; then
		ok 0 "$k: no oops or warning in the guest log"
	else
		ok 1 "$k: no oops or warning in the guest log"
		note "$tmp/bad-$k.txt"
	fi
	"$ic" grow "$r/interrupts-1.txt" "$r/interrupts-2.txt" >"$tmp/grow-$k.txt" 2>&1 && rc=0 || rc=$?
	ok "$rc" "$k: counts only grow between two reads"
	[ "$rc" = 0 ] || note "$tmp/grow-$k.txt"
	"$ic" statsum "$r/interrupts-1.txt" "$r/stat-1.txt" >"$tmp/stat-$k.txt" 2>&1 && rc=0 || rc=$?
	ok "$rc" "$k: per-irq counts agree with the intr line of /proc/stat"
	[ "$rc" = 0 ] || note "$tmp/stat-$k.txt"
done

"$ic" compare "$b/interrupts-1.txt" "$p/interrupts-1.txt" >"$tmp/compare.txt" 2>&1 && rc=0 || rc=$?
ok "$rc" "patched /proc/interrupts differs from baseline only as the rework allows"
[ "$rc" = 0 ] || note "$tmp/compare.txt"

rows=$("$ic" parse "$p/interrupts-1.txt" | sed -n 's/^summary.*device_rows=\([0-9]*\).*/\1/p')
[ "${rows:-0}" -ge 5 ] && rc=0 || rc=1
ok "$rc" "patched kernel shows device rows ($rows)"
"$ic" parse "$p/interrupts-1.txt" | grep -q '^layout	prec=4	chip=left' && rc=0 || rc=1
ok "$rc" "patched layout: 4-wide irq column, chip names left-justified"

reads=$(cat "$p/stress-reads.txt" 2>/dev/null || echo 0)
bad=$(cat "$p/unparsable-count.txt" 2>/dev/null || echo missing)
[ "$reads" -gt 0 ] && [ "$bad" = 0 ] && rc=0 || rc=1
ok "$rc" "patched: all $reads reads during CPU hotplug parse (unparsable: $bad)"
[ "$rc" = 0 ] || note "$p/parse-errors.txt"
bbad=$(cat "$b/unparsable-count.txt" 2>/dev/null || echo missing)
echo "# baseline: unparsable reads during hotplug: $bbad of $(cat "$b/stress-reads.txt" 2>/dev/null || echo '?')"
[ "$(cat "$p/rounds.txt" 2>/dev/null || echo 0)" = 5 ] && rc=0 || rc=1
ok "$rc" "patched: all 5 hotplug rounds completed"

if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# outputs kept in $tmp"; fi
exit "$fail"
