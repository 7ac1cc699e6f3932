# SPDX-License-Identifier: GPL-2.0
# run.sh's plan: the kernels' directories, the workload files, and for
# each vCPU count the plan.tsv lines of every workload and the size,
# clock, model and disks of its boots. Sourced by orchestrate/run.sh.
# shellcheck shell=bash
# the globals (names, labels, WL, ...) are run.sh's and wl.sh's; what is
# set here is read there
# shellcheck disable=SC2154,SC2034

# plan_lines[V]: the plan.tsv lines at V vCPUs; a boot's size and clock
declare -A plan_lines=() group_mem=() group_timeout=() group_clock=() group_disks=()
# group_model[V]: cache if a boot at V vCPUs runs under the model;
# group_model_wls[V]: the workloads (comma separated) that get its rows
declare -A group_model=() group_model_wls=()

# plan_kernels: kdirs[], each kernel's directory in the cache, as its
# label says now: the boots use it, whatever the label says later.
plan_kernels() {
	local i kd
	kdirs=()
	for i in "${!labels[@]}"; do
		kd=$KBENCH_CACHE/labels/${labels[$i]}
		[ -f "$kd/bzImage" ] || kb_die "kernel '${labels[$i]}' is not built ($kd/bzImage missing): run make kernels"
		kdirs[i]=$(readlink -f "$kd")
	done
}

# plan_workloads: wls[], the workload files: the WORKLOADS=a,b list
# (names in workloads/ or paths of .wl files), else every file whose
# default_run is yes: the program workloads are not about the series
# (wl.sh, wl_files). Then the plan of each, into plan_lines and group_*,
# the sorted vCPU counts into groups[], and the program workloads'
# Debian packages, which the image gets, into img_pkgs.
plan_workloads() {
	local wldir=$top/workloads wlist f v
	wlist=$(wl_files "$wldir" "$WORKLOADS")
	[ -n "$wlist" ] || kb_die "no workload files in $wldir"
	mapfile -t wls <<<"$wlist"
	img_pkgs=''
	for f in "${wls[@]}"; do
		wl_load "$f"
		img_pkgs+="${WL[packages]:+ ${WL[packages]}}"
		check_overrides "$f"
		for v in ${BENCH_VCPUS:-${WL[matrix.vcpus]}}; do
			plan_points "$v"
			plan_group "$f" "$v"
		done
	done
	mapfile -t groups < <(printf '%s\n' "${!plan_lines[@]}" | sort -n)
}

# plan_points V: the loaded workload's plan.tsv lines at V vCPUs, every
# bench point checked on the host (check_point).
plan_points() {
	local v=$1 variant pt pargs point reps warmup
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
}

# plan_group FILE V: the loaded workload's share of a boot at V vCPUs.
plan_group() {
	local f=$1 v=$2 d
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
}

# plan_id: the plan's identity: the kernels (by cache key), the boots
# and every point. A run directory given again (RESUME=) must have been
# made with the same one (resume_check).
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
