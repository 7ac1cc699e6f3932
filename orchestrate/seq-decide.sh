#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The adaptive-boots rule on one pair of kernels of a run: kbstat
# compare gives each key its floor (min_effect: the calibrated floor
# when the compare arguments name one, else 1 %), then kbstat sequential
# decides every key at its own floor. BOOTS=auto (adaptive.sh) and make
# bisect-perf (bisect.sh) both decide this way.
#
#   seq-decide.sh RUN BASE NEW BOOTS_MAX COMPARE_OUT [kbstat compare args]
#
# Prints, for every key with a floor, the rule's line (workload variant
# point metric verdict boots ratio lo hi level, tab-separated, no
# header); kbstat compare's results stay in COMPARE_OUT.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
[ $# -ge 5 ] || kb_die "usage: seq-decide.sh RUN BASE NEW BOOTS_MAX COMPARE_OUT [kbstat compare args]"
run=$1 base=$2 new=$3 max=$4 cmp=$5
shift 5
kbstat=${KBSTAT:-$top/build/analysis/kbstat}
err=$(mktemp "${TMPDIR:-/tmp}/kbench-seq.XXXXXX")
trap 'rm -f "$err"' EXIT
"$kbstat" compare "$run" --base "$base" --new "$new" "$@" --out "$cmp" >/dev/null 2>"$err" || {
	cat "$err" >&2
	kb_die "kbstat compare $base vs $new failed on $run (above)"
}
for f in $(jq -r '[.results[] | select(.min_effect != null) | .min_effect] | unique | .[]' "$cmp"); do
	"$kbstat" sequential run "$run" --base "$base" --new "$new" --boots-max "$max" --floor "$f" 2>"$err" |
		tail -n +2 | awk -F'\t' 'NR == FNR { want[$1 "\t" $2 "\t" $3 "\t" $4] = 1; next }
			want[$1 "\t" $2 "\t" $3 "\t" $4]' \
		<(jq -r --argjson f "$f" '.results[] | select(.min_effect == $f) |
			[.workload, .variant, .point, .metric] | @tsv' "$cmp") - || {
		cat "$err" >&2
		kb_die "kbstat sequential run $base vs $new (floor $f) failed on $run (above)"
	}
done
