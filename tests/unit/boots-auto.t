#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BOOTS=auto (orchestrate/run.sh, adaptive.sh) without a guest: a copy of
# the tree whose launcher writes samples. Kernel "new" is 30 % slower
# at point n=1 (decided at 3 boots), 2 % slower at n=2 with boot offsets
# of +3 %, -3 %, 0 (undecided: pairs added for n=2 only, up to
# BOOTS_MAX) and the same at n=3. Then: the plan id lists the added
# boots and a resume adds nothing; a resume with another BOOTS_MAX is
# refused; an added boot lost is booted again on resume; the report
# takes the rule's verdicts; one kernel, and a BOOTS_MAX below 3, are
# refused.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
for c in parallel jq gnuplot "$top/build/analysis/kbstat"; do
	if ! command -v "$c" >/dev/null; then
		echo "1..1"
		echo "not ok 1 - $c is missing (make deps; make analysis-tools)"
		exit 1
	fi
done
echo "1..16"

tree=$tmp/tree
mkdir -p "$tree/build/bench" "$tree/build/analysis" "$tree/images" "$tree/bench" "$tree/guest"
cp -r "$top/orchestrate" "$top/scripts" "$top/workloads" "$top/analysis" "$tree/"
cp "$top/bench.conf" "$tree/"
cp "$top/build/analysis/kbstat" "$tree/build/analysis/"
rm -f "$tree/workloads/"*.wl
printf 'name = t\nbench = fake\nprimary = ns\nreps = 6\nwarmup = 1\nmatrix.vcpus = 1\nmatrix.n = 1 2 3\n' \
	>"$tree/workloads/t.wl"
printf '#!/bin/sh\nexit 0\n' >"$tree/build/bench/kbbench"
printf '#!/bin/sh\nexit 0\n' >"$tree/images/check-image.sh"
: >"$tree/bench/perfstat2csv.sh"
: >"$tree/guest/run.sh"
: >"$tree/guest/profile.sh"
: >"$tmp/image.qcow2"
for k in base new; do
	mkdir -p "$tmp/cache/kernels/$k" "$tmp/cache/labels"
	: >"$tmp/cache/kernels/$k/bzImage"
	echo "$k" >"$tmp/cache/kernels/$k/which"
	jq -n --arg l "$k" '{label: $l, key: $l, base_version: "stub", fragment_sha256: "f", compiler: "c",
		pahole: "p", patches: []}' >"$tmp/cache/kernels/$k/build-info.json"
	ln -sfn "$tmp/cache/kernels/$k" "$tmp/cache/labels/$k"
done
# The stand-in launcher: 6 samples of ns a point, 1000 (+0.01 % a
# sample); kernel new: x1.3 at n=1, x1.02 at n=2 with its boots offset
# +3 %, -3 %, 0, +3 %, ... (by boot number), x1 at n=3. It logs each
# boot's kernel, boot and points to $KB_STUB_LOG.
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
k=$(cat "$kdir/which")
printf '{"image": "%s", "accel": "tcg", "clock": "icount", "vcpus": 1, "qemu_version": "stub", "cmdline": "c", "qemu_cmdline": "q"}\n' "$IMAGE" >"$out/launch.json"
b=${out##*-b}
b=$((10#${b%%.*}))
echo workload,variant,point,metric,unit,better,clock,rep,value >"$out/results/raw/t.csv"
while IFS=$'\t' read -r wl _ variant point reps _; do
	f=1
	if [ "$k" = new ]; then
		case "$point" in
		*n=1) f=1.3 ;;
		*n=2) case $((b % 3)) in 1) f=1.0506 ;; 2) f=0.9894 ;; *) f=1.02 ;; esac ;;
		esac
	fi
	echo "$k b$b $point" >>"$KB_STUB_LOG"
	for r in $(seq 1 "$reps"); do
		echo "$wl,$variant,$point,ns,ns,lower,icount,$r,$(awk -v f="$f" -v r="$r" 'BEGIN { printf "%.3f", 1000 * f * (1 + r / 10000) }')" \
			>>"$out/results/raw/t.csv"
	done
