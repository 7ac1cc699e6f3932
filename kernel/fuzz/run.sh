#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz-kernel: each kernel boots once (2 vCPUs, icount) and runs
# kernel/fuzz/guest-run.sh: kfuzz (build/kfuzz/kfuzz) as root and, if
# the guest allows unprivileged bpf(), as nobody, then trinity on bpf,
# perf_event_open, mmap/munmap and the syscalls kfuzz's links trace.
# The serial log of each boot is judged by kernel/scripts/splat-scan.sh;
# a splat ends that kernel's run and is reported with the seed, the
# last operations of kfuzz's ring and the splat.
#
#   run.sh
#
# Environment:
#   DEBUG_KERNELS     "baseline patched" (default): the labels
#                     <name>-debug under $KBENCH_CACHE/labels
#   KFUZZ_KERNELS     kernels by label or directory instead (the smoke
#                     test: "patched")
#   FUZZ_KERNEL_TIME  minutes per kernel (default 20): half kfuzz as root
#                     (with the unprivileged tenth), 40 % trinity
#   KFUZZ_SECONDS     seconds per kernel instead, kfuzz only (no trinity)
#   SEED              replay this seed (default: drawn, printed)
#   KFUZZ_OUT         a new directory for the results (default
#                     reports/<date>-fuzz)
#   KFUZZ_WALL_FACTOR, KFUZZ_BOOT_SLACK: the boot's timeout is the
#                     guest time times the factor (8) plus the slack
#                     (1800 s)
# Exit 0: no splat and every boot ran; 1 otherwise (summary.txt says which).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE

kfuzz=$top/build/kfuzz/kfuzz
[ -x "$kfuzz" ] || kb_die "$kfuzz is not built: run make kfuzz-tools"
seed=${SEED:-}
if [ -z "$seed" ]; then
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
fi
case "$seed" in '' | *[!0-9]*) kb_die "SEED='$seed' is not a number (make fuzz-kernel SEED=N)" ;; esac

trinity=1
if [ -n "${KFUZZ_SECONDS:-}" ]; then
	case "$KFUZZ_SECONDS" in '' | *[!0-9]*) kb_die "KFUZZ_SECONDS='$KFUZZ_SECONDS' is not a number of seconds" ;; esac
	total=$KFUZZ_SECONDS root_s=$KFUZZ_SECONDS user_s=0 trin_s=0 trinity=0
else
	min=${FUZZ_KERNEL_TIME:-20}
	case "$min" in '' | *[!0-9]* | 0) kb_die "FUZZ_KERNEL_TIME='$min' is not a number of minutes" ;; esac
	total=$((min * 60))
	trin_s=$((total * 4 / 10))
	user_s=$((total / 10))
	root_s=$((total - trin_s - user_s))
fi

if [ -n "${KFUZZ_KERNELS:-}" ]; then
	read -r -a kernels <<<"$KFUZZ_KERNELS"
else
	kernels=()
	for k in ${DEBUG_KERNELS:-baseline patched}; do
		case "$k" in baseline | patched) kernels+=("$k-debug") ;; *) kb_die "DEBUG_KERNELS: '$k' is not a debug kernel (baseline, patched)" ;; esac
	done
