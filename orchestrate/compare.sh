#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench / bench-compare / calibrate: run the workloads on two kernels
# into a new run directory, then write the report.
#
#   compare.sh [--no-report] [--calibrate]
#
# --calibrate runs baseline against baseline (an A/A run: two sets of
# boots of one kernel) and stores the measured noise floor, which later
# comparisons use as their minimum effect.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE

report=1 calibrate=0
for a in "$@"; do
	case "$a" in
	--no-report) report=0 ;;
	--calibrate) calibrate=1 ;;
	*) kb_die "compare.sh: unknown argument '$a'" ;;
	esac
done

export KB_TARGET=bench-compare
[ "$report" = 1 ] || KB_TARGET=bench
[ "$calibrate" = 0 ] || KB_TARGET=calibrate

kb_catch_signals

if [ -n "${RESUME:-}" ]; then
	# absolute: the boots' paths (and the fingerprint's view of them)
	# must not depend on where a script runs
	run=$(cd "$RESUME" 2>/dev/null && pwd) || kb_die "RESUME=$RESUME: no such run directory"
	[ -f "$run/plan.id" ] || kb_die "RESUME=$run is not a run directory kbench can resume (no plan.id); start a new run without RESUME="
	kb_say "resuming $run"
elif [ "$calibrate" = 1 ]; then
	run=$(kb_new_run_dir -aa)
else
	run=$(kb_new_run_dir "")
fi

if [ "$calibrate" = 1 ]; then
	kb_run_boots "$run" --kernel baseline=baseline --kernel aa=baseline
	floor=$run/floor.json
	"$top/build/analysis/kbstat" floor "$run" --a baseline --b aa --out "$floor"
	mkdir -p "$KBENCH_CACHE/calibration"
	cp "$floor" "$KBENCH_CACHE/calibration/.floor.tmp"
	cp "$run/fingerprint.json" "$KBENCH_CACHE/calibration/.fingerprint.tmp"
	mv -f "$KBENCH_CACHE/calibration/.floor.tmp" "$KBENCH_CACHE/calibration/floor.json"
	mv -f "$KBENCH_CACHE/calibration/.fingerprint.tmp" "$KBENCH_CACHE/calibration/fingerprint.json"
	kb_say "noise floor stored: $KBENCH_CACHE/calibration/floor.json (from $run)"
	if [ "$report" = 1 ]; then
		BASE=baseline NEW_LABEL=aa "$top/analysis/report.sh" "$run"
		kb_say "A/A report: $run/index.html"
		cat "$run/summary.txt"
	fi
	exit 0
fi

kb_run_boots "$run" --kernel baseline=baseline --kernel patched=patched

# The calibrated floor applies only to runs made the same way.
"$here/floor.sh" "$run" >/dev/null

[ "$report" = 1 ] || { kb_say "raw results: $run/raw (make report RUN=$run)"; exit 0; }
"$top/analysis/report.sh" "$run"
kb_say "report: $run/index.html"
cat "$run/summary.txt"
