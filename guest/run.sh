#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest-side runner: the payload's 'run'. The launcher's guest agent calls
# it as root: run RESULTS_DIR. It runs every line of plan.tsv next to it
# under perf stat and writes one CSV per workload into RESULTS_DIR/raw/.
#
# plan.tsv columns (tab-separated):
#   workload bench variant point reps warmup clock args point_args
# point is the label "vcpus=N;k=v;..."; point_args are the bench's
# arguments for it ("--k v ..."), formed once on the host. The counters
# perf stat gives for the whole invocation are added to the workload's
# CSV as run_* rows (rep 0) by bin/perfstat2csv.sh. A point whose
# variant this kernel lacks (kbbench exit 4) is listed in
# RESULTS_DIR/raw/<workload>.absent, and is not a failure.
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

# append_csv TMP CSV: TMP's rows (and TMP.perf's) onto CSV, with its
# header only if CSV is new; fails if any write fails.
append_csv() {
	if [ -s "$2" ]; then
		tail -n +2 "$1" >>"$2" || return 1
	else
		cat "$1" >"$2" || return 1
	fi
	cat "$1.perf" >>"$2"
}

# keep_rows TMP CSV: a point's rows onto its workload's CSV (one header
# per CSV, however many points it holds), then TMP and TMP.perf go. A
# write that fails (a full disk) must not leave a CSV that looks whole:
# it moves aside as <wl>.incomplete, which no one reads; returns 1.
# Uses the point's $wl, $point and $variant for the message.
keep_rows() {
	if append_csv "$1" "$2"; then
		rm -f "$1" "$1.perf"
		return 0
	fi
	say "error: $wl point=$point variant=$variant: writing $2 failed (guest disk full? $(df -k "$res" 2>/dev/null | tail -n 1)); moved aside as $wl.incomplete"
	mv -f "$2" "$res/raw/$wl.incomplete" 2>/dev/null || rm -f "$2"
	rm -f "$1" "$1.perf"
	return 1
}

# Before its samples, each point waits (at most this long) until the
# CPUs are idle: what the point before left running (a large map's
# deferred free) or its own setup started must not run in its samples.
# kbbench says in perf/<point>.err how long it waited. (KB_QUIESCE_MS:
# the host's tests, which run this on a busy host.)
quiesce_ms=${KB_QUIESCE_MS:-30000}

# The extra disks (a workload's disks =): the virtio disks without a
# kbench serial (launch.sh names its own kbroot, kbseed, kbpayload,
# kbresults), in the order QEMU was given them (vdb before vdaa).
i=0
KB_DISKS=
for d in $(for b in /sys/block/vd*; do
	[ -e "$b" ] || continue
	case "$(cat "$b/serial" 2>/dev/null)" in kb*) continue ;; esac
	echo "${b##*/}"
done | awk '{ print length($0), $0 }' | sort -n -k1,1 -k2,2 | cut -d' ' -f2); do
	i=$((i + 1))
	KB_DISKS="$KB_DISKS${KB_DISKS:+ }/dev/$d"
	eval "KB_DISK$i=/dev/\$d"
	export "KB_DISK$i"
done
export KB_DISKS
echo "disks=$KB_DISKS" >>"$res/guest-info.txt"

# cpu_times: qt_busy and qt_total, the CPUs' times (ticks) from /proc/stat,
# read with the shell's own read (no fork: the wait below must not make
# the CPUs busy itself)
cpu_times() {
	read -r _c u nc sy id io hi si st _rest </proc/stat || return 1
	[ "$_c" = cpu ] || return 1
	qt_total=$((u + nc + sy + id + io + hi + si + st))
	qt_busy=$((qt_total - id - io))
}

# quiesce MS FILE: before a program point's samples, kbbench's rule
# (bench/kbbench.c, quiesce): wait, at most MS, until the CPUs were
# busy under 5 % in 3 intervals of 50 ms in a row; FILE says how long.
quiesce() {
	waited=0 quiet=0 pct=100
	if ! cpu_times; then
		echo "cannot read /proc/stat: not waiting for the system to go quiet" >"$2"
		return 0
	fi
	b0=$qt_busy t0=$qt_total
	while [ "$quiet" -lt 3 ] && [ "$waited" -lt "$1" ]; do
		sleep 0.05
		waited=$((waited + 50))
		cpu_times || break
		pct=100
		if [ "$qt_total" -gt "$t0" ] && [ "$qt_busy" -ge "$b0" ]; then
			pct=$((100 * (qt_busy - b0) / (qt_total - t0)))
		fi
		if [ "$pct" -lt 5 ]; then quiet=$((quiet + 1)); else quiet=0; fi
		b0=$qt_busy t0=$qt_total
	done
	if [ "$quiet" -ge 3 ]; then
		echo "quiet after $waited ms" >"$2"
	else
		echo "the system did not go quiet in $waited ms ($pct % busy in the last 50 ms): the first samples may include background work" >"$2"
	fi
}

