#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# plan-order.sh R <plan.tsv >rotated.tsv
#
# The order a boot runs its plan in. Within one workload the plan holds
# each variant's points as one block (variant after variant, in the
# order of the workload file's `variants`); a boot at rotation R runs
# those blocks starting from the (R mod n)-th of the workload's n
# variants, and keeps the workloads, and the points within a block, in
# plan order. orchestrate/run.sh gives boot b the rotation b-1, so over
# n boots (of each kernel alike) every variant runs once in every
# position: a variant that always ran first or last would carry the
# position's effect (a warmed cache, a grown IDR) into every
# variant-against-variant comparison.
set -eu
case "${1:-}" in
'' | *[!0-9]*)
	echo "plan-order.sh: usage: plan-order.sh ROTATION <plan.tsv (ROTATION: a whole number, not '${1:-}')" >&2
	exit 2 ;;
esac
awk -F '\t' -v rot="$1" '
function flush(   i) {
	for (i = 0; i < nv; i++)
		printf "%s", block[order[(i + rot) % nv]]
	split("", block)
	split("", order)
	nv = 0
}
NF == 0 { next }
{
	if ($1 != wl) {
		flush()
		wl = $1
	}
	if (!($3 in block)) {
		order[nv++] = $3
		block[$3] = ""
	}
	block[$3] = block[$3] $0 "\n"
}
END { flush() }
'
