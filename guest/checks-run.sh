#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The one guest runner of a series-checks boot: the payload's 'run'
# (kernel/scripts/checks-payload.sh installs it) for make test's boots
# (tests/vm/boot-kernels.t), make test-debug and make bisect-check alike.
#   run RESULTS_DIR
# Into RESULTS_DIR: uname.txt, cmdline, btf-size (if the kernel has
# BTF), perf-stat.txt and perf-rc (perf stat works), loop-ns (a fixed
# piece of shell work timed six times by the guest clock: under icount
# the reps after the first agree), checks.out and checks-rc (checks.sh:
# every topic's boot-check, each judged by the one splat scan), and
# dmesg.txt. Exits 0 once all of them are written, whatever the checks
# gave: the caller reads checks-rc, so that a failed check is told apart
# from a boot that failed.
set -eu
r=$1
here=$(cd "$(dirname "$0")" && pwd)
uname -r >"$r/uname.txt"
cat /proc/cmdline >"$r/cmdline"
if [ -e /sys/kernel/btf/vmlinux ]; then
	stat -c %s /sys/kernel/btf/vmlinux >"$r/btf-size"
fi
rc=0
perf stat -e task-clock true >"$r/perf-stat.txt" 2>&1 || rc=$?
echo "$rc" >"$r/perf-rc"
for _ in 1 2 3 4 5 6; do
	a=$(date +%s%N)
	j=0
	while [ "$j" -lt 20000 ]; do j=$((j + 1)); done
	b=$(date +%s%N)
	echo "$((b - a))"
done >"$r/loop-ns"
rc=0
sh "$here/checks.sh" "$r" >"$r/checks.out" 2>&1 || rc=$?
echo "$rc" >"$r/checks-rc"
dmesg >"$r/dmesg.txt" 2>&1 || true
echo "checks-run: done, checks exit $rc"
