#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The seed corpus of each fuzz harness, made from the test fixtures and
# the real files (workloads/*.wl, bench.conf, kernel/series), so it
# follows them as they change. The crashes fuzzing found are not here:
# they are in fuzz/regress/<harness>/, which fuzz/run.sh adds.
#
#   seeds.sh OUTDIR      writes OUTDIR/<harness>/ (emptied first)
#
# Needs build/analysis/kbstat (make analysis-tools) for the JSON seeds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=workloads/wl.sh
. "$top/workloads/wl.sh"

[ $# -eq 1 ] || kb_die "usage: seeds.sh OUTDIR"
out=$1
fx=$top/tests/fixtures
kbstat=$top/build/analysis/kbstat
[ -x "$kbstat" ] || kb_die "$kbstat: not built; run make analysis-tools"
command -v perl >/dev/null || kb_die "perl not found: install it (make deps)"

# the program workloads' parsers: a harness each (fuzz.mk)
parsers=()
for p in "$top"/workloads/parsers/*.awk; do
	p=${p##*/}
	parsers+=("${p%.awk}")
done
for h in raw_csv json irqcompat kbbench_args check_conf wl series changepoint \
	"${parsers[@]/#/parse_}"; do
	rm -rf "${out:?}/${h//-/_}"
	mkdir -p "$out/${h//-/_}"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# raw_csv: every CSV of the analysis fixtures' generated runs (their
# corrupt one too), and a header alone. json: the fixtures' results
# file, a generated run's fingerprint, and the results and floor files
# kbstat writes for those runs.
for kind in slow aa small corrupt report; do
	perl "$fx/analysis/gen.pl" "$kind" "$tmp/$kind" ||
		kb_die "tests/fixtures/analysis/gen.pl $kind failed"
	find "$tmp/$kind/raw" -name '*.csv' | sort | while IFS= read -r f; do
		rel=${f#"$tmp/$kind/raw/"}
		# short files fuzz faster; 40 lines hold every kind of row
		head -n 40 "$f" >"$out/raw_csv/$kind-${rel//\//-}"
	done
done
head -n 1 "$(find "$tmp/slow/raw" -name '*.csv' | head -n 1)" >"$out/raw_csv/header-only.csv"
cp "$fx/analysis/tables.json" "$out/json/tables.json"
cp "$tmp/report/fingerprint.json" "$out/json/fingerprint.json"
"$kbstat" compare "$tmp/report" --base baseline --new patched --reps 100 \
	--out "$out/json/report-results.json" 2>/dev/null ||
	kb_die "kbstat compare on gen.pl's report run failed"
"$kbstat" floor "$tmp/aa" --a baseline --b patched --reps 100 \
	--out "$out/json/aa-floor.json" 2>/dev/null ||
	kb_die "kbstat floor on gen.pl's aa run failed"

# changepoint: a history with a step at v2, one without, one row.
printf 'v1\t1.00\t0.99\t1.01\nv2\t1.05\t1.04\t1.06\nv3\t1.05\t1.04\t1.06\n' >"$out/changepoint/step"
printf 'h:0a1b\t1.004\t0.994\t1.014\nh:2c3d\t0.998\t0.988\t1.008\n' >"$out/changepoint/flat"
printf 'v1\t1\t1\t1\n' >"$out/changepoint/one"

# irqcompat: every /proc/interrupts fixture; pairs joined by a NUL byte
# (6.12 and 7.2 reads, two reads, a read and its /proc/stat).
for f in "$fx"/procirq/*.interrupts; do
	cp "$f" "$out/irqcompat/"
done
pair() {
	{ cat "$fx/procirq/$1"; printf '\0'; cat "$fx/procirq/$2"; } >"$out/irqcompat/$3"
}
pair qemu2-6.12.interrupts qemu2-7.2.interrupts compare-6.12-7.2
pair arm64-6.12.interrupts arm64-7.2.interrupts compare-arm64
pair riscv-6.12.interrupts riscv-7.2.interrupts compare-riscv
pair qemu2-6.12.interrupts qemu2-6.12-later.interrupts grow-6.12
pair qemu2-6.12.interrupts qemu2-6.12.stat statsum-6.12
pair qemu2-7.2.interrupts qemu2-7.2.stat statsum-7.2

# kbbench_args: the arguments orchestrate/run.sh gives kbbench check
# for every point of every workload file, one per line.
for f in "$top"/workloads/*.wl; do
	wl_load "$f"
	# a program workload has no kbbench arguments
	[ -n "${WL[bench]:-}" ] || continue
	name=$(basename "$f" .wl)
	i=0
	while IFS=$'\t' read -r point extra; do
		i=$((i + 1))
		read -r -a args <<<"${WL[args]}"
		read -r -a more <<<"$extra"
		printf '%s\n' "${WL[bench]}" --workload "${WL[name]}" --variant default \
			--point "$point" --reps "${WL[reps]}" --warmup "${WL[warmup]}" \
			--clock "${WL[clock]}" "${args[@]}" "${more[@]}" \
			>"$out/kbbench_args/$name-$i"
	done < <(wl_points)
done
printf '%s\n' procirq_read --loops=7 --perf --point n=1 >"$out/kbbench_args/eq-form"

# check_conf: bench.conf itself (every key, KEY ?= value) and a typical
# bench.local.conf.
cp "$top/bench.conf" "$out/check_conf/bench.conf"
printf '%s\n' '# mine' 'JOBS = 8' 'BOOTS := 5' 'V ?= 1' '' 'KCC += -O2' \
	>"$out/check_conf/local.conf"

# wl: the workload files, the fixtures' one, and every key at once.
cp "$top"/workloads/*.wl "$fx/analysis/tables-run/workloads/w.wl" "$out/wl/"
printf '%s\n' 'name = all' 'description = every key' 'bench = procirq_read' \
	'args = --loops 2' 'variants = a b' 'reps = 3' 'warmup = 1' 'mem = 512' \
	'clock = wall' 'timeout = 60' 'disks = virtio-blk,queues=4 virtio-blk' \
	'primary = ns_per_read' 'matrix.vcpus = 1 2' 'matrix.loops = 1 10' \
	'matrix.x = a b' 'quick.reps = 1' 'quick.matrix.x = a' >"$out/wl/all.wl"

# parse_NAME: the programs' real output (tests/fixtures/programs/) that
# the parser NAME reads as a sample (parse.sh exits 0 on it), and one it
# refuses
for p in "${parsers[@]}"; do
	h=parse_${p//-/_}
	for f in "$fx"/programs/*.out "$fx"/programs/*.yaml "$fx"/programs/*.json; do
		if sh "$top/workloads/parsers/parse.sh" --parser "$p" --workload w --variant v \
			--point none --clock icount --rep 1 "$f" >/dev/null 2>&1; then
			cp "$f" "$out/$h/"
		fi
	done
	[ -n "$(ls -A "$out/$h")" ] || kb_die "parser $p reads none of tests/fixtures/programs/: a parser needs real output there (fuzz/README.md)"
	cp "$fx/programs/perf-bad-option.out" "$out/$h/refused.out"
done

# series: the fixtures' quilt file and mbox, and kernel/series.
cp "$fx/kernel/series" "$out/series/fixture-series"
cp "$fx/kernel/series.mbox" "$out/series/fixture.mbox"
cp "$top/kernel/series" "$out/series/kernel-series"
