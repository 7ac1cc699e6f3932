#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# orchestrate/bisect.sh's decisions without a kernel build or a guest:
# a copy of the tree whose build.sh makes a stand-in kernel (its key from
# the real key.sh, its series.list) and whose launcher writes samples
# from the kernel's patches: KB_STUB_EFFECT="PATTERN:FACTOR ..." scales
# every sample of a kernel with a patch matching PATTERN, KB_STUB_NOISY
# gives such kernels boot offsets of +3 %, -3 % and 0. The fixture
# series of tests/fixtures/bisect is bisected: patch 5 (3 steps) and
# patch 1; nothing regressed; a prefix that does not build skipped and
# said, the answer still patch 5; one that does not boot and one that
# does not build, every candidate left skipped: the range; a step that
# stays inconclusive: the range and what would settle it, and with a
# larger BISECT_BOOTS a pair at a time up to it; NEW that does not
# build; a bad BISECT_BOOTS, WORKLOAD and POINT. make regression-check
# BISECT=1 (regress.sh) builds no kernel twice (a kernel is its content:
# prefix 8 is NEW's kernel) and its step 0 is the gate's boots of NEW
# and OLD; a gate whose plan is not step 0's is said on a line and
# booted again. The stand-in build keeps kernels by the real key.sh's
# key, as build.sh does, and lists what it builds in builds.tsv; the
# launcher lists every boot in boots.tsv.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
for c in parallel jq "$top/build/analysis/kbstat"; do
	if ! command -v "$c" >/dev/null; then
		echo "1..1"
		echo "not ok 1 - $c is missing (make deps; make analysis-tools)"
		exit 1
	fi
done
echo "1..27"

tree=$tmp/tree
mkdir -p "$tree/build/bench" "$tree/build/analysis" "$tree/images" "$tree/bench" "$tree/guest" \
	"$tree/kernel/scripts" "$tree/analysis"
cp -r "$top/orchestrate" "$top/scripts" "$top/workloads" "$tree/"
cp "$top/bench.conf" "$tree/"
cp "$top/kernel/scripts/series.sh" "$top/kernel/scripts/key.sh" "$top/kernel/scripts/build-cmds.sh" \
	"$tree/kernel/scripts/"
cp -r "$top/analysis/." "$tree/analysis/"
cp "$top/build/analysis/kbstat" "$tree/build/analysis/"
rm -f "$tree/workloads/"*.wl
printf 'name = t\nbench = fake\nprimary = ns\nreps = 6\nwarmup = 1\nmatrix.vcpus = 1\n' >"$tree/workloads/t.wl"
printf '#!/bin/sh\nexit 0\n' >"$tree/build/bench/kbbench"
printf '#!/bin/sh\nexit 0\n' >"$tree/images/check-image.sh"
: >"$tree/bench/perfstat2csv.sh"
: >"$tree/guest/run.sh"
: >"$tree/guest/profile.sh"
: >"$tmp/frag.config"
: >"$tmp/image.qcow2"
# The stand-in build: KB_STUB_NOBUILD="N ...": prefixes of N patches fail.
cat >"$tree/kernel/scripts/build.sh" <<'STUB'
#!/bin/bash
set -eu
here=$(dirname "$0")
w=$(mktemp -d)
"$here/series.sh" "$2" "$w" >"$w/list"
n=$(grep -c . "$w/list" || true)
case " ${KB_STUB_NOBUILD:-} " in *" $n "*) echo "stub: prefix $n does not build" >&2; exit 1 ;; esac
key=$("$here/key.sh" "$w/list")
d=$KBENCH_CACHE/kernels/$key
mkdir -p "$KBENCH_CACHE/labels"
if [ ! -f "$d/bzImage" ]; then
	mkdir -p "$d"
	: >"$d/bzImage"
	xargs -r -n 1 basename <"$w/list" >"$d/series.list"
	jq -n --arg k "$key" --rawfile p "$d/series.list" '{key: $k,
		base_version: "stub", fragment_sha256: "f", compiler: "c", pahole: "p",
		patches: ($p | split("\n") | map(select(. != "") | {sha256: ., subject: .}))}' >"$d/build-info.json"
	printf '%s\t%s\t%s\n' "$1" "$n" "$key" >>"$KBENCH_CACHE/builds.tsv"
