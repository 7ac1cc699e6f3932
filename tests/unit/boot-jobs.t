#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# orchestrate/run.sh hands its boots (orchestrate/boot-unit.sh, one unit
# each) to GNU parallel, BOOT_JOBS at a time. On the host, with a copy of
# the tree whose launcher is a stub (one CSV row per sample, values from
# the plan alone, a stand-in QEMU that sleeps): the same raw rows, .done
# markers and plan.id with 1 and 2 jobs; 2 boots really side by side,
# started in the A B A B order; BOOT_JOBS=auto and the wall clock; the
# estimate divided by the jobs; a failed launch retried by parallel
# (RETRIES) with its attempt directory and failed-boots.tsv row, whole
# rows when boots fail side by side; SIGTERM during 2 boots: both
# stand-in QEMUs stopped, nothing of either boot left, and a resume
# that runs only what is missing. boot-unit.sh takes named options only:
# units.tsv's columns become them, an empty optional cell (--disks,
# --model) is left out, a disk list with a space reaches the launcher
# whole, and a missing, unknown or positional argument is an error
# naming it (exit 2).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
if ! command -v parallel >/dev/null; then
	echo "1..1"
	echo "not ok 1 - GNU parallel is not installed (make deps installs it)"
	exit 1
fi
echo "1..66"

tree=$tmp/tree
mkdir -p "$tree/build/bench" "$tree/images" "$tree/bench" "$tree/guest" "$tree/model"
cp -r "$top/orchestrate" "$top/scripts" "$top/workloads" "$tree/"
cp "$top/bench.conf" "$tree/"
rm -f "$tree/workloads/"*.wl
printf 'name = t\nbench = fake\nreps = 3\nwarmup = 1\nmatrix.n = 1 2\nmatrix.vcpus = 1 2\n' >"$tree/workloads/t.wl"
printf '#!/bin/sh\nexit 0\n' >"$tree/build/bench/kbbench"
printf '#!/bin/sh\nexit 0\n' >"$tree/images/check-image.sh"
: >"$tree/bench/perfstat2csv.sh"
: >"$tree/guest/run.sh"
: >"$tree/guest/profile.sh"
# The stub launcher. KB_STUB_SLEEP: seconds its stand-in QEMU runs;
# KB_STUB_FAIL="NAME/BOOT ...": those boots panic (exit 4) on their first
# attempt (KB_STUB_FAIL_ALL=1: on every attempt); KB_STUB_NORAW="NAME/BOOT
# ...": those return no raw/ results. It logs start and end
# (seconds.nanoseconds) to KB_STUB_LOG and the stand-in's pid to
# KB_STUB_PIDS; on SIGTERM it stops the stand-in, as launch.sh stops QEMU.
# Its --extra-qemu arguments go to OUT/extra-qemu, one a line.
cat >"$tree/images/launch.sh" <<'STUB'
#!/bin/bash
set -eu
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--payload) payload=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--extra-qemu) shift; extra=("$@"); break ;;
	*) shift 2 ;;
	esac
done
k=$(basename "$(dirname "$out")")/$(basename "$out")
mkdir -p "$out/results/raw"
printf '%s\n' ${extra[@]+"${extra[@]}"} >"$out/extra-qemu"
echo "start $k $(date +%s.%N)" >>"$KB_STUB_LOG"
sleep "${KB_STUB_SLEEP:-0}" &
q=$!
echo "$q" >>"$KB_STUB_PIDS"
trap 'kill "$q" 2>/dev/null; wait "$q" 2>/dev/null; exit 130' TERM INT
wait "$q"
echo "end $k $(date +%s.%N)" >>"$KB_STUB_LOG"
case " ${KB_STUB_FAIL:-} " in
*" $k "*)
	if [ "${KB_STUB_FAIL_ALL:-0}" = 1 ] || [ ! -e "$out.attempt0" ]; then
		echo 'Kernel panic - not syncing: stub' >"$out/serial.log"
		exit 4
	fi ;;
