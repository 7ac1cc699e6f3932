#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# model/join.sh: the kbcache plugin's sample windows, in order, joined to
# a boot's measured samples (plan order, reps in CSV order) as rows of
# clock model; kbstat reads them; every mismatch is an error naming the
# boot and the file, and leaves the raw CSVs as they were. Then
# orchestrate/run.sh on the host with a stub launcher: the plugin option,
# the join after each boot, a failed join (listed in failed-boots.tsv,
# the boot's other samples kept), the plan and fingerprint, and the
# default without the model.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
join=$top/model/join.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..50"

hdr=workload,variant,point,metric,unit,better,clock,rep,value
whdr=window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,dtlb_misses,model_cycles,irqs,irq_insns
params="# kbcache v2 machine=skylake-client l1d_size=32768 l1d_ways=8 irq=exclude"
endok="unclosed=0 stray_ends=0 restarts=0 entries=32 irqs=900 unbalanced=0"

# A boot: plan a (2 points x 2 reps, warm-up 1), b (absent on this
# kernel), c (1 point x 3 reps, not asked for the model rows below).
mkboot() {
	rm -rf "$tmp/b"
	mkdir -p "$tmp/b/raw"
	printf '%s\n' \
		"a	ptrchase	default	vcpus=1;size=4096	2	1	icount	--accesses 8	--size 4096" \
		"b	map_lookup	rhash	vcpus=1	2	1	icount		" \
		"c	procirq_read	default	vcpus=1	3	1	icount		" \
		"a	ptrchase	default	vcpus=1;size=65536	2	1	icount	--accesses 8	--size 65536" \
		>"$tmp/b/plan.tsv"
	{
		echo "$hdr"
		for p in 'vcpus=1;size=4096' 'vcpus=1;size=65536'; do
			for r in 1 2; do
				echo "a,default,$p,ns_per_access,ns,lower,icount,$r,1.2$r"
			done
			echo "a,default,$p,run_task_clock_ms,ms,lower,icount,0,5"
		done
	} >"$tmp/b/raw/a.csv"
	printf 'rhash\tvcpus=1\tno RHASH\n' >"$tmp/b/raw/b.absent"
	{
		echo "$hdr"
		for r in 1 2 3; do
			echo "c,default,vcpus=1,ns_per_read,ns,lower,icount,$r,6250$r"
			echo "c,default,vcpus=1,irq_rows,count,none,icount,$r,40"
		done
	} >"$tmp/b/raw/c.csv"
	cp "$tmp/b/raw/a.csv" "$tmp/b/a.orig"
	cp "$tmp/b/raw/c.csv" "$tmp/b/c.orig"
}

# windows KINDS [END]: a windows file, one window per letter of KINDS
# (s sample, w warm-up); window i has l1d i, llc 10i, dtlb 100i and
# model_cycles 1000i. END is the end line's tail (default: all zero).
windows() {
	local kinds=$1 i=0 k
	{
		echo "$params"
		echo "$whdr"
		while [ -n "$kinds" ]; do
			k=${kinds:0:1}
			kinds=${kinds:1}
			i=$((i + 1))
			[ "$k" = s ] && k=sample || k=warmup
			echo "$i,$k,0,5000,4000,$i,$((10 * i)),$((100 * i)),$((1000 * i)),1,800"
		done
		echo "# kbcache end: windows=$i ${2:-$endok}"
	} >"$tmp/b/w.csv"
}
# the run's windows, in plan order: a 4096 (w s s), b absent (none),
# c (w s s s), a 65536 (w s s)
good=wsswssswss

run_join() {
	check_rc "$1" "$2" "$join" --boot "patched v1-b01" --windows "$tmp/b/w.csv" \
		--plan "$tmp/b/plan.tsv" --raw "$tmp/b/raw" "${@:3}"
}
unchanged() {
	cmp -s "$tmp/b/raw/a.csv" "$tmp/b/a.orig" && cmp -s "$tmp/b/raw/c.csv" "$tmp/b/c.orig" &&
		[ -z "$(find "$tmp/b/raw" -name '.*')" ]
}
# fails DESC WANT: the join exits 1, its error names the boot and WANT,
# and the raw CSVs are untouched
fails() {
	run_join "$1: exit 1" 1 "${@:3}"
	if grep -q "kbench: error: model join of boot patched v1-b01: .*$2" "$tmp/err" && unchanged; then
		ok 0 "$1: named (boot, file, cause), raw CSVs unchanged"
	else
		ok 1 "$1: named (boot, file, cause), raw CSVs unchanged"
		diag "wanted: $2" "$(cat "$tmp/err")"
	fi
}

