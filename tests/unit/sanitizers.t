#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host tools built with ASan and UBSan (make sanitize-tools, into
# build/asan/) pass the unit tests that exercise them: the tests of
# kbbench (kbbench check included), irqcompat and kbstat run once more,
# given the sanitizer builds (KB_TEST_KBBENCH, KB_TEST_IRQCOMPAT,
# KB_TEST_KBSTAT). Every sanitizer report is written to a file here, so
# one fails this test and is printed even where the test it came from
# expected the tool to fail.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

# test file: the sanitizer build it runs with. Not analysis-verdicts.t
# and analysis-profile.t: half a minute each, spent in the same code
# (the bootstrap) or in perl and gnuplot.
tests=(bench-kbbench checks-proc-interrupts analysis-stats analysis-compare
	analysis-kinds analysis-tables analysis-report analysis-gate failed-boots)
echo "1..$((${#tests[@]} + 3))"

for t in clang nm prove; do
	command -v "$t" >/dev/null || {
		echo "Bail out! $t not found (make deps installs it)"
		exit 1
	}
done
make_or_bail sanitize-tools
asan=$top/build/asan
kbstat=$asan/analysis/kbstat
kbbench=$asan/bench/kbbench
irqcompat=$asan/checks/proc-interrupts/irqcompat
san=$tmp/san
mkdir -p "$san"

# Reports to files (log_path.PID), and an exit status no test expects.
# Leaks are checked in irqcompat: kbstat frees nothing it loaded before
# it exits (a short-lived tool), and bench-kbbench.t runs kbbench under
# strace, where LeakSanitizer cannot work; their parsers are checked for
# leaks by the fuzz harnesses (fuzz/).
# sanitize_env LEAKS: the environment of a run, LEAKS 1 or 0.
sanitize_env() {
	export ASAN_OPTIONS="log_path=$san/asan:exitcode=99:detect_leaks=$1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$san/ubsan:print_stacktrace=1:halt_on_error=1"
}

# reports: prints (and removes) every sanitizer report written since
# the last call; returns 1 if there was one.
reports() {
	local f found=0
	for f in "$san"/*; do
		[ -e "$f" ] || continue
		found=1
		echo "# sanitizer report ${f##*/}:"
		sed 's/^/#   /' "$f"
		rm -f "$f"
	done
	return "$found"
}

# 1: the builds are the instrumented ones (a test takes what it is given)
r=0
for b in "$kbstat" "$kbbench" "$irqcompat"; do
	nm "$b" >"$tmp/nm" 2>&1 || true
	if ! grep -q __asan_init "$tmp/nm" || ! grep -q __ubsan_handle "$tmp/nm"; then
		diag "$b: no ASan/UBSan runtime in it (make sanitize-tools)"
		r=1
	fi
done
ok "$r" "kbstat, kbbench and irqcompat in build/asan/ are built with ASan and UBSan"

# 2: a report is caught: a heap overflow built the way fuzz.mk builds
printf '%s\n' '#include <stdlib.h>' \
	'int main(int argc, char **argv) { char *p = malloc(4); p[argc + 3] = 1; free(p); return argv[0][0] == 0; }' \
	>"$tmp/overflow.c"
clang -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$tmp/overflow" "$tmp/overflow.c" 2>"$tmp/cc.err" || {
	echo "Bail out! clang cannot build with -fsanitize=address,undefined: $(head -n 3 "$tmp/cc.err")"
	exit 1
}
sanitize_env 1
"$tmp/overflow" 2>/dev/null && rc=0 || rc=$?
# (with UBSan in, the file is named after UBSAN_OPTIONS' log_path)
if [ "$rc" = 99 ] && grep -q heap-buffer-overflow "$san"/* 2>/dev/null; then
	ok 0 "a sanitizer report lands in a file of its own, and exit 99"
	rm -f "$san"/*
else
	ok 1 "a sanitizer report lands in a file of its own, and exit 99 (exit $rc)"
fi

# 3: a JSON file nested 200000 deep is a named error (kbstat used to
# overflow its stack, one frame per level; libjansson stops at 2048)
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "["; print "" }' >"$tmp/deep.json"
sanitize_env 0
"$kbstat" summary "$tmp/deep.json" >/dev/null 2>"$tmp/deep.err" && rc=0 || rc=$?
r=0
[ "$rc" = 1 ] && grep -q 'bad JSON: maximum parsing depth reached' "$tmp/deep.err" || r=1
reports >"$tmp/reports" || r=1
ok "$r" "kbstat: JSON nested 200000 deep is a named error, no sanitizer report (exit $rc)"
[ "$r" = 0 ] || sed 's/^/# /' "$tmp/deep.err" | head -n 5
cat "$tmp/reports"

# the unit tests, each with the sanitizer build of its tool
for t in "${tests[@]}"; do
	case "$t" in
	checks-proc-interrupts) sanitize_env 1 ;;
	*) sanitize_env 0 ;;
	esac
	rc=0
	KB_TEST_KBSTAT=$kbstat KB_TEST_KBBENCH=$kbbench KB_TEST_IRQCOMPAT=$irqcompat \
		prove "$top/tests/unit/$t.t" >"$tmp/$t.out" 2>&1 || rc=$?
	r=0
	reports >"$tmp/reports" || r=1
	[ "$rc" = 0 ] || r=1
	ok "$r" "$t.t passes with the ASan/UBSan builds, no sanitizer report (prove exit $rc)"
	[ "$rc" = 0 ] || grep -v '^ok ' "$tmp/$t.out" | head -n 40 | sed 's/^/# /'
	cat "$tmp/reports"
done
exit "$fail"
