#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make regression-check: a revision that deliberately slows
# /proc/interrupts exits 1 and names the regression; the same revision as
# OLD exits 0 (here against a stored run, REF=).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-rc.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..6"

# NEW = the shipped series plus the slow-down fixture, as a patch directory.
mkdir -p "$tmp/new"
i=0
while IFS= read -r p; do
	i=$((i + 1))
	cp "$p" "$tmp/new/$(printf '%02d' "$i")-$(basename "$p")"
done < <("$top/kernel/scripts/series.sh" "$top/kernel/series" "$tmp/w")
for p in "$top"/tests/fixtures/regression/*.patch; do
	i=$((i + 1))
	cp "$p" "$tmp/new/$(printf '%02d' "$i")-$(basename "$p")"
done

# A verdict needs 3 boots a side (analysis/README.md); the REF check
# below runs one boot a side, where every row is insufficient data.
args=(QUICK=1 BOOTS=1 BENCH_VCPUS=1 WORKLOADS=procirq-read)
rc=0
make -C "$top" -s regression-check NEW="$tmp/new" "${args[@]}" BOOTS=3 >"$tmp/slow.log" 2>&1 || rc=$?
# make reports a failed recipe as "Error <status>" and exits 2 itself.
[ "$rc" != 0 ] && grep -q 'regression-check\] Error 1$' "$tmp/slow.log" && r=0 || r=1
ok "$r" "a deliberately slower NEW fails: regress.sh exits 1 (make exit $rc)"
[ "$r" = 0 ] || tail -n 30 "$tmp/slow.log" | sed 's/^/# /'
grep -A 20 'REGRESSION' "$tmp/slow.log" | grep -q 'procirq-read.*ns_per_read' && r=0 || r=1
ok "$r" "the regression names the workload and the metric"
[ "$r" = 0 ] || grep -A 10 REGRESSION "$tmp/slow.log" | sed 's/^/# /'

# A stored run of the shipped series: the newest bench-compare run.
ref=''
while IFS= read -r d; do
	if [ -f "$d/raw/patched/v1-b01/procirq-read.csv" ] && [ -f "$d/fingerprint.json" ]; then
		ref=${d%/}
		break
	fi
done < <(find "$top/reports" -mindepth 1 -maxdepth 1 -type d | sort -r)
if [ -z "$ref" ]; then
	make -C "$top" -s bench "${args[@]}" >"$tmp/ref.log" 2>&1 || true
	ref=$(find "$top/reports" -mindepth 1 -maxdepth 1 -type d | sort -r | head -n 1)
fi
[ -f "$ref/raw/patched/v1-b01/procirq-read.csv" ] && r=0 || r=1
ok "$r" "a stored run with the shipped series exists ($ref)"

rc=0
make -C "$top" -s regression-check NEW="$top/kernel/series" REF="$ref" "${args[@]}" >"$tmp/same.log" 2>&1 || rc=$?
ok "$rc" "NEW identical to OLD, against REF=$ref, exits 0 (exit $rc)"
[ "$rc" = 0 ] || tail -n 30 "$tmp/same.log" | sed 's/^/# /'
grep -q 'no regression' "$tmp/same.log" && r=0 || r=1
ok "$r" "it says there is no regression"
grep -A 5 '^Undecided (not regressions)' "$tmp/same.log" | grep -q 'procirq-read.*insufficient\|procirq-read.*BOOTS=3' && r=0 || r=1
ok "$r" "with one boot a side it lists the rows as undecided, with BOOTS=3 to settle them"
[ "$r" = 0 ] || tail -n 20 "$tmp/same.log" | sed 's/^/# /'

if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# logs kept in $tmp"; fi
exit "$fail"
