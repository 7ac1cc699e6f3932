#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel/selftests/results.sh, which make upstream-selftests uses to read
# test_progs' and test_maps' output from the guests and to compare two
# kernels: per-test and per-subtest rows, the first error line of a
# failure, bpf_testmod needs, the "All error logs" repeat read once, a run
# cut by its time limit; then the table, where a test that passes on the
# reference and fails, skips, times out or is missing on the other kernel
# fails the comparison by name, and failures on both are listed, not
# hidden. No guest is booted.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
res=$top/kernel/selftests/results.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

# field TSV TEST N: field N of TEST's row
field() { awk -F'\t' -v t="$2" -v n="$3" '$1 == t { print $n; exit }' "$1"; }
# is TSV TEST N VALUE: one test that field N of TEST's row is VALUE
is() {
	local got
	got=$(field "$1" "$2" "$3")
	if [ "$got" = "$4" ]; then
		ok 0 "$5"
	else
		ok 1 "$5"
		diag "row '$2' field $3: got '$got', wanted '$4'"
	fi
}

# test_progs -t demo on the reference kernel (its real output format)
cat >"$tmp/a.log" <<'EOF'
WARNING! Selftests relying on bpf_testmod.ko will be skipped.
Failed to unload bpf_testmod.ko from kernel: -38
Can't find bpf_testmod.ko kernel module: -2
#1/1     alpha/sub1:OK
#1/2     alpha/sub2:OK
#1       alpha:OK
#2       beta:OK
#3       gamma:SKIP
delta_run:PASS:skel_open 0 nsec
delta_run:FAIL:attach unexpected error: -2 (errno 2)
#4       delta:FAIL
libbpf: prog 'test1': failed to find kernel BTF type ID of 'bpf_testmod_fentry_test7': -3
test_many_args:FAIL:fentry_many_args__open_and_load unexpected error: -3
#5/1     mod/many_args:FAIL
#5/2     mod/plain:OK
#5       mod:FAIL
#6       eps:OK
#7/1     zeta/a:SKIP
#7/2     zeta/b:OK
#7       zeta:OK (SKIP: 1/2)
Summary: 5/4 PASSED, 2 SKIPPED, 2 FAILED

All error logs:
delta_run:FAIL:attach unexpected error: -2 (errno 2)
#4       delta:FAIL
#99      delta:OK
EOF
# the same on the kernel under test, cut by its time limit after mod
cat >"$tmp/b.log" <<'EOF'
WARNING! Selftests relying on bpf_testmod.ko will be skipped.
Failed to unload bpf_testmod.ko from kernel: -38
Can't find bpf_testmod.ko kernel module: -2
#1/1     alpha/sub1:OK
sub2_check:FAIL:value unexpected value: 1 != 2
#1/2     alpha/sub2:FAIL
#1       alpha:FAIL
#2       beta:OK
#3       gamma:SKIP
delta_run:FAIL:attach unexpected error: -95 (errno 95)
#4       delta:FAIL
libbpf: prog 'test1': failed to find kernel BTF type ID of 'bpf_testmod_fentry_test7': -3
test_many_args:FAIL:fentry_many_args__open_and_load unexpected error: -3
#5/1     mod/many_args:FAIL
#5/2     mod/plain:OK
#5       mod:FAIL
EOF

echo "1..34"

check "test_progs output of the reference kernel is read" "$res" progs demo 1 "$tmp/a.log"
cp "$tmp/out" "$tmp/a.tsv"
is "$tmp/a.tsv" alpha/sub1 2 OK "a subtest that passes is OK"
is "$tmp/a.tsv" alpha 2 OK "a test whose subtests pass is OK"
is "$tmp/a.tsv" gamma 2 SKIP "a skipped test is SKIP"
is "$tmp/a.tsv" zeta 2 OK "'OK (SKIP: 1/2)' is OK, its skipped subtest SKIP"
is "$tmp/a.tsv" zeta/a 2 SKIP "the skipped subtest of a passing test is SKIP"
is "$tmp/a.tsv" delta 2 FAIL "a failing test is FAIL"
is "$tmp/a.tsv" delta 4 "delta_run:FAIL:attach unexpected error: -2 (errno 2)" \
	"its first error line is its first :FAIL: line"
is "$tmp/a.tsv" mod/many_args 3 1 "a failure whose log names bpf_testmod is marked as needing it"
is "$tmp/a.tsv" mod/many_args 4 "test_many_args:FAIL:fentry_many_args__open_and_load unexpected error: -3 [libbpf: prog 'test1': failed to find kernel BTF type ID of 'bpf_testmod_fentry_test7': -3]" \
	"its first error line has libbpf's reason with it"
is "$tmp/a.tsv" mod/plain 3 0 "a passing subtest of the same test is not"
t "the 'All error logs' repeat at the end is not read (no second delta row)" \
	test "$(grep -c '^delta	' "$tmp/a.tsv")" = 1
is "$tmp/a.tsv" "[test_progs -t demo]" 2 OK "a run that ended by itself (exit 1: some failed) is a complete run"

