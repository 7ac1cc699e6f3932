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
#
# The roles, each a file of functions sourced here (orchestrate/README.md):
# check.sh (settings, points, model, image), plan.sh (the plan),
# resume.sh (plan.id, added boots, BOOTS=auto's rounds), schedule.sh
# (jobs, estimate, payloads, units, GNU parallel) and collect.sh (the
# outcomes, hosts.tsv, fingerprint, exit).
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
# shellcheck source=orchestrate/check.sh
. "$here/check.sh"
# shellcheck source=orchestrate/plan.sh
. "$here/plan.sh"
# shellcheck source=orchestrate/resume.sh
. "$here/resume.sh"
# shellcheck source=orchestrate/schedule.sh
. "$here/schedule.sh"
# shellcheck source=orchestrate/collect.sh
. "$here/collect.sh"

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

# run_dir: RUN's directories, made absolute; the workload files it used
# kept in it (the report reads their primary metrics, and make report
# RUN= needs nothing outside RUN); nboots, with BOOTS=auto's added boots.
run_dir() {
	local f
	mkdir -p "$run/raw" "$run/boots" "$run/payload" "$run/workloads"
	run=$(cd "$run" && pwd)
	for f in "${wls[@]}"; do
		cp "$f" "$run/workloads/"
	done
	nboots=$((${#groups[@]} * BOOTS * ${#names[@]}))
	resume_added
	kb_say "run $run: ${#wls[@]} workload(s), vcpus {${groups[*]}}, $BOOTS boot(s) x ${#names[@]} kernel(s)$([ "${#added_boots[@]}" = 0 ] || echo " + ${#added_boots[@]} added pair(s)") = $nboots boots"
}

# Everything is checked before the first boot, and before anything is
# written into RUN.
check_settings
plan_kernels
plan_workloads
check_model
check_image
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/kbench-run.XXXXXX")
# a run stopped before it wrote anything leaves no empty directory
trap 'rm -rf "$tmpd"; rmdir "$run" 2>/dev/null || true' EXIT
schedule_jobs
check_wall_hosts
resume_check
run_dir
schedule_estimate
schedule_payloads
schedule_units
schedule_boots
collect_outcomes
collect_run
resume_auto
kb_say "run complete: $run"
