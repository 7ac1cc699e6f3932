#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the workloads on a set of kernels, interleaved, into a run directory.
#
#   run.sh --run DIR --kernel NAME=LABEL [--kernel NAME=LABEL ...]
#
# NAME is how the kernel appears in raw/<NAME>/ and the report; LABEL is
# the kernel in $KBENCH_CACHE/labels/ (an A/A run uses one LABEL twice).
# A boot is a unit of work (orchestrate/boot-unit.sh: its result is the
# boot's directory). The units go A B A B ... BOOTS times per kernel and
# per vCPU count, so host drift lands on every kernel alike; they are
# listed in RUN/units.tsv in that order and GNU parallel starts them in
# it, BOOT_JOBS at a time (auto: one per core under icount, as memory
# allows; one under the wall clock), keeping its joblog in
# RUN/boots.joblog. A boot whose raw data is complete
# (raw/<NAME>/<boot>/.done) is skipped, so an interrupted run resumes when
# given the same DIR. With PROFILE=1 the first boot of each kernel also
# runs each point once under perf record -g, after its timed samples
# (RUN/profile/<NAME>/). A boot that panics, oopses, hangs or whose QEMU
# dies is a result: it is listed in RUN/failed-boots.tsv (with its serial
# log; each attempt keeps its boot directory, <boot>.attemptN), tried
# again RETRIES times (parallel --retries), and the run goes on. With
# MODEL=cache (or a workload file's model = cache) the boots run under
# the kbcache plugin and model/join.sh adds its per-sample metrics to the
# boot's raw CSVs (model/README.md); a join that fails is listed in
# failed-boots.tsv too (exit "model"), the boot's other samples stay in
# raw/, and the boot is not marked complete. With BOOTS=auto the run
# starts with 3 boots a kernel; then every primary key is decided by the
# adaptive-boots rule (orchestrate/adaptive.sh, kbstat sequential) and
# the points it leaves undecided get one more boot pair (only those
# points, A B), again and again until each is decided or BOOTS_MAX boots
# a kernel are reached; each added boot is listed in RUN/plan.added and
# at the end of RUN/plan.id. Environment: BOOTS, BOOTS_MAX,
# WORKLOADS, QUICK, BENCH_VCPUS, RETRIES, BOOT_JOBS, PROFILE, MODEL,
# ACCEL, IMAGE, ROOT, HOSTS, HOSTS_KNOWN_HOSTS, HOSTS_SSH_CONFIG,
# HOSTS_MIN_FREE_MB, V (see bench.conf); with HOSTS the units run on
# those hosts (orchestrate/hosts.sh, host-unit.sh); KB_APPEND="ARG ..." adds kernel
# command-line arguments to every boot (make test-debug:
# ignore_loglevel); KB_FAULT_APPEND="NAME/BOOT=ARG ..." adds a kernel
# command-line argument to one boot (the tests make a boot panic with
# it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# BOOTS=auto runs this script again, with the same arguments, per round
args0=("$@")
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=workloads/wl.sh
. "$top/workloads/wl.sh"
# shellcheck source=orchestrate/boot-time.sh
. "$here/boot-time.sh"
# shellcheck source=orchestrate/hosts.sh
. "$here/hosts.sh"

kb_conf KBENCH_CACHE
kb_conf BOOTS BOOTS_MAX WORKLOADS QUICK MATRIX RETRIES BOOT_JOBS HOSTS HOSTS_KNOWN_HOSTS HOSTS_SSH_CONFIG HOSTS_MIN_FREE_MB

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
# BOOTS=auto: the rule's first look is at 3 boots a side (the least a
# verdict takes), its last at BOOTS_MAX
auto=0
if [ "$BOOTS" = auto ]; then
	auto=1
	case "$BOOTS_MAX" in '' | *[!0-9]*) kb_die "BOOTS_MAX must be a whole number of boots a kernel (3 or more), not '$BOOTS_MAX'" ;; esac
	[ "$BOOTS_MAX" -ge 3 ] || kb_die "BOOTS_MAX=$BOOTS_MAX: BOOTS=auto starts with 3 boots a kernel, so BOOTS_MAX must be 3 or more"
	case "${#names[@]}" in 2 | 3) ;; *)
		kb_die "BOOTS=auto decides between kernels: give two (or three, as make regression-check does), not ${#names[@]}" ;;
	esac
	BOOTS=3
