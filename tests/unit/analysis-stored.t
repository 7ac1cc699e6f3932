#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbstat on the stored run of tests/fixtures/analysis/stored gives, byte
# for byte, what it gave there before its JSON reader became libjansson
# and its special functions libgsl (README there): results.json, the
# floor, a comparison with the floor (the reader of floor.json), a
# variant comparison, summary.txt and summary.md, the sequential bounds
# and decisions, the change points. And the edges of the reader: errors
# that name the file, line and column; a seed past 2^63; a string that
# is not UTF-8, written so that the reader and jq take it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl
build_kbstat

stored=$top/tests/fixtures/analysis/stored
outs=(results.json floor.json results-floor.json variants.json summary.txt summary.md
	seq-bounds.tsv seq-run.tsv changepoint.tsv)
echo "1..$((${#outs[@]} + 5))"

mkdir -p "$tmp/stored"
cp -r "$stored/run" "$tmp/stored/"
if ! "$stored/make.sh" --outputs "$kbstat" "$tmp/stored" >"$tmp/make.log" 2>&1; then
	echo "Bail out! kbstat failed on the stored run:"
	sed 's/^/# /' "$tmp/make.log"
	exit 1
fi
for f in "${outs[@]}"; do
	if cmp -s "$stored/$f" "$tmp/stored/$f"; then
		ok 0 "stored run: $f byte for byte as stored"
	else
		ok 1 "stored run: $f byte for byte as stored"
		diff "$stored/$f" "$tmp/stored/$f" | head -n 20 | sed 's/^/# /'
	fi
done

# refused JSON: exit 1 and an error naming the file, line and column
printf '{"kind": "kbench-results",\n "results": [1,]}\n' >"$tmp/bad.json"
check_rc "bad JSON: exit 1" 1 "$kbstat" summary "$tmp/bad.json"
is "bad JSON: the error names file:line:column" \
	"$(grep -o "bad.json:2:[0-9]*: bad JSON" "$tmp/err")" "bad.json:2:16: bad JSON"
printf '{"results": [], "base": "a", "base": "b", "new": "c"}\n' >"$tmp/dup.json"
check_rc "a name given twice in an object: exit 1 (which one to take would be a guess)" 1 \
	"$kbstat" summary "$tmp/dup.json"

# a number that is not a C long long is still a number (the seed is a
# uint64_t), read as every other one is, with strtod
jq -c '.seed = 18446744073709551615 | .results = .results[:1]' "$stored/results.json" >"$tmp/seed.json"
"$kbstat" summary "$tmp/seed.json" >"$tmp/seed.out" 2>&1 || true
is "a seed past 2^63 is read (summary's notes show it)" \
	"$(grep -o 'seed [0-9]*' "$tmp/seed.out" | head -n 1)" "seed 18446744073709551616"

# an absent reason that is not UTF-8 (a bench's stderr): results.json
# keeps its ASCII, and jq and kbstat read it
perl "$top/tests/fixtures/analysis/synth.pl" "$tmp/u8" seed=2 variants=hash,rhash absent=baseline:rhash
for f in "$tmp"/u8/raw/baseline/*/synth.absent; do
	printf 'rhash\tvcpus=1\tmap_create: \xff\xfe not UTF-8 \xc3\xa9\n' >"$f"
done
"$kbstat" compare "$tmp/u8" --kernel baseline --base-variant hash --new-variant rhash \
	--out "$tmp/u8.json" 2>/dev/null
if jq -e '.results[0].absent_reason == "map_create: ?? not UTF-8 ??"' "$tmp/u8.json" >/dev/null &&
	"$kbstat" summary "$tmp/u8.json" >/dev/null; then
	ok 0 "a reason that is not UTF-8: written as ASCII ('?' for each byte past 0x7f); jq and kbstat read it"
else
	ok 1 "a reason that is not UTF-8: written as ASCII ('?' for each byte past 0x7f); jq and kbstat read it"
	grep -a absent_reason "$tmp/u8.json" | head -n 2 | sed 's/^/# /'
fi

exit "$fail"