done <"$payload/plan.tsv"
STUB
chmod +x "$tree/images/launch.sh" "$tree/images/check-image.sh" "$tree/build/bench/kbbench" \
	"$tree/orchestrate/"*.sh

run=$tmp/run
# go ENV...: run.sh on base and new into $run; exit status in rc, log in
# $tmp/go.log
go() {
	rc=0
	env KBENCH_CACHE="$tmp/cache" IMAGE="$tmp/image.qcow2" KB_STUB_LOG="$tmp/boots.log" \
		BOOTS=auto BOOTS_MAX=6 WORKLOADS= CLOCK= PROFILE=0 MODEL= BOOT_TIMEOUT= RETRIES=0 \
		BENCH_VCPUS= QUICK=0 MATRIX=full MEM= BOOT_JOBS=2 HOSTS= KB_TARGET=bench-compare "$@" \
		"$tree/orchestrate/run.sh" --run "$run" --kernel base=base --kernel new=new >"$tmp/go.log" 2>&1 || rc=$?
}
show() { tail -n 15 "$tmp/go.log" | sed 's/^/# /'; }
# booted KERNEL BOOT: the points booted for KERNEL in boot BOOT, sorted
booted() { awk -v k="$1" -v b="b$2" '$1 == k && $2 == b { print $3 }' "$tmp/boots.log" | sort | tr '\n' ' '; }
# rule POINT: the rule's verdict and boots for POINT's ns key
rule() { awk -F'\t' -v p="$1" '$5 == p && $6 == "ns" { print $7, $8 }' "$run/sequential.tsv"; }

go
is "BOOTS=auto BOOTS_MAX=6: the run completes" "$rc" 0
[ "$rc" = 0 ] || show
is "3 boots a kernel with every point, then pairs 4-6 with n=2 alone" \
	"$(booted base 3)| $(booted new 3)| $(booted base 4)| $(booted new 4)| $(booted new 6)| $(booted new 7)" \
	"vcpus=1;n=1 vcpus=1;n=2 vcpus=1;n=3 | vcpus=1;n=1 vcpus=1;n=2 vcpus=1;n=3 | vcpus=1;n=2 | vcpus=1;n=2 | vcpus=1;n=2 | "
is "the rule: n=1 worse and n=3 same at 3 boots, n=2 inconclusive at 6" \
	"$(rule 'vcpus=1;n=1') / $(rule 'vcpus=1;n=2') / $(rule 'vcpus=1;n=3')" "worse 3 / inconclusive 6 / same 3"
is "plan.id lists the three added boots, after the plan" \
	"$(grep '^added ' "$run/plan.id" | cut -f1 | tr '\n' ' ')" \
	"added boot 4: point t added boot 5: point t added boot 6: point t "
grep -q 'BOOTS_MAX=6 reached with 1 key(s) undecided' "$tmp/go.log" && r=0 || r=1
ok "$r" "... and the log says BOOTS_MAX was reached with one key undecided"

: >"$tmp/boots.log"
go
is "run again (RESUME): the plan is accepted and nothing is booted" "$rc $(grep -c . "$tmp/boots.log" || true)" "0 0"

go BOOTS_MAX=8
grep -q 'made with another plan' "$tmp/go.log" && r=0 || r=1
is "a resume with BOOTS_MAX=8 is refused: another plan" "$rc $r" "1 0"

rm -f "$run/raw/new/v1-b05/.done"
: >"$tmp/boots.log"
go
is "an added boot that is not complete is booted again on resume, with its one point" \
	"$rc $(tr '\n' ' ' <"$tmp/boots.log")" "0 new b5 vcpus=1;n=2 "

rc=0
env KBENCH_CACHE="$tmp/cache" KBSTAT="$tree/build/analysis/kbstat" BASE=base NEW_LABEL=new "$tree/analysis/report.sh" "$run" >"$tmp/report.log" 2>&1 || rc=$?
is "the report is written" "$rc" 0
[ "$rc" = 0 ] || tail -n 15 "$tmp/report.log" | sed 's/^/# /'
is "its results take the rule's verdicts for the primary keys" \
	"$(jq -r '[.results[] | select(.metric == "ns") | "\(.point)=\(.verdict)/\(.verdict_rule)"] | join(" ")' "$run/results.json" 2>&1)" \
	"vcpus=1;n=1=worse/sequential vcpus=1;n=2=inconclusive/sequential vcpus=1;n=3=same/sequential"

