# SPDX-License-Identifier: GPL-2.0
# run.sh's schedule: how many boots side by side, the time estimate, a
# payload per vCPU count and boot order, RUN/units.tsv in the
# interleaved order, and GNU parallel running the units (here or on
# HOSTS). Sourced by orchestrate/run.sh.
# shellcheck shell=bash
# the globals (run, names, groups, group_*, added_*, host_*, ...) are
# run.sh's, plan.sh's and hosts.sh's; what is set here is read there
# shellcheck disable=SC2154,SC2034

declare -A group_est=() boot_payload=()
# RUN/units.tsv's columns, in this order, are the values of boot-unit.sh's
# options; '?' marks an optional one, whose cell is empty when a boot has
# none and which parallel then leaves out. The optional ones come last:
# bash's read with IFS=tab merges adjacent tabs, so the columns before
# them, read by place (collect.sh: 2 and 6; boot-unit.sh: 1, 2, 5, 7;
# parallel's --tagstring and --return: {2} and {6}), stay where they are.
unit_opts=(unit name label kernel vcpus boot payload mem timeout clock attempt0 'disks?' 'model?')

# schedule_jobs: jobs, the boots side by side (BOOT_JOBS; GNU parallel
# runs them), and wall_groups[], the vCPU counts under the wall clock.
# Under icount a guest's instruction counts do not depend on the host,
# so auto runs one boot per core (an icount guest is one TCG thread), as
# many as memory holds; under the wall clock concurrent guests would
# disturb each other's time, so auto is 1 there. A number is taken as
# given. It is not part of the plan: an icount result does not depend
# on it. With HOSTS, each host is checked (hosts.sh) first.
schedule_jobs() {
	local v j maxmem=0 why cores avail bymem
	wall_groups=()
	for v in "${groups[@]}"; do
		[ "${group_clock[$v]}" != wall ] || wall_groups+=("$v")
		[ "$maxmem" -ge "${group_mem[$v]}" ] || maxmem=${group_mem[$v]}
	done
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
}

# schedule_estimate: time estimates (orchestrate/boot-time.sh): per vCPU
# count, from earlier boots at that count, else at the nearest count
# (scaled), else a first guess; the units add their times as they end
# and print what is left as they start, this run's own boots first.
# group_est[V] is a boot's at V (the units' order).
schedule_estimate() {
	local est=0 most=0 guessed='' v sig each srcs name m src j
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
}

# schedule_payloads: RUN/payload/vV[...], boot_payload[V,B]. The payload
# is the same for every kernel: only the kernel differs.
schedule_payloads() {
	local v pd b order vb
	local -A payload_of=()
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
		payload_of=()
		payload_of[$(cat "$pd/plan.tsv")]=$pd
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
}

# schedule_units: RUN/units.tsv, one unit per boot, in the interleaved
# order (for each vCPU count, boot 1 of every kernel, then boot 2, ...),
# each with everything its launch.sh call needs (orchestrate/boot-unit.sh's
# options, unit_opts). A boot whose raw data is complete (.done) is
# skipped, so a run given again resumes; todo counts the others.
schedule_units() {
	local n=0 v vb bs b i name boot a d o row
	local -a unit_groups=()
	local -A u=()
	# failed launches are listed as they happen (boot-unit.sh)
	if [ ! -f "$run/failed-boots.tsv" ]; then
		printf 'kernel\tboot\tvcpus\tattempt\texit\treason\tserial_log\n' >"$run/failed-boots.tsv"
	fi
	units=$run/units.tsv
	: >"$units.tmp"
	todo=0
	# The vCPU counts whose boots take longest go first (by the estimate),
	# each still interleaved A B A B: boots side by side then end together
	# instead of one long boot running alone at the end. The order is not
	# part of the plan (plan.id).
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
					continue
				fi
				# this run's attempts are numbered after an earlier run's
				a=0
				while [ -e "$run/boots/$name/$boot.attempt$a" ]; do a=$((a + 1)); done
				d=${group_disks[$v]:-}
				u=([unit]=$n [name]=$name [label]=${labels[$i]} [kernel]=${kdirs[$i]} [vcpus]=$v
					[boot]=$boot [payload]=${boot_payload[$v,$b]} [mem]=${group_mem[$v]}
					[timeout]=${group_timeout[$v]} [clock]=${group_clock[$v]} [attempt0]=$a
					[disks]=${d# } [model]=${group_model_wls[$v]:-})
				row=''
				for o in "${unit_opts[@]}"; do row+="${row:+$'\t'}${u[${o%'?'}]}"; done
				printf '%s\n' "$row" >>"$units.tmp"
				todo=$((todo + 1))
			done
		done
	done
	mv -f "$units.tmp" "$units"
}

# schedule_interrupted WHEN: SIGINT or SIGTERM stopped the run: say how
# far it got, and exit as the signal asks.
schedule_interrupted() {
	local done_boots
	done_boots=$(find "$run/raw" -name .done | wc -l)
	kb_say "interrupted $1; $done_boots boot(s) of $nboots complete in $run"
	exit "$(kb_signal_rc)"
}

# schedule_unit_args: boot-unit.sh's options from a line of units.tsv,
# in parallel's words: --OPTION {N} for column N, and an optional one
# only when its cell is not empty (a perl expression of parallel's that
# quotes the value itself; uq: parallel adds no quotes of its own)
schedule_unit_args() {
	local i o args=''
	for i in "${!unit_opts[@]}"; do
		o=${unit_opts[$i]}
		case "$o" in
		*'?') args+="{=$((i + 1)) \$_ = length(\$_) ? ' --${o%'?'} '.Q(\$_) : ''; uq() =}" ;;
		*) args+=" --$o {$((i + 1))}" ;;
		esac
	done
	printf '%s' "$args"
}

