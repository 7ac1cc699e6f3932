# SPDX-License-Identifier: GPL-2.0
# run.sh's checks, before any boot: the settings, each point of the plan
# (kbbench check), the model, the guest image and, under the wall clock,
# that every boot of the run is on one host. Sourced by orchestrate/run.sh.
# shellcheck shell=bash
# the globals (run, names, groups, group_*, WL, ...) are run.sh's and
# plan.sh's; what is set here is read there
# shellcheck disable=SC2154,SC2034

# check_settings: the environment's settings (bench.conf) before
# anything is read; BOOTS=auto becomes auto=1 and a first BOOTS of 3.
check_settings() {
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
}

# check_point BENCH VARIANT POINT PARGS REPS WARMUP: a point of the plan,
# checked on the host by the bench's own parser (kbbench check) with the
# arguments the guest will give it: a typo fails here, naming the
# workload file and line, before any boot.
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

# check_overrides FILE: CLOCK=, MODEL=, MEM=, BOOT_TIMEOUT= given for the
# run override the loaded workload file (WL; the clock used is still
# recorded per result); the model needs the icount clock.
check_overrides() {
	local f=$1 o k
	if [ -n "${CLOCK:-}" ]; then
		case "$CLOCK" in icount | wall) ;; *) kb_die "CLOCK must be icount or wall, not '$CLOCK'" ;; esac
		WL[clock]=$CLOCK
	fi
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
}

# check_model: the model (model/README.md), checked before any boot; its
# boots' timeouts doubled.
check_model() {
	local v r model_on=0
	kbcache=$top/build/model/libkbcache.so
	for v in "${groups[@]}"; do
		[ -z "${group_model[$v]:-}" ] || model_on=1
	done
	[ "$model_on" = 1 ] || return 0
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
			# shellcheck disable=SC2004 # group_timeout is associative (plan.sh)
			[ -z "${group_model[$v]:-}" ] || group_timeout[$v]=$((group_timeout[$v] * 2))
		done
	fi
}

# check_image: the guest image (img), checked before any boot: qcow2,
# with cloud-init.
check_image() {
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
}

# check_wall_hosts: the wall clock needs the boots of a run, those done
# before a resume too, on one host or hosts alike (their host.json).
check_wall_hosts() {
	local k val fps
	local -A lp=()
	local -a old_fps=()
	[ "${#wall_groups[@]}" -gt 0 ] || return 0
	if [ -z "$HOSTS" ]; then
		while IFS=$'\t' read -r k val; do lp[$k]=$val; done < <(bash "$here/host-probe.sh")
		host_cpu=("${lp[cpu]}") host_qemu=("${lp[qemu]}") host_kernel=("${lp[kernel]}") host_kvm=("${lp[kvm]}")
		cur_fps=("$(host_fp 0)")
	fi
	mapfile -t old_fps < <([ ! -d "$run/boots" ] || find "$run/boots" -mindepth 3 -maxdepth 3 -name host.json -not -path '*.attempt[0-9]*/*' \
		-exec jq -r '"cpu=\(.cpu); qemu=\(.qemu); kernel=\(.kernel); accel=\(.accel)"' {} + 2>/dev/null | sort -u)
	fps=$(printf '%s\n' "${cur_fps[@]}" ${old_fps[@]+"${old_fps[@]}"} | sort -u)
	[ "$(grep -c . <<<"$fps")" -le 1 ] ||
		kb_die "the wall clock needs every boot of a comparison on one host or on hosts with identical fingerprints; the boots already in $run ran on another: $(tr '\n' ' ' <<<"$fps")- resume on the host(s) it ran on, or start a new run"
}
