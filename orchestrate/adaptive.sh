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
# against the third. Each key's floor is kbstat compare's min_effect
# for it (the calibrated floor when floor.sh gives one, else 1 %).
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
	"$kbstat" compare "$run" --base "$b" --new "$n" "${farg[@]}" --out "$tmp/cmp.json" 2>"$tmp/cmp.log" || {
		cat "$tmp/cmp.log" >&2
		kb_die "BOOTS=auto: kbstat compare $b vs $n failed on $run (above)"
	}
	# the primary keys both kernels have, with their floors
	jq -r '.results[] | select(.primary and .better != "none" and .min_effect != null and .absent == null) |
		[.workload, .variant, .point, .metric, .min_effect] | @tsv' "$tmp/cmp.json" >"$tmp/keys.tsv"
	cut -f5 "$tmp/keys.tsv" | sort -u >"$tmp/floors"
	while IFS= read -r f; do
		"$kbstat" sequential run "$run" --base "$b" --new "$n" --boots-max "$max" --floor "$f" \
			>"$tmp/seq.tsv" 2>"$tmp/seq.log" || {
			cat "$tmp/seq.log" >&2
			kb_die "BOOTS=auto: kbstat sequential run $b vs $n (floor $f) failed on $run (above)"
		}
		awk -F'\t' -v OFS='\t' -v f="$f" -v b="$b" -v n="$n" '
			NR == FNR { if ($5 == f) want[$1 "\t" $2 "\t" $3 "\t" $4] = 1; next }
			FNR > 1 && want[$1 "\t" $2 "\t" $3 "\t" $4] { print b, n, $0 }' \
			"$tmp/keys.tsv" "$tmp/seq.tsv" >>"$out"
	done <"$tmp/floors"
done
kb_atomic_write "$run/sequential.tsv" <"$out"
awk -F'\t' -v OFS='\t' 'NR > 1 && $7 == "continue" && !seen[$3 "\t" $4 "\t" $5]++ { print $3, $4, $5 }' "$out"