check "test_progs output cut by the time limit (exit 124) is read" "$res" progs demo 124 "$tmp/b.log"
cp "$tmp/out" "$tmp/b.tsv"
is "$tmp/b.tsv" "[test_progs -t demo]" 2 TIMEOUT "the run is TIMEOUT"
is "$tmp/b.tsv" alpha 3 0 "test_progs' own bpf_testmod.ko start-up lines are no test's log"
t "with its last output line" grep -qF 'last output: #5       mod:FAIL' "$tmp/b.tsv"
t "the test it did not reach has no row" bash -c "! grep -q '^eps	' '$tmp/b.tsv'"

check_rc "the comparison fails when a test passes on the reference only" 1 \
	"$res" compare "$tmp/a.tsv" "$tmp/b.tsv" baseline patched "$tmp/cmp"
t "it names the failing subtest, the failing test, the missing test and the run cut short" \
	grep -qF 'FAIL: passes on baseline, not on patched: alpha/sub2 (FAIL), alpha (FAIL), eps (missing), zeta/b (missing), zeta (missing), [test_progs -t demo] (TIMEOUT)' "$tmp/out"
is "$tmp/cmp.tsv" alpha/sub2 4 "REGRESSION: passes on baseline, FAIL on patched: sub2_check:FAIL:value unexpected value: 1 != 2" \
	"the regression's row has the patched kernel's error line"
is "$tmp/cmp.tsv" eps 3 missing "a test the patched run never reached is 'missing'"
is "$tmp/cmp.tsv" alpha/sub1 4 "" "OK on both has no note"
is "$tmp/cmp.tsv" delta 4 "fails on both (FAIL, FAIL): delta_run:FAIL:attach unexpected error: -2 (errno 2); on patched: delta_run:FAIL:attach unexpected error: -95 (errno 95)" \
	"a test failing on both is listed with both first error lines"
is "$tmp/cmp.tsv" mod/many_args 4 "needs bpf_testmod (modules are off in kbench kernels): test_many_args:FAIL:fentry_many_args__open_and_load unexpected error: -3 [libbpf: prog 'test1': failed to find kernel BTF type ID of 'bpf_testmod_fentry_test7': -3]" \
	"a failure on both that needs bpf_testmod says so"
is "$tmp/cmp.tsv" gamma 4 "skipped on both" "a test skipped on both says so"
is "$tmp/cmp.tsv" zeta/a 4 "SKIP on baseline; not run on patched" "a test skipped on one kernel and not run on the other says so"
t "the table has a header and one line per test, in order" \
	bash -c "head -n 1 '$tmp/cmp.txt' | grep -q '^test  *baseline  *patched  *note' &&
		[ \$(wc -l <'$tmp/cmp.txt') = \$((\$(wc -l <'$tmp/cmp.tsv'))) ] &&
		sed -n 2p '$tmp/cmp.txt' | grep -q '^alpha/sub1 '"

check "the same results on both kernels compare clean (exit 0)" \
	"$res" compare "$tmp/a.tsv" "$tmp/a.tsv" baseline patched "$tmp/same"
t "and print the table" grep -q '^delta  *FAIL  *FAIL  *fails on both' "$tmp/out"

# test_maps: the end line, a failed CHECK, the time limit
printf 'test_htab_map_batch_ops:PASS\ntest_sockmap SKIP (unsupported map type BPF_MAP_TYPE_SOCKMAP)\ntest_maps: OK, 2 SKIPPED\n' >"$tmp/m-ok.log"
"$res" maps test_maps 0 "$tmp/m-ok.log" >"$tmp/m-ok.tsv"
is "$tmp/m-ok.tsv" test_maps 4 "2 skipped" "test_maps' end line gives OK with its skip count"
t "its parts are rows of their own" \
	bash -c "grep -q '^test_maps/test_htab_map_batch_ops	OK' '$tmp/m-ok.tsv' && grep -q '^test_maps/test_sockmap	SKIP' '$tmp/m-ok.tsv'"
printf 'Fork 100 tasks to '"'"'test_update_delete'"'"'\ntest_hashmap_walk(12):FAIL:get_next_key unexpected\n' >"$tmp/m-bad.log"
"$res" maps test_maps 255 "$tmp/m-bad.log" >"$tmp/m-bad.tsv"
is "$tmp/m-bad.tsv" test_maps 4 "exit 255: test_hashmap_walk(12):FAIL:get_next_key unexpected" "a failed CHECK is FAIL with its line"
printf 'Fork 1024 tasks to '"'"'test_update_delete'"'"'\n' >"$tmp/m-slow.log"
"$res" maps test_maps-partial 124 "$tmp/m-slow.log" >"$tmp/m-slow.tsv"
is "$tmp/m-slow.tsv" test_maps-partial 4 "time limit reached (exit 124); last output: Fork 1024 tasks to 'test_update_delete'" \
	"a time limit is TIMEOUT, naming the part it was in (rows named after the binary)"

exit "$fail"
