#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel/checks/proc-interrupts/irqcompat: the /proc/interrupts parser on the 6.12 and 7.2 formats,
# compare (accept and reject), grow, statsum, and live reads of the host's
# own /proc/interrupts (harmless: it only reads); irqcheck, the boot
# check on the harness, on fixture reads: it passes, and it fails.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/procirq
# KB_TEST_IRQCOMPAT: another build to test (tests/unit/sanitizers.t: ASan)
ic=${KB_TEST_IRQCOMPAT:-$top/build/checks/proc-interrupts/irqcompat}
icheck=$top/build/checks/proc-interrupts/irqcheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# has DESC PATTERN: the last check's output has a line matching PATTERN
has() {
	if cat "$tmp/out" "$tmp/err" | grep -qE -- "$2"; then ok 0 "$1"; else ok 1 "$1"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi
}

echo "1..69"

# irqcheck and irqcompat alone (plain cc): check-tools would build the patched kernel
# for the other topics' skeletons on a cold cache
if ! make -s -C "$top" -j1 "$top/build/checks/proc-interrupts/irqcheck" \
	"$top/build/checks/proc-interrupts/irqcompat" >"$tmp/make" 2>&1; then
	echo "Bail out! make build/checks/proc-interrupts/irqcheck irqcompat failed: $(tail -n 5 "$tmp/make" | tr '\n' ' ')"
	exit 1
fi

# 1-6: 6.12 format
check_rc "parse 6.12 fixture" 0 "$ic" parse "$fx/qemu2-6.12.interrupts"
has "6.12: 2 CPUs, 8 device rows, 19 arch rows" $'^summary\tcpus=2\tdevice_rows=8\tarch_rows=19$'
has "6.12: prec 3, chip right-justified to 8" $'^layout\tprec=3\tchip=right8$'
has "6.12: row 0 parsed (counts, chip, hwirq-trigger, action)" $'^irq\t0\t44 0\tIO-APIC\t2-edge\ttimer$'
has "6.12: MSI-X row with the long chip name" $'^irq\t25\t5125 3877\tPCI-MSIX-0000:00:04.0\t1-edge\tvirtio0-req.0$'
has "6.12: ERR is a single total" $'^arch\tERR\ttotal 0\t$'

# 7-11: 7.2 format
check_rc "parse 7.2 fixture" 0 "$ic" parse "$fx/qemu2-7.2.interrupts"
has "7.2: 12 arch rows (SPU RTR ERR MIS PIN NPI PIW hidden)" $'^summary\tcpus=2\tdevice_rows=8\tarch_rows=12$'
has "7.2: prec 4, chip left-justified to 21" $'^layout\tprec=4\tchip=left21$'
has "7.2: row 12 parsed" $'^irq\t12\t0 132\tIO-APIC\t12-edge\ti8042$'
if grep -qE $'^arch\t(SPU|RTR|ERR|MIS|PIN|NPI|PIW)\t' "$tmp/out"; then ok 1 "7.2: no hidden row printed"; else ok 0 "7.2: no hidden row printed"; fi

# 12-13: 7.2 with ERR/MIS per CPU
check_rc "parse 7.2 fixture with ERR/MIS shown" 0 "$ic" parse "$fx/qemu2-7.2-err.interrupts"
has "7.2: ERR per CPU" $'^arch\tERR\t1 0\tAPIC error interrupts$'

# 14-16: normalized summaries of the two formats agree on every device row
"$ic" parse "$fx/qemu2-6.12.interrupts" | grep $'^irq\t' >"$tmp/a"
"$ic" parse "$fx/qemu2-7.2.interrupts" | grep $'^irq\t' >"$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then ok 0 "device rows normalize identically"; else ok 1 "device rows normalize identically"; diff "$tmp/a" "$tmp/b" | sed 's/^/# /'; fi
check_rc "parse host capture (real, pre-7.2 kernel)" 0 "$ic" parse "$fx/host-6.18.interrupts"
has "host: MSI and IO-APIC rows" $'^irq\t26\t0 16\tIO-APIC\t4-edge\tttyS0$'

# 17-19: compare accepts the allowed differences
check_rc "compare 6.12 vs 7.2 accepted" 0 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-7.2.interrupts"
check_rc "compare 6.12 vs 7.2 with per-CPU ERR/MIS accepted" 0 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-7.2-err.interrupts"
check_rc "compare with CPU2 offline on both accepted" 0 "$ic" compare "$fx/qemu4-cpu2off-6.12.interrupts" "$fx/qemu4-cpu2off-7.2.interrupts"

