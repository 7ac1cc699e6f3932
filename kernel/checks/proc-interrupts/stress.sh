#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The proc-interrupts series' stress check. Payload 'run' for
# tests/vm/procirq-compat.t: capture /proc/interrupts
# and /proc/stat, then read /proc/interrupts in a loop while CPUs go
# offline and online. Every read must parse; the kernel log must stay
# free of oopses and warnings.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
res=$1
ic=$here/bin/irqcompat

cat /proc/interrupts >"$res/interrupts-1.txt"
cat /proc/stat >"$res/stat-1.txt"
sleep 1
cat /proc/interrupts >"$res/interrupts-2.txt"

# Hotplug stress: a reader parses every table it gets while CPUs 1..N-1
# are taken offline and brought back.
cpus=$(ls -d /sys/devices/system/cpu/cpu[1-9]* 2>/dev/null || true)
# One read of /proc/interrupts, which must parse; a bad one is kept.
read_and_parse() {
	reads=$((reads + 1))
	cat /proc/interrupts >"$res/cur.txt"
	if ! "$ic" parse -q "$res/cur.txt" 2>>"$res/parse-errors.txt"; then
		bad=$((bad + 1))
		cp "$res/cur.txt" "$res/unparsable-$bad.txt"
	fi
}

stress() {
	reads=0
	bad=0
	for round in 1 2 3 4 5; do
		for c in $cpus; do
			[ -w "$c/online" ] || continue
			echo 0 >"$c/online"
			for _ in 1 2 3; do
				read_and_parse
			done
			echo 1 >"$c/online"
			read_and_parse
		done
		echo "round $round done" >>"$res/stress.log"
	done
	echo "$reads" >"$res/stress-reads.txt"
}
stress &
stress=$!
# A second, unsynchronised reader races with the hotplug above.
i=0
while kill -0 "$stress" 2>/dev/null; do
	cat /proc/interrupts >/dev/null
	i=$((i + 1))
done
wait "$stress"
rm -f "$res/cur.txt"
echo "$i" >"$res/racing-reads.txt"
find "$res" -name 'unparsable-[0-9]*.txt' | wc -l >"$res/unparsable-count.txt"
grep -c . "$res/stress.log" >"$res/rounds.txt" || true
dmesg >"$res/dmesg.txt"
cat /proc/interrupts >"$res/interrupts-3.txt"
