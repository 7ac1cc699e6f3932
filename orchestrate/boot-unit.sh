#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One boot of a run: a unit of work. orchestrate/run.sh writes the units
# of a run (RUN/units.tsv, one per line, in the interleaved A B A B order:
# orchestrate/schedule.sh) and GNU parallel runs them, BOOT_JOBS at a
# time, each as
#
#   boot-unit.sh --unit N --name NAME --label LABEL --kernel DIR --vcpus N
#                --boot BOOT --payload DIR --mem MB --timeout SEC --clock C
#                --attempt0 N [--disks SPEC] [--model WORKLOADS]
#
#   --unit N         the boot's place in the run's order (of KB_NBOOTS)
#   --name NAME      the kernel's name in the run (run.sh --kernel NAME=LABEL)
#   --label LABEL    its label
#   --kernel DIR     its directory in the cache: the label's as the run
#                    started (a label moved meanwhile does not change a
#                    run's kernel)
#   --vcpus N        its vCPU count
#   --boot BOOT      v<VCPUS>-b<NN>: the NN-th boot of each kernel at that size
#   --payload DIR    the payload directory
#   --mem MB, --timeout SEC, --clock C
#                    the boot's size and clock (images/launch.sh's options)
#   --attempt0 N     the number of this run's first attempt (attempts of
#                    an earlier, resumed run keep theirs)
#   --disks SPEC     its extra disks, space separated (virtio-blk, or
#                    virtio-blk,queues=N|vcpus); without it, none
#   --model WORKLOADS  the workloads (comma separated) that get the
#                    kbcache model's rows; without it, no model
#
# A required option missing, an unknown one or a bad number is an error
# naming it, exit 2 (as images/launch.sh's usage errors).
#
# The unit's result is the boot's directory: RUN/raw/NAME/<boot>/ (its
# samples, and .done once complete) and RUN/boots/NAME/<boot>/ (serial
# log, launch.json, what the guest returned). A failed launch (panic,
# oops, hang, QEMU died, no results) moves the boot directory to
# <boot>.attemptN, appends a row to RUN/failed-boots.tsv and exits with
# the launcher's status, so that parallel --retries tries it again
# (RETRIES). Every other outcome exits 0 and is named on stdout, one line
# "kbench-unit<TAB>NAME<TAB>BOOT<TAB>STATUS" (done, failed, runner-failed,
# model-failed, error), which run.sh counts; progress goes to stderr.
#
# SIGTERM or SIGINT (parallel forwards them with --termseq): QEMU is
# stopped (launch.sh), the boot's partial output is removed, and the unit
# exits 143 or 130. That message and a failed attempt's go to fd 3 if it
# is open (run.sh opens it on its stderr): parallel drops what a job
# prints as it is stopped, and the output of an attempt it retries.
#
# Environment (run.sh exports it): KB_RUN, KB_NBOOTS, KB_RUN_START,
# KB_BOOT_JOBS, BOOTS, RETRIES, KBENCH_CACHE, KB_APPEND, KB_FAULT_APPEND
# (run.sh's header), V; KB_HOST_LOGIN, the host's login when it runs on
# another host (host-unit.sh: its failed rows go back with the attempt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=orchestrate/boot-time.sh
. "$here/boot-time.sh"
# elapsed times are the run's, not this unit's
KB_START=${KB_RUN_START:-$KB_START}