esac
case " ${KB_STUB_NORAW:-} " in *" $k "*) rm -rf "$out/results/raw"; exit 0 ;; esac
echo workload,variant,point,metric,unit,better,clock,rep,value >"$out/results/raw/t.csv"
i=0
while IFS=$'\t' read -r wl _ variant point reps _; do
	for r in $(seq 1 "$reps"); do
		i=$((i + 1))
		echo "$wl,$variant,$point,ns,ns,lower,icount,$r,$((100 + i))" >>"$out/results/raw/t.csv"
	done
done <"$payload/plan.tsv"
printf '{"image": "%s", "accel": "tcg", "clock": "icount", "vcpus": 1, "qemu_version": "stub", "cmdline": "c", "qemu_cmdline": "q"}\n' "$IMAGE" >"$out/launch.json"
STUB
chmod +x "$tree/images/launch.sh" "$tree/images/check-image.sh" "$tree/build/bench/kbbench" "$tree/orchestrate/"*.sh
for k in ka kb; do
	mkdir -p "$tmp/cache/labels/$k"
	: >"$tmp/cache/labels/$k/bzImage"
	echo '{}' >"$tmp/cache/labels/$k/build-info.json"
done
: >"$tmp/image.qcow2"
# brun DIR ENV...: run.sh on kernels a and b (BOOTS=2, vcpus 1 and 2: 8
# boots) with the stub launcher; its output in DIR.log
brun() {
	local d=$1
	shift
	${KB_EXEC:+exec} env KBENCH_CACHE="$tmp/cache" IMAGE="$tmp/image.qcow2" KB_STUB_LOG="$tmp/$d.stub" \
		KB_STUB_PIDS="$tmp/$d.pids" BOOTS=2 WORKLOADS= CLOCK= PROFILE=0 MODEL= BOOT_TIMEOUT= \
		RETRIES=0 BENCH_VCPUS= QUICK=0 MEM= "$@" \
		"$tree/orchestrate/run.sh" --run "$tmp/$d" --kernel a=ka --kernel b=kb >"$tmp/$d.log" 2>&1
}
# rows DIR: every raw row of the run, with its kernel and boot
rows() { (cd "$tmp/$1/raw" && grep -r . --include='*.csv' | sort); }
# overlap LOG: most stand-in QEMUs running at once
overlap() {
	awk '{ print $3, ($1 == "start" ? 1 : -1) }' "$1" | sort -n |
		awk '{ c += $2; if (c > m) m = c } END { print m + 0 }'
}
# alive PIDFILE: the stand-in QEMUs of PIDFILE still running
alive() {
	local p a=''
	while read -r p; do
		! kill -0 "$p" 2>/dev/null || a="$a $p"
	done <"$1"
	echo "${a# }"
}

check_rc() {
	local desc=$1 want=$2 rc=0
	shift 2
	"$@" || rc=$?
	if [ "$rc" = "$want" ]; then ok 0 "$desc"; else
		ok 1 "$desc (exit $rc, wanted $want)"
		sed 's/^/# /' "$tmp/$2.log" 2>/dev/null | tail -n 20 || true
	fi
}

# 1. one job and two jobs: the same results
check_rc "BOOT_JOBS=1: run.sh completes" 0 brun j1 BOOT_JOBS=1 KB_STUB_SLEEP=1
check_rc "BOOT_JOBS=2: run.sh completes" 0 brun j2 BOOT_JOBS=2 KB_STUB_SLEEP=2
t "... the same raw rows in the same files (kernel, boot, workload)" diff <(rows j1) <(rows j2)
is "... every boot complete once (8 .done) with 1 job" "$(find "$tmp/j1/raw" -name .done | wc -l)" 8
is "... and with 2 jobs" "$(find "$tmp/j2/raw" -name .done | wc -l)" 8
t "... the same plan.id (BOOT_JOBS is not part of the plan)" cmp "$tmp/j1/plan.id" "$tmp/j2/plan.id"
is "1 job: one stand-in QEMU at a time" "$(overlap "$tmp/j1.stub")" 1
is "2 jobs: two side by side" "$(overlap "$tmp/j2.stub")" 2
order="a/v1-b01 b/v1-b01 a/v1-b02 b/v1-b02 a/v2-b01 b/v2-b01 a/v2-b02 b/v2-b02"
is "2 jobs: the units' list, RUN/units.tsv, in the interleaved order A B A B" \
	"$(awk -F '\t' '{ printf "%s%s/%s", s, $2, $6; s = " " }' "$tmp/j2/units.tsv")" "$order"
