#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bisect-perf: which patch of NEW's series made it slower than GOOD?
#
#   NEW=<series> [GOOD=baseline|<series>] WORKLOAD=W [POINT="P ..."] [METRIC="M ..."] bisect.sh
#   bisect.sh --targets FILE [--gate RUN]
#                               (make regression-check BISECT=1: the gate's
#                                worse rows, workload<TAB>variant<TAB>point<TAB>metric,
#                                and its run directory)
#
# Step 0 boots NEW's whole series against GOOD, interleaved, on the
# points asked for (only those: the workload files are narrowed to them);
# the keys (workload, variant, point, metric) worse there are the
# regression. With --gate RUN, the gate's boots of NEW and OLD (RUN's
# raw/new and raw/old) are step 0's when the gate's plan is the one step
# 0 would boot (gate_differs below); otherwise a line says why and step
# 0 boots them as above. Then prefixes of NEW's series (patches 1..k,
# each a kernel cached by its content key: one that exists, NEW's,
# OLD's or an earlier step's under any label, is used as it is, and the
# others are built by kernel/scripts/build.sh) are bisected: each step boots prefix k against GOOD and decides with the
# adaptive-boots rule (kbstat sequential, analysis/README.md): worse at
# any regressed key is bad, same or better at all of them good; while a
# key says "continue", one more boot pair is added, up to BISECT_BOOTS
# boots a side. A step still undecided there ends the bisect with the
# range it narrowed to and what would settle it. A prefix that does not
# build, or whose boots all fail, is skipped (as git bisect skip) and
# said. The answer: the first bad patch, its subject, and the ratio and
# interval at its step against GOOD and against the prefix before it.
#
# Files in the run directory (reports/<date>-bisect): bisect.log (the
# text to paste into a reply on the list; summary.txt is the same),
# bisect.tsv (a row per step and key), steps/NN-pK/ (rounds/rN: run.sh's
# run directories; merged/: the step's boots, renumbered, for kbstat),
# results.json (step 0, NEW against GOOD) and step-NN.json (each later
# step, kbstat compare), fingerprint.json (every kernel booted), for the
# history store (analysis/history.sh).
#
# Environment: NEW, GOOD (default baseline), WORKLOAD (one or more,
# comma separated), POINT, METRIC, VARIANT (default every variant, every
# point, the workloads' primary metrics), BISECT_BOOTS (the most boots a
# side a step may use, >= 3), BISECT_GOOD=each (GOOD boots in every
# round, interleaved) or reuse (GOOD boots in step 0 only, its boots
# compared with every prefix: icount only, where a boot's counts do not
# depend on the host), and what run.sh reads (QUICK, BOOT_JOBS, CLOCK,
# ...). Exit 0 when the first bad patch is named or nothing regressed,
# 1 when the bisect stopped undecided or every candidate was skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=workloads/wl.sh
. "$top/workloads/wl.sh"
kb_conf KBENCH_CACHE SERIES GOOD BISECT_BOOTS BISECT_GOOD QUICK DEBUG
[ "$DEBUG" != 1 ] || kb_die "make bisect-perf measures the benchmark kernels: DEBUG=1 (KASAN, lockdep) would measure the debug checks; leave DEBUG out"
kbstat=$top/build/analysis/kbstat
abspath() { case "$1" in /* | git:*) printf '%s\n' "$1" ;; *) printf '%s\n' "$top/$1" ;; esac; }

targets_file='' gate=''
while [ $# -gt 0 ]; do
	case "$1" in
	--targets) targets_file=${2:-}; shift 2 ;;
	--gate)
		gate=$(cd "${2:-}" 2>/dev/null && pwd) || kb_die "bisect.sh --gate ${2:-}: no such run directory"
		shift 2 ;;
	*) kb_die "bisect.sh: unknown argument '$1' (usage: bisect.sh [--targets FILE [--gate RUN]])" ;;
	esac
done
[ -n "${NEW:-}" ] || kb_die "make bisect-perf needs NEW=<series file | patch dir | mbox | git:repo:base..head> (the series to bisect)"
case "$BISECT_BOOTS" in '' | *[!0-9]* | [0-2]) kb_die "BISECT_BOOTS must be a number of boots a side, 3 or more (3 is the least a verdict needs), not '$BISECT_BOOTS'" ;; esac
case "$BISECT_GOOD" in each | reuse) ;; *) kb_die "BISECT_GOOD must be each (GOOD boots beside every prefix) or reuse (GOOD boots once; icount only), not '$BISECT_GOOD'" ;; esac
[ -x "$kbstat" ] || kb_die "build/analysis/kbstat is not built: run make analysis-tools"

run=$(kb_new_run_dir -bisect)
mkdir -p "$run/steps" "$run/wl" "$run/series"

# The targets: workload, variant, point, metric ('*' is any).
targets=$run/targets.tsv
if [ -n "$targets_file" ]; then
	[ -s "$targets_file" ] || kb_die "bisect.sh --targets $targets_file: no rows (workload, variant, point, metric)"
	cp "$targets_file" "$targets"
else
	[ -n "${WORKLOAD:-}" ] || kb_die "make bisect-perf needs WORKLOAD=<name in workloads/> (the workload that regressed)"
	IFS=, read -r -a wlist <<<"$WORKLOAD"
	read -r -a plist <<<"${POINT:-*}"
	read -r -a mlist <<<"${METRIC:-*}"
	read -r -a vlist <<<"${VARIANT:-*}"
	for w in "${wlist[@]}"; do
		for p in "${plist[@]}"; do
			for v in "${vlist[@]}"; do
				for m in "${mlist[@]}"; do
					printf '%s\t%s\t%s\t%s\n' "$w" "$v" "$p" "$m"
				done
			done
		done
	done >"$targets"
fi

# Each workload's file, narrowed to the target points: a parameter a
# point names gets the values the points give it (their union, so a
# plan of several points may hold a few more), in the plain, the quick
# and the claims matrix alike (MATRIX=claims, the default, reads the
# last). Metric '*' is the workload's primary metrics.
declare -A wl_vcpus=()
vcpus='' all_vcpus=''
while IFS= read -r w; do
	f=$top/workloads/$w.wl
	[ -f "$f" ] || kb_die "WORKLOAD=$w: no $f (have: $(cd "$top/workloads" && printf '%s ' *.wl))"
	wl_load "$f"
	# the vCPU counts of the workload's matrix (QUICK=, MATRIX= as set)
	all_vcpus+=" ${WL[matrix.vcpus]}"
	declare -A vals=()
	while IFS=$'\t' read -r tw _ tp _; do
		if [ "$tw" != "$w" ] || [ "$tp" = '*' ]; then continue; fi
		IFS=';' read -r -a kvs <<<"$tp"
		for kv in "${kvs[@]}"; do
			case "$kv" in *=*) ;; *) kb_die "POINT='$tp': '$kv' is not param=value (a point is written as in the report: vcpus=1;size=4096)" ;; esac
			k=${kv%%=*}
			[ -n "${WL[matrix.$k]+set}" ] || [ "$k" = vcpus ] ||
				kb_die "POINT='$tp': workload $w has no parameter '$k' (its matrix: $(printf '%s\n' "${!WL[@]}" | sed -n 's/^matrix\.//p' | tr '\n' ' '))"
			case " ${vals[$k]:-} " in *" ${kv#*=} "*) ;; *) vals[$k]+=" ${kv#*=}" ;; esac
		done
	done <"$targets"
	{
		# vcpus stays: BENCH_VCPUS below narrows it
		pat=$(printf '%s\n' "${!vals[@]}" | grep -vx vcpus | paste -sd'|' -) || true
		if [ -n "$pat" ]; then
			grep -Ev "^[[:space:]]*(quick\.|claims\.)?matrix\.($pat)[[:space:]]*=" "$f" || true
		else
			cat "$f"
		fi
		for k in "${!vals[@]}"; do
			[ "$k" = vcpus ] && continue
			printf '%smatrix.%s =%s\n' '' "$k" "${vals[$k]}" quick. "$k" "${vals[$k]}" \
				claims. "$k" "${vals[$k]}"
		done
	} >"$run/wl/$w.wl"
	wl_vcpus[$w]=${vals[vcpus]:-}
	for v in ${vals[vcpus]:-}; do
		case " $vcpus " in *" $v "*) ;; *) vcpus+=" $v" ;; esac
	done
	unset vals
done < <(cut -f1 "$targets" | sort -u)
# BENCH_VCPUS narrows every workload: only when each names its vCPUs
for w in "${!wl_vcpus[@]}"; do
	[ -n "${wl_vcpus[$w]}" ] || vcpus=''
done
export BENCH_VCPUS=${vcpus# }
WORKLOADS=$(find "$run/wl" -name '*.wl' | sort | paste -sd, -)
export WORKLOADS

# NEW's patches, and GOOD's kernel.
"$top/kernel/scripts/series.sh" "$(abspath "$NEW")" "$run/series/new" >"$run/series/new.list" ||
	kb_die "NEW=$NEW: its series could not be read (above)"
total=$(grep -c . "$run/series/new.list" || true)
[ "$total" -gt 0 ] || kb_die "NEW=$NEW holds no patches: nothing to bisect"
# a git: series: its repository, range and commit ids (empty otherwise)
"$top/kernel/scripts/series.sh" --describe "$(abspath "$NEW")" >"$run/series/new.json"
sums() { while IFS= read -r p; do kb_sha256_file "$p"; done <"$1"; }
sums "$run/series/new.list" >"$run/series/new.sha"
subject() {
	awk '/^Subject:/ { s = $0; f = 1; next } f && /^[ \t]/ { s = s $0; next } f { exit } END { print s }' "$1" |
		sed -E 's/^Subject:[[:space:]]*(\[[^]]*\][[:space:]]*)*//; s/[[:space:]]+/ /g; s/ $//'
}

