#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the workloads on a set of kernels, interleaved, into a run directory.
#
#   run.sh --run DIR --kernel NAME=LABEL [--kernel NAME=LABEL ...]
#
# NAME is how the kernel appears in raw/<NAME>/ and the report; LABEL is
# the kernel in $KBENCH_CACHE/labels/ (an A/A run uses one LABEL twice).
# Boots go A B A B ... BOOTS times per kernel and per vCPU count, so host
# drift lands on every kernel alike. A boot whose raw data is complete
# (raw/<NAME>/<boot>/.done) is skipped, so an interrupted run resumes when
# given the same DIR. With PROFILE=1 the first boot of each kernel also
# runs each point once under perf record -g, after its timed samples
# (RUN/profile/<NAME>/). A boot that panics, oopses, hangs or whose QEMU
# dies is a result: it is listed in RUN/failed-boots.tsv (with its serial
# log; each attempt keeps its boot directory, <boot>.attemptN), tried
# again RETRIES times, and the run goes on. With MODEL=cache (or a
# workload file's model = cache) the boots run under the kbcache plugin
# and model/join.sh adds its per-sample metrics to the boot's raw CSVs
# (model/README.md); a join that fails is listed in failed-boots.tsv too
# (exit "model"), the boot's other samples stay in raw/, and the boot is
# not marked complete. Environment: BOOTS, WORKLOADS, QUICK, BENCH_VCPUS,
# RETRIES, PROFILE, MODEL, ACCEL, IMAGE, ROOT, V (see bench.conf);
# KB_APPEND="ARG ..." adds kernel command-line arguments to every boot
# (make test-debug: ignore_loglevel); KB_FAULT_APPEND="NAME/BOOT=ARG ..."
# adds a kernel command-line argument
# to one boot (the tests make a boot panic with it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=workloads/wl.sh
. "$top/workloads/wl.sh"

kb_conf KBENCH_CACHE
kb_conf BOOTS WORKLOADS QUICK RETRIES

run='' names=() labels=()
while [ $# -gt 0 ]; do
	case "$1" in
	--run) run=$2; shift 2 ;;
	--kernel)
		case "$2" in
		*=*) names+=("${2%%=*}"); labels+=("${2#*=}") ;;
		*) kb_die "--kernel wants NAME=LABEL, got '$2'" ;;
		esac
		shift 2 ;;
	*) kb_die "run.sh: unknown argument '$1'" ;;
	esac
done
[ -n "$run" ] || kb_die "run.sh: --run DIR is required"
[ "${#names[@]}" -ge 1 ] || kb_die "run.sh: give at least one --kernel NAME=LABEL"
case "$BOOTS" in '' | *[!0-9]* | 0) kb_die "BOOTS must be a positive number, not '$BOOTS'" ;; esac
case "$RETRIES" in '' | *[!0-9]*) kb_die "RETRIES must be a whole number, not '$RETRIES'" ;; esac
case "${MODEL:-}" in
'' | none | cache) ;;
*) kb_die "MODEL must be none or cache (or empty: each workload file's model key), not '$MODEL'" ;;
esac
# kbcache's windows and counters are exact when every vCPU runs in one
# TCG thread, as under icount; CLOCK=wall is MTTCG (model/README.md)
if [ "${MODEL:-}" = cache ] && [ "${CLOCK:-}" = wall ]; then
	kb_die "MODEL=cache needs the icount clock, not CLOCK=wall (the model counts instructions in one TCG thread; under the wall clock's MTTCG its counters race): leave CLOCK empty or give CLOCK=icount"
fi

for i in "${!labels[@]}"; do
	kd=$KBENCH_CACHE/labels/${labels[$i]}
	[ -f "$kd/bzImage" ] || kb_die "kernel '${labels[$i]}' is not built ($kd/bzImage missing): run make kernels"
done

