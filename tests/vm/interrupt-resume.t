#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A real make bench-compare (QUICK=1 BOOTS=2 BENCH_VCPUS=1, procirq-read:
# 4 boots, BOOT_JOBS=1) interrupted twice and resumed:
#  1. SIGTERM to make during the second boot: QEMU stops, the boot cut
#     short leaves nothing, no report is written, the exact RESUME=
#     command is printed;
#  2. that command, interrupted by SIGINT to its process group (as a
#     terminal's Ctrl-C) during the third boot: the first boot is not run
#     again;
#  3. that command again, to the end: every boot complete once, and
#     results.json has the rows, sample and boot counts of an
#     uninterrupted run of the same plan (one in reports/ with the same
#     plan.id, else one made here), apart from the measured values.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-ir.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..15"

# one boot at a time: the boots are cut short one by one (parallel-boots.t
# stops two side by side)
settings=(QUICK=1 BOOTS=2 BENCH_VCPUS=1 WORKLOADS=procirq-read BOOT_JOBS=1)
# start LOG CMD...: CMD in its own session and process group, with SIGINT
# at its default (a background job of a script would ignore it); sets pid
start() {
	local log=$1
	shift
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@" >"$log" 2>&1 &
	pid=$!
}
# shellcheck source=tests/lib/vmrun.sh
. "$top/tests/lib/vmrun.sh"
# booting RUN: once a QEMU of RUN is up (at most 60 s), 2 s more: the
# guest is booting (a boot reaches runcmd in about 20 s, so a fixed
# sleep from the boot's first line could outlast it)
booting() {
	local _ r=${1%% *}
	case "$r" in /*) ;; *) r=$top/$r ;; esac
	for _ in $(seq 1 120); do
		[ -z "$(qemus "$r")" ] || break
		sleep 0.5
	done
	sleep 2
}

# 1. SIGTERM to make during the second boot
start "$tmp/1.log" make -C "$top" -s bench-compare "${settings[@]}"
if wait_line "$tmp/1.log" 'boot 2/4: patched'; then
	booting "$(run_of "$tmp/1.log")"
	kill -TERM "$pid"
fi
rc=0
wait "$pid" || rc=$?
run=$(run_of "$tmp/1.log")
[ -n "$run" ] || run=$tmp/none
ok "$([ "$rc" != 0 ] && grep -q 'interrupted in patched v1-b01 (boot 2/4): QEMU stopped' "$tmp/1.log"; echo $?)" \
	"SIGTERM to make during boot 2/4: the run stops there (make exit $rc)"
[ "$rc" != 0 ] || tail -n 20 "$tmp/1.log" | sed 's/^/# /'
cmd=$(resume_of "$tmp/1.log")
case "$cmd" in
"make bench-compare RESUME=${run#"$top"/} "*"BOOTS=2 QUICK=1 BENCH_VCPUS=1 WORKLOADS=procirq-read"*) r=0 ;;
*) r=1 ;;
esac
ok "$r" "the exact resume command is printed ($cmd)"
ok "$([ -z "$(qemus "$run")" ]; echo $?)" "no QEMU of the run is left"
t "the first boot is complete (raw/baseline/v1-b01/.done)" test -f "$run/raw/baseline/v1-b01/.done"
t "nothing is left of the boot cut short (raw/ and boots/patched/v1-b01)" \
	test ! -e "$run/raw/patched/v1-b01" -a ! -e "$run/boots/patched/v1-b01"
t "no report that looks complete (results.json, summary.txt, index.html)" \
	test ! -e "$run/results.json" -a ! -e "$run/summary.txt" -a ! -e "$run/index.html"
t "the interruption is not a failed boot" test "$(grep -c . "$run/failed-boots.tsv" 2>/dev/null)" = 1

# 2. the resume command, stopped by SIGINT to its process group
if [ -n "$cmd" ]; then
	# shellcheck disable=SC2086 # the printed command, word by word
	start "$tmp/2.log" make -C "$top" -s ${cmd#make }
	if wait_line "$tmp/2.log" 'boot 3/4: baseline'; then
		booting "${cmd#*RESUME=}"
		kill -INT -- "-$pid"
	fi
	rc=0
	wait "$pid" || rc=$?
fi
t "resumed: the complete first boot is skipped" grep -q 'boot 1/4: baseline v1-b01 already done, skipped' "$tmp/2.log"
ok "$([ "$rc" != 0 ] && grep -q 'interrupted in baseline v1-b02 (boot 3/4)' "$tmp/2.log" &&
	grep -q 'stopped by SIGINT' "$tmp/2.log"; echo $?)" "SIGINT to the process group during boot 3/4: stopped there (make exit $rc)"
[ "$rc" != 0 ] || tail -n 20 "$tmp/2.log" | sed 's/^/# /'
ok "$([ -z "$(qemus "$run")" ]; echo $?)" "no QEMU of the run is left"
t "boot 2 is complete now, nothing left of boot 3" \
	test -f "$run/raw/patched/v1-b01/.done" -a ! -e "$run/raw/baseline/v1-b02" -a ! -e "$run/boots/baseline/v1-b02"

# 3. to the end
cmd2=$(resume_of "$tmp/2.log")
rc=1
if [ -n "$cmd2" ]; then
	rc=0
	# shellcheck disable=SC2086
	make -C "$top" -s ${cmd2#make } >"$tmp/3.log" 2>&1 || rc=$?
fi
ok "$rc" "the second resume finishes the run (make exit $rc)"
[ "$rc" = 0 ] || tail -n 20 "$tmp/3.log" | sed 's/^/# /'
nskip=$(grep -c 'already done, skipped' "$tmp/3.log" || true)
t "it ran only the missing boots ($nskip of 4 skipped)" test "$nskip" = 2
t "every boot complete, once: 4 .done, no attempt directories" \
	test "$(find "$run/raw" -name .done | wc -l)" = 4 -a -z "$(find "$run/boots" -maxdepth 2 -name '*.attempt*')"

# An uninterrupted run of the same plan to compare with.
ref=$(same_plan_ref "$run" "uninterrupted run" true -- "${settings[@]}")
shape "$run/results.json" >"$tmp/shape.resumed" 2>&1 || true
shape "${ref:-/nonexistent}/results.json" >"$tmp/shape.ref" 2>&1 || true
t "results.json: the rows, sample and boot counts of the uninterrupted run" \
	diff "$tmp/shape.ref" "$tmp/shape.resumed"
[ "$fail" = 0 ] || { diff "$tmp/shape.ref" "$tmp/shape.resumed" | head -n 20 | sed 's/^/# /' || true; }

if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# logs kept in $tmp"; fi
exit "$fail"