lo=0
if [ "$GOOD" = baseline ]; then
	"$top/kernel/scripts/build.sh" baseline none
	good_label=baseline good_desc="the baseline (no patches)"
	lo_known=1
else
	"$top/kernel/scripts/series.sh" "$(abspath "$GOOD")" "$run/series/good" >"$run/series/good.list" ||
		kb_die "GOOD=$GOOD: its series could not be read (above)"
	sums "$run/series/good.list" >"$run/series/good.sha"
	if [ -n "${KB_GOOD_LABEL:-}" ]; then
		# regress.sh BISECT=1: OLD's kernel, built under its label
		good_label=$KB_GOOD_LABEL
	else
		# the patched kernel, or any other of GOOD's content, when it
		# is built: the key is the content's (build.sh)
		"$top/kernel/scripts/build.sh" bisect-good "$(abspath "$GOOD")"
		good_label=bisect-good
	fi
	good_desc="GOOD=$GOOD ($(grep -c . "$run/series/good.list") patches)"
	# the patches NEW shares with GOOD, from the first: the bisect
	# starts after them (a rewritten patch 5 of 12 is bisected from 5);
	# cmp names the first line that differs, or says that GOOD's list
	# ended (exit 1 either way)
	lo=$(cmp "$run/series/new.sha" "$run/series/good.sha" 2>/dev/null | sed -n 's/.* line \([0-9]*\).*/\1/p') || true
	if [ -z "$lo" ]; then
		lo=$(grep -c . "$run/series/good.sha")
		[ "$lo" -lt "$total" ] || kb_die "NEW=$NEW has GOOD's patches and no more: nothing to bisect"
	else
		lo=$((lo - 1))
	fi
	# prefix lo is GOOD itself only if GOOD's series ends there
	lo_known=0
	[ "$lo" != "$(grep -c . "$run/series/good.sha")" ] || lo_known=1
