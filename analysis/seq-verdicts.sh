#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BOOTS=auto (orchestrate/adaptive.sh): a primary key's boots were added
# while the adaptive-boots rule looked at it, so its verdict is the
# rule's (kbstat sequential; the fixed 90 % rule on the same data would
# not hold its error rate under that optional stopping). Rewrites a
# kbstat results file in place: each key RUN/sequential.tsv decided for
# the file's base and new (and both kernels have) gets the rule's verdict, verdict_rule
# "sequential" and a why with its boots, ratio, interval and level.
# "continue" (a run stopped before its last pair) is inconclusive. The
# report and make regression-check's gate both read the rewritten file.
#
#   seq-verdicts.sh RESULTS.json RUN
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
[ $# = 2 ] || kb_die "usage: seq-verdicts.sh RESULTS.json RUN"
res=$1 seq=$2/sequential.tsv
[ -f "$seq" ] || exit 0
# shellcheck disable=SC2016 # jq's variables
jq --rawfile seq "$seq" '
	([$seq | split("\n")[1:][] | select(length > 0) | split("\t") |
	  {key: ([.[0], .[1], .[2], .[3], .[4], .[5]] | join("\u0001")),
	   value: {verdict: (if .[6] == "continue" then "inconclusive" else .[6] end),
		   boots: .[7], ratio: .[8], lo: .[9], hi: .[10], level: .[11]}}]
	 | from_entries) as $s
	| .base as $b | .new as $n
	| .results |= map(
		([$b, $n, .workload, .variant, .point, .metric] | join("\u0001")) as $k
		| if $s[$k] == null or .absent != null then . else
			.verdict = $s[$k].verdict
			| .verdict_rule = "sequential"
			| .why = "BOOTS=auto: the adaptive-boots rule (kbstat sequential, O'"'"'Brien-Fleming spending) at \($s[$k].boots) boots a side: ratio \($s[$k].ratio), interval [\($s[$k].lo), \($s[$k].hi)] at level \($s[$k].level)"
		  end)' "$res" >"$res.seq.tmp" ||
	kb_die "could not apply $seq (BOOTS=auto's verdicts) to $res; both files are kept"
mv -f "$res.seq.tmp" "$res"
kb_say "$(basename "$res"): $(jq '[.results[] | select(.verdict_rule == "sequential")] | length' "$res") primary key(s) decided by the adaptive-boots rule ($seq)"
