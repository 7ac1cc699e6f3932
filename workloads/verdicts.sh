#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# List the comparisons of a results.json with a given verdict, one per
# line: workload, variant, point, metric, estimate [95 % CI], adjusted p,
# and for inconclusive or insufficient rows why, and what would settle it.
#
#   verdicts.sh worse|better|same|inconclusive|insufficient RESULTS.json
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: verdicts.sh VERDICT RESULTS.json" >&2; exit 2; }
[ -f "$2" ] || { echo "kbench: error: $2 not found" >&2; exit 2; }
jq -r --arg v "$1" '
	def r3: if . == null then "-" else (. * 1000 | round / 1000 | tostring) end;
	.results[] | select((.verdict | split(" ")[0]) == $v) |
	"  \(.workload) variant=\(.variant) point=\(.point) metric=\(.metric): \(if .scale == "difference" then "difference" else "ratio" end) \(.estimate | r3) [\(.estimate_ci_lo | r3), \(.estimate_ci_hi | r3)], p_adj \(.p_adj), \(.better) is better, clock \(.clock)\(if .why then "; " + .why else "" end)"' "$2"