cp "$run/results.json" "$tmp/once.json"
"$tree/analysis/seq-verdicts.sh" "$run/results.json" "$run" >/dev/null 2>&1
cmp -s "$tmp/once.json" "$run/results.json" && r=0 || r=1
ok "$r" "seq-verdicts.sh applied twice changes nothing (regression-check applies it before the report does)"

# a variant one kernel lacks keeps its n/a, whatever the rule's file says
mkdir -p "$tmp/ab"
printf 'base\tnew\tworkload\tvariant\tpoint\tmetric\tverdict\tboots\tratio\tlo\thi\tlevel\nbase\tnew\tt\tx\tvcpus=1\tns\tinsufficient data\t0\t1\t1\t1\t0\n' >"$tmp/ab/sequential.tsv"
echo '{"base": "base", "new": "new", "results": [{"workload": "t", "variant": "x", "point": "vcpus=1", "metric": "ns", "verdict": "n/a", "absent": "base"}]}' >"$tmp/ab/r.json"
"$tree/analysis/seq-verdicts.sh" "$tmp/ab/r.json" "$tmp/ab" >/dev/null 2>&1
is "an absent variant's row keeps its verdict (n/a)" "$(jq -r '.results[0].verdict' "$tmp/ab/r.json")" "n/a"

# three kernels, as make regression-check runs: baseline, old, new
rm -rf "$run"
ln -sfn "$tmp/cache/kernels/base" "$tmp/cache/labels/old"
rc=0
env KBENCH_CACHE="$tmp/cache" IMAGE="$tmp/image.qcow2" KB_STUB_LOG="$tmp/boots.log" BOOTS=auto BOOTS_MAX=4 \
	WORKLOADS= CLOCK= PROFILE=0 MODEL= BOOT_TIMEOUT= RETRIES=0 BENCH_VCPUS= QUICK=0 MATRIX=full MEM= \
	BOOT_JOBS=2 HOSTS= "$tree/orchestrate/run.sh" --run "$run" --kernel base=base --kernel old=old \
	--kernel new=new >"$tmp/go.log" 2>&1 || rc=$?
is "three kernels: the run completes" "$rc" 0
[ "$rc" = 0 ] || show
is "... the rule judges base-old, base-new and old-new; n=2 gets pairs for all three kernels" \
	"$(cut -f1,2 "$run/sequential.tsv" | tail -n +2 | sort -u | tr '\t\n' '-,') $(find "$run/raw/old" -mindepth 1 -maxdepth 1 -printf "%f\n" | sort | tr '\n' ' ')" \
	"base-new,base-old,old-new, v1-b01 v1-b02 v1-b03 v1-b04 "

rm -rf "$run"
rc=0
env KBENCH_CACHE="$tmp/cache" IMAGE="$tmp/image.qcow2" BOOTS=auto BOOTS_MAX=6 WORKLOADS= CLOCK= PROFILE=0 \
	MODEL= BOOT_TIMEOUT= RETRIES=0 BENCH_VCPUS= QUICK=0 MATRIX=full MEM= BOOT_JOBS=1 HOSTS= \
	"$tree/orchestrate/run.sh" --run "$run" --kernel base=base >"$tmp/go.log" 2>&1 || rc=$?
grep -q 'BOOTS=auto decides between kernels: give two' "$tmp/go.log" && r=0 || r=1
is "BOOTS=auto with one kernel: refused, naming why" "$rc $r" "1 0"
go BOOTS_MAX=2
grep -q 'BOOTS_MAX must be 3 or more' "$tmp/go.log" && r=0 || r=1
is "BOOTS_MAX=2: refused" "$rc $r" "1 0"
exit "$fail"