fi
case "$BOOTS" in '' | *[!0-9]* | 0) kb_die "BOOTS must be a positive number or auto, not '$BOOTS'" ;; esac
case "$RETRIES" in '' | *[!0-9]*) kb_die "RETRIES must be a whole number, not '$RETRIES'" ;; esac
case "$BOOT_JOBS" in
auto) ;;
'' | *[!0-9]* | 0) kb_die "BOOT_JOBS must be auto or a positive number (boots side by side), not '$BOOT_JOBS'" ;;
esac
case "$HOSTS_MIN_FREE_MB" in '' | *[!0-9]*) kb_die "HOSTS_MIN_FREE_MB must be a whole number of MB, not '$HOSTS_MIN_FREE_MB'" ;; esac
[ -z "$HOSTS" ] || hosts_init
command -v parallel >/dev/null || kb_die "GNU parallel runs the boots and is not installed: run make deps (Debian package parallel)"
case "${MODEL:-}" in
'' | none | cache) ;;
*) kb_die "MODEL must be none or cache (or empty: each workload file's model key), not '$MODEL'" ;;
esac
# kbcache's windows and counters are exact when every vCPU runs in one
# TCG thread, as under icount; CLOCK=wall is MTTCG (model/README.md)
if [ "${MODEL:-}" = cache ] && [ "${CLOCK:-}" = wall ]; then
	kb_die "MODEL=cache needs the icount clock, not CLOCK=wall (the model counts instructions in one TCG thread; under the wall clock's MTTCG its counters race): leave CLOCK empty or give CLOCK=icount"
fi

# each kernel's directory in the cache, as its label says now: the
# boots use it, whatever the label says later
kdirs=()
for i in "${!labels[@]}"; do
	kd=$KBENCH_CACHE/labels/${labels[$i]}
	[ -f "$kd/bzImage" ] || kb_die "kernel '${labels[$i]}' is not built ($kd/bzImage missing): run make kernels"
	kdirs[i]=$(readlink -f "$kd")
done

# Workload files: the WORKLOADS=a,b list (names in workloads/ or paths
# of .wl files), else every file whose default_run is yes: the program
# workloads are not about the series (wl.sh, wl_files).
wldir=$top/workloads
wlist=$(wl_files "$wldir" "$WORKLOADS")
[ -n "$wlist" ] || kb_die "no workload files in $wldir"
mapfile -t wls <<<"$wlist"

# A point of the plan, checked on the host by the bench's own parser
# (kbbench check) with the arguments the guest will give it: a typo
# fails here, naming the workload file and line, before any boot.
check_point() {
	local bench=$1 variant=$2 point=$3 reps=$5 warmup=$6 msg line kv k
	local -a args=() extra=() kvs=()
	read -r -a args <<<"${WL[args]}"
	read -r -a extra <<<"$4"
	IFS=';' read -r -a kvs <<<"$point"
	# make bench / bench-compare / regression-check build it first (it
	# needs the patched kernel: the BPF benchmarks use its BTF and libbpf)
	[ -x "$top/build/bench/kbbench" ] || kb_die "build/bench/kbbench is not built: run make bench-tools"
	msg=$("$top/build/bench/kbbench" check "$bench" --workload "${WL[name]}" \
		--variant "$variant" --point "$point" --reps "$reps" \
		--warmup "$warmup" --clock "${WL[clock]}" "${args[@]}" "${extra[@]}" 2>&1) && return 0
	msg=${msg#kbbench: }
	# the line to blame: the key whose value the bench refused
	line=${WL_LINE[args]:-${WL_LINE[bench]}}
	case "$msg" in
	"no benchmark"*) line=${WL_LINE[bench]} ;;
	*--reps*) line=${WL_LINE[reps]:-$line}
		[ "$reps" = "${WL[reps]}" ] || line=${WL_LINE[reps_at]:-$line} ;;
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
# the program workloads' Debian packages: the image gets them
img_pkgs=''
for f in "${wls[@]}"; do
	wl_load "$f"
	img_pkgs+="${WL[packages]:+ ${WL[packages]}}"
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
				# reps_at: fewer samples at a slow point, never none
				read -r reps warmup < <(wl_reps_at "$variant" "$pt")
				if [ -n "${WL[command]:-}" ]; then
					# a program (wl_load checked it): "@parser", its
					# output, the command line (guest/run.sh)
					plan_lines[$v]+="${WL[name]}	@${WL[parser]}	$variant	$point	$reps	$warmup	${WL[clock]}	${WL[output]}	$(wl_command "$pt" "$v" "$variant")
