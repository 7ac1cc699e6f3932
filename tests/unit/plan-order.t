#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# orchestrate/plan-order.sh: boot b runs each workload's variants
# rotated by b-1, so over n boots every variant runs once in every
# position; workloads and the points of a variant keep their order.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..8"
po=$top/orchestrate/plan-order.sh

# A plan as run.sh writes it: workload, bench, variant, point, ...
# w1 has three variants of two points each, w2 one variant, w3 two.
{
	for v in plain flag common; do
		for c in map_create prog_load; do
			printf 'w1\tbpf_syscall\t%s\tvcpus=1;cmd=%s\t20\t3\ticount\t--loops 100\t--cmd %s\n' "$v" "$c" "$c"
		done
	done
	printf 'w2\tprocirq_read\tbaseline\tvcpus=1\t5\t1\ticount\t\t\n'
	for v in hash rhash; do
		printf 'w3\tmap_lookup\t%s\tvcpus=1;key_size=8\t5\t1\ticount\t\t--key_size 8\n' "$v"
	done
} >"$tmp/plan.tsv"

# seq R: the plan at rotation R as "workload/variant/cmd" words
seq_of() { "$po" "$1" <"$tmp/plan.tsv" | awk -F '\t' '{ split($4, p, "cmd="); printf "%s/%s/%s ", $1, $3, p[2] }'; }

check "rotation 0 is the plan itself" cmp -s "$tmp/plan.tsv" <("$po" 0 <"$tmp/plan.tsv")
want1="w1/flag/map_create w1/flag/prog_load w1/common/map_create w1/common/prog_load w1/plain/map_create w1/plain/prog_load w2/baseline/ w3/rhash/ w3/hash/ "
got=$(seq_of 1)
ok "$([ "$got" = "$want1" ]; echo $?)" "rotation 1: each workload starts at its second variant, points and workloads in order"
[ "$got" = "$want1" ] || diag "got:  $got" "want: $want1"
check "rotation 3 is rotation 0 for a 3-variant workload (and 1 for a 2-variant one)" \
	bash -c "[ \"\$(\"$po\" 3 <'$tmp/plan.tsv' | grep -v '^w3')\" = \"\$(grep -v '^w3' '$tmp/plan.tsv')\" ] &&
		[ \"\$(\"$po\" 3 <'$tmp/plan.tsv' | grep '^w3')\" = \"\$(\"$po\" 1 <'$tmp/plan.tsv' | grep '^w3')\" ]"
# over rotations 0-2, every w1 variant is first, second and third once
pos=$(for r in 0 1 2; do "$po" "$r" <"$tmp/plan.tsv" | awk -F '\t' '$1 == "w1" && !s[$3]++ { print $3, ++k }'; done | sort | uniq -c | awk '$1 != 1' | wc -l)
ok "$([ "$pos" = 0 ]; echo $?)" "over 3 boots every variant of a 3-variant workload runs once in each position"
check "no line is lost or added at any rotation" bash -c "
	for r in 0 1 2 5 17; do
		cmp -s <(sort '$tmp/plan.tsv') <(\"$po\" \$r <'$tmp/plan.tsv' | sort) || exit 1
	done"
check "an empty plan stays empty" bash -c "[ -z \"\$(\"$po\" 1 </dev/null)\" ]"
check_rc "a rotation that is not a whole number is refused" 2 "$po" x
cp "$tmp/err" "$tmp/usage.err"
check "... naming the usage" grep -q "plan-order.sh: usage: .*not 'x'" "$tmp/usage.err"
exit "$fail"