is "... parallel started them in that order (its joblog's start times)" \
	"$(awk -F '\t' 'NR > 1 { print $3, $1 }' "$tmp/j2/boots.joblog" | sort -n | awk '{ printf "%s%s", s, $2; s = " " }')" "1 2 3 4 5 6 7 8"
is "... and the boot lines number them 1 to 8 in it" \
	"$(sed -n 's/.*boot \([0-9]*\)\/8: \([a-z]*\) (k[ab]) vcpus=\([0-9]\) boot \([0-9]\)\/2 .*/\1 \2\/v\3-b0\4/p' "$tmp/j2.log" |
		sort -n | awk '{ printf "%s%s", s, $2; s = " " }')" "$order"
t "the joblog is kept in the run directory: 8 units, exit 0" \
	test "$(awk -F '\t' 'NR > 1 && $7 == 0' "$tmp/j2/boots.joblog" | wc -l)" = 8
t "the run log says 2 boots at a time" grep -q 'boots: BOOT_JOBS=2 at a time' "$tmp/j2.log"
t "no boot has run yet: a first guess for each vCPU count (30 s + 6 s a vCPU)" \
	bash -c "grep -q 'plan: vcpus=1: 4 boots (a b), about 0m36s each (a first guess: no boot has run yet' '$tmp/j1.log' &&
		grep -q 'plan: vcpus=2: 4 boots (a b), about 0m42s each (a first guess' '$tmp/j1.log'"

# 2. auto, the wall clock, a bad value
check_rc "BOOT_JOBS=auto under icount" 0 brun auto BOOT_JOBS=auto
want=$(($(nproc) < 2 ? $(nproc) : 2))
grep -q "boots: BOOT_JOBS=auto: [0-9]* at a time (icount: $(nproc) core(s), one per guest; memory for [0-9]* guest(s) of 2048 MB" "$tmp/auto.log" &&
	n_auto=$(sed -n 's/.*BOOT_JOBS=auto: \([0-9]*\) at a time.*/\1/p' "$tmp/auto.log") && [ "$n_auto" -ge "$want" ] &&
	[ "$n_auto" -le "$(nproc)" ] && r=0 || r=1
ok "$r" "... one per core as memory allows, and the log says why (${n_auto:-none})"
check_rc "BOOT_JOBS=auto under CLOCK=wall" 0 brun wall BOOT_JOBS=auto CLOCK=wall
t "... one at a time, and the log says why" \
	grep -q "boots: BOOT_JOBS=auto: 1 at a time (the wall clock (vcpus 1 2): guests side by side would disturb" "$tmp/wall.log"
is "... one stand-in QEMU at a time" "$(overlap "$tmp/wall.stub")" 1
check_rc "BOOT_JOBS=2 under CLOCK=wall: as given, with a warning" 0 brun wall2 BOOT_JOBS=2 CLOCK=wall
t "... the warning names the wall clock" grep -q 'BOOT_JOBS=2 at a time, as given, although vcpus 1 2 run under the wall clock' "$tmp/wall2.log"
check_rc "BOOT_JOBS=x is refused" 1 brun bad BOOT_JOBS=x
t "... naming it, before the run directory is made" \
	bash -c "grep -q \"BOOT_JOBS must be auto or a positive number (boots side by side), not 'x'\" '$tmp/bad.log' && test ! -e '$tmp/bad'"
printf 'BOOT_JOBS = 2\n' >"$tmp/local.conf"
t "bench.local.conf may set BOOT_JOBS (check-conf.sh)" "$top/scripts/check-conf.sh" "$top/bench.conf" "$tmp/local.conf"

# 3. the estimate: earlier boots of 100 s at each size, 8 boots, 2 jobs
printf '1\t100\t/old\n2\t100\t/old\n' >"$tmp/cache/boot-times.tsv"
check_rc "with earlier boot times" 0 brun eta BOOT_JOBS=2
t "... the plan's total is divided by the jobs (800 s / 2)" grep -q 'plan: estimated total 6m40s, 2 boots at a time$' "$tmp/eta.log"
t "... and the first boot's line too" grep -q 'boot 1/8: a (ka) .* 6m40s left (estimated, 2 boots at a time)' "$tmp/eta.log"
printf '1\t100\t/old\n' >"$tmp/cache/boot-times.tsv"
check_rc "with earlier boot times at 1 vCPU only" 0 brun scaled BOOT_JOBS=2
t "... 2 vCPUs scaled from them: 100 s x (30 + 12) / (30 + 6)" \
	grep -q 'plan: vcpus=2: 4 boots (a b), about 1m56s each (scaled from earlier boots at 1 vCPUs)' "$tmp/scaled.log"
