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
# ones, and exits 1 if there is any worse row. Informational metrics
# have no verdict and can never fail it.
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
if [ -n "$undecided" ]; then
	printf 'kbench: not a regression, but undecided (NEW vs OLD):\n%s\n' "$undecided" >&2
fi
if [ -n "$regressions" ]; then
	printf 'kbench: REGRESSION: NEW is worse than OLD in:\n%s\n' "$regressions" >&2
	exit 1
fi