# schedule_parallel: par[] (GNU parallel and its options), unit (the
# unit's command, for a shell) and tries. The units start in the order
# of units.tsv;
# --line-buffer prints each line as it comes (not each boot's output when
# it ends), tagged with its boot when boots run side by side; --retries
# gives a failed launch RETRIES more tries; the joblog (RUN/boots.joblog,
# appended by every resume) has each unit's last attempt.
schedule_parallel() {
	local sl i a
	# shellcheck disable=SC2054 # --termseq takes a comma-separated list
	par=(parallel --will-cite --colsep '\t' --line-buffer --joblog "+$run/boots.joblog"
		--termseq TERM,60000,KILL,25)
	[ "$jobs" = 1 ] || par+=(--tagstring '{2} {6}')
	tries=$((RETRIES + 1))
	unit="$(printf '%q' "$here/boot-unit.sh")$(schedule_unit_args)"
	if [ -z "$HOSTS" ]; then
		par+=(--jobs "$jobs")
		return 0
	fi
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
	unit="\"\${KBENCH_CACHE:-\$HOME/.cache/kbench}\"/tree/$tree_key/orchestrate/host-unit.sh"
	for a in "$(basename "$run")" "$image_rel" "$run" "$(readlink -f "$img")" \
		KB_NBOOTS="$nboots" KB_RUN_START="$KB_START" KB_BOOT_JOBS="$jobs" BOOTS="$BOOTS" RETRIES="$RETRIES" \
		V="${V:-0}" KB_APPEND="${KB_APPEND:-}" KB_FAULT_APPEND="${KB_FAULT_APPEND:-}" ROOT="${ROOT:-/dev/vda}" \
		ACCEL="${ACCEL:-auto}" KB_TARGET="${KB_TARGET:-bench-compare}"; do
		unit+=" $(printf '%q' "$a")"
	done
	unit+=" --$(schedule_unit_args)"
}

# schedule_boots: the units run, $jobs at a time, their stdout (their
# outcome, boot-unit.sh) into ustat, parallel's exit status into prc.
# SIGINT or SIGTERM: parallel passes SIGTERM on to every unit running
# (--termseq, with time for launch.sh to stop its QEMU); each removes its
# boot's partial output and says so; the complete boots stay
# (raw/<NAME>/<boot>/.done) and a run given again (RESUME=) does only
# what is missing. The caller prints the command that resumes.
schedule_boots() {
	# the hosts get what the boots need (hosts.sh)
	if [ -n "$HOSTS" ] && [ "$todo" -gt 0 ]; then
		hosts_sync "$run" "$img" "${kdirs[@]}"
	fi
	kb_catch_signals
	[ -z "$KB_SIGNAL" ] || schedule_interrupted "before the first boot"
	# parallel writes no header when it appends
	[ -f "$run/boots.joblog" ] ||
		printf 'Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n' >"$run/boots.joblog"
	ustat=$(mktemp "${TMPDIR:-/tmp}/kbench-units.XXXXXX")
	schedule_parallel
	[ "$tries" = 1 ] || par+=(--retries "$tries")
	prc=0
	if [ "$todo" -gt 0 ]; then
		export KB_RUN=$run KB_NBOOTS=$nboots KB_RUN_START=$KB_START KB_BOOT_JOBS=$jobs
		# the command is a shell's, here or the host's (parallel quotes
		# each {N}); the hosts' boots come back into RUN/ret/
		[ -z "$HOSTS" ] || cd "$run" || kb_die "cannot change into $run"
		kb_fg "${par[@]}" "$unit" :::: "$units" >"$ustat" 3>&2 || prc=$?
		if [ -n "$HOSTS" ]; then
			cd - >/dev/null || kb_die "cannot change back from $run"
			hosts_merge "$run"
		fi
	fi
	if [ -n "$KB_SIGNAL" ]; then
		rm -f "$ustat"
		schedule_interrupted "(parallel stopped every boot it was running)"
	fi
}
