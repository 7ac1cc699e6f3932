#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boots side by side: a real make bench-compare QUICK=1 BOOTS=2
# BENCH_VCPUS=1 WORKLOADS=procirq-read (4 boots, 1 vCPU, icount) with
# BOOT_JOBS=2:
#  1. SIGTERM to make while the first two boots run side by side: both
#     QEMUs stop, neither boot leaves anything, the resume command is
#     printed;
#  2. that command, to the end: 2 boots at a time (the joblog), every
#     boot complete once;
#  3. the same raw rows (all but the measured value) in the same files,
#     and the same results.json rows, sample and boot counts as a run of
#     the same plan one boot at a time (one in reports/ with the same
#     plan.id and a joblog of one boot at a time, as interrupt-resume.t
#     leaves; else one made here): under icount a boot's counts do not
#     depend on what runs beside it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-pb.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..11"

settings=(QUICK=1 BOOTS=2 BENCH_VCPUS=1 WORKLOADS=procirq-read)
# start LOG CMD...: CMD in its own session; sets pid
start() {
	local log=$1
	shift
	setsid "$@" >"$log" 2>&1 &
	pid=$!
}
# shellcheck source=tests/lib/vmrun.sh
. "$top/tests/lib/vmrun.sh"
# most boots at once in RUN/boots.joblog (start, runtime)
most() {
	awk -F '\t' 'NR > 1 { printf "%.3f 1\n%.3f -1\n", $3, $3 + $4 }' "$1/boots.joblog" 2>/dev/null |
		sort -k1,1n -k2,2n | awk '{ c += $2; if (c > m) m = c } END { print m + 0 }'
}
# 1. SIGTERM while two boots run
start "$tmp/1.log" make -C "$top" -s bench-compare "${settings[@]}" BOOT_JOBS=2
if wait_line "$tmp/1.log" 'boot 1/4: baseline' && wait_line "$tmp/1.log" 'boot 2/4: patched'; then
	# both guests booting: stop as soon as both QEMUs are up (a boot
	# reaches runcmd in about 20 s now, so a fixed sleep can outlast
	# the pair)
	r1=$(run_of "$tmp/1.log")
	term_when_up 2 qemus "${r1:-/nonexistent}"
fi
rc=0
wait "$pid" || rc=$?
run=$(run_of "$tmp/1.log")
[ -n "$run" ] || run=$tmp/none
ok "$([ "$rc" != 0 ] && grep -q 'interrupted in baseline v1-b01 (boot 1/4): QEMU stopped' "$tmp/1.log" &&
	grep -q 'interrupted in patched v1-b01 (boot 2/4): QEMU stopped' "$tmp/1.log"; echo $?)" \
	"SIGTERM to make during boots 1 and 2 side by side: both stop (make exit $rc)"
[ "$rc" != 0 ] || tail -n 20 "$tmp/1.log" | sed 's/^/# /'
ok "$([ -z "$(qemus "$run")" ]; echo $?)" "no QEMU of the run is left"
t "nothing is left of either boot (raw/, boots/), no boot after them started" \
	test -z "$(ls -A "$run/raw" 2>/dev/null)" -a ! -e "$run/boots/baseline/v1-b01" -a ! -e "$run/boots/patched/v1-b01" -a \
	"$(grep -c 'boot [34]/4' "$tmp/1.log")" = 0
cmd=$(resume_of "$tmp/1.log")
case "$cmd" in
"make bench-compare RESUME=${run#"$top"/} "*"BOOT_JOBS=2"*) r=0 ;;
*) r=1 ;;
esac
ok "$r" "the resume command keeps BOOT_JOBS=2 ($cmd)"

# 2. to the end
rc=1
if [ -n "$cmd" ]; then
	rc=0
	# shellcheck disable=SC2086 # the printed command, word by word
	make -C "$top" -s ${cmd#make } >"$tmp/2.log" 2>&1 || rc=$?
fi
ok "$rc" "the resume finishes the run (make exit $rc)"
[ "$rc" = 0 ] || tail -n 20 "$tmp/2.log" | sed 's/^/# /'
t "every boot complete, once: 4 .done, no attempt directories" \
	test "$(find "$run/raw" -name .done | wc -l)" = 4 -a -z "$(find "$run/boots" -maxdepth 2 -name '*.attempt*')"
is "two boots at a time (boots.joblog)" "$(most "$run")" 2
t "the run log says 2 at a time" grep -q 'boots: BOOT_JOBS=2 at a time' "$tmp/2.log"

# 3. against a run of the same plan, one boot at a time
# shellcheck disable=SC2317 # called by same_plan_run
one_at_a_time() { [ "$(most "$1")" = 1 ]; }
ref=$(same_plan_ref "$run" "run one boot at a time" one_at_a_time -- "${settings[@]}" BOOT_JOBS=1)
is "that run booted one at a time" "$(most "${ref:-/nonexistent}")" 1
same_results "$run" "$ref"

if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# logs kept in $tmp"; fi
exit "$fail"
