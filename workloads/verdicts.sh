#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# List the comparisons of a results.json with a given verdict, one per
# line: workload, variant, point, metric, ratio [CI], adjusted p.
#
#   verdicts.sh worse|better|same RESULTS.json
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: verdicts.sh VERDICT RESULTS.json" >&2; exit 2; }
[ -f "$2" ] || { echo "kbench: error: $2 not found" >&2; exit 2; }
jq -r --arg v "$1" '.results[] | select(.verdict == $v) |
	"  \(.workload) variant=\(.variant) point=\(.point) metric=\(.metric): ratio \(.ratio * 1000 | round / 1000) [\(.ratio_ci_lo * 1000 | round / 1000), \(.ratio_ci_hi * 1000 | round / 1000)], p_adj \(.p_adj), \(.better) is better, clock \(.clock)"' "$2"