fi
good_key=$(basename "$(readlink -f "$KBENCH_CACHE/labels/$good_label")")
kb_say "bisect-perf: NEW=$NEW ($total patches) against $good_desc; run $run"

# labels_of DIR: the labels that name the kernel directory DIR
labels_of() {
	local l
	for l in "$KBENCH_CACHE"/labels/*; do
		[ "$(readlink -f "$l")" != "$1" ] || printf '%s ' "$(basename "$l")"
	done | sed 's/ $//'
}

# prefix K of NEW as a kernel: its label under labels/ is printed, or
# nothing when it does not build (the reason is in the build's log). A
# kernel is its content (kernel/scripts/key.sh): a prefix whose kernel
# exists (NEW's whole series, OLD's, an earlier step's, whatever label
# built it) is used as it is, without build.sh.
prefix_kernel() {
	local k=$1 d=$run/series/p$1 j=0 key kd
	if [ "$k" = 0 ]; then
		"$top/kernel/scripts/build.sh" baseline none >&2 || return 0
		echo baseline
		return 0
	fi
	mkdir -p "$d"
	while IFS= read -r p; do
		j=$((j + 1))
		ln -sf "$p" "$d/$(printf '%04d' "$j")-$(basename "$p")"
	done < <(head -n "$k" "$run/series/new.list")
	"$top/kernel/scripts/series.sh" "$d" "$run/series" >"$d.list"
	key=$("$top/kernel/scripts/key.sh" "$d.list")
	kd=$KBENCH_CACHE/kernels/$key
	if [ -f "$kd/bzImage" ] && [ -f "$kd/build-info.json" ]; then
		kb_say "prefix $k/$total: kernel ${key:0:12} exists (labels: $(labels_of "$kd")): no build" >&2
	else
		# one label, so one worktree: a step recompiles what its
		# patches change; the key (their bytes) tells the kernels apart
		"$top/kernel/scripts/build.sh" bisect-perf "$d" >&2 || return 0
		[ -f "$kd/bzImage" ] ||
			kb_die "prefix $k: build.sh succeeded but $kd/bzImage is missing; a bug in bisect.sh's key (kernel/scripts/key.sh -v $d.list shows its inputs)"
	fi
	# a label of the key's own, not labels/bisect-perf, which another
	# build of that label may move
	ln -sfn "$kd" "$KBENCH_CACHE/labels/bisect-perf-${key:0:12}"
	echo "bisect-perf-${key:0:12}"
}

kb_catch_signals
stopped() {
	kb_say "stopped by SIG$KB_SIGNAL during $1; the steps so far are in $run/bisect.tsv. The kernels built are cached: make bisect-perf again repeats only the boots"
	exit "$(kb_signal_rc)"
}

# link_boots SRC_RAW_KERNEL_DIR DST_DIR: the complete boots of SRC into
# DST, numbered after those DST has (per vCPU count)
link_boots() {
	local b v n
	mkdir -p "$2"
	for b in "$1"/v*-b*; do
		[ -f "$b/.done" ] || continue
		v=${b##*/}
		v=${v%%-*}
		n=$(find "$2" -mindepth 1 -maxdepth 1 -name "$v-b*" | wc -l)
		ln -s "$(readlink -f "$b")" "$2/$(printf '%s-b%02d' "$v" $((n + 1)))"
	done
}
nboots() { find "$1/" -mindepth 1 -maxdepth 1 -name 'v*-b*' 2>/dev/null | wc -l; }
# nboots_at DIR POINT: the boots of DIR at POINT's vCPU count (a boot is
# v<vcpus>-b<n>: a key at vcpus=1 has only those), all of them when the
# point names none
nboots_at() {
	local v
	v=$(sed -n 's/.*vcpus=\([0-9][0-9]*\).*/\1/p' <<<"$2")
	find "$1/" -mindepth 1 -maxdepth 1 -name "v${v:-*}-b*" 2>/dev/null | wc -l
}
# nboots_point DIR: the most boots DIR has at one vCPU count (the budget
# BISECT_BOOTS is a key's, and every key is at one count)
nboots_point() {
	find "$1/" -mindepth 1 -maxdepth 1 -name 'v*-b*' -printf '%f\n' 2>/dev/null |
		sed 's/-b.*//' | sort | uniq -c | sort -rn | awk 'NR == 1 { n = $1 } END { print n + 0 }'
}

# The floor of each key: kbstat compare's min_effect (the calibrated
# floor when the A/A run was made the same way, else 1 %).
floor_arg=()

