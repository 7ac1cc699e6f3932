#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# List the comparisons of a results.json with a given verdict, one per
# line: workload, variant, point, metric, estimate [95 % CI], adjusted p,
# and for inconclusive or insufficient rows why, and what would settle it.
#
#   verdicts.sh worse|better|same|inconclusive|insufficient|informational|n/a RESULTS.json
#   verdicts.sh gate RESULTS.json
#
# gate is the regression check's decision: it prints the undecided rows
# (inconclusive, insufficient data) and the n/a rows absent on OLD or on
# both as not regressions, then the worse ones, and exits 1 if there is
# any worse row, if NEW fails to boot or crashes where OLD does not
# (results.json failed_boots), or if a variant OLD ran is absent on NEW:
# a revision that can no longer run it (say, its map type stopped being
# created) has lost the feature, which no metric would ever show.
# Informational metrics have no verdict and can never fail it.
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
# n/a: absent on NEW alone is a lost feature; on OLD or on both, not.
lost=$(jq -r '.results[] | select(.verdict == "n/a" and .absent == "new") |
	"  ABSENT on NEW, which OLD ran: \(.workload) variant=\(.variant) point=\(.point) metric=\(.metric): \(.why)"' "$2")
absent=$(jq -r '.results[] | select(.verdict == "n/a" and .absent != "new") |
	"  n/a \(.workload) variant=\(.variant) point=\(.point) metric=\(.metric): \(.why)"' "$2")
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
undecided=$(printf '%s\n%s\n%s' "$undecided" "$both" "$absent" | sed '/^$/d')
regressions=$(printf '%s\n%s\n%s' "$crashes" "$lost" "$regressions" | sed '/^$/d')
if [ -n "$undecided" ]; then
	printf 'kbench: not a regression, but undecided (NEW vs OLD):\n%s\n' "$undecided" >&2
fi
if [ -n "$regressions" ]; then
	printf 'kbench: REGRESSION: NEW is worse than OLD in:\n%s\n' "$regressions" >&2
	exit 1
fi