# 20-24: compare rejects the broken patched file, naming each violation
check_rc "compare rejects the incompatible fixture" 1 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-7.2-bad.interrupts"
has "names the missing device row" "^row 4: device row missing in patched$"
has "names the changed action" "^row 8: actions differ: base 'rtc0', patched 'rtc_cmos'$"
has "names the hidden LOC row" "^row LOC: missing in patched"
if [ "$(wc -l <"$tmp/out")" = 3 ]; then ok 0 "exactly 3 violations"; else ok 1 "exactly 3 violations"; sed 's/^/# /' "$tmp/out"; fi

# 25-26: different CPU columns
check_rc "compare rejects different CPU headers" 1 "$ic" compare "$fx/qemu4-cpu2off-6.12.interrupts" "$fx/qemu2-7.2.interrupts"
has "names the header" "^header: CPU columns differ: base 'CPU0 CPU1 CPU3', patched 'CPU0 CPU1'$"

# 27-29: grow
check_rc "grow accepts a later read" 0 "$ic" grow "$fx/qemu2-6.12.interrupts" "$fx/qemu2-6.12-later.interrupts"
check_rc "grow rejects counts that went down" 1 "$ic" grow "$fx/qemu2-6.12-later.interrupts" "$fx/qemu2-6.12.interrupts"
has "names row and CPU" "^row 25: CPU1 went down: 3880 then 3877$"

# 30-33: statsum
check_rc "statsum 6.12 fixture" 0 "$ic" statsum "$fx/qemu2-6.12.interrupts" "$fx/qemu2-6.12.stat"
check_rc "statsum 7.2 fixture" 0 "$ic" statsum "$fx/qemu2-7.2.interrupts" "$fx/qemu2-7.2.stat"
check_rc "statsum host capture" 0 "$ic" statsum "$fx/host-6.18.interrupts" "$fx/host-6.18.stat"
check_rc "statsum rejects /proc/stat read before /proc/interrupts" 1 "$ic" statsum "$fx/qemu2-6.12-later.interrupts" "$fx/qemu2-6.12.stat"

# percpu: each device count between the descriptors' own per-CPU
# counters (/sys/kernel/irq/N/per_cpu_count) read before and after; the
# -shortcut fixture is the 7.2 read with irq 4 printed as zeros, as a
# tot_count shortcut taken where tot_count is not kept prints it
check_rc "percpu 7.2 fixture" 0 "$ic" percpu "$fx/qemu2-7.2.interrupts" "$fx/qemu2-7.2.percpu-before" "$fx/qemu2-7.2.percpu-after"
check_rc "percpu rejects zeros printed where the descriptor counted" 1 "$ic" percpu "$fx/qemu2-7.2-shortcut.interrupts" "$fx/qemu2-7.2.percpu-before" "$fx/qemu2-7.2.percpu-after"
has "names row, CPU and both counters" "^row 4 CPU1: /proc/interrupts has 0, the descriptor's counter 1287 before and 1288 after$"
check_rc "percpu: a snapshot that is not IRQ counts fails" 1 "$ic" percpu "$fx/qemu2-7.2.interrupts" "$fx/qemu2-7.2.interrupts" "$fx/qemu2-7.2.percpu-after"

# 34: a row with a column missing (hotplug race) does not parse
check_rc "parse rejects a missing count column" 1 "$ic" parse -q "$fx/broken-column.interrupts"

# 35: 64 CPUs, generated in the 6.12 layout
{
	printf '%*s' 11 ''
	for c in $(seq 0 63); do printf 'CPU%-8d' "$c"; done
	printf '\n'
	for irq in 0 1 24 25 26 27; do
		printf '%3d: ' "$irq"
		for c in $(seq 0 63); do printf '%10u ' $((irq * 1000 + c)); done
		printf ' %8s %3d-%-8s  %s\n' PCI-MSIX-0000:00:05.0 "$irq" edge "virtio1-req.$irq"
	done
	printf '%3s: ' LOC
	for c in $(seq 0 63); do printf '%10u ' $((c * 7)); done
	printf '  %s\n' 'Local timer interrupts'
	printf '%3s: %10u\n' ERR 0
} >"$tmp/cpu64"
check_rc "parse a 64-CPU table" 0 "$ic" parse "$tmp/cpu64"