# decide DIR BASE NEW: the rule's line for each target key of DIR
# (workload variant point metric verdict boots ratio lo hi level), and
# kbstat compare's results in DIR/compare.json
decide() {
	local dir=$1 base=$2 new=$3
	"$here/seq-decide.sh" "$dir" "$base" "$new" "$BISECT_BOOTS" "$dir/compare.json" \
		"${floor_arg[@]}" >"$dir/decide.tsv"
	# only the keys asked for: the target rows ('*' any; metric '*'
	# the primary metrics), then those step 0 found worse
	awk -F'\t' -v OFS='\t' 'FILENAME == ARGV[1] { t[++n] = $0; next }
		FILENAME == ARGV[2] { prim[$1 "\t" $2 "\t" $3 "\t" $4] = $5; next }
		{ for (i = 1; i <= n; i++) { split(t[i], w, "\t")
			if ((w[1] == $1) && (w[2] == "*" || w[2] == $2) && (w[3] == "*" || w[3] == $3) &&
			    (w[4] == $4 || (w[4] == "*" && prim[$1 "\t" $2 "\t" $3 "\t" $4] == "true"))) { print; next } } }' \
		"$keys" <(jq -r '.results[] | [.workload, .variant, .point, .metric, (.primary | tostring)] | @tsv' \
			"$dir/compare.json") "$dir/decide.tsv" >"$dir/decide.tsv.tmp"
	mv "$dir/decide.tsv.tmp" "$dir/decide.tsv"
}

# BISECT_REF=reports/<id>-bisect: boots of an earlier bisect made with
# the same plan (plan.env: the narrowed workload files, the settings
# that shape a boot, the bench binary) stand for new ones: GOOD's, and
# those of any prefix kernel it booted (by kernel key). icount only, as
# BISECT_GOOD=reuse, which it needs.
{
	for k in QUICK BENCH_VCPUS CLOCK MEM BOOT_TIMEOUT MODEL IMAGE ROOT ACCEL KB_APPEND; do
		printf '%s=%s\n' "$k" "${!k:-}"
	done
	for f in "$run"/wl/*.wl "$top/build/bench/kbbench" "$top/guest/run.sh"; do
		printf '%s %s\n' "$(basename "$f")" "$(kb_sha256_file "$f")"
	done
} >"$run/plan.env"
printf '%s\n' "$good_key" >"$run/good.key"
ref=''
if [ -n "${BISECT_REF:-}" ]; then
	ref=$(cd "$BISECT_REF" 2>/dev/null && pwd) || kb_die "BISECT_REF=$BISECT_REF: no such run directory"
	if [ ! -f "$ref/bisect.tsv" ] || [ ! -f "$ref/plan.env" ]; then
		kb_die "BISECT_REF=$ref is not a make bisect-perf run (no bisect.tsv or plan.env)"
	fi
	[ "$BISECT_GOOD" = reuse ] ||
		kb_die "BISECT_REF= takes boots of an earlier bisect, which only BISECT_GOOD=reuse compares with (under icount)"
	if ! cmp -s "$ref/plan.env" "$run/plan.env"; then
		kb_die "BISECT_REF=$ref was made with another plan; its boots cannot stand for this one's. Differences: $(diff "$ref/plan.env" "$run/plan.env" | grep '^[<>]' | tr '\n' ' ')"
	fi
	[ ! -f "$ref/floor.arg" ] || mapfile -t floor_arg < <(grep . "$ref/floor.arg")
fi
# ref_boots KEY: the boots directory of BISECT_REF's prefix kernel KEY
ref_boots() {
	local st k
	[ -n "$ref" ] || return 0
	read -r st k < <(awk -F'\t' -v key="$1" 'NR > 1 && $3 == key && $15 != "" { print $1, $2; exit }' "$ref/bisect.tsv") || return 0
	[ -n "$k" ] || return 0
	printf '%s\n' "$ref/steps/$(printf '%02d' "$st")-p$k/merged/raw/p$k"
}
good_from_ref=''
if [ -n "$ref" ] && [ "$(cat "$ref/good.key" 2>/dev/null)" = "$good_key" ]; then
	good_from_ref=$(find "$ref/steps" -mindepth 1 -maxdepth 1 -name '00-p*' | head -n 1)/merged/raw/good
	[ "$(nboots "$good_from_ref")" -ge 3 ] || good_from_ref=''
fi

# gate_differs RUN NEW_KEY: why the gate's boots of OLD and NEW (RUN,
# made by regress.sh) cannot be step 0's, or nothing when they can: the
# same two kernels (by key), OLD booted in that run (not REF='s stored
# samples), 3 boots a kernel (step 0's first look; BOOTS=auto's added
# pairs are another plan), the same workload files byte for byte (step
# 0's are narrowed to the points asked for: the same when those are
# every point of the gate's), the same vCPU counts, PROFILE, bench
# binary and guest runner. The rest of what makes the plan (QUICK,
# MATRIX, CLOCK, MEM, BOOT_TIMEOUT, MODEL, IMAGE, ACCEL, KB_APPEND) is
# the environment the gate ran in, which regress.sh hands on.
gate_differs() {
	local g=$1 a b
	if [ ! -f "$g/plan.id" ] || [ ! -d "$g/raw/old" ] || [ ! -d "$g/raw/new" ]; then
		echo "$g has no plan.id, raw/old or raw/new"
		return 0
	fi
	if grep -q '^REF=.' "$g/revisions.txt" 2>/dev/null; then
		echo "OLD's samples there came from a stored run (REF=), not from boots of its plan"
		return 0
	fi
	a=$(sed -n 's/^kernel old=[^ ]* //p' "$g/plan.id")
	[ "$a" = "$good_key" ] || { echo "its OLD is kernel ${a:0:12}, GOOD here ${good_key:0:12}"; return 0; }
	a=$(sed -n 's/^kernel new=[^ ]* //p' "$g/plan.id")
	[ "$a" = "$2" ] || { echo "its NEW is kernel ${a:0:12}, NEW here ${2:0:12}"; return 0; }
	a=$(sed -n 's/^boots //p' "$g/plan.id")
	case "$a" in
	3 | 'auto: first 3, max '*) ;;
	*) echo "it booted each kernel $a times (BOOTS=), step 0 boots 3 first"; return 0 ;;
	esac
	! grep -q '^added ' "$g/plan.id" || { echo "BOOTS=auto added boot pairs to it, step 0 boots 3 a kernel first"; return 0; }
	if [ "$(nboots "$g/raw/old")" = 0 ] || [ "$(nboots "$g/raw/new")" = 0 ]; then
		echo "OLD or NEW completed no boot there"
		return 0
	fi
	a=$(sed -n 's/^profile //p' "$g/plan.id")
	[ "$a" = "${PROFILE:-0}" ] || { echo "it ran with PROFILE=$a, step 0 with PROFILE=${PROFILE:-0}"; return 0; }
	a=$(cd "$g/workloads" 2>/dev/null && printf '%s ' *.wl)
	b=$(cd "$run/wl" && printf '%s ' *.wl)
	[ "$a" = "$b" ] || { echo "it ran the workloads $a, step 0 runs $b"; return 0; }
	for a in "$run"/wl/*.wl; do
		cmp -s "$a" "$g/workloads/${a##*/}" ||
			{ echo "step 0's ${a##*/} is narrowed to the points asked for, the gate ran more of its matrix"; return 0; }
	done
	a=$(sed -n 's/^vcpus \([0-9]*\):.*/\1/p' "$g/plan.id" | sort -n | paste -sd' ' -)
	# shellcheck disable=SC2086 # lists of numbers
	b=$(printf '%s\n' ${BENCH_VCPUS:-$all_vcpus} | sort -nu | paste -sd' ' -)
	[ "$a" = "$b" ] || { echo "it booted at $a vCPUs, step 0 at $b"; return 0; }
	a=$(find "$g/payload" -path '*/bin/kbbench' | sort | head -n 1)
	{ [ -n "$a" ] && cmp -s "$a" "$top/build/bench/kbbench"; } ||
		{ echo "build/bench/kbbench is not the one its guests ran"; return 0; }
	a=$(find "$g/payload" -mindepth 2 -maxdepth 2 -name run | sort | head -n 1)
	{ [ -n "$a" ] && cmp -s "$a" "$top/guest/run.sh"; } ||
		{ echo "guest/run.sh is not the one its guests ran"; return 0; }
}

