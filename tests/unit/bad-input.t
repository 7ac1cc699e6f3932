#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad input is a named error, exit != 0, and nothing is written over
# existing results: an IMAGE= that is not a qcow2 image or has no
# cloud-init, a SERIES mbox without patches, an unknown bench.local.conf
# key (the nearest valid key suggested), a workload with an unknown key
# or value, and a RESUME= run directory made with another plan or other
# kernels. Also: SIGTERM during a boot stops it and leaves no part of it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..20"

make_or_bail bench-tools
export KBENCH_CACHE=$tmp/cache
mkdir -p "$KBENCH_CACHE/kernels/k1" "$KBENCH_CACHE/kernels/k2" "$KBENCH_CACHE/labels"
: >"$KBENCH_CACHE/kernels/k1/bzImage"
: >"$KBENCH_CACHE/kernels/k2/bzImage"
echo '{"release": "6.12.0-fake", "label": "fake"}' >"$KBENCH_CACHE/kernels/k1/build-info.json"
ln -s "$KBENCH_CACHE/kernels/k1" "$KBENCH_CACHE/labels/fake"
fake_image "$tmp/good.qcow2"
fake_image "$tmp/nocloud.qcow2" nocloud
printf 'name = t\nbench = procirq_read\nreps = 3\nwarmup = 1\nargs = --loops 5\n' >"$tmp/t.wl"
export WORKLOADS=$tmp/t.wl BOOTS=1 IMAGE=$tmp/good.qcow2 ACCEL=tcg

# sums DIR: one line per file under DIR with its sha256 (to prove that
# nothing was written)
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); }
# refused DESC WANT CMD...: CMD exits != 0 with an error matching WANT
refused() {
	local desc=$1 want=$2 rc=0
	shift 2
	"$@" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" != 0 ] && grep -q -- "$want" "$tmp/out"; then
		ok 0 "$desc"
	else
		ok 1 "$desc (exit $rc)"
		diag "$(cat "$tmp/out")"
	fi
}

# the image
echo 'not an image' >"$tmp/text.img"
refused "IMAGE= a text file: not a qcow2 disk image" \
	"IMAGE=$tmp/text.img is not a qcow2 disk image" env IMAGE="$tmp/text.img" "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake
t "... and the run directory was not made" test ! -e "$tmp/run"
refused "IMAGE= without cloud-init: named" \
	"has no cloud-init (/usr/bin/cloud-init is missing on /dev/vda)" env IMAGE="$tmp/nocloud.qcow2" "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake
t "... and the run directory was not made" test ! -e "$tmp/run"

# the series
printf 'From: Dev <dev@example.org>\nSubject: [PATCH 0/2] cover letter only\n\nno patches here\n' >"$tmp/cover.mbox"
refused "SERIES= an mbox without patches: named" \
	"SERIES=$tmp/cover.mbox: mbox holds no patches" "$top/kernel/scripts/build.sh" patched "$tmp/cover.mbox"
t "... and no kernel build started (no build log)" test -z "$(ls -A "$KBENCH_CACHE/logs" 2>/dev/null)"
refused "regression-check NEW= an mbox without patches: named" \
	"NEW=$tmp/cover.mbox: mbox holds no patches" env NEW="$tmp/cover.mbox" "$top/orchestrate/regress.sh"

# settings
printf 'BOTS = 3\n' >"$tmp/local.conf"
refused "unknown bench.local.conf key: the nearest key suggested" \
	"local.conf:1: unknown key 'BOTS' (did you mean BOOTS?)" "$top/scripts/check-conf.sh" "$top/bench.conf" "$tmp/local.conf"
printf 'ZQXW = 3\n' >"$tmp/local.conf"
refused "unknown key with no near one: no suggestion" \
	"local.conf:1: unknown key 'ZQXW'; the known keys" "$top/scripts/check-conf.sh" "$top/bench.conf" "$tmp/local.conf"

# workloads
printf 'name = t\nbench = procirq_read\nwramup = 1\n' >"$tmp/k.wl"
refused "workload with an unknown key: file:line and the nearest key" \
	"k.wl:3: unknown key 'wramup' (did you mean warmup?)" env WORKLOADS="$tmp/k.wl" "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake
printf 'name = t\nbench = procirq_read\nclock = tsc\n' >"$tmp/v.wl"
refused "workload with a bad value: named" \
	"clock must be icount or wall, not 'tsc'" env WORKLOADS="$tmp/v.wl" "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake
t "... and the run directory was not made" test ! -e "$tmp/run"

# A real start of a run: the plan is written, then the boot of the fake
# kernel starts (a stand-in QEMU that only waits, so the boot lasts);
# SIGTERM stops it, and nothing of that boot is left.
mkdir -p "$tmp/bin"
# shellcheck disable=SC2016 # the stand-in's own $1 and $$
printf '#!/bin/sh\n[ "$1" != --version ] || { echo "QEMU emulator version 7.2.99 (fake)"; exit 0; }\necho $$ >%s\nexec sleep 120\n' "$tmp/qemu.pid" >"$tmp/bin/qemu-system-x86_64"
chmod +x "$tmp/bin/qemu-system-x86_64"
PATH="$tmp/bin:$PATH" "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake >"$tmp/run.out" 2>&1 &
pid=$!
# Wait until the stand-in QEMU runs (on a loaded machine the launcher's
# setup before it can take several seconds), then stop the run.
for _ in $(seq 1 300); do
	[ -s "$tmp/qemu.pid" ] && break
	sleep 0.2
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 143 ] && grep -q 'interrupted in a v1-b01 (boot 1/1): QEMU stopped' "$tmp/run.out" && r=0 || r=1
ok "$r" "SIGTERM during a boot: run.sh exits 143 and says where it stopped (exit $rc)"
[ "$r" = 0 ] || diag "$(cat "$tmp/run.out")"
t "... the plan is kept (plan.id)" test -s "$tmp/run/plan.id"
t "... nothing of the boot cut short is left" test ! -e "$tmp/run/boots/a/v1-b01" -a ! -e "$tmp/run/raw/a/v1-b01"
qpid=$(cat "$tmp/qemu.pid" 2>/dev/null || echo 0)
if [ "$qpid" -gt 0 ] && ! kill -0 "$qpid" 2>/dev/null; then
	ok 0 "... the (stand-in) QEMU of that boot is gone (pid $qpid)"
else
	ok 1 "... the (stand-in) QEMU of that boot is gone (pid $qpid)"
	[ "$qpid" -le 0 ] || kill -KILL "$qpid" 2>/dev/null || true
fi

# RESUME= a run made another way
mkdir -p "$tmp/run/raw/a/v1-b01"
echo 'kept' >"$tmp/run/raw/a/v1-b01/sample.csv"
before=$(sums "$tmp/run")
refused "resume with another plan (BOOTS=2): named, with the difference" \
	"was made with another plan or other kernels" env BOOTS=2 "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake
grep -q 'was: boots 1' "$tmp/out" && grep -q 'now: boots 2' "$tmp/out" && r=0 || r=1
ok "$r" "... the error shows what differs"
ln -sfn "$KBENCH_CACHE/kernels/k2" "$KBENCH_CACHE/labels/fake"
refused "resume with another kernel behind the label: named" \
	"was made with another plan or other kernels" "$top/orchestrate/run.sh" --run "$tmp/run" --kernel a=fake
[ "$(sums "$tmp/run")" = "$before" ] && r=0 || r=1
ok "$r" "nothing in the run directory was written over"
exit "$fail"