# 36-39: the widths the precision change (3 -> 4) moves, and nothing else:
# the number column and every row label, the hwirq column, "IPI%u:"
check_rc "compare: a patched read at prec 5 is rejected" 1 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-7.2-prec5.interrupts"
has "names the label width" "^layout: prec \(label width\) is 3 in base, 5 in patched; patched must be 4"
check_rc "compare: a patched read still at prec 3 is rejected" 1 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-7.2-prec3.interrupts"
has "names the missing widening" "^layout: prec \(label width\) is 3 in base, 3 in patched; patched must be 4"

# 40-42: one hwirq column wider than prec
check_rc "compare: a hwirq column wider than prec is rejected" 1 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-7.2-hwirq.interrupts"
has "names the row and its width" "^row 9: patched hwirq column is 5 wide, prec is 4"
if [ "$(wc -l <"$tmp/out")" = 1 ]; then ok 0 "hwirq: exactly 1 violation"; else ok 1 "hwirq: exactly 1 violation"; sed 's/^/# /' "$tmp/out"; fi

# 43-45: the blanks before actions and arch row texts do not change
check_rc "compare: other blanks that moved are rejected" 1 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-7.2-gaps.interrupts"
has "names the actions of row 1" "^row 1: 6 blanks before the actions in base, 7 in patched$"
has "names the text of LOC" "^row LOC: 2 blanks before the text in base, 3 in patched$"

# 46-52: arm64 and riscv: "IPI%u:" at prec 3 has no blank after ':'
check_rc "parse arm64 6.12 (IPI rows without the blank)" 0 "$ic" parse "$fx/arm64-6.12.interrupts"
has "arm64 6.12: IPI0 counts" $'^arch\tIPI0\t512 634\tRescheduling interrupts$'
check_rc "compare arm64 6.12 vs 7.2 accepted" 0 "$ic" compare "$fx/arm64-6.12.interrupts" "$fx/arm64-7.2.interrupts"
check_rc "compare riscv 6.12 vs 7.2 accepted" 0 "$ic" compare "$fx/riscv-6.12.interrupts" "$fx/riscv-7.2.interrupts"
"$ic" parse "$fx/riscv-7.2.interrupts" >"$tmp/out" 2>"$tmp/err" || true
has "riscv: a chip name with a blank" $'^irq\t5\t18234 17720\tRISC-V INTC\t5\tEdge      riscv-timer$'
check_rc "compare: IPI rows at prec 4 without the blank are rejected" 1 "$ic" compare "$fx/arm64-6.12.interrupts" "$fx/arm64-7.2-ipi-noblank.interrupts"
has "names the line and the misplaced count" "arm64-7.2-ipi-noblank.interrupts:7: row IPI0: count column 1 \(CPU0\) is '      512 '"

# 53-54: the chip alignment is checked on both sides
check_rc "compare: 6.12 read as patched is rejected" 1 "$ic" compare "$fx/qemu2-6.12.interrupts" "$fx/qemu2-6.12.interrupts"
has "names a chip not left-justified" "^row 0: patched chip 'IO-APIC' is not left-justified to 21"

# 55-56: the host's own live /proc/interrupts: parses, and a second read grows
if [ -r /proc/interrupts ] && [ -r /proc/stat ]; then
	cat /proc/interrupts >"$tmp/live1"
	cat /proc/stat >"$tmp/live1.stat"
	cat /proc/interrupts >"$tmp/live2"
	check_rc "statsum on live host reads" 0 "$ic" statsum "$tmp/live1" "$tmp/live1.stat"
	check_rc "grow on two live host reads" 0 "$ic" grow "$tmp/live1" "$tmp/live2"
else
	ok 1 "statsum on live host reads: /proc/interrupts or /proc/stat unreadable"
	ok 1 "grow on two live host reads: /proc/interrupts unreadable"
fi

