#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make upstream-selftests: 6.12's own BPF selftests (test_progs, test_maps)
# on two kernels, the first the reference, the second the one under test.
#
#   run.sh LABEL_A LABEL_B        (default: baseline patched)
#
# 1. Builds the selftests of each kernel from its own tree against its
#    own BTF (kernel/selftests/build.sh, cached by content).
# 2. Boots each kernel once (2 vCPUs, icount: the tests patch kernel
#    text, and MTTCG has a cross-modifying-code race, DESIGN.md), both at
#    once, and runs every entry of kernel/selftests/tests.list under its
#    time limit (guest seconds).
# 3. Reads test_progs' per-test and per-subtest results and test_maps'
#    (kernel/selftests/results.sh), writes the table (test, A, B, note)
#    and prints it. Exit 1 if a test passes on A and not on B, naming
#    each, or if a kernel could not be tested.
# Results: reports/<date>-upstream-selftests/ (summary.txt, results.txt,
# results.tsv, <label>.tsv, not-built-<label>.tsv, boots/<label>/ with
# each boot's serial.log).
# Environment: ST_VCPUS (2), ST_MEM (4096), ST_CLOCK (icount),
# ST_TESTS (kernel/selftests/tests.list), ST_SKIP (names of entries of
# that list not to run, e.g. "test_maps-partial"; make upstream-selftests
# DEBUG=1 sets it, see kernel/selftests.mk), ST_PARALLEL (1: both boots
# at once; 0: one after the other).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE

[ $# -eq 0 ] || [ $# -eq 2 ] || kb_die "usage: kernel/selftests/run.sh [LABEL_A LABEL_B] (e.g. KERNELS=\"baseline-debug patched-debug\"): two kernels, the reference first"
labels=("${1:-baseline}" "${2:-patched}")
[ "${labels[0]}" != "${labels[1]}" ] || kb_die "KERNELS names ${labels[0]} twice: give two different kernels"
vcpus=${ST_VCPUS:-2}
mem=${ST_MEM:-4096}
clock=${ST_CLOCK:-icount}
tests=${ST_TESTS:-$here/tests.list}
[ -r "$tests" ] || kb_die "no test list $tests"
for l in "${labels[@]}"; do
	[ -r "$KBENCH_CACHE/labels/$l/bzImage" ] ||
		kb_die "no kernel '$l' under $KBENCH_CACHE/labels: build it (make kernels; the -debug ones with make kernels DEBUG=1)"
done

# the boot's limit (host seconds): every entry's limit, plus the boot.
# Under icount a busy guest's clock runs 2-3x slower than the host's
# here (measured: 4.7 guest s of a shell loop took 10-13 host s), so
# the guest's own limits stop a test first.
limits=$(awk '!/^[[:space:]]*(#|$)/ { s += $3 } END { print s + 0 }' "$tests")
case "$clock" in
icount) timeout=$((limits * 3 + 900)) ;;
*) timeout=$((limits + 900)) ;;
esac

# 1. Build (cached).
declare -A bdir
for l in "${labels[@]}"; do
	bdir[$l]=$("$here/build.sh" "$l") || kb_die "the selftests of $l did not build (see the message above)"
done

img=$("$top/images/build-image.sh") || kb_die "no guest image: run make image"
# the libraries test_progs and test_maps load must be in the image
pk=$(dirname "$img")/packages.txt
for l in "${labels[@]}"; do
	for lib in $(jq -r '.needed_libs' "${bdir[$l]}/build-info.json"); do
		pkg=$(dpkg -S "/lib/x86_64-linux-gnu/$lib" "/usr/lib/x86_64-linux-gnu/$lib" 2>/dev/null |
			head -n 1 | cut -d: -f1 || true)
		[ -n "$pkg" ] || kb_die "the selftests of $l need $lib, which no host package provides"
		[ ! -r "$pk" ] || grep -q "^${pkg}[[:space:]]" "$pk" ||
			kb_die "the selftests of $l need $lib (package $pkg), which the guest image lacks: add $pkg to images/packages.list"
	done
done

out=$(kb_new_run_dir -upstream-selftests)
summary=$out/summary.txt
: >"$summary"
note() {
	kb_say "$*"
	echo "$*" >>"$summary"
}
note "upstream BPF selftests: ${labels[0]} (reference) and ${labels[1]}; results in $out"
for l in "${labels[@]}"; do
	note "  $l: selftests build ${bdir[$l]} ($(jq -r '"\(.build_seconds) s to build, \(.test_progs_tests) test_progs tests, \(.not_built) entries in not-built.tsv"' "${bdir[$l]}/build-info.json"))"
	cp "${bdir[$l]}/not-built.tsv" "$out/not-built-$l.tsv"
done

