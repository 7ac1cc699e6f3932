#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Absent variants (raw/<kernel>/<boot>/<workload>.absent) and variant
# against variant on one kernel, on seeded synthetic runs (synth.pl):
# n/a rows on one side and on both, never in Benjamini-Hochberg; a known
# 2x effect between variants; the paired test; kbstat variants; the
# cover-letter table; bad .absent lines; the gate; the report.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
build_kbstat

echo "1..39"

synth() {
	perl "$top/tests/fixtures/analysis/synth.pl" "$@"
}
# q FILE JQ: one jq answer, raw
q() {
	jq -r "$2" "$1"
}
points='vcpus=1;fill=100;key_size=8;max_entries=1024|vcpus=1;fill=75;key_size=8;max_entries=1048576'

# ---- absent on one side: rhash on the baseline ----
synth "$tmp/one" seed=11 variants=hash,rhash vscale=rhash:0.5 absent=baseline:rhash points="$points"
"$kbstat" compare "$tmp/one" --base baseline --new patched --out "$tmp/one.json" 2>"$tmp/one.err"
is "absent on baseline: rhash rows are n/a, one per point and metric" \
	"$(q "$tmp/one.json" '[.results[] | select(.variant == "rhash") | .verdict] | join(" ")')" "n/a n/a"
is "absent on baseline: the absent side is named" \
	"$(q "$tmp/one.json" '[.results[] | select(.variant == "rhash") | .absent] | unique | join(" ")')" base
check "absent on baseline: why names the kernel and the reason" \
	jq -e '.results[] | select(.variant == "rhash") | .why | test("^absent on baseline: map_create: Invalid argument")' "$tmp/one.json"
check "absent on baseline: the present side's median is kept" \
	jq -e '[.results[] | select(.variant == "rhash") | .new.n == 75 and .base.n == 0] | all' "$tmp/one.json"
is "absent on baseline: n/a rows have no p, and BH counts the hash rows only" \
	"$(q "$tmp/one.json" '[.results[] | select(.verdict == "n/a") | .p_adj] | map(tostring) | join(" ")') $("$kbstat" summary "$tmp/one.json" | grep -o 'over the [0-9]* tested')" \
	"null null over the 2 tested"
is "absent on baseline: hash is compared as usual" \
	"$(q "$tmp/one.json" '[.results[] | select(.variant == "hash") | .verdict] | join(" ")')" "same same"
if grep -q "no samples" "$tmp/one.err"; then
	ok 1 "absent is not warned about as missing samples"
else
	ok 0 "absent is not warned about as missing samples"
fi
"$kbstat" summary "$tmp/one.json" >"$tmp/one.txt"
diag "$(sed -n '/^n\/a/,/^$/p' "$tmp/one.txt")"
is "summary: n/a rows collapsed, one line per workload, variant and reason" \
	"$(sed -n '/^n\/a/,/^$/p' "$tmp/one.txt" | grep -c '^  synth/rhash, 2 points (2 rows): absent on baseline: map_create')" 1

# ---- absent on both kernels: one row for the point ----
synth "$tmp/both" seed=12 variants=hash,rhash absent=baseline:rhash,patched:rhash
"$kbstat" compare "$tmp/both" --base baseline --new patched --out "$tmp/both.json" 2>/dev/null
is "absent on both: one n/a row, metric '-', absent both" \
	"$(q "$tmp/both.json" '[.results[] | select(.variant == "rhash") | "\(.metric) \(.verdict) \(.absent)"] | join(",")')" "- n/a both"
check "absent on both: why names both kernels" \
	jq -e '.results[] | select(.variant == "rhash") | .why | startswith("absent on baseline and patched: ")' "$tmp/both.json"

# ---- a boot whose every point was absent ----
mkdir -p "$tmp/only/raw/baseline/b01" "$tmp/only/raw/patched/b01"
printf 'rhash\tvcpus=1\tno rhash here\n' >"$tmp/only/raw/baseline/b01/x.absent"
cp "$tmp/one/raw/patched/b01/synth.csv" "$tmp/only/raw/patched/b01/"
check "a boot holding only an .absent file loads" \
	"$kbstat" compare "$tmp/only" --base baseline --new patched --out "$tmp/only.json"

