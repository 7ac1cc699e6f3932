#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest (the payload's "run", called as "run RESULTS_DIR", cwd the
# payload): 6.12's own test_progs and test_maps, each entry of tests.list
# under its own time limit.
#
# tests.list, one entry a line ("#" comments):
#   progs NAME LIMIT_S           test_progs -t NAME
#   maps  NAME LIMIT_S [VAR=VALUE...]   ./NAME (test_maps or a variant of
#                                       it), with its env knobs
# For each entry the results dir gets <kind>-<name>.log (stdout and
# stderr) and <kind>-<name>.rc (exit status; 124 = time limit). Before
# each, a "kbench-run:" marker goes to the console, so a splat in the
# serial log names the test that was running.
set -euo pipefail
res=${1:?usage: run RESULTS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mkdir -p "$res"

say() {
	echo "kbench-run: upstream-selftests $*"
	echo "kbench-run: upstream-selftests $*" >/dev/console 2>/dev/null || true
}

uname -r >"$res/uname.txt"
# what test_progs expects of the system: bpffs, debugfs, tracefs, no
# memlock limit (systemd mounts the file systems; make sure)
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || true
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug || true
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing || true
ulimit -l unlimited || true
ulimit -n 65536 || true
echo 0 >/proc/sys/kernel/panic_on_warn 2>/dev/null || true

: >"$res/times.tsv"
while read -r kind name limit envs; do
	case "$kind" in '' | '#'*) continue ;; esac
	out=$res/$kind-$name
	say "start $kind $name (limit ${limit}s)"
	t0=$(date +%s)
	rc=0
	case "$kind" in
	progs)
		timeout -k 30 "$limit" ./test_progs -t "$name" >"$out.log" 2>&1 || rc=$?
		;;
	maps)
		# shellcheck disable=SC2086 # envs is a list of VAR=VALUE words
		timeout -k 30 "$limit" env $envs "./$name" >"$out.log" 2>&1 || rc=$?
		;;
	*)
		echo "tests.list: unknown kind '$kind'" >"$out.log"
		rc=2
		;;
	esac
	t1=$(date +%s)
	echo "$rc" >"$out.rc"
	printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$rc" "$((t1 - t0))" >>"$res/times.tsv"
	say "end $kind $name: exit $rc in $((t1 - t0))s"
done <"$here/tests.list"

dmesg >"$res/dmesg.txt" 2>&1 || true
say "done"