mkboot
windows "$good"
run_join "good boot: the join succeeds" 0 --workloads a
tail -n +"$(($(wc -l <"$tmp/b/a.orig") + 1))" "$tmp/b/raw/a.csv" >"$tmp/added"
cat >"$tmp/want" <<'EOF'
a,default,vcpus=1;size=4096,model_cycles,cycles,lower,model,1,2000
a,default,vcpus=1;size=4096,l1d_misses,count,none,model,1,2
a,default,vcpus=1;size=4096,llc_misses,count,none,model,1,20
a,default,vcpus=1;size=4096,dtlb_misses,count,none,model,1,200
a,default,vcpus=1;size=4096,model_cycles,cycles,lower,model,2,3000
a,default,vcpus=1;size=4096,l1d_misses,count,none,model,2,3
a,default,vcpus=1;size=4096,llc_misses,count,none,model,2,30
a,default,vcpus=1;size=4096,dtlb_misses,count,none,model,2,300
a,default,vcpus=1;size=65536,model_cycles,cycles,lower,model,1,9000
a,default,vcpus=1;size=65536,l1d_misses,count,none,model,1,9
a,default,vcpus=1;size=65536,llc_misses,count,none,model,1,90
a,default,vcpus=1;size=65536,dtlb_misses,count,none,model,1,900
a,default,vcpus=1;size=65536,model_cycles,cycles,lower,model,2,10000
a,default,vcpus=1;size=65536,l1d_misses,count,none,model,2,10
a,default,vcpus=1;size=65536,llc_misses,count,none,model,2,100
a,default,vcpus=1;size=65536,dtlb_misses,count,none,model,2,1000
EOF
if cmp -s "$tmp/added" "$tmp/want" && head -n "$(wc -l <"$tmp/b/a.orig")" "$tmp/b/raw/a.csv" | cmp -s - "$tmp/b/a.orig"; then
	ok 0 "a's rows kept, then 4 model rows per sample: plan order across workloads, warm-ups skipped, the absent point has none"
else
	ok 1 "a's rows kept, then 4 model rows per sample: plan order across workloads, warm-ups skipped, the absent point has none"
	diag "$(diff "$tmp/want" "$tmp/added")"
fi
t "c was not asked for: its CSV is unchanged (its windows are still matched)" cmp -s "$tmp/b/raw/c.csv" "$tmp/b/c.orig"
t "no temp file is left in raw/" test -z "$(find "$tmp/b/raw" -name '.*')"

# kbstat reads the result: clock model, model_cycles judged, misses informational
if make -s -C "$top" analysis-tools >/dev/null 2>"$tmp/make.err"; then
	mkdir -p "$tmp/run/raw/patched/v1-b01"
	cp "$tmp/b/raw/a.csv" "$tmp/run/raw/patched/v1-b01/"
	"$top/build/analysis/kbstat" dump "$tmp/run" >"$tmp/dump" 2>"$tmp/dump.err" || true
	awk -F'\t' '$9 == "model" { print $6 "," $8 }' "$tmp/dump" | sort -u >"$tmp/kinds"
	printf 'dtlb_misses,none\nl1d_misses,none\nllc_misses,none\nmodel_cycles,lower\n' >"$tmp/kinds.want"
	if cmp -s "$tmp/kinds" "$tmp/kinds.want" && [ "$(awk -F'\t' '$9 == "model"' "$tmp/dump" | wc -l)" = 16 ]; then
		ok 0 "kbstat dump reads the 16 rows of clock model (model_cycles lower, misses none)"
	else
		ok 1 "kbstat dump reads the 16 rows of clock model (model_cycles lower, misses none)"
		diag "$(cat "$tmp/dump.err" "$tmp/kinds")"
	fi