# ---- bad .absent lines: errors naming file:line ----
bad_absent() {
	local desc=$1 body=$2 want=$3
	rm -rf "$tmp/bad"
	cp -r "$tmp/one" "$tmp/bad"
	printf '%b' "$body" >"$tmp/bad/raw/baseline/b02/synth.absent"
	if "$kbstat" compare "$tmp/bad" --base baseline --new patched >/dev/null 2>"$tmp/bad.err"; then
		ok 1 "$desc: refused"
	elif grep -q "raw/baseline/b02/synth.absent:$want" "$tmp/bad.err"; then
		ok 0 "$desc: refused, naming file:line"
	else
		ok 1 "$desc: refused, naming file:line"
		sed 's/^/# /' "$tmp/bad.err"
	fi
}
bad_absent "two fields" 'rhash\tvcpus=1\trhash\tvcpus=1;x=2\n' '1: 4 fields'
bad_absent "an empty line" 'rhash\tvcpus=1\twhy\n\n' '2: empty line'
bad_absent "a point listed twice" 'rhash\tvcpus=1\twhy\nrhash\tvcpus=1\twhy\n' '2: .*listed again'
bad_absent "a comma in the point" 'rhash\tvcpus=1,x\twhy\n' '1: a comma'
bad_absent "an empty point" 'rhash\t\twhy\n' '1: empty point'

# ---- variant against variant: rhash 2x faster on the patched kernel ----
"$kbstat" compare "$tmp/one" --kernel patched --base-variant hash --new-variant rhash \
	--out "$tmp/v.json" 2>/dev/null
is "variants: kind, kernel, sides" \
	"$(q "$tmp/v.json" '"\(.compare) \(.kernel) \(.base) \(.new)"')" "variants patched hash rhash"
is "rhash 2x faster (latency x0.5): better at every point" \
	"$(q "$tmp/v.json" '[.results[].verdict] | join(" ")')" "better better"
check "rhash 2x faster: ratio ~0.5, its CI excludes 1" \
	jq -e '[.results[] | (.ratio - 0.5 | fabs) < 0.01 and .ratio_ci_hi < 0.99] | all' "$tmp/v.json"
synth "$tmp/eq" seed=13 variants=hash,rhash
"$kbstat" compare "$tmp/eq" --kernel patched --base-variant hash --new-variant rhash \
	--out "$tmp/eq.json" 2>/dev/null
is "equal variants: same" "$(q "$tmp/eq.json" '.results[0].verdict')" same
# shared boot offsets (2 %): the pairing cancels them
synth "$tmp/pair" seed=14 variants=hash,rhash bootsd=0.02 cv=0.001
"$kbstat" compare "$tmp/pair" --kernel patched --base-variant hash --new-variant rhash \
	--out "$tmp/pair.json" 2>/dev/null
"$kbstat" compare "$tmp/pair" --base baseline --new patched --out "$tmp/pairk.json" 2>/dev/null
is "boot effect shared by the variants: paired t on the boots, same" \
	"$(q "$tmp/pair.json" '"\(.results[0].p_method) \(.results[0].welch_df) \(.results[0].verdict)"')" \
	"paired-t-boot-medians 2 same"
is "the same data across kernels (unpaired Welch) cannot decide" \
	"$(q "$tmp/pairk.json" '[.results[] | .verdict] | unique | join(" ")')" inconclusive
"$kbstat" compare "$tmp/one" --kernel baseline --base-variant hash --new-variant rhash \
	--out "$tmp/vb.json" 2>/dev/null
check "variants on the baseline: n/a, 'rhash absent on baseline'" \
	jq -e '[.results[] | .verdict == "n/a" and (.why | startswith("rhash absent on baseline: "))] | all' "$tmp/vb.json"
if "$kbstat" compare "$tmp/one" --kernel patched --base-variant hash --new-variant hash 2>/dev/null; then
	ok 1 "a variant against itself is refused"
else
	ok 0 "a variant against itself is refused"
fi

# ---- kbstat variants: the pairs, the base from the workload file ----
is "kbstat variants: patched ran both, the baseline did not" \
	"$("$kbstat" variants "$tmp/one")" "$(printf 'patched\thash\trhash\tsynth')"
mkdir -p "$tmp/one/workloads"
cat >"$tmp/one/workloads/synth.wl" <<'EOF'
name = synth
bench = map_lookup
variants = hash rhash
base_variant = rhash
primary = latency
table = key=key_size max=max_entries nr=max_entries*fill/100
EOF
is "kbstat variants: base_variant = rhash turns the pair around" \
	"$("$kbstat" variants "$tmp/one")" "$(printf 'patched\trhash\thash\tsynth')"
sed -i 's/^base_variant = rhash/base_variant = hash/' "$tmp/one/workloads/synth.wl"

# ---- the cover-letter table ----
"$kbstat" cover "$tmp/v.json" --run "$tmp/one" >"$tmp/cover.txt"
diag "$(cat "$tmp/cover.txt")"
is "cover table: the columns in the cover letter's order" \
	"$(sed -n 2p "$tmp/cover.txt" | tr -s ' ')" "key max nr hash rhash ratio delta verdict"
