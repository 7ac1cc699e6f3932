#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Put the calibrated noise floor into RUN/floor.json if, and only if, the
# A/A run it came from was made the same way as RUN (fingerprints equal
# but for the kernels). Prints the floor file to use, or nothing.
#
#   floor.sh RUN
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE
run=$1
cal=$KBENCH_CACHE/calibration

if [ -f "$run/floor.json" ]; then
	printf '%s\n' "$run/floor.json"
	exit 0
fi
[ -f "$cal/floor.json" ] || exit 0
if "$top/analysis/fpdiff.sh" "$cal/fingerprint.json" "$run/fingerprint.json" >"$run/.floor-fpdiff" 2>&1; then
	cp "$cal/floor.json" "$run/.floor.json.tmp"
	mv -f "$run/.floor.json.tmp" "$run/floor.json"
	kb_say "using the calibrated noise floor from $cal/floor.json"
	printf '%s\n' "$run/floor.json"
else
	kb_say "not using $cal/floor.json: its A/A run differs from this one in: $(tr '\n' ' ' <"$run/.floor-fpdiff")"
fi
rm -f "$run/.floor-fpdiff"