else
	ok 1 "kbstat dump reads the rows of clock model: make analysis-tools failed: $(tail -n 1 "$tmp/make.err")"
fi

# Without --workloads every workload gets rows.
mkboot
windows "$good"
run_join "without --workloads: succeeds" 0
t "... and c gets 4 rows per sample too (12)" test "$(grep -c ',model,' "$tmp/b/raw/c.csv")" = 12
# joined twice: refused, not doubled
cp "$tmp/b/raw/a.csv" "$tmp/b/a.orig"
cp "$tmp/b/raw/c.csv" "$tmp/b/c.orig"
fails "a boot joined twice" "raw/a.csv:[0-9]*: already has model rows"

# The failure modes.
mkboot
windows "${good}s"
fails "one sample window too many" "w.csv has 8 sample windows, but the boot's CSVs in .* hold 7 measured samples (a 4, b 0, c 3)"
windows "wsswsswss"
fails "one sample window too few" "w.csv has 6 sample windows, but .* hold 7 measured samples"
windows "$good" "unclosed=1 stray_ends=0 restarts=0 entries=32 irqs=900 unbalanced=0"
fails "an unclosed window" "w.csv:13: unclosed=1 stray_ends=0 restarts=0: a sample started and never ended"
windows "$good" "unclosed=0 stray_ends=2 restarts=0 entries=32 irqs=900 unbalanced=0"
fails "stray ends" "w.csv:13: unclosed=0 stray_ends=2 restarts=0"
windows "$good" "unclosed=0 stray_ends=0 restarts=1 entries=32 irqs=900 unbalanced=0"
fails "a restarted window" "w.csv:13: .*restarts=1"
windows "$good" "unclosed=0 stray_ends=0 restarts=0 entries=32 irqs=0 unbalanced=0"
fails "entry points given, no interrupt ever matched (KASLR)" "w.csv:13: entries=32 irqs=0: no interrupt entry of the kernel ran .*nokaslr"
windows "$good" "unclosed=0 stray_ends=0 restarts=0 entries=32 irqs=900 unbalanced=1"
fails "a window ended inside an excluded interrupt" "w.csv:13: unbalanced=1: a window ended inside an interrupt"
windows "$good" "unclosed=0 stray_ends=0 restarts=0"
fails "an end line without the interrupt counts (a v1 plugin)" "w.csv:13: end line has no \\(entries\\|irqs\\|unbalanced\\)="
windows "$good"
sed -i '$d' "$tmp/b/w.csv"
fails "no end line (QEMU killed)" "w.csv:12: no \"# kbcache end:\" line: QEMU did not exit cleanly"
rm -f "$tmp/b/w.csv"
fails "no windows file" "no windows file .*/w.csv"
windows "$good"
sed -i '4s/^2,sample,0,5000/2,sample,0,50x0/' "$tmp/b/w.csv"
fails "a corrupt window line" "w.csv:4: field 4 (\"50x0\") is not a count"

# run.sh refuses what the model cannot do before anything else (a fake
# kernel label: nothing boots).
mkdir -p "$tmp/cache/labels/fake"
: >"$tmp/cache/labels/fake/bzImage"
check_rc "run.sh: MODEL=cache with CLOCK=wall is refused" 1 env KBENCH_CACHE="$tmp/cache" \
	MODEL=cache CLOCK=wall BOOTS=1 "$top/orchestrate/run.sh" --run "$tmp/run1" --kernel a=fake
t "... saying the model needs the icount clock" grep -q "MODEL=cache needs the icount clock, not CLOCK=wall" "$tmp/err"

