# SPDX-License-Identifier: GPL-2.0
# Helpers of the VM tests that stop a make run and resume it, or compare
# it with a run of the same plan made another way. Source it after
# starting the run with a start function of the test's own, which sets
# pid; tap.sh first for same_results.
# shellcheck shell=bash
# top, tmp, fail and pid are the test's (pid: set by its start function)
# shellcheck disable=SC2154

# wait_line LOG REGEX: until LOG has a line matching REGEX (20 min at most)
wait_line() {
	local _
	for _ in $(seq 1 1200); do
		grep -q "$2" "$1" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}
# term_when_up N CMD...: once CMD prints N lines (our QEMUs, a pid a
# line; 2 min at most) and 2 s more, SIGTERM to the test's run (pid)
term_when_up() {
	local want=$1 _
	shift
	for _ in $(seq 1 240); do
		[ "$("$@" | grep -c .)" -lt "$want" ] || break
		sleep 0.5
	done
	sleep 2
	kill -TERM "$pid"
}
# the run directory a log names, and its resume command
run_of() { sed -n 's/^kbench: \[[^]]*\] run \(.*\): [0-9]* workload.*/\1/p' "$1" | tail -n 1; }
resume_of() { sed -n 's/^kbench: \[[^]]*\]   \(make .* RESUME=.*\)$/\1/p' "$1" | tail -n 1; }
# our QEMUs: those whose command line holds the run directory
qemus() { pgrep -f "qemu-system-x86_64 .*$1" || true; }

# shape RESULTS_JSON: its rows with their sample and boot counts, not
# the values
shape() {
	jq -S '{failed_boots, results: [.results[] | {workload, metric, variant, point, clock, unit,
		base: {n: .base.n, boots: .base.boots}, new: {n: .new.n, boots: .new.boots}}]}' "$1"
}
# rows RUN: every raw row but its value, with its file (kernel/boot/workload)
rows() { (cd "$1/raw" && grep -r . --include='*.csv' | sed 's/,[^,]*$//' | sort); }

# same_plan_run RUN ACCEPT...: the last run in reports/ but RUN with
# RUN's plan.id, a report and no failed boot, for which the command
# ACCEPT... DIR succeeds
same_plan_run() {
	local run=$1 d ref=''
	shift
	for d in "$top"/reports/*/; do
		d=${d%/}
		if [ "$d" = "$run" ] || [ ! -f "$d/results.json" ] || ! cmp -s "$d/plan.id" "$run/plan.id"; then
			continue
		fi
		[ "$(grep -c . "$d/failed-boots.tsv" 2>/dev/null)" = 1 ] || continue
		"$@" "$d" || continue
		ref=$d
	done
	printf '%s\n' "$ref"
}

# same_plan_ref RUN WHAT ACCEPT -- SETTING...: same_plan_run RUN ACCEPT,
# else a run made now, make bench-compare SETTING... (log: $tmp/ref.log);
# says which (WHAT: what the run is)
same_plan_ref() {
	local run=$1 what=$2 ref accept=()
	shift 2
	while [ "$1" != -- ]; do accept+=("$1"); shift; done
	shift
	ref=$(same_plan_run "$run" "${accept[@]}")
	if [ -z "$ref" ]; then
		diag "no $what with this plan in reports/: making one" >&2
		make -C "$top" -s bench-compare "$@" >"$tmp/ref.log" 2>&1 || true
		ref=$(run_of "$tmp/ref.log")
	fi
	diag "$what: ${ref:-none}" >&2
	printf '%s\n' "$ref"
}

# same_results RUN REF: two tests, the same raw rows (all but the value)
# in the same files, and the same results.json rows, sample and boot
# counts (under icount a boot's counts do not depend on where it ran)
same_results() {
	local run=$1 ref=${2:-/nonexistent}
	rows "$run" >"$tmp/rows.run" 2>&1 || true
	rows "$ref" >"$tmp/rows.ref" 2>&1 || true
	t "the same raw rows (all but the value) in the same files ($(wc -l <"$tmp/rows.run") rows)" \
		test -s "$tmp/rows.run" -a "$(diff "$tmp/rows.ref" "$tmp/rows.run" >/dev/null; echo $?)" = 0
	shape "$run/results.json" >"$tmp/shape.run" 2>&1 || true
	shape "$ref/results.json" >"$tmp/shape.ref" 2>&1 || true
	t "results.json: the same rows, sample and boot counts" diff "$tmp/shape.ref" "$tmp/shape.run"
	[ "$fail" = 0 ] || { diff "$tmp/shape.ref" "$tmp/shape.run" | head -n 20 | sed 's/^/# /' || true; }
}