t "... and the total says it is partly guessed" \
	grep -q 'plan: estimated total 7m12s, 2 boots at a time (partly guessed; corrected as boots end)' "$tmp/scaled.log"
# per kernel and plan: the boots of this plan (its signature) count first
sig=$(bash -c '. "$1"; plan_sig <"$2"' _ "$top/orchestrate/boot-time.sh" "$tmp/j1/payload/v1/plan.tsv")
printf '1\t200\t/old\ta\t%s\n1\t100\t/old\tb\t%s\n1\t999\t/old\ta\tother\n2\t100\t/old\n' "$sig" "$sig" \
	>"$tmp/cache/boot-times.tsv"
check_rc "with earlier boots of this plan per kernel" 0 brun perkernel BOOT_JOBS=2
t "... each kernel's own time, from the boots of this plan only" \
	grep -q 'plan: vcpus=1: 4 boots (a b), about a 3m20s, b 1m40s each (earlier runs of this plan)' "$tmp/perkernel.log"
is "... a boot records its kernel and its plan's signature" \
	"$(awk -F '\t' -v r="$tmp/perkernel" '$3 == r && $1 == 1 { print $4, $5 }' "$tmp/cache/boot-times.tsv" | sort -u | tr '\n' ' ')" \
	"a $sig b $sig "
is "... the vCPU count with the longest boots goes first (1: 3m20s)" \
	"$(cut -f6 "$tmp/perkernel/units.tsv" | tr '\n' ' ')" "v1-b01 v1-b01 v1-b02 v1-b02 v2-b01 v2-b01 v2-b02 v2-b02 "
printf '1\t100\t/old\n2\t300\t/old\n' >"$tmp/cache/boot-times.tsv"
check_rc "with longer boots at 2 vCPUs" 0 brun longfirst BOOT_JOBS=2
is "... their boots go first, still A B A B" \
	"$(awk -F '\t' '{ printf "%s/%s ", $2, $6 }' "$tmp/longfirst/units.tsv")" \
	"a/v2-b01 b/v2-b01 a/v2-b02 b/v2-b02 a/v1-b01 b/v1-b01 a/v1-b02 b/v1-b02 "
# the reference host's table (orchestrate/boot-times.ref.tsv) for a
# plan this cache has not run
mkdir -p "$tmp/bt"
cp "$top/orchestrate/boot-time.sh" "$tmp/bt/"
printf '8\t300\tref\tpatched\tabc\n8\t100\tref\tpatched\txyz\n' >"$tmp/bt/boot-times.ref.tsv"
printf '8\t50\t/old\n' >"$tmp/cache/bt.tsv"
is "a plan not run here: the reference host's boots of it" \
	"$(KBENCH_CACHE=$tmp/cache bash -c '. "$1"; boot_time 8 "" patched abc' _ "$tmp/bt/boot-time.sh")" "300 reference"
is "... and without one: earlier boots of other plans" \
	"$(KBENCH_CACHE=$tmp/cache bash -c 'cp "$KBENCH_CACHE/bt.tsv" "$KBENCH_CACHE/boot-times.tsv"; . "$1"; boot_time 8 "" patched nope' _ "$tmp/bt/boot-time.sh")" \
	"50 earlier-any"
rm -f "$tmp/cache/boot-times.tsv"

# 4. failed launches: retried by parallel, recorded whole
check_rc "RETRIES=1, one boot panics on its first attempt: run.sh completes" 0 \
	brun retry BOOT_JOBS=2 RETRIES=1 KB_STUB_FAIL="b/v1-b01"