# orchestrate/run.sh end to end, on the host: a copy of the tree whose
# launcher is a stub that "runs" the plan (one row per sample) and, given
# the plugin, writes its windows file. KB_STUB_SHORT=NAME drops one
# sample window of kernel NAME's boot (a count mismatch).
tree=$tmp/tree
mkdir -p "$tree/build/bench" "$tree/build/model" "$tree/images" "$tree/bench" "$tree/guest" "$tree/model"
cp -r "$top/orchestrate" "$top/scripts" "$top/workloads" "$tree/"
cp "$top/bench.conf" "$tree/"
cp "$top/model/join.sh" "$tree/model/"
# a stub entries.sh: the kernel directory it was given, as an entry
# shellcheck disable=SC2016 # $1 is the stub's
printf '#!/bin/sh\necho "irq 1000 10 10 $1"\n' >"$tree/model/entries.sh"
rm -f "$tree/workloads/"*.wl
printf 'name = t\nbench = fake\nreps = 3\nwarmup = 1\nmatrix.n = 1 2\n' >"$tree/workloads/t.wl"
printf '#!/bin/sh\nexit 0\n' >"$tree/build/bench/kbbench"
printf '#!/bin/sh\nexit 0\n' >"$tree/images/check-image.sh"
: >"$tree/build/model/libkbcache.so"
: >"$tree/bench/perfstat2csv.sh"
: >"$tree/guest/run.sh"
: >"$tree/guest/profile.sh"
cat >"$tree/images/launch.sh" <<'STUB'
#!/bin/bash
# a stub launcher: the plan's samples as rows, the plugin's windows
set -eu
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--payload) payload=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--extra-qemu) shift; extra=("$@"); break ;;
	*) shift 2 ;;
	esac
done
mkdir -p "$out/results/raw"
printf '%s\n' "${extra[@]+"${extra[@]}"}" >"$out/extra-qemu"
echo workload,variant,point,metric,unit,better,clock,rep,value >"$out/results/raw/t.csv"
n=0
while IFS=$'\t' read -r wl _ variant point reps _; do
	for r in $(seq 1 "$reps"); do
		n=$((n + 1))
		echo "$wl,$variant,$point,ns,ns,lower,icount,$r,$((100 + n))" >>"$out/results/raw/t.csv"
	done