# step()'s results: verdict, last_sd (its directory), good_boots
good_boots='' verdict='' last_sd=''
printf 'step\tprefix\tkernel_key\tgood_boots\tprefix_boots\tworkload\tvariant\tpoint\tmetric\tratio\tlo\thi\tlevel\tverdict\tfrom\n' >"$run/bisect.tsv"

# step_reuse: the boots step() takes instead of booting them: step 0's
# from the gate (--gate) or BISECT_REF, GOOD's from step 0 when
# BISECT_GOOD=reuse, a prefix's from BISECT_REF; sets from. Uses
# step()'s locals (s, k, sd, key, from).
step_reuse() {
	local rp
	if [ "$s" = 0 ] && [ -n "$gate_ok" ]; then
		# the gate's boots (--gate): OLD's are GOOD's, NEW's prefix k's
		link_boots "$gate/raw/old" "$sd/merged/raw/good"
		link_boots "$gate/raw/new" "$sd/merged/raw/p$k"
		from=gate
		kb_say "step 0: NEW's and OLD's boots are the gate's ($gate, $(nboots "$sd/merged/raw/p$k") + $(nboots "$sd/merged/raw/good") boots, the same plan): none booted"
	elif [ "$s" = 0 ] && [ -n "$good_from_ref" ]; then
		link_boots "$good_from_ref" "$sd/merged/raw/good"
		from=ref
	elif [ "$s" != 0 ] && [ "$BISECT_GOOD" = reuse ]; then
		link_boots "$good_boots" "$sd/merged/raw/good"
	fi
	rp=$(ref_boots "$key")
	if [ "$from" != gate ] && [ -n "$rp" ] && [ "$(nboots "$rp")" -ge 3 ]; then
		link_boots "$rp" "$sd/merged/raw/p$k"
		from=ref
		kb_say "step $s: prefix $k/$total: its $(nboots "$rp") boots from BISECT_REF=$ref"
	fi
}