fi
ln -sfn "$d" "$KBENCH_CACHE/labels/$1"
rm -rf "$w"
STUB
# The stand-in launcher: 6 samples of metric ns a boot, 1000 (+0.01 %
# per sample) times each KB_STUB_EFFECT factor whose pattern one of the
# kernel's patches matches; KB_STUB_NOISY=PATTERN: such a kernel's boots
# are offset by +3 %, -3 %, 0, +3 %, ...; KB_STUB_PANIC="N ...": kernels
# of N patches panic.
cat >"$tree/images/launch.sh" <<'STUB'
#!/bin/bash
set -eu
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kdir=$2; shift 2 ;;
	--payload) payload=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--extra-qemu) break ;;
	*) shift 2 ;;
	esac
done
mkdir -p "$out/results/raw"
n=$(grep -c . "$kdir/series.list" || true)
printf '%s\t%s\n' "$out" "$n" >>"$KBENCH_CACHE/boots.tsv"
printf '{"image": "%s", "accel": "tcg", "clock": "icount", "vcpus": 1, "qemu_version": "stub", "cmdline": "c", "qemu_cmdline": "q"}\n' "$IMAGE" >"$out/launch.json"
case " ${KB_STUB_PANIC:-} " in
*" $n "*) echo 'Kernel panic - not syncing: stub' >"$out/serial.log"; exit 4 ;;
esac
f=1
for e in ${KB_STUB_EFFECT:-}; do
	! grep -q "${e%%:*}" "$kdir/series.list" || f=$(awk -v a="$f" -v b="${e#*:}" 'BEGIN { print a * b }')
