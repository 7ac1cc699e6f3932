# SPDX-License-Identifier: GPL-2.0
# run.sh's collect: each unit's outcome, RUN/hosts.tsv, the fingerprint,
# and what the run says and exits with for its failed boots. Sourced by
# orchestrate/run.sh.
# shellcheck shell=bash
# the globals (run, units, ustat, prc, names, labels, ...) are run.sh's
# and schedule.sh's
# shellcheck disable=SC2154,SC2034

# collect_outcomes: each unit's outcome is its last "kbench-unit" line
# in ustat (a failed attempt may be followed by a retry that succeeds);
# counts them into boots_failed, failed (failing workloads) and
# model_failed; a unit with none, or whose results did not come back
# from its host, is an error naming it.
collect_outcomes() {
	local j name boot
	local -a f=() lost=()
	local -A outcome=()
	while IFS=$'\t' read -r -a f; do
		for j in "${!f[@]}"; do
			[ "${f[$j]}" = kbench-unit ] || continue
			outcome[${f[$((j + 1))]}/${f[$((j + 2))]}]=${f[$((j + 3))]}
		done
	done <"$ustat"
	rm -f "$ustat"
	failed=0 boots_failed=0 model_failed=0
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
}

# collect_run: RUN/hosts.tsv (which host ran each boot, from its
# host.json: boot-unit.sh) and RUN/fingerprint.json; then the failed
# boots said, and an exit for failing workloads or model joins.
collect_run() {
	local h d
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
}