# Workload files: all of them, or the WORKLOADS=a,b list.
wldir=$top/workloads
wls=()
if [ -n "$WORKLOADS" ]; then
	IFS=, read -r -a want <<<"$WORKLOADS"
	for w in "${want[@]}"; do
		# a name in workloads/, or the path of a .wl file of your own
		case "$w" in
		*/* | *.wl)
			[ -f "$w" ] || kb_die "WORKLOADS: no workload file '$w'"
			wls+=("$(cd "$(dirname "$w")" && pwd)/$(basename "$w")")
			continue ;;
		esac
		[ -f "$wldir/$w.wl" ] || kb_die "WORKLOADS: no workload '$w' (no $wldir/$w.wl; have: $(cd "$wldir" && printf '%s ' *.wl))"
		wls+=("$wldir/$w.wl")
	done
else
	for f in "$wldir"/*.wl; do wls+=("$f"); done
fi
[ "${#wls[@]}" -gt 0 ] || kb_die "no workload files in $wldir"

# make bench / bench-compare / regression-check build it first (it
# needs the patched kernel: the BPF benchmarks use its BTF and libbpf)
[ -x "$top/build/bench/kbbench" ] || kb_die "build/bench/kbbench is not built: run make bench-tools"

# A point of the plan, checked on the host by the bench's own parser
# (kbbench check) with the arguments the guest will give it: a typo
# fails here, naming the workload file and line, before any boot.
check_point() {
	local bench=$1 variant=$2 point=$3 msg line kv k
	local -a args=() extra=() kvs=()
	read -r -a args <<<"${WL[args]}"
	read -r -a extra <<<"$4"
	IFS=';' read -r -a kvs <<<"$point"
	msg=$("$top/build/bench/kbbench" check "$bench" --workload "${WL[name]}" \
		--variant "$variant" --point "$point" --reps "${WL[reps]}" \
		--warmup "${WL[warmup]}" --clock "${WL[clock]}" "${args[@]}" "${extra[@]}" 2>&1) && return 0
	msg=${msg#kbbench: }
	# the line to blame: the key whose value the bench refused
	line=${WL_LINE[args]:-${WL_LINE[bench]}}
	case "$msg" in
	"no benchmark"*) line=${WL_LINE[bench]} ;;
	*--reps*) line=${WL_LINE[reps]:-$line} ;;
	*--warmup*) line=${WL_LINE[warmup]:-$line} ;;
	*--clock*) line=${WL_LINE[clock]:-$line} ;;
	esac
	for kv in "${kvs[@]}"; do
		k=${kv%%=*}
		case "$msg" in *"--$k"[!a-z_]* | *"--$k") line=${WL_LINE[matrix.$k]:-$line} ;; esac
	done
	kb_die "$WL_FILE:$line: $msg (at point $point, variant $variant; checked on the host with kbbench check before any boot)"
}

# The plan: for each vCPU count, the plan.tsv lines of every workload.
declare -A plan_lines=() group_mem=() group_timeout=() group_clock=() group_disks=()
# group_model[V]: cache if a boot at V vCPUs runs under the model;
# group_model_wls[V]: the workloads (comma separated) that get its rows
declare -A group_model=() group_model_wls=()
for f in "${wls[@]}"; do
	wl_load "$f"
	# CLOCK=, MEM=, BOOT_TIMEOUT= given for the run override every
	# workload file (the clock used is still recorded per result).
	if [ -n "${CLOCK:-}" ]; then
		case "$CLOCK" in icount | wall) ;; *) kb_die "CLOCK must be icount or wall, not '$CLOCK'" ;; esac
		WL[clock]=$CLOCK
	fi
	# MODEL= likewise; the model needs the icount clock
	[ -z "${MODEL:-}" ] || WL[model]=$MODEL
	if [ "${WL[model]}" = cache ] && [ "${WL[clock]}" != icount ]; then
		if [ -n "${MODEL:-}" ]; then
			kb_die "$f:${WL_LINE[clock]:-1}: MODEL=cache needs clock icount, but workload ${WL[name]} has clock = ${WL[clock]}: give CLOCK=icount, or leave it out of WORKLOADS="
		fi
		kb_die "$f:${WL_LINE[model]}: model = cache needs clock icount, not ${WL[clock]}${CLOCK:+ (CLOCK=$CLOCK)}"
	fi
	for o in MEM:mem BOOT_TIMEOUT:timeout; do
		k=${o%%:*}
		[ -n "${!k:-}" ] || continue
		case "${!k}" in *[!0-9]* | 0) kb_die "$k must be a positive whole number, not '${!k}'" ;; esac
		WL[${o#*:}]=${!k}
	done
	vlist=${WL[matrix.vcpus]}
	if [ -n "${BENCH_VCPUS:-}" ]; then
		vlist=$BENCH_VCPUS
	fi
	for v in $vlist; do
		for variant in ${WL[variants]}; do
			while IFS=$'\t' read -r pt pargs; do
				point="vcpus=$v"
				[ "$pt" = none ] || point="$point;$pt"
				check_point "${WL[bench]}" "$variant" "$point" "$pargs"
				plan_lines[$v]+="${WL[name]}	${WL[bench]}	$variant	$point	${WL[reps]}	${WL[warmup]}	${WL[clock]}	${WL[args]}	$pargs
"
			done < <(wl_points)
		done
		# A boot's size and clock: the largest memory and timeout asked
		# for; one clock per boot, or the plan is ambiguous.
		[ "${group_mem[$v]:-0}" -ge "${WL[mem]}" ] || group_mem[$v]=${WL[mem]}
		[ "${group_timeout[$v]:-0}" -ge "${WL[timeout]}" ] || group_timeout[$v]=${WL[timeout]}
		if [ -n "${group_clock[$v]:-}" ] && [ "${group_clock[$v]}" != "${WL[clock]}" ]; then
			kb_die "$f: clock ${WL[clock]} conflicts with another workload at vcpus=$v (${group_clock[$v]}); run them separately with WORKLOADS="
		fi
		group_clock[$v]=${WL[clock]}
		# the model is on for a whole boot if one of its workloads asks;
		# only those workloads get the model's rows
		if [ "${WL[model]}" = cache ]; then
			group_model[$v]=cache
			case ",${group_model_wls[$v]:-}," in
			*",${WL[name]},"*) ;;
			*) group_model_wls[$v]+="${group_model_wls[$v]:+,}${WL[name]}" ;;
			esac
		fi
		# a boot's disks: those its workloads ask for, each spec once
		for d in ${WL[disks]}; do
			case " ${group_disks[$v]:-} " in *" $d "*) ;; *) group_disks[$v]+=" $d" ;; esac
		done
	done
done

mapfile -t groups < <(printf '%s\n' "${!plan_lines[@]}" | sort -n)

# The model (model/README.md): checked before any boot.
kbcache=$top/build/model/libkbcache.so
model_on=0
for v in "${groups[@]}"; do
	[ -z "${group_model[$v]:-}" ] || model_on=1
done
if [ "$model_on" = 1 ]; then
	[ "${PROFILE:-0}" != 1 ] ||
		kb_die "the model (MODEL=cache or a workload's model = cache) and PROFILE=1 are passes of their own: run them separately (the profile's extra runs in the guest would add windows the model's join cannot place)"
	[ -f "$kbcache" ] ||
		kb_die "the model is on but build/model/libkbcache.so is not built: run make model-tools (make bench MODEL=cache builds it)"
	case "$run" in /*) r=$run ;; *) r=$PWD/$run ;; esac
	case "$r$kbcache" in
	*,*) kb_die "the model's QEMU option (-plugin $kbcache,outfile=$r/boots/...) cannot hold a comma: use a run directory and checkout without one" ;;
	esac
	# the plugin costs 1.2-1.8x host CPU (model/README.md): the workload
	# files' boot timeouts are doubled; BOOT_TIMEOUT= still sets one
	if [ -z "${BOOT_TIMEOUT:-}" ]; then
		for v in "${groups[@]}"; do
			[ -z "${group_model[$v]:-}" ] || group_timeout[$v]=$((group_timeout[$v] * 2))
		done
	fi
fi

# The guest image, checked before any boot: qcow2, with cloud-init.
if [ -n "${IMAGE:-}" ]; then
	"$top/images/check-image.sh" "$IMAGE" "${ROOT:-/dev/vda}"
else
	img=$("$top/images/build-image.sh" --path) || kb_die "no guest image: run make image, or give IMAGE="
	"$top/images/check-image.sh" "$img" "${ROOT:-/dev/vda}"
fi

# The plan's identity: the kernels (by cache key), the boots and every
# point. A run directory given again (RESUME=) must have been made with
# the same one; this is checked before anything is written into it.
plan_id() {
	local i v
	for i in "${!names[@]}"; do
		printf 'kernel %s=%s %s\n' "${names[$i]}" "${labels[$i]}" \
			"$(basename "$(readlink -f "$KBENCH_CACHE/labels/${labels[$i]}")")"
	done
	printf 'boots %s\nprofile %s\n' "$BOOTS" "${PROFILE:-0}"
	printf 'order variants rotated by boot (plan-order.sh)\n'
	for v in "${groups[@]}"; do
		printf 'vcpus %s: mem %s, timeout %s, clock %s, disks%s%s\n' "$v" \
			"${group_mem[$v]}" "${group_timeout[$v]}" "${group_clock[$v]}" "${group_disks[$v]:- none}" \
			"${group_model[$v]:+, model ${group_model[$v]} for ${group_model_wls[$v]}}"
		printf '%s' "${plan_lines[$v]}" | sed 's/^/  point /'
	done
}
newplan=$(mktemp "${TMPDIR:-/tmp}/kbench-plan.XXXXXX")
plan_id >"$newplan"
if [ -f "$run/plan.id" ]; then
	if ! cmp -s "$run/plan.id" "$newplan"; then
		d=$(diff "$run/plan.id" "$newplan" | grep '^[<>]' | head -n 4 |
			sed -e 's/^</  was:/' -e 's/^>/  now:/') || true
		rm -f "$newplan"
		kb_die "$run was made with another plan or other kernels, so it cannot be resumed with these settings; nothing was written to it. First differences:
$d
Resume with the settings it was made with (its plan: $run/plan.id), or start a new run (no RESUME=)."
	fi
	rm -f "$newplan"
elif [ -d "$run/raw" ] && [ -n "$(ls -A "$run/raw")" ]; then
	rm -f "$newplan"
	kb_die "$run holds results but no plan.id (made by an older kbench): it cannot be checked, so it is not resumed; start a new run"
else
	mkdir -p "$run"
	mv -f "$newplan" "$run/plan.id"
fi

mkdir -p "$run/raw" "$run/boots" "$run/payload" "$run/workloads"
# The run keeps the workload files it used: the report reads their
# primary metrics, and make report RUN= needs nothing outside RUN.
for f in "${wls[@]}"; do
	cp "$f" "$run/workloads/"
done
nboots=$(( ${#groups[@]} * BOOTS * ${#names[@]} ))
kb_say "run $run: ${#wls[@]} workload(s), vcpus {${groups[*]}}, $BOOTS boot(s) x ${#names[@]} kernel(s) = $nboots boots"

# Time estimates: seconds of every boot, per vCPU count, from this run
# and from earlier runs (KBENCH_CACHE/boot-times.tsv: vcpus, seconds).
times_file=$KBENCH_CACHE/boot-times.tsv
declare -A run_sum=() run_cnt=()
# mean_boot V: mean seconds of a boot at V vCPUs, this run first, else
# earlier runs; empty if neither has one.
mean_boot() {
	if [ -n "${run_cnt[$1]:-}" ]; then
		echo $(( run_sum[$1] / run_cnt[$1] ))
	elif [ -f "$times_file" ]; then
		awk -v v="$1" '$1 == v { s += $2; n++ } END { if (n) printf "%d\n", s / n }' "$times_file"
	fi
}
# left_after N: estimated seconds for the boots after the N-th, or "?"
left_after() {
	local i=0 v m total=0
	for v in "${groups[@]}"; do
		for _ in $(seq 1 $(( BOOTS * ${#names[@]} ))); do
			i=$((i + 1))
			[ "$i" -gt "$1" ] || continue
			m=$(mean_boot "$v")
			[ -n "$m" ] || { echo "?"; return; }
			total=$((total + m))
		done
	done
	echo "$total"
}
fmt_min() { case "$1" in "?") echo "unknown" ;; *) printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)) ;; esac; }
for v in "${groups[@]}"; do
	m=$(mean_boot "$v")
	if [ -n "$m" ]; then m="about $(fmt_min "$m") each (earlier runs)"; else m="no earlier boot at this size to estimate from"; fi
	kb_say "plan: vcpus=$v: $((BOOTS * ${#names[@]})) boots (${names[*]}), $m"
done
est=$(left_after 0)
kb_say "plan: estimated total $(fmt_min "$est")$([ "$est" != "?" ] || echo " (each vCPU count's first boot gives an estimate)")"

# The payload is the same for every kernel: only the kernel differs.
declare -A boot_payload=()
for v in "${groups[@]}"; do
	pd=$run/payload/v$v
	mkdir -p "$pd/bin"
	cp "$top/build/bench/kbbench" "$top/bench/perfstat2csv.sh" "$pd/bin/"
	cp "$top/guest/run.sh" "$pd/run"
	cp "$top/guest/profile.sh" "$pd/profile.sh"
	printf '%s' "${plan_lines[$v]}" >"$pd/plan.tsv"
	# PROFILE=1: the first boot of each kernel also profiles each point,
	# after its timed samples.
	if [ "${PROFILE:-0}" = 1 ]; then
		rm -rf "$pd.profile"
		cp -r "$pd" "$pd.profile"
		: >"$pd.profile/profile.on"
	fi
	# Boot b runs each workload's variants rotated by b-1
	# (orchestrate/plan-order.sh), both kernels alike: a payload for
	# each order the boots need (keyed by the order itself), shared by
	# the boots that run it.
	declare -A payload_of=([$(cat "$pd/plan.tsv")]=$pd)
	boot_payload[$v,1]=$pd
	for b in $(seq 2 "$BOOTS"); do
		order=$("$here/plan-order.sh" $((b - 1)) <"$pd/plan.tsv")
		if [ -z "${payload_of[$order]:-}" ]; then
			rm -rf "$pd.b$b"
			cp -r "$pd" "$pd.b$b"
			printf '%s\n' "$order" >"$pd.b$b/plan.tsv"
			payload_of[$order]=$pd.b$b
		fi
		boot_payload[$v,$b]=${payload_of[$order]}
	done
	unset payload_of
done

# launch.sh's exit status, in words (images/launch.sh lists them)
failure_reason() {
	case "$1" in
	4) echo "kernel panic" ;;
	5) echo "kernel oops/BUG" ;;
	6) echo "hang (timeout, QEMU killed)" ;;
	7) echo "QEMU failed, died or was killed" ;;
	8) echo "no results from the guest" ;;
	*) echo "launch failed (exit $1)" ;;
	esac
}
if [ ! -f "$run/failed-boots.tsv" ]; then
	printf 'kernel\tboot\tvcpus\tattempt\texit\treason\tserial_log\n' >"$run/failed-boots.tsv"
fi

# SIGINT or SIGTERM: QEMU is stopped (launch.sh does it on SIGTERM),
# the boot it cut short leaves nothing behind, the complete boots stay
# (raw/<NAME>/<boot>/.done) and a run given again (RESUME=) does only
# what is missing. The caller prints the command that resumes.
kb_catch_signals
done_boots=0
# interrupted WHERE: stop the run, cut short at WHERE
interrupted() {
	rm -rf "$out" "$dest"
	rm -f ${disks[@]+"${disks[@]}"}
	kb_say "interrupted in $1: QEMU stopped, that boot's partial output removed; $done_boots boot(s) of $nboots complete in $run"
	exit "$(kb_signal_rc)"
}

n=0
failed=0 boots_failed=0 model_failed=0
out='' dest='' disks=()
for v in "${groups[@]}"; do
	for b in $(seq 1 "$BOOTS"); do
		for i in "${!names[@]}"; do
			[ -z "$KB_SIGNAL" ] || { out='' dest=''; interrupted "between boots"; }
			n=$((n + 1))
			name=${names[$i]}
			boot=$(printf 'v%d-b%02d' "$v" "$b")
			dest=$run/raw/$name/$boot
			if [ -f "$dest/.done" ]; then
				kb_say "boot $n/$nboots: $name $boot already done, skipped"
				done_boots=$((done_boots + 1))
				continue
			fi
			# a boot without .done starts again from nothing
			rm -rf "$dest"
			out=$run/boots/$name/$boot
			rm -rf "$out"
			mkdir -p "$(dirname "$out")"
			extra=() disks=() di=0
			# the workloads' extra disks: 1 MB scratch images, one
			# queue per vCPU where queues=vcpus (one interrupt row each)
			for d in ${group_disks[$v]:-}; do
				di=$((di + 1))
				q=${d#virtio-blk}
				q=${q#,queues=}
				[ "$q" != vcpus ] || q=$v
				disks+=("$out.disk$di.img")
				truncate -s 1M "$out.disk$di.img"
				extra+=(-drive "file=$out.disk$di.img,if=none,id=kbdisk$di,format=raw"
					-device "virtio-blk-pci,drive=kbdisk$di${q:+,num-queues=$q}")
			done
			# the model: the kbcache plugin writes one line per window
			# and leaves the guest's interrupts out of them: it needs
			# the kernel's entry points (model/entries.sh), at their
			# link addresses (nokaslr), and the same user address
			# layout every boot (norandmaps) to be the same every boot
			mw='' mapp=''
			if [ -n "${group_model[$v]:-}" ]; then
				mw=$(cd "$(dirname "$out")" && pwd)/$boot/model-windows.csv
				me=$(dirname "$mw")
				me=${me%/*}/kbcache/entries.txt
				mkdir -p "${me%/*}"
				"$top/model/entries.sh" "$KBENCH_CACHE/labels/${labels[$i]}" >"$me.tmp" ||
					kb_die "the model needs the entry points of kernel ${labels[$i]} (model/entries.sh failed, above)"
				mv "$me.tmp" "$me"
				extra+=(-plugin "$kbcache,outfile=$mw,entries=$me")
				mapp='nokaslr norandmaps'
			fi
			kb_say "boot $n/$nboots: $name (${labels[$i]}) vcpus=$v boot $b/$BOOTS clock=${group_clock[$v]}${mw:+ model=cache}, $(kb_elapsed) elapsed, $(fmt_min "$(left_after $((n - 1)))") left (estimated)"
			payload=${boot_payload[$v,$b]}
			if [ "$b" = 1 ] && [ -d "$payload.profile" ]; then
				payload=$payload.profile
			fi
			app=$mapp${KB_APPEND:+${mapp:+ }$KB_APPEND} append=()
			case " ${KB_FAULT_APPEND:-} " in
			*" $name/$boot="*)
				# fault injection for the tests: NAME/BOOT=cmdline
				f=" ${KB_FAULT_APPEND} "
				f=${f#* "$name/$boot="}
				app="${app:+$app }${f%% *}" ;;
			esac
			[ -z "$app" ] || append=(--append "$app")
			for attempt in $(seq 0 "$RETRIES"); do
				t_boot=$(date +%s)
				rc=0
				rm -rf "$out"
				kb_fg "$top/images/launch.sh" --kernel "$KBENCH_CACHE/labels/${labels[$i]}" \
					--payload "$payload" --out "$out" \
					--vcpus "$v" --mem "${group_mem[$v]}" \
					--clock "${group_clock[$v]}" --timeout "${group_timeout[$v]}" \
					${append[@]+"${append[@]}"} \
					${extra[@]+--extra-qemu "${extra[@]}"} || rc=$?
				t_boot=$(( $(date +%s) - t_boot ))
				[ -z "$KB_SIGNAL" ] || interrupted "$name $boot (boot $n/$nboots)"
				run_sum[$v]=$(( ${run_sum[$v]:-0} + t_boot ))
				run_cnt[$v]=$(( ${run_cnt[$v]:-0} + 1 ))
				printf '%s\t%s\n' "$v" "$t_boot" >>"$times_file"
				if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then break; fi
				# A failed boot is a result: recorded, and the run goes on.
				# Each attempt keeps its own boot directory.
				mv "$out" "$out.attempt$attempt"
				why=$(failure_reason "$rc")
				# results cut short: the launcher's message says which files
				if [ "$rc" = 8 ] && jq -e '.status == "results-incomplete"' "$out.attempt$attempt/launch.json" >/dev/null 2>&1; then
					why=$(jq -r '.message' "$out.attempt$attempt/launch.json" | tr '\t\n' '  ')
				fi
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$boot" "$v" "$attempt" "$rc" \
					"$why" "$out.attempt$attempt/serial.log" >>"$run/failed-boots.tsv"
				kb_say "boot $name $boot FAILED: $why (launch.sh exit $rc); serial log: $out.attempt$attempt/serial.log$([ "$RETRIES" = 0 ] || echo "; attempt $((attempt + 1)) of $((RETRIES + 1))")"
			done
			rm -f "${disks[@]}"
			if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
				boots_failed=$((boots_failed + 1))
				continue
			fi
			res=$out/results
			[ -d "$res/raw" ] || kb_die "boot $name $boot returned no raw/ results; see $out/serial.log and $res/run.log"
			mkdir -p "$dest"
			# samples, and the points whose variant this kernel lacks
			for csv in "$res"/raw/*.csv "$res"/raw/*.absent; do
				[ -f "$csv" ] || continue
				c=$(basename "$csv")
				# a full host disk: named, and the boot is not complete
				if ! cperr=$(cp "$csv" "$dest/.$c.tmp" 2>&1 && cmp "$csv" "$dest/.$c.tmp" 2>&1 &&
					mv -f "$dest/.$c.tmp" "$dest/$c" 2>&1); then
					rm -f "$dest/.$c.tmp"
					kb_die "boot $name $boot, workload ${c%.*}: copying its samples into $dest failed: $cperr (host disk full? $(df -h "$run" | tail -n 1)); that boot is not marked complete: free space, then resume with $(kb_resume_cmd "${KB_TARGET:-bench-compare}" "$run")"
				fi
			done
			if [ -d "$res/profile" ]; then
				for p in "$res"/profile/*/; do
					[ -d "$p" ] || continue
					t=$(basename "$p")
					pdst=$run/profile/$name
					mkdir -p "$pdst"
					rm -rf "$pdst/.$t.tmp"
					cp -r "$p" "$pdst/.$t.tmp"
					rm -rf "${pdst:?}/$t"
					mv "$pdst/.$t.tmp" "$pdst/$t"
				done
			fi
			if [ "$rc" = 3 ]; then
				failed=$((failed + 1))
				kb_say "warning: runner failed in $name $boot (partial results kept$([ -z "$mw" ] || echo ", model rows not joined")); see $res/run.log"
				continue
			fi
			# The model's windows, joined to the samples the guest ran.
			# A failed join is listed like a failed boot (exit "model");
			# the icount samples copied above stay, the boot is not
			# complete (a resume runs it again).
			if [ -n "$mw" ] && ! jerr=$("$top/model/join.sh" --boot "$name $boot" --windows "$mw" \
				--plan "$payload/plan.tsv" --raw "$dest" --workloads "${group_model_wls[$v]}" 2>&1); then
				jerr=$(printf '%s' "${jerr#kbench: error: }" | tr '\t\n' '  ')
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$boot" "$v" "$attempt" model \
					"$jerr; its other samples are kept in raw/$name/$boot" "$out/serial.log" >>"$run/failed-boots.tsv"
				kb_say "boot $name $boot: MODEL JOIN FAILED: $jerr; its other samples are kept in $dest (the boot is not marked complete)"
				model_failed=$((model_failed + 1))
				continue
			fi
			: >"$dest/.done"
			done_boots=$((done_boots + 1))
		done
	done
done

"$here/fingerprint.sh" "$run" "${names[@]}" -- "${labels[@]}"
if [ "$boots_failed" != 0 ]; then
	kb_say "$boots_failed boot(s) failed; the statistics use the complete boots only; every failure is listed in $run/failed-boots.tsv and the report"
fi
[ "$failed" = 0 ] || kb_die "$failed boot(s) had failing workloads; their partial results are in $run/raw; see run.log in $run/boots/*/*/results/"
[ "$model_failed" = 0 ] || kb_die "$model_failed boot(s) failed the model's join (listed in $run/failed-boots.tsv, exit model): their icount samples are in $run/raw without model rows, and they are not complete (RESUME= runs them again)"
kb_say "run complete: $run"
