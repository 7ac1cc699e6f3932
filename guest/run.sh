#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest-side runner: the payload's 'run'. The launcher's guest agent calls
# it as root: run RESULTS_DIR. It runs every line of plan.tsv next to it
# under perf stat and writes one CSV per workload into RESULTS_DIR/raw/.
#
# plan.tsv columns (tab-separated):
#   workload bench variant point reps warmup clock args
# point is "vcpus=N;k=v;..."; each k=v except vcpus becomes "--k v".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
res=$1
mkdir -p "$res/raw" "$res/perf"
bin=$here/bin
status=0

say() {
	echo "kbench-run: $*"
	echo "kbench-run: $*" >/dev/console 2>/dev/null || true
}

# Facts the host records next to the samples.
{
	echo "uname=$(uname -r)"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "nproc=$(nproc)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
} >"$res/guest-info.txt"
cp /proc/interrupts "$res/interrupts.txt" 2>/dev/null || true

# "vcpus=N;k=v;..." -> " --k v ..." (vcpus is the boot's, not the bench's)
point_args() {
	_args=""
	_oldifs=$IFS
	IFS=';'
	for kv in $1; do
		k=${kv%%=*}
		v=${kv#*=}
		[ "$k" = vcpus ] || [ "$kv" = none ] || _args="$_args --$k $v"
	done
	IFS=$_oldifs
	printf '%s' "$_args"
}

n=0
total=$(grep -c . "$here/plan.tsv" || true)
tab=$(printf '\t')
while IFS="$tab" read -r wl bench variant point reps warmup clock args; do
	[ -n "$wl" ] || continue
	n=$((n + 1))
	extra=$(point_args "$point")
	say "$n/$total $wl variant=$variant point=$point"
	csv=$res/raw/$wl.csv
	tmp=$res/raw/.$wl.$n.tmp
	tag=$(printf '%s-%s-%s' "$wl" "$variant" "$point" | tr ';=/' '_-_')
	# shellcheck disable=SC2086 # args and extra are word lists
	if perf stat -x, -e task-clock,context-switches,page-faults \
		-o "$res/perf/$tag.txt" -- \
		"$bin/kbbench" "$bench" --workload "$wl" --variant "$variant" \
		--point "$point" --reps "$reps" --warmup "$warmup" \
		--clock "$clock" $args $extra >"$tmp" 2>"$res/perf/$tag.err"; then
		# One header per CSV, however many points it holds.
		if [ -s "$csv" ]; then
			tail -n +2 "$tmp" >>"$csv"
		else
			cat "$tmp" >"$csv"
		fi
		rm -f "$tmp"
	else
		rc=$?
		say "error: $wl point=$point variant=$variant exited $rc: $(tail -n 3 "$res/perf/$tag.err" | tr '\n' ' ')"
		mv "$tmp" "$res/raw/$wl.failed-$n.csv" 2>/dev/null || true
		status=1
	fi
done <"$here/plan.tsv"

# With PROFILE=1 the host adds profile.on to the first boot's payload:
# each point runs once more under perf record -g, after all timed
# samples (as many reps, no warm-up), so that profiling never disturbs
# a timed sample.
if [ -f "$here/profile.on" ]; then
	while IFS="$tab" read -r wl bench variant point reps warmup clock args; do
		[ -n "$wl" ] || continue
		extra=$(point_args "$point")
		tag=$(printf '%s-%s-%s' "$wl" "$variant" "$point" | tr ';=/' '_-_')
		say "profile $wl variant=$variant point=$point"
		# shellcheck disable=SC2086 # args and extra are word lists
		sh "$here/profile.sh" "$res" "$tag" -- "$bin/kbbench" "$bench" \
			--workload "$wl" --variant "$variant" --point "$point" \
			--reps "$reps" --warmup 0 --clock "$clock" $args $extra </dev/null || true
	done <"$here/plan.tsv"
fi

cp /proc/interrupts "$res/interrupts-after.txt" 2>/dev/null || true
exit "$status"