is "cover table: nr = max_entries * fill / 100, rows by the columns" \
	"$(awk 'NR > 3 && NF == 8 { print $2 "/" $3 }' "$tmp/cover.txt" | paste -sd' ')" "1024/1024 1048576/786432"
is "cover table: ratio and delta of a 2x effect" \
	"$(awk 'NR == 4 { print ($6 > 0.49 && $6 < 0.51), ($7 ~ /^-(49|50)\.[0-9]%$/), $8 }' "$tmp/cover.txt")" "1 1 better"
check "cover table: the clock is named, and icount is no hardware figure" \
	grep -q '^clock icount: .*not hardware figures' "$tmp/cover.txt"
# a memory table: sizes, which no clock sees or misses
synth "$tmp/mem" seed=15 variants=hash,rhash vscale=rhash:0.6 metric=map_bytes_filled,bytes,lower points="$points"
mkdir -p "$tmp/mem/workloads"
sed 's/^primary = latency/primary = map_bytes_filled/' "$tmp/one/workloads/synth.wl" >"$tmp/mem/workloads/synth.wl"
"$kbstat" compare "$tmp/mem" --kernel patched --base-variant hash --new-variant rhash \
	--out "$tmp/mem.json" 2>/dev/null
"$kbstat" cover "$tmp/mem.json" --run "$tmp/mem" >"$tmp/cover-mem.txt"
is "cover table of sizes: its note says no clock enters them, not what icount misses" \
	"$(grep -c '^clock icount: these are sizes in bytes' "$tmp/cover-mem.txt"),$(grep -c 'cache or TLB' "$tmp/cover-mem.txt")" "1,0"
[ "$fail" = 0 ] || diag "$(cat "$tmp/cover-mem.txt")"

# ---- the regression gate: absent on NEW is listed, and fails it ----
check "gate: absent on OLD (the baseline here) is not a regression" \
	"$kbstat" gate "$tmp/one.json"
jq '(.results[] | select(.verdict == "n/a")).absent = "new"' "$tmp/one.json" >"$tmp/lost.json"
rc=0
"$kbstat" gate "$tmp/lost.json" >"$tmp/gate.txt" 2>&1 || rc=$?
if [ "$rc" != 1 ]; then
	ok 1 "gate: a variant OLD ran and NEW lacks fails it (exit $rc)"
else
	# the row (synth/rhash ...), then why on the next line
	awk 'p && /^    ABSENT on NEW, which OLD ran: / { f = 1 } { p = /^  synth\/rhash  / } END { exit !f }' \
		"$tmp/gate.txt"
	ok $? "gate: a variant OLD ran and NEW lacks fails it, listed loudly"
fi

# ---- workloads/wl.sh: base_variant and table are checked ----
wl_try() {
	(
		# shellcheck source=scripts/lib.sh
		. "$top/scripts/lib.sh"
		# shellcheck source=workloads/wl.sh
		. "$top/workloads/wl.sh"
		wl_load "$1"
	) 2>&1
}
printf 'name = x\nbench = map_lookup\nvariants = hash rhash\nbase_variant = lru\n' >"$tmp/a.wl"
check "wl.sh: base_variant outside variants names file:line" \
	grep -q "a.wl:4: base_variant 'lru' is not one of variants" <(wl_try "$tmp/a.wl")
printf 'name = x\nbench = map_lookup\nmatrix.fill = 75\ntable = nr=max_entries*fill/100\n' >"$tmp/b.wl"
check "wl.sh: a table column of no matrix parameter names file:line" \
	grep -q "b.wl:4: table: 'max_entries' in column 'nr=max_entries\*fill/100' is not a matrix parameter" <(wl_try "$tmp/b.wl")

# ---- the report: n/a rows, the variant section, the cover table ----
KBSTAT=$kbstat "$top/analysis/report.sh" "$tmp/one" >/dev/null 2>"$tmp/report.err" ||
	sed 's/^/# /' "$tmp/report.err"
check "report: summary.txt has the n/a rows with the reason" \
	grep -q 'absent on baseline: map_create' "$tmp/one/summary.txt"
check "report: summary.txt and summary.md have the variant comparison and its table" \
	grep -q 'kbench: variant rhash vs hash on patched' "$tmp/one/summary.txt" "$tmp/one/summary.md"
check "report: index.html has the n/a table and 'variant rhash vs hash on patched'" \
	grep -q 'variant rhash vs hash on patched' "$tmp/one/index.html"
check "report: index.html shows why a row is n/a" \
	grep -q '<tr class="na">.*absent on baseline: map_create' "$tmp/one/index.html"
