#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bisect-perf on the fixture series of tests/fixtures/bisect: 8
# patches of which only patch 5 touches the path procirq-read measures
# (it waits 3 us before each /proc/interrupts row). The slowdown is
# named at patch 5 in 3 steps; in a series that starts with it (patches
# 5-7), at patch 1; a series without it (patches 1-4) reports nothing
# regressed. Each prefix is a kernel cached by its content key, and the
# series share prefixes (1-4 is a step of the first and the whole of
# the third): a warm cache builds nothing. GOOD boots once (3 boots
# a side at 1 vCPU, BISECT_GOOD=reuse, icount); the second and third
# bisects take GOOD's boots, and those of a prefix kernel the first
# booted (prefix 4 is the whole third series), from the first
# (BISECT_REF=).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-bisect.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..12"
fx=$top/tests/fixtures/bisect
args=(QUICK=1 WORKLOAD=procirq-read POINT=vcpus=1 METRIC=ns_per_read BISECT_BOOTS=3 BISECT_GOOD=reuse)

# bisect NAME SERIES [ARG...]: make bisect-perf into $tmp/NAME.log; its
# exit status in rc, its run directory in run
bisect() {
	local name=$1 series=$2
	shift 2
	rc=0
	HISTORY_DB=$tmp/history.sqlite make -C "$top" -s bisect-perf NEW="$series" "${args[@]}" "$@" \
		>"$tmp/$name.log" 2>&1 || rc=$?
	run=$(sed -n 's/^kbench: \[[^]]*\] bisect log: \(.*\)\/bisect.log$/\1/p' "$tmp/$name.log" | tail -n 1)
}
# show LOG: its last lines as TAP comments (after a failed check)
show() { tail -n 25 "$1" | sed 's/^/# /'; }

bisect slow5 "$fx/slow5.series"
ok "$rc" "slowdown in patch 5 of 8: make bisect-perf exits 0 (exit $rc)"
[ "$rc" = 0 ] || show "$tmp/slow5.log"
grep -A 1 '^first bad patch: 5/8' "$tmp/slow5.log" | grep -qx '  genirq/proc: Wait 3 us before each row of /proc/interrupts' && r=0 || r=1
ok "$r" "it names patch 5 and its subject"
grep -q '^first bad patch: 5/8, found in 3 step(s) after step 0$' "$tmp/slow5.log" && r=0 || r=1
ok "$r" "in 3 steps, and the log says so"
# the steps: NEW (8) worse, then 4 same, 6 worse, 5 worse
steps=$(awk -F'\t' 'NR > 1 { printf "%s:%s:%s ", $1, $2, $14 }' "$run/bisect.tsv" 2>/dev/null || true)
[ "$steps" = "0:8:worse 1:4:same 2:6:worse 3:5:worse " ] && r=0 || r=1
ok "$r" "the steps are 8 worse, 4 same, 6 worse, 5 worse (bisect.tsv: $steps)"
# each step's row in the log: prefix, kernel key, boots, ratio [interval], verdict
n=$(grep -cE '^[0-3] +[0-9]/8 +[0-9a-f]{12} +3\+3 +[0-9.]+ \[[0-9.]+, [0-9.]+\] [0-9.]+% +(worse|same)$' \
	"$run/bisect.log" 2>/dev/null || true)
[ "$n" = 4 ] && r=0 || r=1
ok "$r" "bisect.log in the run directory has the 4 steps' prefix, kernel, boots, ratio, interval and verdict ($n rows)"
[ "$r" = 0 ] || show "$tmp/slow5.log"
grep -A 1 '^  against GOOD:' "$run/bisect.log" | grep -qE '^    k1: [0-9.]+ \[[0-9.]+, [0-9.]+\] [0-9.]+% worse' &&
	grep -A 1 '^  against prefix 4:' "$run/bisect.log" | grep -qE '^    k1: [0-9.]+ \[[0-9.]+, [0-9.]+\] [0-9.]+% worse' &&
	grep -qx 'key k1: procirq-read/default vcpus=1 ns_per_read' "$run/bisect.log" && r=0 || r=1
ok "$r" "the first bad patch's ratio and interval against GOOD and against prefix 4"
awk 'length > 80 { bad = 1 } END { exit bad }' "$run/bisect.log" && cmp -s "$run/bisect.log" "$run/summary.txt" && r=0 || r=1
ok "$r" "the log is the run's summary.txt, at most 80 columns (to paste on the list)"
id=$(basename "${run:-none}")
rows=$(sqlite3 "$tmp/history.sqlite" "SELECT kind FROM runs WHERE run_id = '$id';
	SELECT count(DISTINCT comparison) FROM results WHERE run_id = '$id'" 2>&1 | paste -sd: - || true)
[ "$rows" = bisect-perf:4 ] && r=0 || r=1
ok "$r" "the run is in the history store, kind bisect-perf, with step 0 and the 3 steps ($rows)"

ref=$run
bisect slow1 "$fx/slow1.series" BISECT_REF="$ref"
grep -A 1 '^first bad patch: 1/3' "$tmp/slow1.log" | grep -q '^  genirq/proc: Wait 3 us' && [ "$rc" = 0 ] && r=0 || r=1
ok "$r" "slowdown in patch 1: named at patch 1 (exit $rc)"
[ "$r" = 0 ] || show "$tmp/slow1.log"
grep -A 1 '^  against prefix 0 (GOOD):' "$tmp/slow1.log" | grep -q 'worse' && r=0 || r=1
ok "$r" "against the prefix before it, which is GOOD"

bisect none "$fx/none.series" BISECT_REF="$ref"
grep -q '^nothing regressed' "$tmp/none.log" && [ "$rc" = 0 ] && r=0 || r=1
ok "$r" "no slowdown: nothing regressed, exit 0 (exit $rc)"
[ "$r" = 0 ] || show "$tmp/none.log"
# patches 1-4 are prefix 4 of the first series: its boots, and GOOD's,
# come from there; this bisect boots nothing
grep -q 'run complete' "$tmp/none.log" && r=1 || r=0
grep -q '^0 .* 3+3 .* same$' "$tmp/none.log" || r=1
ok "$r" "with BISECT_REF= it boots nothing: prefix 4's boots and GOOD's are the first bisect's"

if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# logs kept in $tmp"; fi
exit "$fail"