usage() {
	sed -n '3,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
die2() {
	printf 'kbench: error: boot-unit.sh: %s\n' "$*" >&2
	exit 2
}
declare -A opt=()
while [ $# -gt 0 ]; do
	case "$1" in
	--unit | --name | --label | --kernel | --vcpus | --boot | --payload | --mem | --timeout | \
		--clock | --attempt0 | --disks | --model)
		[ $# -ge 2 ] || die2 "option $1 needs a value (see --help)"
		opt[${1#--}]=$2
		shift 2 ;;
	-h | --help) usage ;;
	*) die2 "unknown option '$1' (see --help)" ;;
	esac
done
for o in unit name label kernel vcpus boot payload mem timeout clock attempt0; do
	[ -n "${opt[$o]:-}" ] || die2 "--$o is required (see --help)"
done
for o in unit vcpus attempt0; do
	case "${opt[$o]}" in *[!0-9]*) die2 "--$o '${opt[$o]}': want a whole number" ;; esac
done
n=${opt[unit]} name=${opt[name]} label=${opt[label]} kdir=${opt[kernel]} v=${opt[vcpus]}
boot=${opt[boot]} payload=${opt[payload]} mem=${opt[mem]} timeout=${opt[timeout]}
clock=${opt[clock]} attempt0=${opt[attempt0]} disks_spec=${opt[disks]:-} model_wls=${opt[model]:-}
case "$boot" in "v$v-b"[0-9][0-9]*) ;; *) die2 "--boot '$boot': want v$v-bNN (--vcpus $v)" ;; esac
run=${KB_RUN:?KB_RUN is the run directory}
nboots=${KB_NBOOTS:?}
jobs=${KB_BOOT_JOBS:-1}
: "${BOOTS:?}" "${RETRIES:?}" "${KBENCH_CACHE:?}"