# 61-64: irqcheck judges the reads in a directory (-r), as boot-check
# keeps them (-o): the 7.2 fixture passes parse, statsum and percpu;
# with the -shortcut read percpu fails, naming row and CPU; a table that
# does not parse fails every case
reads() { # DIR INTERRUPTS: the 7.2 fixture's reads, INTERRUPTS as the table
	mkdir -p "$1"
	cp "$fx/qemu2-7.2.stat" "$1/stat.txt"
	cp "$fx/qemu2-7.2.percpu-before" "$1/percpu-before.txt"
	cp "$fx/qemu2-7.2.percpu-after" "$1/percpu-after.txt"
	cp "$fx/$2" "$1/interrupts.txt"
}
reads "$tmp/r-good" qemu2-7.2.interrupts
check "irqcheck -r: the 7.2 fixture's reads pass" "$icheck" -r "$tmp/r-good"
cp "$tmp/out" "$tmp/r-good.out"
reads "$tmp/r-short" qemu2-7.2-shortcut.interrupts
check_rc "irqcheck -r: zeros printed where the descriptor counted fail" 1 "$icheck" -r "$tmp/r-short"
is "irqcheck: percpu alone fails, the violation a diagnostic before its line" \
	"$(grep -E '^(not )?ok|^# row' "$tmp/out" | sed -E 's/^((not )?ok [0-9]+) - (parses|statsum|percpu)?.*/\1 \3/' | tr '\n' '|')" \
	"ok 1 |ok 2 statsum|# row 4 CPU1: /proc/interrupts has 0, the descriptor's counter 1287 before and 1288 after|not ok 3 percpu|ok 4 |ok 5 |"
reads "$tmp/r-broken" broken-column.interrupts
"$icheck" -r "$tmp/r-broken" >"$tmp/out" 2>&1 || true
is "irqcheck: a table that does not parse fails parse, statsum, percpu and format" \
	"$(grep -c '^not ok' "$tmp/out") $(tail -n 1 "$tmp/out")" "4 1..4"

# 65-67: the format case tells the rework from 6.12's table: the 7.2
# fixture passes it; the 6.12 one is PROC_INTERRUPTS_REWORK absent (a
# failure on the kernel built with the series, boot-kernels.t), after
# the other cases ran; a 7.2 layout at 6.12's precision 3 fails
grep -q '^ok 4 - format: the 7.2 format, chip column left-justified to one width, at least the longest name (left21), precision 4$' "$tmp/r-good.out" &&
	grep -q '^ok 5 - format: the interrupt number column at least 4 wide' "$tmp/r-good.out" && r=0 || r=1
ok "$r" "irqcheck: the 7.2 fixture is the 7.2 format ($(grep format "$tmp/r-good.out" | tr '\n' ' '))"
mkdir -p "$tmp/r-612"
cp "$fx/qemu2-6.12.interrupts" "$tmp/r-612/interrupts.txt"
cp "$fx/qemu2-6.12.stat" "$tmp/r-612/stat.txt"
"$icheck" -r "$tmp/r-612" -t statsum -t format >"$tmp/out" 2>&1 && r=0 || r=1
is "irqcheck: the 6.12 table passes statsum, then says the rework is absent (exit $r)" \
	"$r $(grep -E '^(not )?ok' "$tmp/out" | sed 's/: .*//' | tr '\n' '|')" \
	"0 ok 1 - statsum|ok 2 # SKIP PROC_INTERRUPTS_REWORK absent|"
reads "$tmp/r-prec3" qemu2-7.2-prec3.interrupts
check_rc "irqcheck: the 7.2 layout at precision 3 fails format" 1 "$icheck" -r "$tmp/r-prec3" -t format

# 68-69: a debug kernel's read (patched-debug, 2 vCPUs, make test-debug
# of 7 Dec): its chip column is 24 wide though the longest name left is
# 21 (the kernel keeps the widest name shown since boot), and every row
# agrees: the 7.2 format. One row two blanks short of the others is not.
mkdir -p "$tmp/r-wide"
for f in interrupts stat percpu-before percpu-after; do
	cp "$fx/qemu2-7.2-debug-wide.$f" "$tmp/r-wide/$f.txt"
done
"$icheck" -r "$tmp/r-wide" >"$tmp/out" 2>&1 && r=0 || r=1
is "irqcheck: a column wider than the longest name, one width on every row, passes (exit $r)" \
	"$r $(grep -o 'format: the 7.2 format.*(left[0-9]*)' "$tmp/out")" \
	"0 format: the 7.2 format, chip column left-justified to one width, at least the longest name (left24)"
mkdir -p "$tmp/r-uneven"
cp "$tmp/r-wide/"*.txt "$tmp/r-uneven/"
sed -i 's/^\(   8: .*IO-APIC\)  /\1/' "$tmp/r-uneven/interrupts.txt"
if cmp -s "$tmp/r-wide/interrupts.txt" "$tmp/r-uneven/interrupts.txt"; then
	ok 1 "irqcheck: the uneven read could not be made (the sed matched no row 8)"
else
	check_rc "irqcheck: one row's chip column 2 narrower than the others fails format" 1 "$icheck" -r "$tmp/r-uneven" -t format
fi

exit "$fail"
