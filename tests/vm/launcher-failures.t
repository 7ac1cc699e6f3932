#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The launcher's failure paths, with real boots of one kernel:
#  (a) a runner that writes a file and exits 3: exit 3, the file is kept
#  (b) a runner that panics the guest (sysrq c): "guest kernel panic",
#      naming the serial log
#  (c) a runner that hangs, with a short timeout: the timeout fires, QEMU
#      is gone, the error says so
#  (d) the base image is byte-identical (sha256) before and after the boots
#  (e) results larger than the results disk: exit 8, nothing accepted
# Kernel: KB_TEST_KERNEL (a directory), else $KBENCH_CACHE/labels/baseline.
# Clock: KB_TEST_CLOCK, default icount (measured: 1 vCPU reaches runcmd
# 10-15 % sooner than under wall-clock MTTCG).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE
cache=$KBENCH_CACHE
export KBENCH_CACHE=$cache
kd=${KB_TEST_KERNEL:-$cache/labels/baseline}
clock=${KB_TEST_CLOCK:-icount}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-launcher-test.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck disable=SC2317 # the EXIT trap calls it
finish() {
	if [ "$fail" = 0 ]; then rm -rf "$tmp"; else diag "outputs kept in $tmp"; fi
}
trap finish EXIT

echo "1..22"
t0_all=$(date +%s)
if [ ! -r "$kd/bzImage" ] || [ ! -r "$kd/build-info.json" ]; then
	ok 1 "kernel at $kd (no bzImage/build-info.json: run make kernels, or set KB_TEST_KERNEL)"
	echo "Bail out! no kernel"
	exit 1
fi
if ! img=$("$top/images/build-image.sh" 2>"$tmp/image.err"); then
	ok 1 "guest image: $(tail -n 1 "$tmp/image.err")"
	echo "Bail out! no guest image (make image)"
	exit 1
fi
ok 0 "kernel $kd and image $img"
base_before=$(sha256sum "$img" | cut -d' ' -f1)

# boot NAME TIMEOUT [launch.sh options]: runner in $tmp/NAME.payload/run;
# sets rc, o (out dir), err (stderr file).
boot() {
	local name=$1 to=$2
	shift 2
	o=$tmp/$name
	err=$tmp/$name.err
	rc=0
	"$top/images/launch.sh" --kernel "$kd" --image "$img" --payload "$tmp/$name.payload" \
		--out "$o" --clock "$clock" --vcpus 1 --mem 1024 --timeout "$to" "$@" 2>"$err" || rc=$?
	diag "$(cat "$err")"
}
runner() {
	mkdir -p "$tmp/$1.payload"
	cat >"$tmp/$1.payload/run"
	chmod +x "$tmp/$1.payload/run"
}

# (a) runner fails with status 3 after writing a result
runner fail3 <<'RUN'
#!/bin/sh
echo kept >"$1/result.txt"
cat /proc/cmdline >"$1/cmdline"
echo "to stdout"
echo "to stderr" >&2
exit 3
RUN
boot fail3 300
t "(a) launcher exits 3 when the runner exits 3" test "$rc" = 3
t "(a) the message reports runner status 3" grep -q 'runner exited with status 3' "$err"
t "(a) the result file is kept" test "$(cat "$o/results/result.txt" 2>/dev/null)" = kept
t "(a) run.log has the runner's stdout and stderr" grep -q 'to stderr' "$o/results/run.log"
t "(a) results/exit-status is 3" test "$(cat "$o/results/exit-status" 2>/dev/null)" = 3
t "(a) launch.json: status runner-failed, clock $clock" test "$(jq -r '.status + " " + .clock' "$o/launch.json" 2>/dev/null)" = "runner-failed $clock"
t "(a) guest cmdline has kbench.clock=$clock" grep -qw "kbench.clock=$clock" "$o/results/cmdline"
boot_a=$(jq -r .boot_to_runcmd_s "$o/launch.json" 2>/dev/null || echo 60)
[ "$boot_a" != null ] || boot_a=60
diag "(a) boot-to-runcmd ${boot_a} s, $(jq -r .wall_s "$o/launch.json" 2>/dev/null) s in all"

# (b) the runner panics the guest
runner panic <<'RUN'
#!/bin/sh
sync
echo c >/proc/sysrq-trigger
sleep 600
RUN
boot panic 300
t "(b) launcher exits 4 on a guest panic" test "$rc" = 4
t "(b) the error says guest kernel panic" grep -q 'error: guest kernel panic' "$err"
t "(b) the error names the serial log" grep -qF "$o/serial.log" "$err"
t "(b) the serial log has the sysrq crash" grep -q 'sysrq triggered crash' "$o/serial.log"
w=$(jq -r .wall_s "$o/launch.json" 2>/dev/null || echo 999)
t "(b) QEMU ended at the panic, not at the timeout (${w} s)" awk -v w="$w" 'BEGIN { exit !(w < 250) }'

# (c) the runner hangs; the timeout is twice the boot time of (a) plus 30 s
# (boots vary by 50 % on a loaded host)
to=$(awk -v b="$boot_a" 'BEGIN { printf "%d", b * 2 + 30 }')
runner hang <<'RUN'
#!/bin/sh
echo hanging
sleep infinity
RUN
t1=$(date +%s)
boot hang "$to" --keep-disks
t2=$(date +%s)
t "(c) launcher exits 6 on a timeout ($to s)" test "$rc" = 6
t "(c) the error says timeout in the runner and QEMU killed" grep -q "guest hang: timeout after $to s in the runner (runcmd started at [0-9.]* s); QEMU killed, gone: yes" "$err"
pid=$(cat "$o/.vm/qemu.pid" 2>/dev/null || echo 0)
if [ "$pid" -gt 0 ] && ! kill -0 "$pid" 2>/dev/null; then ok 0 "(c) QEMU (pid $pid) is gone"; else
	ok 1 "(c) QEMU (pid $pid) is gone"
	# Only the QEMU this test started, by its PID.
	[ "$pid" -gt 0 ] && kill -KILL "$pid" 2>/dev/null
fi
t "(c) the timeout fired on time ($((t2 - t1)) s for a $to s timeout)" test $((t2 - t1)) -lt $((to + 30))
rm -rf "$o/.vm"

# (e) results larger than the results disk: never taken as complete
runner full <<'RUN'
#!/bin/sh
mkdir -p "$1/raw"
head -c 3000000 /dev/urandom >"$1/raw/big.csv"
RUN
boot full 300 --results-mb 1
t "(e) results larger than the 1 MB results disk: launcher exits 8" test "$rc" = 8
t "(e) the error gives both sizes and the remedy" grep -q 'incomplete results, none accepted: results are [0-9]* bytes, the results disk holds 1048576 bytes; raise --results-mb' "$err"
t "(e) no CSV came back" test ! -e "$o/results/raw/big.csv"
t "(e) launch.json: status results-incomplete" test "$(jq -r .status "$o/launch.json" 2>/dev/null)" = results-incomplete

# (d) the base image was never written
base_after=$(sha256sum "$img" | cut -d' ' -f1)
t "(d) base image unchanged by the boots (sha256 ${base_after:0:16})" test "$base_before" = "$base_after"
diag "launcher failure tests: $(($(date +%s) - t0_all)) s in all"
exit "$fail"