b=$((10#${boot##*-b}))
dest=$run/raw/$name/$boot
out=$run/boots/$name/$boot
times_file=$KBENCH_CACHE/boot-times.tsv

# status WORD: the unit's outcome, for run.sh
status() { printf 'kbench-unit\t%s\t%s\t%s\n' "$name" "$boot" "$1"; }
# unit_die MSG: an error that ends this boot, not the run (the other
# units go on; run.sh names it at the end)
unit_die() {
	printf 'kbench: error: %s\n' "$*" >&2
	status error
	exit 0
}
# append FILE LINE: one whole line, under a lock (units run side by side)
append() {
	{
		flock 9
		printf '%s\n' "$2" >&9
	} 9>>"$1"
}

# eta: estimated seconds for this boot and those after it in the run's
# order (RUN/units.tsv: --unit, --name, --vcpus and --payload are its
# columns 1, 2, 5 and 7), BOOT_JOBS at a time (boot-time.sh: this run's
# boots of a size first, then earlier runs', scaled, or a first guess).
# The payloads are side by side in RUN/payload/; on another host
# units.tsv names them where they are on the machine that runs the run.
eta() {
	local v2 m total=0 most=0 k=0 j n2 nm2 pl2 key
	declare -A seen=()
	while IFS=$'\t' read -r n2 nm2 _ _ v2 _ pl2 _; do
		[ "$n2" -ge "$n" ] || continue
		pl2=${payload%/*}/${pl2##*/}
		key=$nm2,$v2,$pl2
		[ -n "${seen[$key]+set}" ] ||
			seen[$key]=$(boot_time "$v2" "$run" "$nm2" "$(plan_sig <"$pl2/plan.tsv")" | cut -d' ' -f1)
		m=${seen[$key]}
		total=$((total + m))
		k=$((k + 1))
		[ "$m" -le "$most" ] || most=$m
	done <"$run/units.tsv"
	j=$((k < jobs ? k : jobs))
	[ "$j" -ge 1 ] || j=1
	total=$(((total + j - 1) / j))
	# jobs side by side cannot end sooner than the longest one
	[ "$total" -ge "$most" ] || total=$most
	echo "$total"
}

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

# say_direct MSG: kb_say to fd 3 if it is open, else to stderr
say_direct() {
	if { true >&3; } 2>/dev/null; then kb_say "$@" 2>&3; else kb_say "$@"; fi
}

disks=()
# SIGINT or SIGTERM: QEMU is stopped (kb_fg passes SIGTERM on to
# launch.sh, which stops it), nothing of this boot is kept.
kb_catch_signals
interrupted() {
	rm -rf "$out" "$dest"
	rm -f ${disks[@]+"${disks[@]}"}
	say_direct "interrupted in $name $boot (boot $n/$nboots): QEMU stopped, that boot's partial output removed"
	exit "$(kb_signal_rc)"
}

# this attempt's number: the next after those the boot already has
attempt=$attempt0
while [ -e "$out.attempt$attempt" ]; do attempt=$((attempt + 1)); done

# a boot without .done starts again from nothing
rm -rf "$dest" "$out"
mkdir -p "$(dirname "$out")"
extra=() di=0
# the workloads' extra disks: 1 MB scratch images, one queue per vCPU
# where queues=vcpus (one interrupt row each)
for d in $disks_spec; do
	di=$((di + 1))
	q=${d#virtio-blk}
	q=${q#,queues=}
	[ "$q" != vcpus ] || q=$v
	disks+=("$out.disk$di.img")
	truncate -s 1M "$out.disk$di.img"
	extra+=(-drive "file=$out.disk$di.img,if=none,id=kbdisk$di,format=raw"
		-device "virtio-blk-pci,drive=kbdisk$di${q:+,num-queues=$q}")
done
# the model: the kbcache plugin writes one line per window and leaves
# the guest's interrupts out of them: it needs the kernel's entry points
# (model/entries.sh), at their link addresses (nokaslr), and the same
# user address layout every boot (norandmaps) to be the same every boot
mw='' mapp=''
if [ -n "$model_wls" ]; then
	mw=$(cd "$(dirname "$out")" && pwd)/$boot/model-windows.csv
	me=$(dirname "$mw")
	me=${me%/*}/kbcache/entries.txt
	mkdir -p "${me%/*}"
	# both kernels' units may write it at once: each its own temp file
	"$top/model/entries.sh" "$kdir" >"$me.tmp.$$" ||
		unit_die "the model needs the entry points of kernel $label (model/entries.sh failed, above)"
	mv -f "$me.tmp.$$" "$me"
	extra+=(-plugin "$top/build/model/libkbcache.so,outfile=$mw,entries=$me")
	mapp='nokaslr norandmaps'
fi
[ -z "$KB_SIGNAL" ] || interrupted
bof=$b/$BOOTS
[ "$b" -le "$BOOTS" ] || bof="$b (added by BOOTS=auto)"
kb_say "boot $n/$nboots: $name ($label) vcpus=$v boot $bof clock=$clock${mw:+ model=cache}${KB_HOST_LOGIN:+ on $KB_HOST_LOGIN}, $(kb_elapsed) elapsed, $(fmt_min "$(eta)") left (estimated$([ "$jobs" = 1 ] || echo ", $jobs boots at a time"))"
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

t_boot=$(date +%s)
rc=0
kb_fg "$top/images/launch.sh" --kernel "$kdir" \
	--payload "$payload" --out "$out" \
	--vcpus "$v" --mem "$mem" --clock "$clock" --timeout "$timeout" \
	${append[@]+"${append[@]}"} \
	${extra[@]+--extra-qemu "${extra[@]}"} || rc=$?
t_boot=$(($(date +%s) - t_boot))
[ -z "$KB_SIGNAL" ] || interrupted
# the host that ran it (the report lists it; under the wall clock a
# comparison stays on hosts alike): its login (HOSTS=), CPU, QEMU,
# kernel, accelerator
if [ -d "$out" ]; then
	jq -n --arg login "${KB_HOST_LOGIN:-local}" --arg hostname "$(hostname)" \
		--arg cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
		--arg kernel "$(uname -r)" --arg ncpu "$(nproc)" \
		--arg qemu "$(qemu-system-x86_64 --version 2>/dev/null | head -n 1)" \
		--arg accel "$(jq -r '.accel // empty' "$out/launch.json" 2>/dev/null)" \
		--arg cache "$KBENCH_CACHE" --arg run "$run" \
		'{login: $login, hostname: $hostname, cpu: $cpu, kernel: $kernel, ncpu: ($ncpu | tonumber),
		  qemu: $qemu, accel: $accel, cache: $cache, run: $run}' >"$out/host.json" || true
fi
append "$times_file" "$(printf '%s\t%s\t%s\t%s\t%s' "$v" "$t_boot" "$run" "$name" "$(plan_sig <"$payload/plan.tsv")")"
rm -f ${disks[@]+"${disks[@]}"}

if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
	# A failed boot is a result: recorded, and the run goes on. Each
	# attempt keeps its own boot directory; parallel --retries runs the
	# unit again for the next attempt.
	mv "$out" "$out.attempt$attempt"
	why=$(failure_reason "$rc")
	# results cut short: the launcher's message says which files
	if [ "$rc" = 8 ] && jq -e '.status == "results-incomplete"' "$out.attempt$attempt/launch.json" >/dev/null 2>&1; then
		why=$(jq -r '.message' "$out.attempt$attempt/launch.json" | tr '\t\n' '  ')
	fi
	row=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' "$name" "$boot" "$v" "$attempt" "$rc" \
		"$why${KB_HOST_LOGIN:+ (on host $KB_HOST_LOGIN)}" "$out.attempt$attempt/serial.log")
	append "$run/failed-boots.tsv" "$row"
	# on another host (HOSTS=), the row goes back with the attempt
	[ -z "${KB_HOST_LOGIN:-}" ] || printf '%s\n' "$row" >"$out.attempt$attempt/failed-row.tsv"
	try=$((attempt - attempt0 + 1))
	say_direct "boot $name $boot FAILED: $why (launch.sh exit $rc); serial log: $out.attempt$attempt/serial.log$([ "$RETRIES" = 0 ] || echo "; attempt $try of $((RETRIES + 1))")"
	status failed
	exit "$rc"
fi

res=$out/results
[ -d "$res/raw" ] || unit_die "boot $name $boot returned no raw/ results; see $out/serial.log and $res/run.log"
mkdir -p "$dest"
# samples, and the points whose variant this kernel lacks
for csv in "$res"/raw/*.csv "$res"/raw/*.absent; do
	[ -f "$csv" ] || continue
	c=$(basename "$csv")
	# a full host disk: named, and the boot is not complete
	if ! cperr=$(cp "$csv" "$dest/.$c.tmp" 2>&1 && cmp "$csv" "$dest/.$c.tmp" 2>&1 &&
		mv -f "$dest/.$c.tmp" "$dest/$c" 2>&1); then
		rm -f "$dest/.$c.tmp"
		unit_die "boot $name $boot, workload ${c%.*}: copying its samples into $dest failed: $cperr (host disk full? $(df -h "$run" | tail -n 1)); that boot is not marked complete: free space, then resume with $(kb_resume_cmd "${KB_TARGET:-bench-compare}" "$run")"
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
	kb_say "warning: runner failed in $name $boot (partial results kept$([ -z "$mw" ] || echo ", model rows not joined")); see $res/run.log"
	status runner-failed
	exit 0
fi
# The model's windows, joined to the samples the guest ran. A failed
# join is listed like a failed boot (exit "model"); the icount samples
# copied above stay, the boot is not complete (a resume runs it again).
if [ -n "$mw" ] && ! jerr=$("$top/model/join.sh" --boot "$name $boot" --windows "$mw" \
	--plan "$payload/plan.tsv" --raw "$dest" --workloads "$model_wls" 2>&1); then
	jerr=$(printf '%s' "${jerr#kbench: error: }" | tr '\t\n' '  ')
	append "$run/failed-boots.tsv" "$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' "$name" "$boot" "$v" "$attempt" model \
		"$jerr; its other samples are kept in raw/$name/$boot" "$out/serial.log")"
	kb_say "boot $name $boot: MODEL JOIN FAILED: $jerr; its other samples are kept in $dest (the boot is not marked complete)"
	status model-failed
	exit 0
fi
: >"$dest/.done"
status "done"
