#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot test: boot the baseline and the patched kernel in the guest image
# (one boot each, clock $CLOCK, default icount) and check inside: uname -r
# is build-info's release, /sys/kernel/btf/vmlinux exists, perf stat works
# and its output reaches the host, the clock mode is the one asked for
# (kbench.clock= on /proc/cmdline), and under icount fixed work takes the
# same guest time every rep; and the checks the series in use brings
# (kernel/checks/<topic>/boot-check) pass. Reports boot-to-runcmd. Also
# the KVM probe.
# KB_BOOT_KERNELS="baseline patched" (labels under $KBENCH_CACHE/labels,
# or directories) picks the kernels. Outputs kept on failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE
cache=$KBENCH_CACHE
clock=${CLOCK:-icount}
vcpus=${VCPUS:-1}
mem=${MEM:-2048}
timeout=${BOOT_TIMEOUT:-600}
read -r -a kernels <<<"${KB_BOOT_KERNELS:-baseline patched}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-boot-test.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# Sorted numbers on stdin -> (max - min) / min in %.
spread_pct() { awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f", lo ? (hi - lo) * 100 / lo : 999 }'; }
# shellcheck disable=SC2317 # the EXIT trap calls it
finish() {
	if [ "$fail" = 0 ]; then rm -rf "$tmp"; else diag "outputs kept in $tmp"; fi
}
trap finish EXIT

per=11
echo "1..$((2 + per * ${#kernels[@]}))"
t0_all=$(date +%s)

if img=$("$top/images/build-image.sh" 2>"$tmp/image.err"); then ok 0 "guest image: $img"; else
	ok 1 "guest image: $(tail -n 1 "$tmp/image.err")"
	echo "Bail out! no guest image (make image)"
	exit 1
fi

kdir_of() {
	case "$1" in
	*/*) echo "$1" ;;
	*) echo "$cache/labels/$1" ;;
	esac
}
first=$(kdir_of "${kernels[0]}")
if [ -r "$first/bzImage" ] && p=$("$top/images/kvm-probe.sh" "$first/bzImage" 2>"$tmp/probe.err"); then
	ok 0 "KVM probe answers ($p; $(grep -ho '"reason": "[^"]*"' "$cache"/probe/kvm-*.json | head -n 1))"
else
	ok 1 "KVM probe ($(tail -n 1 "$tmp/probe.err" 2>/dev/null || echo "no kernel $first/bzImage: make kernels"))"
fi

# The payload: the one checks runner (guest/checks-run.sh, the payload's
# run) writes the boot's facts this test reads and runs the series'
# checks, as make test-debug and make bisect-check do.
mkdir -p "$tmp/payload"
if ! topics=$("$top/kernel/scripts/checks-payload.sh" "${SERIES:-kernel/series}" "$tmp/payload" 2>"$tmp/checks.err"); then
	echo "Bail out! the series' checks: $(tail -n 1 "$tmp/checks.err")"
	exit 1
fi
topics=${topics//$'\n'/ }

for k in "${kernels[@]}"; do
	kd=$(kdir_of "$k")
	o=$tmp/$(basename "$k")
	if [ ! -r "$kd/bzImage" ] || [ ! -r "$kd/build-info.json" ]; then
		ok 1 "$k: kernel at $kd (no bzImage/build-info.json: run make kernels)"
		for _ in $(seq 2 "$per"); do ok 1 "$k: not booted"; done
		continue
	fi
	want=$(jq -r .release "$kd/build-info.json")
	rc=0
	"$top/images/launch.sh" --kernel "$kd" --image "$img" --payload "$tmp/payload" \
		--out "$o" --clock "$clock" --vcpus "$vcpus" --mem "$mem" \
		--timeout "$timeout" 2>"$tmp/$(basename "$k").err" || rc=$?
	diag "$(cat "$tmp/$(basename "$k").err")"
	if [ "$rc" = 0 ]; then ok 0 "$k: boots and runs the payload"; else ok 1 "$k: boot (launch.sh exit $rc)"; fi
	r=$o/results
	got=$(cat "$r/uname.txt" 2>/dev/null || echo none)
	if [ "$got" = "$want" ]; then ok 0 "$k: uname -r is $want"; else ok 1 "$k: uname -r is '$got', build-info says '$want'"; fi
	t "$k: /sys/kernel/btf/vmlinux exists ($(cat "$r/btf-size" 2>/dev/null || echo 0) bytes)" test -s "$r/btf-size"
	t "$k: perf stat -e task-clock true exits 0" test "$(cat "$r/perf-rc" 2>/dev/null)" = 0
	if grep -q 'task-clock' "$r/perf-stat.txt" 2>/dev/null; then
		ok 0 "$k: perf stat output reached the host ($(grep -m1 task-clock "$r/perf-stat.txt" | tr -s ' '))"
	else
		ok 1 "$k: perf stat output reached the host"
		diag "$(cat "$r/perf-stat.txt" 2>/dev/null)"
	fi
	t "$k: guest /proc/cmdline says kbench.clock=$clock" grep -qw "kbench.clock=$clock" "$r/cmdline"
	t "$k: launch.json says clock $clock" test "$(jq -r .clock "$o/launch.json" 2>/dev/null)" = "$clock"
	if [ "$clock" = icount ]; then
		t "$k: QEMU ran with -icount" grep -q -- '-icount shift=0' "$o/qemu.cmdline"
	else
		t "$k: QEMU ran without -icount" test -z "$(grep -- '-icount' "$o/qemu.cmdline")"
	fi
	# Guest time of the fixed work, reps 2-6 (the first warms up). One rep
	# may be hit by a timer or a kworker (measured: +3 to +7 %, once in a
	# while), so the test is on the four fastest; the full spread is shown.
	if [ -s "$r/loop-ns" ]; then
		reps=$(tr '\n' ' ' <"$r/loop-ns")
		spread4=$(tail -n +2 "$r/loop-ns" | sort -n | head -n 4 | spread_pct)
		spread=$(tail -n +2 "$r/loop-ns" | sort -n | spread_pct)
		if [ "$clock" = icount ]; then
			if awk -v s="$spread4" 'BEGIN { exit !(s < 1) }'; then
				ok 0 "$k: icount guest time is deterministic (fixed work, ns: $reps; 4 fastest of reps 2-6 within $spread4 %, all within $spread %)"
			else ok 1 "$k: icount guest time: 4 fastest of reps 2-6 spread $spread4 % >= 1 % (ns: $reps)"; fi
		else
			ok 0 "$k: wall guest time recorded (ns: $reps; spread $spread %)"
		fi
	else
		ok 1 "$k: guest timing of fixed work missing"
	fi
	# The one verdict on the checks (kernel/scripts/checks-verdict.sh):
	# every kernel but a baseline holds every topic of the series, so a
	# topic there that says "<FEATURE> absent" fails
	held=()
	case ${k##*/} in baseline*) ;; *) read -r -a held <<<"$topics" ;; esac
	if v=$("$top/kernel/scripts/checks-verdict.sh" "$r" ${held[@]+"${held[@]}"}); then
		ok 0 "$k: $v"
	else
		ok 1 "$k: $v"
		for l in "$r"/checks/*/log; do [ -f "$l" ] && diag "$l:" "$(tail -n 20 "$l")"; done
	fi
	b=$(jq -r .boot_to_runcmd_s "$o/launch.json" 2>/dev/null || echo null)
	w=$(jq -r .wall_s "$o/launch.json" 2>/dev/null || echo null)
	g=$(jq -r .guest_uptime_at_runcmd_s "$o/launch.json" 2>/dev/null || echo null)
	if [ "$b" != null ]; then ok 0 "$k: boot-to-runcmd ${b} s host (guest uptime ${g} s), ${w} s in all"; else
		ok 1 "$k: boot-to-runcmd not measured"; fi
	if [ "$rc" != 0 ]; then diag "serial log tail:" "$(tail -n 20 "$o/serial.log" 2>/dev/null)"; fi
done
diag "boot test: $(($(date +%s) - t0_all)) s in all"
exit "$fail"
