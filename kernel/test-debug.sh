#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-debug: the debug kernels (make kernels DEBUG=1: KASAN,
# lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, lib/test_rhashtable at boot)
# under everything the suite runs, then a scan of their kernel logs.
#
#   test-debug.sh
#
# 1. Each debug kernel boots once (2 vCPUs, icount) with the series'
#    checks (kernel/checks/<topic>/boot-check): they must pass.
#    lib/test_rhashtable's boot run must report no failure, and every
#    KUnit suite built in (the series' irq_proc) must pass. A kernel
#    with rhashtable_next_key() in its vmlinux must print that case's
#    verdict, and one whose config has IRQ_PROC_KUNIT_TEST the irq_proc
#    suite's: a missing verdict fails.
# 2. Every workload runs once on each (QUICK=1, BOOTS=1; numbers from a
#    debug kernel mean nothing and are not compared).
# 3. Every serial log of those boots is scanned (kernel/scripts/
#    splat-scan.sh): one KASAN, UBSAN or lockdep report, BUG, WARNING,
#    RCU or might_sleep splat, or Call Trace fails the run, printed with
#    the test that was running. The boots run with ignore_loglevel so
#    that every kernel message reaches the serial log.
# Everything is kept in reports/<date>-debug/ (summary.txt, splats.txt).
# Environment: SERIES, WORKLOADS, BOOT_TIMEOUT (default 3600 s a boot),
# DEBUG_KERNELS (default "baseline patched": which debug kernels; after a
# change that only the patched kernel has, "patched" alone skips the
# baseline-debug build and boots, and the summary says so).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE
spec=${SERIES:-kernel/series}
case "$spec" in /*) ;; *) spec=$top/$spec ;; esac
timeout=${BOOT_TIMEOUT:-3600}
# ignore_loglevel, lib/test_rhashtable's size, the hang detectors'
# thresholds under TCG
append=$(kb_debug_cmdline)
read -r -a names <<<"${DEBUG_KERNELS:-baseline patched}"
[ "${#names[@]}" -gt 0 ] || kb_die "DEBUG_KERNELS is empty: name baseline, patched or both"
for k in "${names[@]}"; do
	case "$k" in baseline | patched) ;; *) kb_die "DEBUG_KERNELS: '$k' is not a debug kernel (baseline, patched)" ;; esac
done

for k in "${names[@]}"; do
	kd=$KBENCH_CACHE/labels/$k-debug
	[ -r "$kd/bzImage" ] || kb_die "no debug kernel $k-debug ($kd): run make kernels DEBUG=1"
	[ "$(jq -r '.debug // false' "$kd/build-info.json")" = true ] ||
		kb_die "$kd/build-info.json does not say debug: rebuild with make kernels DEBUG=1"
done
img=$("$top/images/build-image.sh") || kb_die "no guest image: make image"
out=$(kb_new_run_dir -debug)
kb_say "test-debug: results in $out"
fail=0
summary=$out/summary.txt
: >"$summary"
note() {
	kb_say "$*"
	echo "$*" >>"$summary"
}
[ "${#names[@]}" = 2 ] || note "only ${names[*]}-debug (DEBUG_KERNELS): the other debug kernel is not booted"

# rht_failures: lib/test_rhashtable's failure lines in a log (stdin).
# "Total count mismatch" right after a traversal that crossed a resize
# (table-jumps > 0) is not one: a walk may return an object twice when
# the table is rehashed under it (rhashtable_walk_next()'s contract),
# and 6.12's own test prints it then (seen on the baseline: counted=10621
# of 10000 with table-jumps=1); the second traversal must still match.
rht_failures() {
	awk '/Traversal complete:.*table-jumps=[1-9]/ { jumped = 1; next }
	/Test failed: Total count mismatch/ && jumped { jumped = 0; next }
	/Traversal complete:/ { jumped = 0 }
	/Test failed|next_key test: FAILED|nested table test: FAILED/ { print }'
}

# 1. The series' checks, one boot per kernel.
pay=$out/checks-payload
topics=$("$top/kernel/scripts/checks-payload.sh" "$spec" "$pay" | tr '\n' ' ')
for k in "${names[@]}"; do
	o=$out/checks/$k
	t0=$(date +%s)
	kb_say "boot $k-debug: the series' checks (${topics:-none})"
	rc=0
	"$top/images/launch.sh" --kernel "$KBENCH_CACHE/labels/$k-debug" --image "$img" \
		--payload "$pay" --out "$o" --vcpus 2 --clock icount --mem 2048 \
		--timeout "$timeout" --append "$append" >"$out/checks-$k.log" 2>&1 || rc=$?
	took=$(($(date +%s) - t0))
	if [ "$rc" != 0 ]; then
		note "FAIL $k-debug: the checks boot failed (launch.sh exit $rc, ${took} s); serial log $o/serial.log, launcher log $out/checks-$k.log"
		fail=1
		continue
	fi
	# patched-debug holds every topic of the series: one that says
	# "<FEATURE> absent" there fails (kernel/scripts/checks-verdict.sh)
	held=()
	[ "$k" = baseline ] || read -r -a held <<<"$topics"
	if v=$("$top/kernel/scripts/checks-verdict.sh" "$o/results" ${held[@]+"${held[@]}"}); then
		note "ok   $k-debug: $v (boot and checks ${took} s)"
	else
		note "FAIL $k-debug: $v"
		fail=1
	fi
	# What this kernel must report, from its own symbols and config:
	# a kernel with rhashtable_next_key() (rhash/0001) runs its case in
	# lib/test_rhashtable (rhash/0002), one with IRQ_PROC_KUNIT_TEST the
	# irq_proc suite; their absence is a failure, not a pass.
	kd=$KBENCH_CACHE/labels/$k-debug
	want_nk=0
	if nm "$kd/vmlinux" 2>/dev/null | grep -q ' T rhashtable_next_key$'; then
		want_nk=1
	fi
	want_suites=()
	if grep -q '^CONFIG_IRQ_PROC_KUNIT_TEST=y' "$kd/config"; then
		want_suites+=(irq_proc)
	fi
	# lib/test_rhashtable, built in: its verdict lines
	s=$(tr -d '\r' <"$o/serial.log")
	threads=$(grep -o 'Started [0-9]* threads, [0-9]* failed, rhltable test returns -\{0,1\}[0-9]*' <<<"$s" || true)
	nk=$(grep -o 'rhashtable_next_key test: [A-Za-z]* (-\{0,1\}[0-9]*)' <<<"$s" || true)
	# rhash/0003's case: an irqs-off insert into a nested table of a
	# no_sync_grow_irqs_off table must not allocate (FAILED is in
	# rht_failures; "skipped" means no nested table could be made)
	nested=$(grep -o 'no_sync_grow_irqs_off nested table test: [A-Za-z]* (-\{0,1\}[0-9]*)' <<<"$s" || true)
	if [ -z "$threads" ]; then
		note "FAIL $k-debug: lib/test_rhashtable printed no verdict (CONFIG_TEST_RHASHTABLE=y runs it at boot); see $o/serial.log"
		fail=1
	elif [ "$want_nk" = 1 ] && ! grep -q 'next_key test: ok (0)' <<<"$nk"; then
		note "FAIL $k-debug: lib/test_rhashtable: the kernel has rhashtable_next_key(), but its case printed ${nk:-no verdict} (want 'rhashtable_next_key test: ok (0)'); see $o/serial.log"
		fail=1
	elif [ -n "$(rht_failures <<<"$s")" ] || ! grep -q ' 0 failed, rhltable test returns 0' <<<"$threads"; then
		note "FAIL $k-debug: lib/test_rhashtable: $threads${nk:+; $nk}; $(rht_failures <<<"$s" | head -n 3 | tr '\n' ' ')see $o/serial.log"
		fail=1
	else
		note "ok   $k-debug: lib/test_rhashtable: $threads; ${nk:-no rhashtable_next_key case (this kernel lacks it)}${nested:+; $nested}"
	fi
	# KUnit suites built in run at boot (KTAP on the console): each
	# must end "ok"; the baseline has none of the series' suites
	suites=$(grep -o '^\(\[[ 0-9.]*\] \)\{0,1\}\(not \)\{0,1\}ok [0-9]* [a-z_]*$' <<<"$s" |
		sed 's/^\[[ 0-9.]*\] //' || true)
	missing=''
	for su in ${want_suites[@]+"${want_suites[@]}"}; do
		grep -qx "ok [0-9]* $su" <<<"$suites" || missing+=" $su"
	done
	if [ -n "$missing" ]; then
		note "FAIL $k-debug: KUnit: the kernel's config builds suite(s)$missing, but the log has no passing result for them (${suites:-no suite result at all}); see $o/serial.log"
		fail=1
	elif [ -z "$suites" ]; then
		note "ok   $k-debug: no KUnit suite in this kernel"
	elif grep -q '^not ok' <<<"$suites"; then
		note "FAIL $k-debug: KUnit: $(grep '^not ok' <<<"$suites" | tr '\n' ' ')see $o/serial.log"
		fail=1
	else
		note "ok   $k-debug: KUnit: $(tr '\n' ' ' <<<"$suites")"
	fi
done

# 2. Every workload once.
kb_say "the workloads, once on each debug kernel (QUICK=1 BOOTS=1)"
kargs=()
for k in "${names[@]}"; do
	kargs+=(--kernel "$k=$k-debug")
done
rc=0
QUICK=1 BOOTS=1 RETRIES=0 PROFILE=0 MODEL='' BOOT_TIMEOUT=$timeout KB_APPEND=$append \
	"$top/orchestrate/run.sh" --run "$out/bench" "${kargs[@]}" || rc=$?
# failed-boots.tsv: a header, then one line a failed boot
nbad=0
[ ! -f "$out/bench/failed-boots.tsv" ] || nbad=$(tail -n +2 "$out/bench/failed-boots.tsv" | grep -c . || true)
if [ "$rc" = 0 ] && [ "$nbad" = 0 ]; then
	note "ok   the workloads ran on ${names[*]}-debug ($out/bench/raw)"
else
	note "FAIL the workloads on the debug kernels (run.sh exit $rc, $nbad failed boots): see $out/bench/failed-boots.tsv"
	fail=1
fi

# 3. The splat scan over every serial log.
mapfile -t logs < <(find "$out" -name serial.log | sort)
if [ "${#logs[@]}" = 0 ]; then
	note "FAIL no serial log to scan under $out"
	fail=1
else
	rc=0
	"$top/kernel/scripts/splat-scan.sh" "${logs[@]}" >"$out/splats.txt" 2>&1 || rc=$?
	case "$rc" in
	0) note "ok   no splat in ${#logs[@]} serial logs" ;;
	1)
		note "FAIL $(grep -c '^=== splat' "$out/splats.txt") splats in the serial logs ($out/splats.txt):"
		cat "$out/splats.txt" >&2
		fail=1 ;;
	*)
		note "FAIL the splat scan could not read a log: $(tail -n 1 "$out/splats.txt")"
		fail=1 ;;
	esac
fi

kb_say "test-debug: $([ "$fail" = 0 ] && echo PASS || echo FAIL); summary $summary"
exit "$fail"
