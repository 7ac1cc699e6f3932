# SPDX-License-Identifier: GPL-2.0
# Helpers of the VM tests that stop a make run and resume it. Source it
# after starting the run with a start function of the test's own, which
# sets pid.
# shellcheck shell=bash

# wait_line LOG REGEX: until LOG has a line matching REGEX (20 min at most)
wait_line() {
	local _
	# pid: set by the test's start function
	# shellcheck disable=SC2154
	for _ in $(seq 1 1200); do
		grep -q "$2" "$1" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}
# the run directory a log names, and its resume command
run_of() { sed -n 's/^kbench: \[[^]]*\] run \(.*\): [0-9]* workload.*/\1/p' "$1" | tail -n 1; }
resume_of() { sed -n 's/^kbench: \[[^]]*\]   \(make .* RESUME=.*\)$/\1/p' "$1" | tail -n 1; }
# our QEMUs: those whose command line holds the run directory
qemus() { pgrep -f "qemu-system-x86_64 .*$1" || true; }