# step_round: round r of step(): boots what it lacks, merged into
# $sd/merged; sets skipped=1 when the prefix has no boot at all (it
# does not boot: the step is skipped). Uses step()'s locals.
step_round() {
	local b kargs rc f
	# each side's first 3 boots (the least a verdict needs), then a pair
	# at a time; GOOD boots beside the prefix unless its first 3 are
	# reused (the added pairs are booted: the rule's look is the smaller
	# side's boots)
	kargs=()
	if [ "$BISECT_GOOD" = each ] || { [ "$s" = 0 ] && [ -z "$good_from_ref" ]; } ||
		[ "$(nboots "$sd/merged/raw/p$k")" != 0 ]; then
		kargs=(--kernel "good=$good_label")
	fi
	b=1
	[ "$(nboots "$sd/merged/raw/p$k")" != 0 ] || b=3
	if [ "$r" = 1 ] && [ "$from" != '' ] && [ "$(nboots "$sd/merged/raw/p$k")" != 0 ]; then
		kargs=()
	else
		kargs+=(--kernel "p$k=$label")
	fi
	[ "${#kargs[@]}" -gt 0 ] || return 0
	kb_say "step $s: prefix $k/$total, round $r: $b boot(s) a side"
	rc=0
	export BOOTS=$b
	kb_fg "$here/run.sh" --run "$sd/rounds/r$r" "${kargs[@]}" >&2 || rc=$?
	[ -z "$KB_SIGNAL" ] || stopped "step $s"
	if [ -d "$sd/rounds/r$r/raw/good" ]; then
		[ "$(find "$sd/rounds/r$r/raw/good" -name .done | wc -l)" -gt 0 ] ||
			kb_die "step $s: GOOD ($good_label) did not complete a boot; see $sd/rounds/r$r/failed-boots.tsv"
		link_boots "$sd/rounds/r$r/raw/good" "$sd/merged/raw/good"
	fi
	link_boots "$sd/rounds/r$r/raw/p$k" "$sd/merged/raw/p$k"
	if [ "$(nboots "$sd/merged/raw/p$k")" = 0 ]; then
		[ "$rc" = 0 ] || kb_say "step $s: run.sh exited $rc (above)"
		skipped=1
		return 0
	fi
	[ "$rc" = 0 ] || kb_die "step $s: run.sh exited $rc (above); its run directory is $sd/rounds/r$r"
	# the calibrated floor, if its A/A run was made as this one
	if [ ! -f "$run/floor.arg" ]; then
		f=$("$here/floor.sh" "$sd/rounds/r$r")
		[ -z "$f" ] || floor_arg=(--floor "$f")
		printf '%s\n' "${floor_arg[@]}" | grep . >"$run/floor.arg" || true
	fi
}

# step S K LABEL: boot prefix K (kernel LABEL) against GOOD in rounds
# until the rule decides every key (or BISECT_BOOTS is spent), one line
# a key in bisect.tsv; sets verdict to bad, good, undecided or skip,
# and last_sd to the step's directory.
step() {
	local s=$1 k=$2 label=$3 sd r=0 key from='' skipped=0
	sd=$run/steps/$(printf '%02d' "$s")-p$k
	last_sd=$sd
	key=$(basename "$(readlink -f "$KBENCH_CACHE/labels/$label")")
	mkdir -p "$sd/merged/raw" "$sd/merged/workloads"
	cp "$run"/wl/*.wl "$sd/merged/workloads/"
	step_reuse
	while :; do
		r=$((r + 1))
		step_round
		if [ "$skipped" = 1 ]; then
			verdict=skip
			return 0
		fi
		decide "$sd/merged" good "p$k"
		[ -s "$sd/merged/decide.tsv" ] ||
			kb_die "step $s: none of the keys asked for ($(tr '\t\n' ' ;' <"$keys")) has samples in $sd/merged; check WORKLOAD, POINT, METRIC and VARIANT against the workload's report"
		if grep -q $'\tcontinue\t' "$sd/merged/decide.tsv" && ! grep -q $'\tworse\t' "$sd/merged/decide.tsv"; then
			[ "$(nboots_point "$sd/merged/raw/p$k")" -ge "$BISECT_BOOTS" ] || continue
			# the budget is spent (a side short of boots that failed)
			sed -i 's/\tcontinue\t/\tinconclusive\t/' "$sd/merged/decide.tsv"
		fi
		break
	done
	step_record
}

# step_record: step()'s lines in bisect.tsv, its compare.json kept, and
# its verdict. Uses step()'s locals.
step_record() {
	while IFS=$'\t' read -r w var pt m v _ ratio l h lev; do
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$k" "$key" \
			"$(nboots_at "$sd/merged/raw/good" "$pt")" "$(nboots_at "$sd/merged/raw/p$k" "$pt")" \
			"$w" "$var" "$pt" "$m" "$ratio" "$l" "$h" "$lev" "$v" "${from:--}"
	done <"$sd/merged/decide.tsv" >>"$run/bisect.tsv"
	if [ "$s" = 0 ]; then
		cp "$sd/merged/compare.json" "$run/results.json"
	else
		cp "$sd/merged/compare.json" "$run/step-$(printf '%02d' "$s").json"
	fi
	[ "$s" != 0 ] || good_boots=$sd/merged/raw/good
	if grep -q $'\tworse\t' "$sd/merged/decide.tsv"; then
		verdict=bad
	elif awk -F'\t' '$5 != "same" && $5 != "better" { x = 1 } END { exit x }' "$sd/merged/decide.tsv"; then
		verdict=good
	else
		verdict=undecided
	fi
}
stepdir() { find "$run/steps" -mindepth 1 -maxdepth 1 -name "*-p$1" | head -n 1; }

# Step 0: NEW against GOOD, on every target key.
keys=$targets
kb_say "step 0: NEW (prefix $total/$total) against GOOD"
new_label=$(prefix_kernel "$total")
[ -n "$new_label" ] || kb_die "NEW=$NEW does not build as a whole (see the build log named above): nothing to bisect"
gate_ok=''
if [ -n "$gate" ]; then
	why=$(gate_differs "$gate" "$(basename "$(readlink -f "$KBENCH_CACHE/labels/$new_label")")")
	if [ -z "$why" ]; then
		gate_ok=1
		# the floor the gate used, as a booted round's would be
		if [ ! -f "$run/floor.arg" ]; then
			f=$("$here/floor.sh" "$gate")
			[ -z "$f" ] || floor_arg=(--floor "$f")
			printf '%s\n' "${floor_arg[@]}" | grep . >"$run/floor.arg" || true
		fi
	else
		kb_say "step 0: the gate's boots of NEW and OLD are not reused: $why; booting them"
	fi
fi
step 0 "$total" "$new_label"
# reused boots stand for new ones only where a boot's counts do not
# depend on the host or on when it ran: the icount clock
if [ "$BISECT_GOOD" = reuse ] && jq -e '[.results[].clock] | index("wall")' "$run/results.json" >/dev/null; then
	kb_die "BISECT_GOOD=reuse needs the icount clock, but step 0 ran under the wall clock (CLOCK= or the workload file's clock): use BISECT_GOOD=each; step 0 is in $run"
fi
[ "$verdict" != skip ] || kb_die "NEW=$NEW does not boot (every boot failed; see $(stepdir "$total")/rounds/*/failed-boots.tsv): nothing to bisect"
# the regressed keys: those worse in step 0
keys=$run/keys.tsv
awk -F'\t' -v OFS='\t' '$5 == "worse" { print $1, $2, $3, $4 }' "$(stepdir "$total")/merged/decide.tsv" >"$keys"
steps=0 hi=$total result='' skipped=()
case "$verdict" in
good) result=none ;;
undecided) result=undecided ;;
esac