t "... failed-boots.tsv lists attempt 0 with its reason and serial log, and nothing else" \
	test "$(tail -n +2 "$tmp/retry/failed-boots.tsv")" = "$(printf 'b\tv1-b01\t1\t0\t4\tkernel panic\t%s' "$tmp/retry/boots/b/v1-b01.attempt0/serial.log")"
t "... attempt 0 keeps its directory; the retry completed the boot" \
	test -f "$tmp/retry/boots/b/v1-b01.attempt0/serial.log" -a -f "$tmp/retry/raw/b/v1-b01/.done"
t "... the log names the failed attempt, which parallel does not print for a job it retries" \
	grep -q "boot b v1-b01 FAILED: kernel panic (launch.sh exit 4); serial log: .*/b/v1-b01.attempt0/serial.log; attempt 1 of 2" "$tmp/retry.log"
check_rc "the 4 boots at 1 vCPU panic, RETRIES=0, 2 jobs: run.sh completes" 0 \
	brun fail4 BOOT_JOBS=2 KB_STUB_FAIL="a/v1-b01 b/v1-b01 a/v1-b02 b/v1-b02" KB_STUB_FAIL_ALL=1
t "... 4 whole rows of 7 fields in failed-boots.tsv, one per boot" \
	test "$(awk -F '\t' 'NR > 1 && NF == 7 && $6 == "kernel panic"' "$tmp/fail4/failed-boots.tsv" | cut -f1,2 | sort -u | wc -l)" = 4 -a \
	"$(wc -l <"$tmp/fail4/failed-boots.tsv")" = 5
t "... the run says so; the other 4 boots are complete" \
	bash -c "grep -q '4 boot(s) failed; the statistics use the complete boots only' '$tmp/fail4.log' && test \"\$(find '$tmp/fail4/raw' -name .done | wc -l)\" = 4"

# a boot whose unit ends with an error: the others go on, the run fails
check_rc "one boot returns no raw/ results: run.sh exits 1" 1 brun noraw BOOT_JOBS=2 KB_STUB_NORAW="b/v1-b02"
t "... after the other boots, naming that boot and the joblog" \
	bash -c "grep -q 'boot b v1-b02 returned no raw/ results' '$tmp/noraw.log' &&
		grep -q '1 boot(s) ended with an error (above): b v1-b02 (parallel exit 0; its log: $tmp/noraw/boots.joblog)' '$tmp/noraw.log' &&
		test \"\$(find '$tmp/noraw/raw' -name .done | wc -l)\" = 7"

# 5. SIGTERM while two boots run
# exec: the signal goes to run.sh itself, not to a subshell around it
KB_EXEC=1 brun term BOOT_JOBS=2 KB_STUB_SLEEP=300 &
pid=$!
for _ in $(seq 1 300); do
	[ -f "$tmp/term.pids" ] && [ "$(wc -l <"$tmp/term.pids")" -ge 2 ] && break
	sleep 0.2
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
is "SIGTERM during two boots: run.sh exits 143" "$rc" 143
t "... both boots say they were cut short" \
	bash -c "grep -q 'interrupted in a v1-b01 (boot 1/8): QEMU stopped' '$tmp/term.log' && grep -q 'interrupted in b v1-b01 (boot 2/8): QEMU stopped' '$tmp/term.log'"
is "... no stand-in QEMU left" "$(alive "$tmp/term.pids")" ""
t "... nothing of either boot left, no boot started after them" \
	test -z "$(ls -A "$tmp/term/raw" 2>/dev/null)" -a ! -e "$tmp/term/boots/a/v1-b01" -a ! -e "$tmp/term/boots/b/v1-b01" -a \
	"$(wc -l <"$tmp/term.pids")" = 2
check_rc "... resumed with BOOT_JOBS=1: completes" 0 brun term BOOT_JOBS=1 KB_STUB_SLEEP=0
t "... every boot complete, the same rows as an uninterrupted run" \
	bash -c "test \"\$(find '$tmp/term/raw' -name .done | wc -l)\" = 8 && diff <(cd '$tmp/j1/raw' && grep -r . --include='*.csv' | sort) <(cd '$tmp/term/raw' && grep -r . --include='*.csv' | sort)"