"
					continue
				fi
				check_point "${WL[bench]}" "$variant" "$point" "$pargs" "$reps" "$warmup"
				plan_lines[$v]+="${WL[name]}	${WL[bench]}	$variant	$point	$reps	$warmup	${WL[clock]}	${WL[args]}	$pargs
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
	[ -z "$HOSTS" ] ||
		kb_die "the model (MODEL=cache or a workload's model = cache) runs on this machine only for now: leave HOSTS empty for it, or give MODEL=none"
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
	img=$IMAGE
	[ -z "$img_pkgs" ] || kb_say "IMAGE=$IMAGE: the program workloads need the Debian packages$img_pkgs in it; kbench cannot check that your image has them"
elif [ -n "$img_pkgs" ]; then
	# the image with the program workloads' packages (one per package
	# set, cached like the default one; built now if it is not there)
	img=$("$top/images/build-image.sh" --packages "$img_pkgs") ||
		kb_die "no guest image with the packages$img_pkgs (images/build-image.sh --packages failed, above)"
	"$top/images/check-image.sh" "$img" "${ROOT:-/dev/vda}"
	# the boots' launch.sh takes it from IMAGE (as on other hosts)
	export IMAGE=$img
else
	img=$("$top/images/build-image.sh" --path) || kb_die "no guest image: run make image, or give IMAGE="
	"$top/images/check-image.sh" "$img" "${ROOT:-/dev/vda}"
fi

# Boots side by side (BOOT_JOBS; GNU parallel runs them). Under icount a
# guest's instruction counts do not depend on the host, so auto runs one
# boot per core (an icount guest is one TCG thread), as many as memory
# holds; under the wall clock concurrent guests would disturb each
# other's time, so auto is 1 there. A number is taken as given. It is
# not part of the plan: an icount result does not depend on it.
wall_groups=() maxmem=0
for v in "${groups[@]}"; do
	[ "${group_clock[$v]}" != wall ] || wall_groups+=("$v")
	[ "$maxmem" -ge "${group_mem[$v]}" ] || maxmem=${group_mem[$v]}