while [ -z "$result" ] && [ $((hi - lo)) -gt 1 ]; do
	# the candidate nearest the middle that was not skipped
	mid='' best=''
	for c in $(seq $((lo + 1)) $((hi - 1))); do
		case " ${skipped[*]} " in *" $c "*) continue ;; esac
		d=$(((2 * c - lo - hi) * (2 * c - lo - hi)))
		if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d mid=$c; fi
	done
	[ -n "$mid" ] || break
	steps=$((steps + 1))
	kb_say "step $steps: first bad in $((lo + 1))-$hi; trying prefix $mid ($(subject "$(sed -n "${mid}p" "$run/series/new.list")"))"
	label=$(prefix_kernel "$mid")
	if [ -z "$label" ]; then
		kb_say "step $steps: prefix $mid does not build: skipped (as git bisect skip)"
		skipped+=("$mid")
		printf '%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\tskip (does not build)\t-\n' "$steps" "$mid" >>"$run/bisect.tsv"
		continue
	fi
	step "$steps" "$mid" "$label"
	case "$verdict" in
	bad) hi=$mid ;;
	good) lo=$mid lo_known=1 ;;
	skip)
		kb_say "step $steps: prefix $mid does not boot or run the workload: skipped (as git bisect skip)"
		skipped+=("$mid")
		printf '%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\tskip (does not boot)\t-\n' "$steps" "$mid" \
			"$(basename "$(readlink -f "$KBENCH_CACHE/labels/$label")")" >>"$run/bisect.tsv"
		;;
	*) result=undecided ;;
	esac
done
if [ -z "$result" ]; then
	result=found
	[ $((hi - lo)) = 1 ] || result=skipped
fi