# run_program WL PARSER VARIANT POINT REPS WARMUP CLOCK OUTPUT CMD TMP DIR:
# a program point's samples, warm-ups first, each in DIR/warmupN or
# DIR/repN; the rows of the reps into TMP (with the header). Returns 1
# naming the sample when the command fails or its output does not parse.
run_program() {
	p_wl=$1 p_parser=$2 p_variant=$3 p_point=$4 p_reps=$5 p_warmup=$6
	p_clock=$7 p_output=$8 p_cmd=$9
	shift 9
	p_tmp=$1 p_dir=$2
	mkdir -p "$p_dir"
	echo "workload,variant,point,metric,unit,better,clock,rep,value" >"$p_tmp"
	quiesce "$quiesce_ms" "$p_dir/quiesce.txt"
	k=1
	while [ "$k" -le "$((p_warmup + p_reps))" ]; do
		rep=$((k - p_warmup))
		sd=$p_dir/rep$rep
		[ "$rep" -ge 1 ] || sd=$p_dir/warmup$k
		mkdir -p "$sd"
		printf '%s\n' "$p_cmd" >"$sd/command"
		src=0
		(cd "$sd" && exec sh -c "$p_cmd") >"$sd/stdout" 2>"$sd/stderr" </dev/null || src=$?
		echo "$src" >"$sd/exit-status"
		if [ "$src" != 0 ]; then
			say "error: $p_wl point=$p_point variant=$p_variant: ${sd##*/}: the command exited $src: $(tail -n 3 "$sd/stderr" | tr '\n' ' ')(its output: ${sd#"$res"/})"
			return 1
		fi
		if [ "$rep" -ge 1 ] && ! sh "$bin/parsers/parse.sh" --parser "$p_parser" \
			--workload "$p_wl" --variant "$p_variant" --point "$p_point" \
			--clock "$p_clock" --rep "$rep" "$sd/$p_output" >>"$p_tmp" 2>"$sd/parse.err"; then
			say "error: $p_wl point=$p_point variant=$p_variant: ${sd##*/}: $(tail -n 2 "$sd/parse.err" | tr '\n' ' ')"
			return 1
		fi
		k=$((k + 1))
	done
}

n=0
total=$(grep -c . "$here/plan.tsv" || true)
tab=$(printf '\t')
while IFS="$tab" read -r wl bench variant point reps warmup clock args extra; do
	[ -n "$wl" ] || continue
	n=$((n + 1))
	say "$n/$total $wl variant=$variant point=$point"
	csv=$res/raw/$wl.csv
	tmp=$res/raw/.$wl.$n.tmp
	tag=$(printf '%s-%s-%s' "$wl" "$variant" "$point" | tr ';=/' '_-_')
	case "$bench" in
	@*)
		if run_program "$wl" "${bench#@}" "$variant" "$point" "$reps" "$warmup" \
			"$clock" "$args" "$extra" "$tmp" \
			"$res/output/$wl/$(printf '%s-%s' "$variant" "$point" | tr ';=/' '_-_')"; then
			: >"$tmp.perf"
			keep_rows "$tmp" "$csv" || status=1
		else
			mv "$tmp" "$res/raw/$wl.failed-$n.csv" 2>/dev/null || true
			status=1
		fi
		continue ;;
	esac
	# perf stat (6.1) now and then exits 0 although its workload did not
	# (4 of 40 runs of a script that exits 4, on this host): kbbench's
	# own status, written by the sh around it, decides
	rm -f "$tmp.rc"
	prc=0
	# shellcheck disable=SC2086,SC2016 # word lists; $@ is the inner sh's
	perf stat -x, -e task-clock,context-switches,page-faults \
		-o "$res/perf/$tag.txt" -- \
		sh -c '"$@"; echo "$?" >"$0"' "$tmp.rc" \
		"$bin/kbbench" "$bench" --workload "$wl" --variant "$variant" \
		--point "$point" --reps "$reps" --warmup "$warmup" \
		--clock "$clock" --quiesce_ms "$quiesce_ms" $args $extra \
		>"$tmp" 2>"$res/perf/$tag.err" || prc=$?
	rc=$(cat "$tmp.rc" 2>/dev/null) || rc=$prc
	[ -n "$rc" ] || rc=$prc
	rm -f "$tmp.rc"
	if [ "$rc" = 0 ] && [ "$prc" = 0 ]; then
		# the whole invocation's counters, as rows of the same CSV
		if ! bash "$bin/perfstat2csv.sh" --workload "$wl" --variant "$variant" \
			--point "$point" --clock "$clock" "$res/perf/$tag.txt" \
			>"$tmp.perf" 2>>"$res/perf/$tag.err"; then
			say "error: $wl point=$point variant=$variant: perf stat counters unreadable: $(tail -n 2 "$res/perf/$tag.err" | tr '\n' ' ')"
			status=1
			: >"$tmp.perf"
		fi
		keep_rows "$tmp" "$csv" || status=1
	else
		[ "$rc" != 0 ] || rc=$prc
		if [ "$rc" = 4 ]; then
			# this kernel lacks what the variant needs: absent, not
			# failed (RESULTS/raw/<wl>.absent: variant, point, why)
			# the bench's own reason, not kbbench's generic last line
			why=$(grep -v ' is absent on this kernel$' "$res/perf/$tag.err" | tail -n 1 | tr '\t' ' ') || true
			[ -n "$why" ] || why=$(tail -n 1 "$res/perf/$tag.err" | tr '\t' ' ')
			say "absent: $wl point=$point variant=$variant: $why"
			printf '%s\t%s\t%s\n' "$variant" "$point" "$why" >>"$res/raw/$wl.absent"
			rm -f "$tmp"
			continue
		fi
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
	while IFS="$tab" read -r wl bench variant point reps warmup clock args extra; do
		[ -n "$wl" ] || continue
		# a program workload has no kbbench to profile
		case "$bench" in @*) continue ;; esac
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