done
b=${out##*-b}
b=$((10#$b))
o=1
if [ -n "${KB_STUB_NOISY:-}" ] && grep -q "$KB_STUB_NOISY" "$kdir/series.list"; then
	case $((b % 3)) in 1) o=1.03 ;; 2) o=0.97 ;; esac
fi
while IFS=$'\t' read -r wl _ variant point reps _; do
	csv=$out/results/raw/$wl.csv
	[ -f "$csv" ] || echo workload,variant,point,metric,unit,better,clock,rep,value >"$csv"
	for r in $(seq 1 "$reps"); do
		echo "$wl,$variant,$point,ns,ns,lower,icount,$r,$(awk -v f="$f" -v o="$o" -v r="$r" 'BEGIN { printf "%.3f", 1000 * f * o * (1 + r / 10000) }')" \
			>>"$csv"
	done
done <"$payload/plan.tsv"
STUB
chmod +x "$tree/images/launch.sh" "$tree/images/check-image.sh" "$tree/build/bench/kbbench" \
	"$tree/kernel/scripts/"*.sh "$tree/orchestrate/"*.sh

fx=$top/tests/fixtures/bisect
# bis NAME SERIES ENV...: bisect.sh in the stub tree, 3 boots a side at
# most, with a kernel cache of its own (a kernel in the cache is used
# without a build, so KB_STUB_NOBUILD needs one that lacks it); its exit
# status in rc, its log in $tmp/NAME.log, the run in run
bis() {
	local name=$1 series=$2
	shift 2
	rc=0
	env KBENCH_CACHE="$tmp/cache-$name" IMAGE="$tmp/image.qcow2" HISTORY_DB="$tmp/history.sqlite" \
		KB_SRCVER=stub KB_CCVER=stub KB_PAHOLEVER=stub KCONFIG_FRAGMENT="$tmp/frag.config" \
		NEW="$series" GOOD=baseline WORKLOAD=t POINT= METRIC= VARIANT= BISECT_BOOTS=3 BISECT_GOOD=reuse \
		BOOTS=3 WORKLOADS= CLOCK= PROFILE=0 MODEL= BOOT_TIMEOUT= RETRIES=0 BENCH_VCPUS= QUICK=0 MEM= \
		BOOT_JOBS=2 DEBUG=0 "$@" "$tree/orchestrate/bisect.sh" >"$tmp/$name.log" 2>&1 || rc=$?
	run=$(sed -n 's/^kbench: \[[^]]*\] bisect log: \(.*\)\/bisect.log$/\1/p' "$tmp/$name.log" | tail -n 1)
}
# steps: the steps of the last run, "step:prefix:verdict ..."
steps() { awk -F'\t' 'NR > 1 { printf "%s%s:%s:%s", s, $1, $2, $14; s = " " }' "$run/bisect.tsv"; }
# said NAME REGEX: the log has a line matching REGEX
said() { grep -qE "$2" "$tmp/$1.log"; }
show() { tail -n 20 "$tmp/$1.log" | sed 's/^/# /'; }

bis p5 "$fx/slow5.series" KB_STUB_EFFECT=0005:1.3
is "patch 5 of 8: found in 3 steps, 8 worse, 4 same, 6 worse, 5 worse" "$rc $(steps)" \
	"0 0:8:worse 1:4:same 2:6:worse 3:5:worse"
said p5 '^first bad patch: 5/8, found in 3 step\(s\) after step 0$' && r=0 || r=1
ok "$r" "... named in the log with its subject and the ratio against GOOD and prefix 4"
[ "$r" = 0 ] || show p5

bis p1 "$fx/slow1.series" KB_STUB_EFFECT=0005:1.3
is "patch 1 of 3: found in 1 step, against prefix 0 (GOOD)" \
	"$rc $(steps) $(grep -c '^  against prefix 0 (GOOD):' "$tmp/p1.log")" "0 0:3:worse 1:1:worse 1"

bis none "$fx/none.series" KB_STUB_EFFECT=0005:1.3
is "no slowdown: step 0 alone, same, exit 0" "$rc $(steps)" "0 0:4:same"
said none '^nothing regressed' && r=0 || r=1
ok "$r" "... and the log says nothing regressed"

bis nobuild "$fx/slow5.series" KB_STUB_EFFECT=0005:1.3 KB_STUB_NOBUILD=6
is "prefix 6 does not build: skipped, patch 5 still found" "$rc $(steps)" \
	"0 0:8:worse 1:4:same 2:6:skip (does not build) 3:5:worse"
said nobuild '^skipped: prefix 6: lib/cmdline' && said nobuild '^first bad patch: 5/8' && r=0 || r=1
ok "$r" "... the log lists the skipped prefix and names patch 5"

# 6 does not build, 5 panics: 7 is bad, and 5-7 is all that is known
bis skips "$fx/slow5.series" KB_STUB_EFFECT=0005:1.3 KB_STUB_NOBUILD=6 KB_STUB_PANIC=5
is "prefix 5 does not boot and 6 does not build: both skipped, 7 worse, exit 1" "$rc $(steps)" \
	"1 0:8:worse 1:4:same 2:6:skip (does not build) 3:5:skip (does not boot) 4:7:worse"
said skips '^the first bad patch is one of 5-7: the prefixes between were skipped$' && r=0 || r=1
ok "$r" "... the log gives the range 5-7"
[ "$r" = 0 ] || show skips

# patch 7 slows by 30 %, patch 5 by 2 % with boot offsets of 3 %: prefix
# 6 cannot be decided with 3 boots a side
bis undecided "$fx/slow5.series" KB_STUB_EFFECT="0005:1.02 0007:1.3" KB_STUB_NOISY=0005
is "a step inconclusive at BISECT_BOOTS=3: exit 1, steps 8 worse, 4 same, 6 inconclusive" "$rc $(steps)" \
	"1 0:8:worse 1:4:same 2:6:inconclusive"
said undecided '^undecided: the first bad patch is one of 5-8; step 2 stayed$' &&
	said undecided 'BISECT_BOOTS=[0-9]+' && r=0 || r=1
ok "$r" "... the log gives the range 5-8 and the BISECT_BOOTS that would settle it"
[ "$r" = 0 ] || show undecided

bis more "$fx/slow5.series" KB_STUB_EFFECT="0005:1.02 0007:1.3" KB_STUB_NOISY=0005 BISECT_BOOTS=5
is "with BISECT_BOOTS=5 that step gets a pair at a time, to 5 boots a side, still inconclusive" \
	"$(awk -F'\t' 'NR > 1 && $2 == 6 { print $4 "+" $5, $14 }' "$run/bisect.tsv")" "5+5 inconclusive"

bis badnew "$fx/slow5.series" KB_STUB_NOBUILD=8
said badnew 'error: NEW=.* does not build as a whole' && [ "$rc" = 1 ] && r=0 || r=1
ok "$r" "NEW that does not build: an error naming NEW"

bis badboots "$fx/slow5.series" BISECT_BOOTS=2
said badboots 'error: BISECT_BOOTS must be a number of boots a side, 3 or more' && r=0 || r=1
ok "$r" "BISECT_BOOTS=2: refused, saying 3 is the least"

bis badwl "$fx/slow5.series" WORKLOAD=nosuch
said badwl 'error: WORKLOAD=nosuch: no .*nosuch.wl \(have: t.wl' && r=0 || r=1
ok "$r" "an unknown WORKLOAD: refused, listing the workloads"

# MATRIX=claims reads claims.matrix.*: the narrowed file must hold the
# target point there too, or every claims point is booted again
# (u: a second parameter whose default points differ; only for this test)
printf 'name = u\nbench = fake\nprimary = ns\nreps = 6\nwarmup = 1\nmatrix.vcpus = 1\nmatrix.size = 1 2 3\nquick.matrix.size = 1\nclaims.matrix.size = 1 3\n' >"$tree/workloads/u.wl"
bis claims "$fx/slow5.series" WORKLOAD=u POINT="vcpus=1;size=3" MATRIX=claims KB_STUB_EFFECT=0005:1.3
pts=$(find "$run" -name u.csv -path '*raw*' -exec cut -d, -f3 {} + 2>/dev/null | grep -v "^point$" | sort -u | paste -sd" " -) || true
rm "$tree/workloads/u.wl"
is "MATRIX=claims: bisect boots only the target point (size=3), not every claims point" "$rc $pts" "0 vcpus=1;size=3"
[ "$rc $pts" = "0 vcpus=1;size=3" ] || show claims

bis badpoint "$fx/slow5.series" POINT="vcpus=1;size=3"
said badpoint "error: POINT='vcpus=1;size=3': workload t has no parameter 'size'" && r=0 || r=1
ok "$r" "a POINT with a parameter the workload lacks: refused, naming it"

# make regression-check BISECT=1: NEW (patches 1-8) against OLD (1-4)
# fails the gate, and the bisect runs against OLD from patch 5 on; in a
# cache of its own, to count the builds (the baseline built first, as
# make regression-check's prerequisites do)
rcache=$tmp/cache-rc
# regression NAME ENV...: regress.sh BISECT=1 in the stub tree, into
# $rcache; its exit status in rc, its log in $tmp/NAME.log, the bisect
# run in run
regression() {
	local name=$1
	shift
	rc=0
	env KBENCH_CACHE="$rcache" IMAGE="$tmp/image.qcow2" HISTORY_DB="$tmp/history.sqlite" \
		KB_SRCVER=stub KB_CCVER=stub KB_PAHOLEVER=stub KCONFIG_FRAGMENT="$tmp/frag.config" \
		NEW="$fx/slow5.series" OLD="$fx/none.series" SERIES="$fx/slow1.series" REF= BISECT=1 \
		GOOD=baseline WORKLOAD= POINT= METRIC= VARIANT= BISECT_BOOTS=3 BISECT_GOOD=reuse \
		KB_STUB_EFFECT=0005:1.3 BOOTS=3 WORKLOADS= CLOCK= PROFILE=0 MODEL= BOOT_TIMEOUT= RETRIES=0 \
		BENCH_VCPUS= QUICK=0 MEM= BOOT_JOBS=2 DEBUG=0 HISTORY=0 KBSTAT="$tree/build/analysis/kbstat" \
		"$@" "$tree/orchestrate/regress.sh" >"$tmp/$name.log" 2>&1 || rc=$?
	run=$(sed -n 's/^kbench: \[[^]]*\] bisect log: \(.*\)\/bisect.log$/\1/p' "$tmp/$name.log" | tail -n 1)
}
KBENCH_CACHE=$rcache KB_SRCVER=stub KB_CCVER=stub KB_PAHOLEVER=stub KCONFIG_FRAGMENT="$tmp/frag.config" \
	DEBUG=0 "$tree/kernel/scripts/build.sh" baseline none
regression rc
is "regression-check BISECT=1: exits 1 (the gate), bisects from patch 5 against OLD: 8, 6, 5 worse" \
	"$rc $(steps 2>/dev/null)" "1 0:8:worse 1:6:worse 2:5:worse"
said rc '^first bad patch: 5/8, found in 2 step\(s\) after step 0$' && said rc '^GOOD: +GOOD=.*none.series \(4 patches\)' &&
	said rc '^key k1: t/default vcpus=1 ns$' && r=0 || r=1
ok "$r" "... names patch 5, GOOD being OLD, on the gate's worse row"
[ "$r" = 0 ] || show rc
rrun=$(sed -n 's/^kbench: \[[^]]*\] report: wrote \(.*\)\/index.html, .*/\1/p' "$tmp/rc.log" | tail -n 1)
grep -q '^  first bad patch: 5/8' "$rrun/summary.txt" 2>/dev/null &&
	grep -q '^REGRESSION' "$rrun/summary.txt" && grep -q 'id="bisect"' "$rrun/index.html" && r=0 || r=1
ok "$r" "... and the regression report leads with the gate, then the bisect log (summary.txt, index.html)"

# Built once: the kernels built are the baseline, OLD, NEW and the two
# prefixes between; prefix 8 is NEW's kernel (one content, one key,
# whatever the label), used without a build
is "regression-check BISECT=1 builds baseline, OLD, NEW, prefixes 6 and 5, each once (no prefix 8)" \
	"$(cut -f1,2 "$rcache/builds.tsv" 2>/dev/null | tr '\t\n' ': ')" "baseline:0 old:4 new:8 bisect-perf:6 bisect-perf:5 "
said rc '^kbench: \[[^]]*\] prefix 8/8: kernel [0-9a-f]{12} exists \(labels: .*\bnew\b.*\): no build$' && r=0 || r=1
ok "$r" "... and the bisect says prefix 8 is the kernel labelled new, not built"
[ "$r" = 0 ] || grep -n 'prefix 8\|kernel ' "$tmp/rc.log" | sed 's/^/# /' || true

# Booted once: step 0 is the gate's 3 + 3 boots of NEW and OLD (the same
# plan); the bisect boots prefixes 6 and 5 only (GOOD reused)
gate_run=$(sed -n 's/^kbench: \[[^]]*\] report: wrote \(.*\)\/index.html, .*/\1/p' "$tmp/rc.log" | head -n 1)
is "step 0 boots nothing: 9 gate boots, then 3 of prefix 6 and 3 of prefix 5" \
	"$(grep -c "^$gate_run/" "$rcache/boots.tsv") $(grep -c '/steps/00-' "$rcache/boots.tsv") $(grep -c '/steps/01-p6/' "$rcache/boots.tsv") $(grep -c '/steps/02-p5/' "$rcache/boots.tsv")" \
	"9 0 3 3"
is "... bisect.tsv says step 0's boots came from the gate, 3 + 3" \
	"$(awk -F'\t' 'NR > 1 && $1 == 0 { print $4 "+" $5, $15 }' "$run/bisect.tsv")" "3+3 gate"
said rc "^kbench: \[[^]]*\] step 0: NEW's and OLD's boots are the gate's \($gate_run, 3 \+ 3 boots, the same plan\): none booted$" &&
	said rc "^       step 0's boots: the gate's \($gate_run\)$" && r=0 || r=1
ok "$r" "... and the bisect says so, on the terminal and in its log"

# Another plan: the gate booted 4 times a kernel, step 0 first boots 3:
# a line says why, and step 0 boots NEW and OLD (nothing is built: every
# kernel is in the cache)
: >"$rcache/builds.tsv"
: >"$rcache/boots.tsv"
regression rc4 BOOTS=4
said rc4 "^kbench: \[[^]]*\] step 0: the gate's boots of NEW and OLD are not reused: it booted each kernel 4 times \(BOOTS=\), step 0 boots 3 first; booting them$" && r=0 || r=1
ok "$r" "a gate of another plan (BOOTS=4): a line says why its boots are not step 0's"
[ "$r" = 0 ] || grep -n 'step 0' "$tmp/rc4.log" | sed 's/^/# /' || true
is "... step 0 boots NEW and OLD 3 times each, and no kernel is built" \
	"$(grep -c '/steps/00-p8/' "$rcache/boots.tsv") $(awk -F'\t' 'NR > 1 && $1 == 0 { print $15 }' "$run/bisect.tsv") $(grep -c . "$rcache/builds.tsv")" \
	"6 - 0"

exit "$fail"