# The first bad patch against the prefix before it, when that was booted.
vs_prev=''
if [ "$result" = found ]; then
	prev=$(stepdir "$lo")
	pd=$run/steps/first-bad-vs-previous
	mkdir -p "$pd/raw" "$pd/workloads"
	cp "$run"/wl/*.wl "$pd/workloads/"
	if [ -n "$prev" ]; then
		ln -s "$prev/merged/raw/p$lo" "$pd/raw/prev"
		vs_prev="prefix $lo"
	elif [ "$lo" = 0 ] && [ "$GOOD" = baseline ]; then
		ln -s "$good_boots" "$pd/raw/prev"
		vs_prev="prefix 0 (GOOD)"
	fi
	if [ -n "$vs_prev" ]; then
		ln -s "$(stepdir "$hi")/merged/raw/p$hi" "$pd/raw/bad"
		decide "$pd" prev bad
	fi
fi

# The log: the text to paste into a reply on the list, 80 columns.
iv() { awk -v r="$1" -v l="$2" -v h="$3" -v lev="$4" 'BEGIN {
	if (r == "" || r == "-") { print "-"; exit }
	printf "%.4f [%.4f, %.4f] %g%%", r, l, h, 100 * (1 - 2 * lev) }'; }
# the keys of the steps' rows, numbered k1, k2, ... in order
tail -n +2 "$run/bisect.tsv" | awk -F'\t' -v OFS='\t' '$6 != "-" && !seen[$6 FS $7 FS $8 FS $9]++ {
	print "k" ++n, $6, $7, $8, $9 }' >"$run/keys-numbered.tsv"
knum() { awk -F'\t' -v w="$1" -v v="$2" -v p="$3" -v m="$4" '$2 == w && $3 == v && $4 == p && $5 == m { print $1 }' \
	"$run/keys-numbered.tsv"; }
{
	echo "kbench bisect-perf: which patch of NEW made it slower than GOOD"
	echo
	echo "NEW:   $NEW ($total patches)"
	[ ! -s "$run/series/new.json" ] ||
		jq -r '"       commits \(.base_commit[0:12])..\(.head_commit[0:12]) of \(.repo)"' "$run/series/new.json"
	echo "GOOD:  $good_desc, kernel ${good_key:0:12}"
	echo "asked: $(awk -F'\t' '{ printf "%s%s %s %s %s", (NR > 1 ? "; " : ""), $1, $2, $3, $4 }' "$targets")"
	while IFS=$'\t' read -r n w v p m; do
		echo "key $n: $w/$v $p $m"
	done <"$run/keys-numbered.tsv"
	echo "rule:  kbstat sequential (O'Brien-Fleming spending, 5 % one-sided),"
	echo "       3 to $BISECT_BOOTS boots a side; GOOD's boots: $BISECT_GOOD${ref:+, boots from BISECT_REF}"
	[ -z "$gate_ok" ] || echo "       step 0's boots: the gate's ($gate)"
	echo "clock: $(jq -r '[.results[].clock] | unique | join(", ")' "$run/results.json"); ratio = prefix / GOOD, interval at the rule's level"
	echo
	printf '%-4s %-6s %-12s %-6s %-31s %s\n' step prefix kernel boots "ratio [interval] level" verdict
	tail -n +2 "$run/bisect.tsv" | while IFS=$'\t' read -r s k key gb pb w var pt m ratio l h lev v _; do
		kn=''
		[ "$w" = - ] || [ "$(wc -l <"$run/keys-numbered.tsv")" = 1 ] || kn=" $(knum "$w" "$var" "$pt" "$m")"
		printf '%-4s %-6s %-12s %-6s %-31s %s\n' "$s" "$k/$total" "${key:0:12}" "$gb+$pb" \
			"$(iv "$ratio" "$l" "$h" "$lev")" "$v$kn"
	done
	echo
	for i in "${!skipped[@]}"; do
		echo "skipped: prefix ${skipped[$i]}: $(subject "$(sed -n "${skipped[$i]}p" "$run/series/new.list")")"
	done
	case "$result" in
	none)
		echo "nothing regressed: NEW is not worse than GOOD at any key asked for"
		echo "(step 0); no bisect" ;;
	undecided)
		echo "undecided: the first bad patch is one of $((lo + 1))-$hi; step $steps stayed"
		echo "inconclusive at $BISECT_BOOTS boots a side:"
		jq -r '.results[] | select(.verdict | test("inconclusive|insufficient")) | "  \(.workload) \(.point) \(.metric): \(.why)"' \
			"$last_sd/merged/compare.json" | sed -E 's/BOOTS=([0-9]+)/BISECT_BOOTS=\1/g' | fold -s -w 78 || true
		echo "What would settle it: more boots a side (BISECT_BOOTS=), or the floor"
		echo "of an A/A run made the same way (make calibrate)." ;;
	skipped)
		echo "the first bad patch is one of $((lo + 1))-$hi: the prefixes between were skipped" ;;
	found)
		p=$(sed -n "${hi}p" "$run/series/new.list")
		echo "first bad patch: $hi/$total, found in $steps step(s) after step 0"
		echo "  $(subject "$p")"
		echo "  ($(basename "$p"))"
		[ ! -s "$run/series/new.json" ] ||
			jq -r --argjson i "$((hi - 1))" '"  commit \(.commits[$i].commit)"' "$run/series/new.json"
		echo "  against GOOD:"
		awk -F'\t' -v k="$hi" '$2 == k && $14 == "worse"' "$run/bisect.tsv" |
			while IFS=$'\t' read -r _ _ _ gb pb w var pt m ratio l h lev v _; do
				echo "    $(knum "$w" "$var" "$pt" "$m"): $(iv "$ratio" "$l" "$h" "$lev") $v, $gb+$pb boots"
			done
		if [ -n "$vs_prev" ]; then
			echo "  against $vs_prev:"
			while IFS=$'\t' read -r w var pt m v n ratio l h lev; do
				echo "    $(knum "$w" "$var" "$pt" "$m"): $(iv "$ratio" "$l" "$h" "$lev") $v, $n boots a side"
			done <"$run/steps/first-bad-vs-previous/decide.tsv"
		else
			echo "  against prefix $lo: not booted"
		fi
		[ "$lo_known" = 1 ] ||
			echo "  note: prefix $lo was taken as good without a boot (NEW shares it with GOOD)" ;;
	esac
} >"$run/bisect.log"
cp "$run/bisect.log" "$run/summary.txt"

# The history store: step 0 as results.json, each step as step-NN.json,
# and every kernel compared (from this run's boots or BISECT_REF's).
fps=()
mapfile -t fps < <(find "$run/steps" -path '*/rounds/r*/fingerprint.json' | sort; [ -z "$ref" ] || echo "$ref/fingerprint.json"
	[ -z "$gate_ok" ] || echo "$gate/fingerprint.json")
if [ "${#fps[@]}" -gt 0 ]; then
	names=$(tail -n +2 "$run/bisect.tsv" | awk -F'\t' -v g="$good_key" 'BEGIN { print "good\t" g }
		$3 != "-" { print "p" $2 "\t" $3 }' | sort -u | jq -R 'split("\t") | {(.[0]): .[1]}' | jq -s add)
	jq -s --argjson names "$names" '
		([.[].kernels // {} | .[]]) as $all |
		.[0] + {kernels: ($names | with_entries(.value as $k |
			.value = ([$all[] | select(.key == $k)][0]) | select(.value != null)))}' "${fps[@]}" |
		kb_atomic_write "$run/fingerprint.json"
	KBSTAT=$kbstat "$top/analysis/history.sh" record "$run" || true
fi

cat "$run/bisect.log"
kb_say "bisect log: $run/bisect.log"
# regression-check BISECT=1: its report shows the log too
if [ -n "${KB_BISECT_LOG_TO:-}" ]; then
	{
		printf 'make bisect-perf run: %s\n\n' "$run"
		cat "$run/bisect.log"
	} | kb_atomic_write "$KB_BISECT_LOG_TO"
fi
case "$result" in found | none) exit 0 ;; *) exit 1 ;; esac