done <"$payload/plan.tsv"
mw=
for a in "${extra[@]+"${extra[@]}"}"; do
	case "$a" in *libkbcache.so,outfile=*) mw=${a#*outfile=} mw=${mw%%,*} ;; esac
done
if [ -n "$mw" ]; then
	k=$(basename "$(dirname "$out")")
	[ "${KB_STUB_SHORT:-}" != "$k" ] || n=$((n - 1))
	{
		echo "# kbcache v2 machine=skylake-client l1d_size=32768 irq=exclude"
		echo window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,dtlb_misses,model_cycles,irqs,irq_insns
		for i in $(seq 1 "$n"); do echo "$i,sample,0,10,5,1,2,3,$((1000 + i)),0,0"; done
		echo "# kbcache end: windows=$n unclosed=0 stray_ends=0 restarts=0 entries=1 irqs=5 unbalanced=0"
	} >"$mw"
fi
printf '{"image": "%s", "accel": "tcg", "clock": "icount", "vcpus": 1, "qemu_version": "stub", "cmdline": "c", "qemu_cmdline": "q %s"}\n' \
	"$KB_STUB_IMAGE" "${extra[*]+"${extra[*]}"}" >"$out/launch.json"
printf '%s\n' "${append:-}" >"$out/append"
STUB
chmod +x "$tree/images/launch.sh" "$tree/images/check-image.sh" "$tree/build/bench/kbbench" \
	"$tree/orchestrate/"*.sh "$tree/model/join.sh" "$tree/model/entries.sh"
for k in ka kb; do
	mkdir -p "$tmp/cache/labels/$k"
	: >"$tmp/cache/labels/$k/bzImage"
	echo '{}' >"$tmp/cache/labels/$k/build-info.json"
done
: >"$tmp/image.qcow2"
# stub_run DIR ENV...: run.sh on kernels a and b with the stub launcher
# shellcheck disable=SC2317 # called through check and check_rc
stub_run() {
	local d=$1
	shift
	env KBENCH_CACHE="$tmp/cache" KB_STUB_IMAGE="$tmp/image.qcow2" IMAGE="$tmp/image.qcow2" \
		BOOTS=1 WORKLOADS= CLOCK= PROFILE=0 BOOT_TIMEOUT= "$@" \
		"$tree/orchestrate/run.sh" --run "$tmp/$d" --kernel a=ka --kernel b=kb
}
check "MODEL=cache with a stub launcher: run.sh completes" stub_run on MODEL=cache
t "the launcher's last option: --extra-qemu -plugin <tree>/build/model/libkbcache.so,outfile=<boot dir>/model-windows.csv" \
	grep -qx -- "-plugin" "$tmp/on/boots/a/v1-b01/extra-qemu"
t "... outfile in the boot's own directory, entries beside the kernel's boots" \
	grep -qx -- "$tree/build/model/libkbcache.so,outfile=$tmp/on/boots/a/v1-b01/model-windows.csv,entries=$tmp/on/boots/a/kbcache/entries.txt" "$tmp/on/boots/a/v1-b01/extra-qemu"
t "... the entries are model/entries.sh's, of the boot's kernel" \
	grep -qx "irq 1000 10 10 $tmp/cache/labels/ka" "$tmp/on/boots/a/kbcache/entries.txt"
t "... the guest boots with nokaslr norandmaps" grep -qx 'nokaslr norandmaps' "$tmp/on/boots/a/v1-b01/append"
t "both boots complete, each with 4 model rows per sample (6 samples)" \
	test -f "$tmp/on/raw/a/v1-b01/.done" -a -f "$tmp/on/raw/b/v1-b01/.done" -a \
	"$(grep -c ',model,' "$tmp/on/raw/b/v1-b01/t.csv")" = 24
t "the plan says the model is on, with its doubled timeout" \
	grep -q '^vcpus 1: mem 2048, timeout 1800, clock icount, disks none, model cache for t$' "$tmp/on/plan.id"
t "fingerprint.json records the model's parameter line; the plugin path reads <kbcache>" \
	jq -e '.model.params == ["kbcache v2 machine=skylake-client l1d_size=32768 irq=exclude"] and
		(.qemu_cmdline["1"] | test("-plugin <kbcache>,outfile=<boot>/model-windows.csv,entries=<boot>/entries.txt"))' "$tmp/on/fingerprint.json"
check_rc "one boot's windows short by one: run.sh exits 1 after the other boots" 1 stub_run short MODEL=cache KB_STUB_SHORT=b
t "... naming the failed join" grep -q "1 boot(s) failed the model's join" "$tmp/err"
t "... failed-boots.tsv lists boot b v1-b01, exit model, with the file and both counts" \
	grep -q "^b	v1-b01	1	0	model	model join of boot b v1-b01: .*/boots/b/v1-b01/model-windows.csv has 5 sample windows, but .* hold 6 measured samples" "$tmp/short/failed-boots.tsv"
t "... b's icount samples are kept, without model rows, and b is not complete" \
	test "$(grep -c ',icount,' "$tmp/short/raw/b/v1-b01/t.csv")" = 6 -a \
	"$(grep -c ',model,' "$tmp/short/raw/b/v1-b01/t.csv")" = 0 -a ! -f "$tmp/short/raw/b/v1-b01/.done"
t "... a's boot is complete, with its model rows" \
	test -f "$tmp/short/raw/a/v1-b01/.done" -a "$(grep -c ',model,' "$tmp/short/raw/a/v1-b01/t.csv")" = 24
check "the default (MODEL empty): run.sh completes" stub_run off MODEL=
t "... no plugin, no model rows, no model in the plan or the fingerprint" \
	test -z "$(cat "$tmp/off/boots/a/v1-b01/extra-qemu")" -a ! -e "$tmp/off/boots/a/v1-b01/model-windows.csv" -a \
	"$(grep -c ',model,' "$tmp/off/raw/a/v1-b01/t.csv")" = 0 -a \
	"$(grep -c model "$tmp/off/plan.id")" = 0 -a "$(jq 'has("model")' "$tmp/off/fingerprint.json")" = false
t "... and no nokaslr norandmaps" test -z "$(cat "$tmp/off/boots/a/v1-b01/append")"
t "... and the workload file's timeout is kept" grep -q '^vcpus 1: mem 2048, timeout 900, clock icount, disks none$' "$tmp/off/plan.id"
exit "$fail"
