#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BOOTS=auto: after a run's boots, decide every primary key with the
# adaptive-boots rule (kbstat sequential, analysis/README.md) and name
# the points that need one more boot pair.
#
#   adaptive.sh RUN BOOTS_MAX NAME NAME [NAME]
#
# The pairs judged: the first kernel against each other one, and with
# three kernels (a regression check: baseline, old, new) the second
# against the third, each by seq-decide.sh (each key at its own floor:
# the calibrated one when floor.sh gives one, else 1 %).
# Writes RUN/sequential.tsv (base new workload variant point metric
# verdict boots ratio lo hi level; the report takes these verdicts for
# its primary metrics) and prints the points (workload variant point,
# tab-separated) with a key the rule says "continue" for.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

case $# in 4 | 5) ;; *) kb_die "usage: adaptive.sh RUN BOOTS_MAX NAME NAME [NAME]" ;; esac
run=$1 max=$2
shift 2
kbstat=$top/build/analysis/kbstat
[ -x "$kbstat" ] || kb_die "BOOTS=auto decides with $kbstat, which is not built: run make analysis-tools"

pairs=()
for n in "${@:2}"; do pairs+=("$1 $n"); done
[ $# != 3 ] || pairs+=("$2 $3")

floor=$("$here/floor.sh" "$run")
farg=()
[ -z "$floor" ] || farg=(--floor "$floor")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-adaptive.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=$tmp/sequential.tsv
printf 'base\tnew\tworkload\tvariant\tpoint\tmetric\tverdict\tboots\tratio\tlo\thi\tlevel\n' >"$out"
for p in "${pairs[@]}"; do
	read -r b n <<<"$p"
	"$here/seq-decide.sh" "$run" "$b" "$n" "$max" "$tmp/cmp.json" "${farg[@]}" >"$tmp/seq.tsv"
	# the primary keys both kernels have
	awk -F'\t' -v OFS='\t' -v b="$b" -v n="$n" '
		NR == FNR { want[$0] = 1; next }
		want[$1 "\t" $2 "\t" $3 "\t" $4] { print b, n, $0 }' \
		<(jq -r '.results[] | select(.primary and .better != "none" and .absent == null) |
			[.workload, .variant, .point, .metric] | @tsv' "$tmp/cmp.json") "$tmp/seq.tsv" >>"$out"
done
kb_atomic_write "$run/sequential.tsv" <"$out"
awk -F'\t' -v OFS='\t' 'NR > 1 && $7 == "continue" && !seen[$3 "\t" $4 "\t" $5]++ { print $3, $4, $5 }' "$out"