# 2. One boot per kernel, both at once (ST_PARALLEL=0: one after the
# other): the tests are functional, and side by side both kernels see
# the same host load.
kb_catch_signals
# the entries both guests run: the list without ST_SKIP's names
awk -v skip=" ${ST_SKIP:-} " 'index(skip, " " $2 " ") == 0 || /^[[:space:]]*#/' "$tests" >"$out/tests.list"
declare -A bootrc bootpid boott0
boot_start() {
	local l=$1 pay=$out/payload-$1 o=$out/boots/$1
	mkdir -p "$pay"
	# hard links into the cache (read-only use), a copy across file systems
	cp -al "${bdir[$l]}/payload/." "$pay/" 2>/dev/null || cp -a "${bdir[$l]}/payload/." "$pay/"
	cp "$here/guest-run.sh" "$pay/run"
	chmod +x "$pay/run"
	cp "$out/tests.list" "$pay/tests.list"
	note "boot $l: $(grep -vcE '^[[:space:]]*(#|$)' "$out/tests.list") entries of $(basename "$tests")${ST_SKIP:+ (not run, ST_SKIP: $ST_SKIP)} (limit ${timeout} s, $vcpus vCPUs, $clock clock); serial log $o/serial.log"
	boott0[$l]=$(date +%s)
	"$top/images/launch.sh" --kernel "$KBENCH_CACHE/labels/$l" --image "$img" --payload "$pay" \
		--out "$o" --vcpus "$vcpus" --mem "$mem" --clock "$clock" --timeout "$timeout" \
		--append ignore_loglevel >"$out/boot-$l.log" 2>&1 &
	bootpid[$l]=$!
}
boot_wait() {
	local l=$1 rc=0 o=$out/boots/$1 took
	while :; do
		rc=0
		wait "${bootpid[$l]}" || rc=$?
		# a signal cuts wait short: stop the launchers (they stop QEMU)
		if [ -n "$KB_SIGNAL" ]; then
			for p in "${bootpid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
			wait || true
			kb_die "interrupted (SIG$KB_SIGNAL) during the boots; nothing compared. Run make upstream-selftests again."
		fi
		kill -0 "${bootpid[$l]}" 2>/dev/null || break
	done
	rm -rf "${out:?}/payload-$l"
	bootrc[$l]=$rc
	took=$(($(date +%s) - boott0[$l]))
	if [ "$rc" = 0 ]; then
		note "boot $l: done in ${took} s"
	else
		note "boot $l: FAILED (launch.sh exit $rc, $(jq -r '.status // "?"' "$o/launch.json" 2>/dev/null || echo '?')) after ${took} s; serial log $o/serial.log, launcher log $out/boot-$l.log"
	fi
	if [ -r "$o/results/times.tsv" ]; then
		while IFS=$'\t' read -r kind name erc secs; do
			note "  $l: $kind $name: exit $erc, ${secs} s (guest clock)"
		done <"$o/results/times.tsv"
	fi
}
if [ "${ST_PARALLEL:-1}" = 1 ]; then
	for l in "${labels[@]}"; do boot_start "$l"; done
	for l in "${labels[@]}"; do boot_wait "$l"; done
else
	for l in "${labels[@]}"; do
		boot_start "$l"
		boot_wait "$l"
	done
fi

# 3. Results: one row set per kernel, then the comparison.
for l in "${labels[@]}"; do
	o=$out/boots/$l
	r=$o/results
	{
		case "${bootrc[$l]}" in
		0) printf '[boot]\tOK\t0\t\n' ;;
		6) printf '[boot]\tTIMEOUT\t0\tguest time limit %s s reached; serial log %s\n' "$timeout" "$o/serial.log" ;;
		*) printf '[boot]\tCRASH\t0\tlaunch.sh exit %s (%s); serial log %s\n' "${bootrc[$l]}" \
			"$(jq -r '.message // .status // "?"' "$o/launch.json" 2>/dev/null | tr '\t\n' '  ' || echo '?')" "$o/serial.log" ;;
		esac
		while read -r kind name _; do
			case "$kind" in '' | '#'*) continue ;; esac
			if [ ! -r "$r/$kind-$name.rc" ]; then
				printf '[%s %s]\tCRASH\t0\tnot run: the boot ended before it\n' "$kind" "$name"
				continue
			fi
			erc=$(cat "$r/$kind-$name.rc")
			case "$kind" in
			progs) "$here/results.sh" progs "$name" "$erc" "$r/$kind-$name.log" ;;
			maps) "$here/results.sh" maps "$name" "$erc" "$r/$kind-$name.log" ;;
			esac
		done <"$out/tests.list"
	} | awk -F'\t' '!seen[$1]++' >"$out/$l.tsv"
done

# the kernel logs, scanned for splats (informational here: make
# test-debug is the gate for them)
splat=none
if "$top/kernel/scripts/splat-scan.sh" "$out"/boots/*/serial.log >"$out/splats.txt" 2>&1; then
	rm -f "$out/splats.txt"
else
	splat="$(grep -c '^=== splat' "$out/splats.txt" || true) splats: see $out/splats.txt"
fi
note "splat scan of the serial logs (kernel/scripts/splat-scan.sh): $splat"

rc=0
"$here/results.sh" compare "$out/${labels[0]}.tsv" "$out/${labels[1]}.tsv" "${labels[0]}" "${labels[1]}" \
	"$out/results" >"$out/compare.out" || rc=$?
{
	echo
	cat "$out/compare.out"
	for l in "${labels[@]}"; do
		echo
		if [ -s "$out/not-built-$l.tsv" ]; then
			echo "not built or changed for $l (against its BTF with Debian's toolchain):"
			sed 's/^/  /' "$out/not-built-$l.tsv"
		else
			echo "not built for $l: nothing (every test_progs test and BPF program compiled)"
		fi
	done
	echo
	echo "not built for either: bpf_testmod.ko, bpf_test_no_cfi.ko, bpf_test_modorder_x.ko, bpf_test_modorder_y.ko (CONFIG_MODULES is off in kbench kernels)"
	echo
	echo "serial logs (for a splat scan: kernel/scripts/splat-scan.sh LOG...):"
	for l in "${labels[@]}"; do
		echo "  $l: $out/boots/$l/serial.log"
	done
} >>"$summary"
cat "$out/compare.out"
echo
echo "summary: $summary"
for l in "${labels[@]}"; do
	echo "serial log $l: $out/boots/$l/serial.log"
done
if [ "$rc" != 0 ]; then
	kb_die "upstream selftests: some tests pass on ${labels[0]} and not on ${labels[1]} (listed above; logs in $out/boots/<kernel>/results/)"
fi
kb_say "upstream selftests: ${labels[1]} passes everything ${labels[0]} passes ($out/results.txt)"
