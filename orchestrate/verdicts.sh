#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# List the comparisons of a results.json with a given verdict, one per
# line: workload, variant, point, metric, estimate [95 % CI], adjusted p,
# and for inconclusive or insufficient rows why, and what would settle it.
#
#   verdicts.sh worse|better|same|inconclusive|insufficient|informational RESULTS.json
#   verdicts.sh gate RESULTS.json
#
# gate is the regression check's decision: it prints the undecided rows
# (inconclusive, insufficient data) as not regressions, then the worse
# ones, and exits 1 if there is any worse row, or if NEW fails to boot
# or crashes where OLD does not (results.json failed_boots). Informational
# metrics have no verdict and can never fail it.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: verdicts.sh VERDICT|gate RESULTS.json" >&2; exit 2; }
[ -f "$2" ] || { echo "kbench: error: $2 not found" >&2; exit 2; }

list() {
	jq -r --arg v "$1" '
		def r3: if . == null then "-" else (. * 1000 | round / 1000 | tostring) end;
		.results[] | select((.verdict | split(" ")[0]) == $v) |
		"  \(.workload) variant=\(.variant) point=\(.point) metric=\(.metric): \(if .scale == "difference" then "difference" else "ratio" end) \(.estimate | r3) [\(.estimate_ci_lo | r3), \(.estimate_ci_hi | r3)], p_adj \(.p_adj), \(.better) is better, clock \(.clock)\(if .why then "; " + .why else "" end)"' "$2"
}

if [ "$1" != gate ]; then
	list "$1" "$2"
	exit 0
fi
undecided=$(list inconclusive "$2"; list insufficient "$2")
regressions=$(list worse "$2")
# A boot that crashes or hangs is a finding: NEW failing where OLD did
# not is a regression; both failing is listed as undecided.
crashes=$(jq -r '.new as $n | .base as $b | (.failed_boots // []) as $f
	| if any($f[]; .kernel == $n) and (any($f[]; .kernel == $b) | not)
	  then $f[] | select(.kernel == $n)
	  | "  NEW fails to boot or crashes: \(.boot) (vcpus \(.vcpus), attempt \(.attempt)): \(.reason); serial log \(.serial_log)"
	  else empty end' "$2")
both=$(jq -r '.new as $n | .base as $b | (.failed_boots // []) as $f
	| if any($f[]; .kernel == $n) and any($f[]; .kernel == $b)
	  then $f[] | "  \(.kernel) fails to boot or crashes: \(.boot): \(.reason); serial log \(.serial_log)"
	  else empty end' "$2")
undecided=$(printf '%s\n%s' "$undecided" "$both" | sed '/^$/d')
regressions=$(printf '%s\n%s' "$crashes" "$regressions" | sed '/^$/d')
if [ -n "$undecided" ]; then
	printf 'kbench: not a regression, but undecided (NEW vs OLD):\n%s\n' "$undecided" >&2
fi
if [ -n "$regressions" ]; then
	printf 'kbench: REGRESSION: NEW is worse than OLD in:\n%s\n' "$regressions" >&2
	exit 1
fi