fi
[ "${#kernels[@]}" -gt 0 ] || kb_die "no kernel to fuzz (DEBUG_KERNELS or KFUZZ_KERNELS)"
kdirs=()
for k in "${kernels[@]}"; do
	case "$k" in */*) d=$k ;; *) d=$KBENCH_CACHE/labels/$k ;; esac
	[ -r "$d/bzImage" ] || kb_die "no kernel $k ($d/bzImage): make kernels DEBUG=1 builds the debug ones, make kernels the others"
	kdirs+=("$d")
done

# trinity comes in an image of its own (build-image.sh keys it by the package)
if [ "$trinity" = 1 ]; then
	img=$("$top/images/build-image.sh" --packages trinity) || kb_die "no guest image with trinity (images/build-image.sh --packages trinity)"
else
	img=$("$top/images/build-image.sh") || kb_die "no guest image: make image"
fi

if [ -n "${KFUZZ_OUT:-}" ]; then
	out=$KFUZZ_OUT
	mkdir "$out" || kb_die "KFUZZ_OUT=$out exists or cannot be made: name a new directory"
else
	out=$(kb_new_run_dir -fuzz)
fi
summary=$out/summary.txt
: >"$summary"
note() {
	kb_say "$*"
	echo "$*" >>"$summary"
}

pay=$out/payload
mkdir -p "$pay"
cp "$top/kernel/fuzz/guest-run.sh" "$pay/run"
cp "$kfuzz" "$pay/kfuzz"
cp "$top/kernel/scripts/splat-scan.sh" "$pay/splat-scan.sh"
cp "$top/guest/klog.sh" "$pay/klog.sh"
chmod +x "$pay/run" "$pay/kfuzz"
printf 'SEED=%s\nROOT_S=%s\nUSER_S=%s\nTRINITY_S=%s\n' "$seed" "$root_s" "$user_s" "$trin_s" >"$pay/kfuzz.conf"

note "kfuzz seed $seed (replay: make fuzz-kernel SEED=$seed); per kernel ${total} s: kfuzz root ${root_s} s, unprivileged ${user_s} s, trinity ${trin_s} s"
# A debug kernel boots with the debug kernels' options (kernel/config/
# debug.cmdline): ignore_loglevel, lib/test_rhashtable's size and the
# hang detectors' thresholds fitted to KASAN under TCG. Another kernel
# (the smoke run's plain one) keeps the defaults.
debug_append=$(kb_debug_cmdline)
note "a debug kernel boots with: $debug_append; what each took is on its info.txt 'hang detectors:' line"
# The times are the guest's. Under icount a busy guest's second is a
# billion instructions: the smoke run (120 s of kfuzz on the plain
# patched kernel, 2 vCPUs) took 602 s of wall time with its boot, so a
# guest second is given 8 s, and the boot and setup of a debug kernel
# up to half an hour more.
timeout=$((total * ${KFUZZ_WALL_FACTOR:-8} + ${KFUZZ_BOOT_SLACK:-1800}))
fail=0
for i in "${!kernels[@]}"; do
	k=${kernels[$i]} kd=${kdirs[$i]}
	name=$(basename "$k")
	o=$out/$name
	t0=$(date +%s)
	kb_say "boot $name: kfuzz and ${trin_s} s of trinity, seed $seed (up to ${timeout} s; $o)"
	append=ignore_loglevel
	[ "$(jq -r '.debug // false' "$kd/build-info.json" 2>/dev/null)" != true ] || append=$debug_append
	rc=0
	"$top/images/launch.sh" --kernel "$kd" --image "$img" --payload "$pay" --out "$o" \
		--vcpus 2 --clock icount --mem 2048 --timeout "$timeout" --append "$append" \
		>"$out/launch-$name.log" 2>&1 || rc=$?
	took=$(($(date +%s) - t0))
	res=$o/results
	status=$(cat "$res/status" 2>/dev/null || echo "none (no results)")
	end=$(grep -h '^kfuzz: end' "$res/kfuzz-root.out" 2>/dev/null || true)
	note "$name: launch.sh exit $rc after ${took} s; guest status: $status"
	[ -z "$end" ] || note "$name: $end"
	if [ -f "$res/kfuzz-root.out" ]; then
		sed -n '/^kfuzz: end/,$p' "$res/kfuzz-root.out" | tail -n +2 | sed "s/^/$name: /" >>"$summary"
	fi
	[ ! -f "$res/info.txt" ] || grep '^\(unprivileged\|hang detectors\)' "$res/info.txt" | sed "s/^/$name: /" >>"$summary"
	scan=0
	"$top/kernel/scripts/splat-scan.sh" "$o/serial.log" >"$out/splats-$name.txt" 2>&1 || scan=$?
	if [ "$scan" = 0 ] && [ "$rc" = 0 ] && [ "$status" = ok ]; then
		note "ok   $name: no splat in the serial log"
		continue
	fi
	fail=1
	case "$scan" in
	0) note "FAIL $name: no splat, but the boot or a phase failed (launch.sh exit $rc, status $status): $out/launch-$name.log" ;;
	1) note "FAIL $name: $(grep -c '^=== splat' "$out/splats-$name.txt") splat(s), seed $seed: $out/splats-$name.txt" ;;
	*) note "FAIL $name: the splat scan could not read $o/serial.log: $(tail -n 1 "$out/splats-$name.txt")" ;;
	esac
	# the finding: the seed, kfuzz's last operations, the splat
	{
		echo "== $name, seed $seed: the last operations (kfuzz ring, oldest first)"
		for ring in "$res/kfuzz-root.ring" "$res/user/kfuzz-user.ring"; do
			[ -s "$ring" ] || continue
			echo "-- $ring"
			sort -n "$ring" | sed 's/ *$//' | tail -n 40
		done
		echo "== the kernel's last progress line before the splat"
		tr -d '\r' <"$o/serial.log" | grep 'kfuzz: \(start\|progress\)' | tail -n 1 || true
		echo "== the splat(s)"
		head -n 200 "$out/splats-$name.txt"
	} >"$out/finding-$name.txt"
	cat "$out/finding-$name.txt" >&2
done
if [ "$fail" = 0 ]; then
	note "fuzz-kernel: no splat on ${kernels[*]} (seed $seed); $out"
else
	note "fuzz-kernel: FAILED (seed $seed); see $summary"
fi
exit "$fail"