done
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/kbench-run.XXXXXX")
# a run stopped before it wrote anything leaves no empty directory
trap 'rm -rf "$tmpd"; rmdir "$run" 2>/dev/null || true' EXIT
if [ -n "$HOSTS" ]; then
	# each host checked, its boots at a time (hosts.sh)
	hosts_check "$maxmem" "$([ "${#wall_groups[@]}" = 0 ] || echo 1)"
	jobs=0
	for j in "${host_jobs[@]}"; do jobs=$((jobs + j)); done
	cur_fps=("${host_fp_s[@]}")
	kb_say "boots: ${#host_login[@]} host(s), $jobs at a time in all$([ "${#wall_groups[@]}" = 0 ] || echo " (the wall clock, vcpus ${wall_groups[*]}: one per host, hosts alike)")"
elif [ "$BOOT_JOBS" = auto ]; then
	if [ "${#wall_groups[@]}" -gt 0 ]; then
		jobs=1
		why="the wall clock (vcpus ${wall_groups[*]}): guests side by side would disturb each other's time; BOOT_JOBS=N runs N anyway"
	else
		cores=$(nproc)
		avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
		# a guest's memory, and QEMU's own (TCG's code buffer, devices)
		bymem=$((avail / (maxmem + 512)))
		[ "$bymem" -ge 1 ] || bymem=1
		jobs=$((cores < bymem ? cores : bymem))
		why="icount: $cores core(s), one per guest; memory for $bymem guest(s) of $maxmem MB + 512 MB for QEMU in $avail MB available"
	fi
	kb_say "boots: BOOT_JOBS=auto: $jobs at a time ($why)"
else
	jobs=$BOOT_JOBS
	if [ "${#wall_groups[@]}" -gt 0 ] && [ "$jobs" -gt 1 ]; then
		kb_say "boots: BOOT_JOBS=$jobs at a time, as given, although vcpus ${wall_groups[*]} run under the wall clock: guests side by side disturb each other's time (BOOT_JOBS=auto runs one)"
	else
		kb_say "boots: BOOT_JOBS=$jobs at a time"
	fi
fi
# The wall clock: the boots of a run, those done before a resume too, on
# one host or hosts alike (their host.json)
if [ "${#wall_groups[@]}" -gt 0 ]; then
	if [ -z "$HOSTS" ]; then
		declare -A lp=()
		while IFS=$'\t' read -r k val; do lp[$k]=$val; done < <(bash "$here/host-probe.sh")
		host_cpu=("${lp[cpu]}") host_qemu=("${lp[qemu]}") host_kernel=("${lp[kernel]}") host_kvm=("${lp[kvm]}")
		cur_fps=("$(host_fp 0)")
	fi
	mapfile -t old_fps < <([ ! -d "$run/boots" ] || find "$run/boots" -mindepth 3 -maxdepth 3 -name host.json -not -path '*.attempt[0-9]*/*' \
		-exec jq -r '"cpu=\(.cpu); qemu=\(.qemu); kernel=\(.kernel); accel=\(.accel)"' {} + 2>/dev/null | sort -u)
	fps=$(printf '%s\n' "${cur_fps[@]}" ${old_fps[@]+"${old_fps[@]}"} | sort -u)
	[ "$(grep -c . <<<"$fps")" -le 1 ] ||
		kb_die "the wall clock needs every boot of a comparison on one host or on hosts with identical fingerprints; the boots already in $run ran on another: $(tr '\n' ' ' <<<"$fps")- resume on the host(s) it ran on, or start a new run"
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
	if [ "$auto" = 1 ]; then
		printf 'boots auto: first %s, max %s\n' "$BOOTS" "$BOOTS_MAX"
	else
		printf 'boots %s\n' "$BOOTS"
	fi
	printf 'profile %s\n' "${PROFILE:-0}"
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
	# the boots BOOTS=auto added ("added ..." lines) come from the data
	if ! cmp -s <(grep -v '^added ' "$run/plan.id") "$newplan"; then
		d=$(diff <(grep -v '^added ' "$run/plan.id") "$newplan" | grep '^[<>]' | head -n 4 |
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
run=$(cd "$run" && pwd)
# The run keeps the workload files it used: the report reads their
# primary metrics, and make report RUN= needs nothing outside RUN.
for f in "${wls[@]}"; do
	cp "$f" "$run/workloads/"
done
nboots=$(( ${#groups[@]} * BOOTS * ${#names[@]} ))
# BOOTS=auto's added boots (plan.added: boot number, then the plan line
# of a point it runs), by vCPU count
declare -A added_lines=()
added_boots=()
if [ -f "$run/plan.added" ]; then
	while IFS=$'\t' read -r ab line; do
		v=$(cut -f4 <<<"$line")
		v=${v%%;*}
		v=${v#vcpus=}
		[ -n "${added_lines[$v,$ab]:-}" ] || {
			added_boots+=("$v,$ab")
			nboots=$((nboots + ${#names[@]}))
		}
		added_lines[$v,$ab]+="$line
"
	done <"$run/plan.added"
fi
kb_say "run $run: ${#wls[@]} workload(s), vcpus {${groups[*]}}, $BOOTS boot(s) x ${#names[@]} kernel(s)$([ "${#added_boots[@]}" = 0 ] || echo " + ${#added_boots[@]} added pair(s)") = $nboots boots"

# Time estimates (orchestrate/boot-time.sh): per vCPU count, from
# earlier boots at that count, else at the nearest count (scaled), else
# a first guess; the units add their times as they end and print what
# is left as they start, this run's own boots first.
est=0 most=0 guessed=''
declare -A group_est=()
for v in "${groups[@]}"; do
	sig=$(printf '%s' "${plan_lines[$v]}" | plan_sig)
	each='' srcs=''
	group_est[$v]=0
	for name in "${names[@]}"; do
		read -r m src < <(boot_time "$v" "" "$name" "$sig")
		est=$((est + m * BOOTS))
		[ "$most" -ge "$m" ] || most=$m
		[ "${group_est[$v]}" -ge "$m" ] || group_est[$v]=$m
		case "$src" in
		earlier) src="earlier runs of this plan" ;;
		reference) src="the reference host's boots of this plan: README, Benchmarks" ;;
		earlier-any) src="earlier runs" ;;
		scaled:*) src="scaled from earlier boots at ${src#scaled:} vCPUs"; guessed=1 ;;
		*) src="a first guess: no boot has run yet, and the workloads' time is not in it"; guessed=1 ;;
		esac
		each+="${each:+, }$name $(fmt_min "$m")"
		case "|$srcs|" in *"|$src|"*) ;; *) srcs+="${srcs:+|}$src" ;; esac
	done
	# one figure when every kernel has the same
	[ "$(printf '%s\n' "${each//, /$'\n'}" | awk '{print $NF}' | sort -u | wc -l)" != 1 ] ||
		each=$(fmt_min "$m")
	kb_say "plan: vcpus=$v: $((BOOTS * ${#names[@]})) boots (${names[*]}), about $each each (${srcs//|/; })"
done
# boots side by side: no more at once than there are boots
j=$((nboots < jobs ? nboots : jobs))
est=$(((est + j - 1) / j))
[ "$est" -ge "$most" ] || est=$most
kb_say "plan: estimated total $(fmt_min "$est")$([ "$j" = 1 ] || echo ", $j boots at a time")${guessed:+ (partly guessed; corrected as boots end)}"

# The payload is the same for every kernel: only the kernel differs.
declare -A boot_payload=()
for v in "${groups[@]}"; do
	pd=$run/payload/v$v
	mkdir -p "$pd/bin"
	cp "$top/bench/perfstat2csv.sh" "$pd/bin/"
	# kbbench for the bench workloads (check_point made sure it is built)
	[ ! -x "$top/build/bench/kbbench" ] || cp "$top/build/bench/kbbench" "$pd/bin/"
	# the program workloads' parsers (workloads/parsers/)
	mkdir -p "$pd/bin/parsers"
	cp "$top/workloads/parsers/parse.sh" "$top"/workloads/parsers/*.awk "$pd/bin/parsers/"
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
# BOOTS=auto's added boots: only their points, in the rotation of their
# boot number, like any boot
for vb in ${added_boots[@]+"${added_boots[@]}"}; do
	v=${vb%,*} b=${vb#*,}
	pd=$run/payload/v$v
	rm -rf "$pd.a$b"
	cp -r "$pd" "$pd.a$b"
	rm -f "$pd.a$b/profile.on"
	printf '%s' "${added_lines[$vb]}" | "$here/plan-order.sh" $((b - 1)) >"$pd.a$b/plan.tsv"
	boot_payload[$v,$b]=$pd.a$b
done

if [ ! -f "$run/failed-boots.tsv" ]; then
	printf 'kernel\tboot\tvcpus\tattempt\texit\treason\tserial_log\n' >"$run/failed-boots.tsv"
fi

# The units: one per boot, in the interleaved order (for each vCPU
# count, boot 1 of every kernel, then boot 2, ...), each with everything
# its launch.sh call needs (orchestrate/boot-unit.sh). A boot whose raw
# data is complete (.done) is skipped, so a run given again resumes.
units=$run/units.tsv
: >"$units.tmp"
n=0 todo=0 done_boots=0
# The vCPU counts whose boots take longest go first (by the estimate
# above), each still interleaved A B A B: boots side by side then end
# together instead of one long boot running alone at the end. The order
# is not part of the plan (plan.id).
mapfile -t unit_groups < <(for v in "${groups[@]}"; do
	printf '%s %s\n' "${group_est[$v]}" "$v"
done | sort -k1,1nr -k2,2n | cut -d' ' -f2)
for v in "${unit_groups[@]}"; do
	bs=$(seq 1 "$BOOTS")
	for vb in ${added_boots[@]+"${added_boots[@]}"}; do
		[ "${vb%,*}" != "$v" ] || bs+=" ${vb#*,}"
	done
	for b in $bs; do
		for i in "${!names[@]}"; do
			n=$((n + 1))
			name=${names[$i]}
			boot=$(printf 'v%d-b%02d' "$v" "$b")
			if [ -f "$run/raw/$name/$boot/.done" ]; then
				kb_say "boot $n/$nboots: $name $boot already done, skipped"
				done_boots=$((done_boots + 1))
				continue
			fi
			# this run's attempts are numbered after an earlier run's
			a=0
			while [ -e "$run/boots/$name/$boot.attempt$a" ]; do a=$((a + 1)); done
			d=${group_disks[$v]:-}
			d=${d# }
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$name" "${labels[$i]}" \
				"${kdirs[$i]}" "$v" "$boot" \
				"${boot_payload[$v,$b]}" "${group_mem[$v]}" "${group_timeout[$v]}" "${group_clock[$v]}" \
				"${d:--}" "${group_model_wls[$v]:--}" "$a" >>"$units.tmp"
			todo=$((todo + 1))
		done
	done
done
mv -f "$units.tmp" "$units"

# the hosts get what the boots need (hosts.sh)
if [ -n "$HOSTS" ] && [ "$todo" -gt 0 ]; then
	hosts_sync "$run" "$img" "${kdirs[@]}"
fi

# SIGINT or SIGTERM: parallel passes SIGTERM on to every unit running
# (--termseq, with time for launch.sh to stop its QEMU); each removes
# its boot's partial output and says so; the complete boots stay
# (raw/<NAME>/<boot>/.done) and a run given again (RESUME=) does only
# what is missing. The caller prints the command that resumes.
kb_catch_signals
interrupted() {
	done_boots=$(find "$run/raw" -name .done | wc -l)
	kb_say "interrupted $1; $done_boots boot(s) of $nboots complete in $run"
	exit "$(kb_signal_rc)"
}
[ -z "$KB_SIGNAL" ] || interrupted "before the first boot"

# GNU parallel runs the units, $jobs at a time, started in the order of
# units.tsv; --line-buffer prints each line as it comes (not each boot's
# output when it ends), tagged with its boot when boots run side by side;
# --retries gives a failed launch RETRIES more tries; the joblog
# (RUN/boots.joblog, appended by every resume) has each unit's last
# attempt. The units' stdout is their outcome (boot-unit.sh).
# parallel writes no header when it appends
[ -f "$run/boots.joblog" ] ||
	printf 'Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n' >"$run/boots.joblog"
ustat=$(mktemp "${TMPDIR:-/tmp}/kbench-units.XXXXXX")
# shellcheck disable=SC2054 # --termseq takes a comma-separated list
par=(parallel --will-cite --colsep '\t' --line-buffer --joblog "+$run/boots.joblog"
	--termseq TERM,60000,KILL,25)
[ "$jobs" = 1 ] || par+=(--tagstring '{2} {6}')
tries=$((RETRIES + 1))
unit=("$here/boot-unit.sh")
if [ -z "$HOSTS" ]; then
	par+=(--jobs "$jobs")
else
	# On the hosts: N at a time on each (N/login, --jobs 100%), over the
	# checked ssh, each in a working directory of its own (...), each
	# boot sent back by rsync into RUN/ret/ (hosts_merge files it). A
	# unit whose host dies (ssh's 255) is tried again on another: one
	# more try per host.
	sl=''
	for i in "${!host_login[@]}"; do sl+="${sl:+,}${host_jobs[$i]}/${host_login[$i]}"; done
	par+=(--jobs 100% --sshlogin "$sl" --ssh "$ssh_str" --workdir ... --return 'ret/{2}/{6}' --cleanup)
	tries=$((tries + ${#host_login[@]}))
	# the unit's command, run by the host's shell: its cache is its own
	unit=("\"\${KBENCH_CACHE:-\$HOME/.cache/kbench}\"/tree/$tree_key/orchestrate/host-unit.sh")
	for a in "$(basename "$run")" "$image_rel" "$run" "$(readlink -f "$img")" \
		KB_NBOOTS="$nboots" KB_RUN_START="$KB_START" KB_BOOT_JOBS="$jobs" BOOTS="$BOOTS" RETRIES="$RETRIES" \
		V="${V:-0}" KB_APPEND="${KB_APPEND:-}" KB_FAULT_APPEND="${KB_FAULT_APPEND:-}" ROOT="${ROOT:-/dev/vda}" \
		ACCEL="${ACCEL:-auto}" KB_TARGET="${KB_TARGET:-bench-compare}" --; do
		unit+=("$(printf '%q' "$a")")
	done
fi
[ "$tries" = 1 ] || par+=(--retries "$tries")
prc=0
if [ "$todo" -gt 0 ]; then
	export KB_RUN=$run KB_NBOOTS=$nboots KB_RUN_START=$KB_START KB_BOOT_JOBS=$jobs
	if [ -z "$HOSTS" ]; then
		kb_fg "${par[@]}" -q "${unit[@]}" '{1}' '{2}' '{3}' '{4}' '{5}' '{6}' '{7}' '{8}' '{9}' '{10}' '{11}' '{12}' '{13}' \
			:::: "$units" >"$ustat" 3>&2 || prc=$?
	else
		# the command is the host's shell's (parallel quotes each {N})
		cd "$run"
		kb_fg "${par[@]}" "${unit[*]} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13}" \
			:::: "$units" >"$ustat" 3>&2 || prc=$?
		cd - >/dev/null
		hosts_merge "$run"
	fi
fi
if [ -n "$KB_SIGNAL" ]; then
	rm -f "$ustat"
	interrupted "(parallel stopped every boot it was running)"
fi

# Each unit's outcome: its last line (a failed attempt may be followed
# by a retry that succeeds).
declare -A outcome=()
while IFS=$'\t' read -r -a f; do
	for j in "${!f[@]}"; do
		[ "${f[$j]}" = kbench-unit ] || continue
		outcome[${f[$((j + 1))]}/${f[$((j + 2))]}]=${f[$((j + 3))]}
	done
done <"$ustat"
rm -f "$ustat"
failed=0 boots_failed=0 model_failed=0 lost=()
while IFS=$'\t' read -r _ name _ _ _ boot _; do
	case "${outcome[$name/$boot]:-}" in
	done)
		# from another host: back only if its rsync was
		[ -f "$run/raw/$name/$boot/.done" ] || lost+=("$name $boot (its results did not come back from its host)") ;;
	failed) boots_failed=$((boots_failed + 1)) ;;
	runner-failed) failed=$((failed + 1)) ;;
	model-failed) model_failed=$((model_failed + 1)) ;;
	*) lost+=("$name $boot") ;;
	esac
done <"$units"
if [ "${#lost[@]}" -gt 0 ]; then
	kb_die "${#lost[@]} boot(s) ended with an error (above): ${lost[*]} (parallel exit $prc; its log: $run/boots.joblog); they are not complete: fix the cause, then resume with $(kb_resume_cmd "${KB_TARGET:-bench-compare}" "$run")"
fi

# which host ran each boot (its host.json: boot-unit.sh)
{
	printf 'kernel\tboot\thost\thostname\tcpu\tqemu\thost_kernel\taccel\n'
	find "$run/boots" -mindepth 3 -maxdepth 3 -name host.json | LC_ALL=C sort | while IFS= read -r h; do
		d=${h%/host.json}
		jq -r --arg k "$(basename "$(dirname "$d")")" --arg b "$(basename "$d")" \
			'[$k, $b, .login, .hostname, .cpu, .qemu, .kernel, .accel] | @tsv' "$h"
	done
} | kb_atomic_write "$run/hosts.tsv"
"$here/fingerprint.sh" "$run" "${names[@]}" -- "${labels[@]}"
if [ "$boots_failed" != 0 ]; then
	kb_say "$boots_failed boot(s) failed; the statistics use the complete boots only; every failure is listed in $run/failed-boots.tsv and the report"
fi
[ "$failed" = 0 ] || kb_die "$failed boot(s) had failing workloads; their partial results are in $run/raw; see run.log in $run/boots/*/*/results/"
[ "$model_failed" = 0 ] || kb_die "$model_failed boot(s) failed the model's join (listed in $run/failed-boots.tsv, exit model): their icount samples are in $run/raw without model rows, and they are not complete (RESUME= runs them again)"
[ -z "$HOSTS" ] || hosts_clean "$run"

# BOOTS=auto: the points the rule leaves undecided get one more boot
# pair, numbered after the run's last boot, then this script runs again
# (with the same arguments: the plan is checked, the done boots skipped)
if [ "$auto" = 1 ]; then
	last=$BOOTS
	for vb in ${added_boots[@]+"${added_boots[@]}"}; do
		[ "${vb#*,}" -le "$last" ] || last=${vb#*,}
	done
	more=$("$here/adaptive.sh" "$run" "$BOOTS_MAX" "${names[@]}")
	und=$(awk -F'\t' 'NR > 1 && $7 == "continue"' "$run/sequential.tsv" | wc -l)
	kb_say "BOOTS=auto after $last boot(s) a kernel: $(awk -F'\t' 'NR > 1 { n[$7]++ } END { for (v in n) { printf "%s%d %s", s, n[v], v; s = ", " } }' "$run/sequential.tsv") (the rule's verdicts of the primary keys: $run/sequential.tsv)"
	if [ -n "$more" ] && [ "$last" -lt "$BOOTS_MAX" ]; then
		b=$((last + 1))
		while IFS=$'\t' read -r w var pt; do
			# the point's plan line, from its vCPU count's plan
			v=${pt%%;*}
			v=${v#vcpus=}
			awk -F'\t' -v w="$w" -v var="$var" -v pt="$pt" -v b="$b" -v OFS='\t' \
				'$1 == w && $3 == var && $4 == pt { print b, $0 }' "$run/payload/v$v/plan.tsv"
		done <<<"$more" >"$tmpd/added"
		[ -s "$tmpd/added" ] || kb_die "BOOTS=auto: the undecided points ($(tr '\n\t' '; ' <<<"$more")) are not in $run/payload/v*/plan.tsv"
		cat "$tmpd/added" >>"$run/plan.added"
		cut -f2- "$tmpd/added" | sed "s/^/added boot $b: point /" >>"$run/plan.id"
		kb_say "BOOTS=auto: $und key(s) undecided: boot pair $b of at most $BOOTS_MAX for $(grep -c . "$tmpd/added") point(s): $(cut -f2,4,5 "$tmpd/added" | tr '\t\n' ' ;')"
		rm -rf "$tmpd"
		trap - EXIT
		BOOTS=auto exec "$0" "${args0[@]}"
	fi
	und=$(awk -F'\t' 'NR > 1 && ($7 == "continue" || $7 == "inconclusive")' "$run/sequential.tsv" | wc -l)
	[ "$und" = 0 ] || kb_say "BOOTS=auto: BOOTS_MAX=$BOOTS_MAX reached with $und key(s) undecided: they stay inconclusive (a larger BOOTS_MAX would add more pairs)"
fi
kb_say "run complete: $run"