# 6. boot-unit.sh's options: from units.tsv's columns, the optional ones
# left out when empty
t "units.tsv: 13 columns a line, the optional ones (--disks, --model) empty here" \
	test "$(awk -F '\t' 'NF != 13 || $12 != "" || $13 != ""' "$tmp/j2/units.tsv" | wc -l)" = 0 -a \
	"$(wc -l <"$tmp/j2/units.tsv")" = 8
is "... parallel called boot-unit.sh with named options, in units.tsv's order; no --disks or --model" \
	"$(awk -F '\t' 'NR > 1 { sub(/.*boot-unit\.sh /, "", $9); print $9 }' "$tmp/j2/boots.joblog" |
		sed 's/ [^ -][^ ]*//g' | sort -u)" \
	"--unit --name --label --kernel --vcpus --boot --payload --mem --timeout --clock --attempt0"
printf 'name = d\nbench = fake\nreps = 1\nwarmup = 0\nmatrix.n = 1\nmatrix.vcpus = 2\ndisks = virtio-blk virtio-blk,queues=vcpus\n' \
	>"$tree/workloads/d.wl"
check_rc "a workload with two disks, one queue per vCPU on the second: run.sh completes" 0 \
	brun disks BOOT_JOBS=2 BOOTS=1 WORKLOADS=d
rm -f "$tree/workloads/d.wl"
is "... units.tsv's --disks column holds the list, --model's is empty" \
	"$(awk -F '\t' '{ printf "%s|%s|%s;", NF, $12, $13 }' "$tmp/disks/units.tsv")" \
	"13|virtio-blk virtio-blk,queues=vcpus|;13|virtio-blk virtio-blk,queues=vcpus|;"
t "... parallel gave boot-unit.sh --disks with that list as one value" \
	test "$(grep -c -- "--attempt0 0 --disks 'virtio-blk virtio-blk,queues=vcpus'$" "$tmp/disks/boots.joblog")" = 2
is "... and the launcher got both disks, the second with 2 queues" \
	"$(grep '^virtio-blk-pci' "$tmp/disks/boots/b/v2-b01/extra-qemu" | sed 's/,drive=kbdisk[0-9]//' | tr '\n' ' ')" \
	"virtio-blk-pci virtio-blk-pci,num-queues=2 "

# uerr DESC WANT ARGS...: boot-unit.sh ARGS exits 2 with one error line,
# "kbench: error: boot-unit.sh: WANT", before it looks at the run
uerr() {
	local desc=$1 want=$2 rc=0
	shift 2
	env -u KB_RUN "$tree/orchestrate/boot-unit.sh" "$@" >"$tmp/uerr.out" 2>&1 || rc=$?
	if [ "$rc" = 2 ] && [ "$(cat "$tmp/uerr.out")" = "kbench: error: boot-unit.sh: $want" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc (exit $rc, wanted 2)"
		diag "got: $(cat "$tmp/uerr.out")" "want: kbench: error: boot-unit.sh: $want"
	fi
}
uo=(--unit 1 --name a --label ka --kernel "$tmp/cache/labels/ka" --vcpus 1 --boot v1-b01
	--payload "$tmp/j1/payload/v1" --mem 2048 --timeout 600 --clock icount --attempt0 0)
uerr "boot-unit.sh without options: the first required one named" "--unit is required (see --help)"
uerr "... without --kernel: named" "--kernel is required (see --help)" "${uo[@]:0:6}" "${uo[@]:8}"
uerr "... an unknown option: named" "unknown option '--disk' (see --help)" "${uo[@]}" --disk virtio-blk
uerr "... an option without its value: named" "option --model needs a value (see --help)" "${uo[@]}" --model
uerr "... the old positional form (13 arguments, - for none): refused" "unknown option '1' (see --help)" \
	1 a ka "$tmp/cache/labels/ka" 1 v1-b01 "$tmp/j1/payload/v1" 2048 600 icount - - 0
uerr "... --vcpus not a number" "--vcpus 'x': want a whole number" "${uo[@]:0:8}" --vcpus x "${uo[@]:10}"
uerr "... --boot not of its --vcpus" "--boot 'v2-b01': want v1-bNN (--vcpus 1)" "${uo[@]}" --boot v2-b01
if [ "$fail" != 0 ]; then
	for l in "$tmp"/*.log; do diag "== $l" "$(tail -n 15 "$l")"; done
fi
exit "$fail"
