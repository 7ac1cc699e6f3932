#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every parser's fuzz harness (fuzz/) runs 10 s, as make fuzz runs it
# (fuzz/run.sh): first the inputs that once crashed it, then fuzzing
# from the seed corpus. A crash, sanitizer report, leak or hang fails
# it, naming the input kept in build/fuzz/artifacts/<harness>/.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

harnesses=(raw_csv json irqcompat kbbench_args check_conf wl series changepoint)
# and one a program workload parser (fuzz.mk: parse_NAME)
for p in "$top"/workloads/parsers/*.awk; do
	p=${p##*/}
	p=${p%.awk}
	harnesses+=("parse_${p//-/_}")
done
echo "1..$((${#harnesses[@]} + 1))"

make_or_bail fuzz-tools analysis-tools
if "$top/fuzz/seeds.sh" "$tmp/seeds" >"$tmp/seeds.log" 2>&1; then
	ok 0 "fuzz/seeds.sh makes the seed corpus from the fixtures and the real files"
else
	ok 1 "fuzz/seeds.sh makes the seed corpus from the fixtures and the real files"
	sed 's/^/# /' "$tmp/seeds.log"
	echo "Bail out! no seed corpus to fuzz from"
	exit 1
fi

# A corpus of its own: the one make fuzz keeps grows, and each of its
# inputs is run once before fuzzing starts (seconds each, for a script).
for h in "${harnesses[@]}"; do
	if KB_FUZZ_SEEDS=$tmp/seeds KB_FUZZ_CORPUS=$tmp/corpus \
		"$top/fuzz/run.sh" 10 "$h" >"$tmp/$h.out" 2>&1; then
		# the line run.sh prints: "fuzz H: 10 s, N runs (R/s), ..."
		ok 0 "$(tail -n 1 "$tmp/$h.out")"
	else
		ok 1 "fuzz $h: 10 s without a crash, sanitizer report, leak or hang"
		sed 's/^/# /' "$tmp/$h.out"
	fi
done
exit "$fail"
