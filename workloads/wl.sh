# SPDX-License-Identifier: GPL-2.0
# Workload file reader. Source it; wl_load FILE fills the associative
# array WL. A workload file is "key = value" lines with '#' comments.
# quick.<key> overrides <key> when QUICK=1. MATRIX= picks the points:
# claims (bench.conf's default) takes the file's claims.matrix.<param>
# keys where it has them, else matrix.<param>: each claim of the series
# at the scale it is about; small takes its quick.matrix.<param> keys
# (the smaller matrix with the file's own reps and warmup); full (unset
# here means full) every point. claims.reps_at replaces reps_at under
# claims. claim.<id> = FIELDS | DESCRIPTION [| UPSTREAM] names a claim
# the report's answer block shows first (analysis/README.md). An
# unknown key is an error naming the file and line.
#
# A workload runs either a kbbench benchmark (bench, args) or a program
# (command, packages, parser, output): see wl_check_program. wl_files
# picks the files a run takes (WORKLOADS=, else every file whose
# default_run is yes), wl_command a program point's command line.
# shellcheck shell=bash

declare -gA WL
# WL_LINE[key]: the line of WL_FILE that set WL[key] (for errors).
declare -gA WL_LINE
WL_FILE=

# Keys a workload may set; matrix.<param> adds a parameter dimension.
WL_KEYS="name description bench args command packages parser output default_run variants base_variant reps reps_at warmup mem clock timeout disks primary table table_metric model scale_x"
# Keys MATRIX=claims replaces, from claims.<key>
WL_CLAIMS_KEYS="reps_at"
# Keys that say what a workload is, the same in every run: no quick.<key>
WL_FIXED_KEYS="name bench command packages parser output default_run"
# The program workloads' output parsers: parsers/NAME.awk (parsers/README.md)
WL_PARSERS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/parsers

wl_known_key() {
	local k=$1
	case "$k" in
	matrix.[a-z]* | claim.[a-z0-9]*) return 0 ;;
	esac
	case " $WL_KEYS " in
	*" $k "*) return 0 ;;
	esac
	return 1
}

# wl_unknown_key LINE KEY: the error (in WL_FILE), with the nearest known key
wl_unknown_key() {
	local near k=${2#quick.}
	# shellcheck disable=SC2086 # one candidate per word
	near=$(kb_closest "$k" $WL_KEYS)
	[ -z "$near" ] || near=" (did you mean ${2%"$k"}$near?)"
	kb_die "$WL_FILE:$1: unknown key '$2'$near; known: $WL_KEYS, matrix.<param>, claim.<id>, quick.<key>, claims.matrix.<param>, claims.reps_at"
}

wl_load() {
	local file=$1 lineno=0 line key val
	# values are split into words, never globbed against the current
	# directory ('local -' restores the caller's options on return)
	local -
	set -f
	WL=()
	WL_LINE=()
	# shellcheck disable=SC2034 # read by run.sh for its errors
	WL_FILE=$file
	local -A quick=() claims=()
	[ -f "$file" ] || kb_die "workload file $file not found"
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		[ -n "${line//[[:space:]]/}" ] || continue
		case "$line" in
		*=*) ;;
		*) kb_die "$file:$lineno: expected 'key = value', got: $line" ;;
		esac
		key=${line%%=*}
		val=${line#*=}
		key=${key//[[:space:]]/}
		val=$(printf '%s' "$val" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
		if [ "${key#claims.}" != "$key" ]; then
			case "${key#claims.}" in
			matrix.[a-z]*) ;;
			*) case " $WL_CLAIMS_KEYS " in
				*" ${key#claims.} "*) ;;
				*) wl_unknown_key "$lineno" "$key" ;;
				esac ;;
			esac
			claims[${key#claims.}]=$val
			if [ "${QUICK:-0}" != 1 ] && [ "${MATRIX:-full}" = claims ]; then
				WL_LINE[${key#claims.}]=$lineno
			fi
			continue
		fi
		if [ "${key#quick.}" != "$key" ]; then
			wl_known_key "${key#quick.}" || wl_unknown_key "$lineno" "$key"
			case " $WL_FIXED_KEYS " in
			*" ${key#quick.} "*) kb_die "$file:$lineno: $key: ${key#quick.} says what the workload is, the same in every run; it has no quick. form" ;;
			esac
			quick[${key#quick.}]=$val
			if [ "${QUICK:-0}" = 1 ] || { [ "${MATRIX:-full}" = small ] && [ "${key#quick.matrix.}" != "$key" ]; }; then
				WL_LINE[${key#quick.}]=$lineno
			fi
			continue
		fi
		wl_known_key "$key" || wl_unknown_key "$lineno" "$key"
		WL[$key]=$val
		[ -n "${WL_LINE[$key]:-}" ] || WL_LINE[$key]=$lineno
	done <"$file"
	case "${MATRIX:-full}" in
	full | small | claims) ;;
	*) kb_die "MATRIX must be claims (each claim at its scale: each workload's claims.matrix.* points), small (each workload's quick.matrix.* points) or full (every point), not '$MATRIX'" ;;
	esac
	if [ "${QUICK:-0}" = 1 ]; then
		for key in "${!quick[@]}"; do
			WL[$key]=${quick[$key]}
		done
	elif [ "${MATRIX:-full}" = small ]; then
		for key in "${!quick[@]}"; do
			[ "${key#matrix.}" = "$key" ] || WL[$key]=${quick[$key]}
		done
	elif [ "${MATRIX:-full}" = claims ]; then
		for key in "${!claims[@]}"; do
			WL[$key]=${claims[$key]}
		done
	fi
	[ -n "${WL[name]:-}" ] || kb_die "$file: required key 'name' is missing"
	if [ -z "${WL[bench]:-}" ] && [ -z "${WL[command]:-}" ]; then
		kb_die "$file: required key 'bench' (a kbbench benchmark) or 'command' (a program to run) is missing"
	fi
	: "${WL[reps]:=10}" "${WL[warmup]:=2}" "${WL[mem]:=2048}"
	: "${WL[clock]:=icount}" "${WL[timeout]:=900}" "${WL[matrix.vcpus]:=1}"
	: "${WL[variants]:=default}" "${WL[args]:=}" "${WL[disks]:=}"
	: "${WL[model]:=none}"
	wl_check_program "$file"
	case "${WL[clock]}" in
	icount | wall) ;;
	*) kb_die "$file: clock must be icount or wall, not '${WL[clock]}'" ;;
	esac
	# model: the kbcache plugin's pass (model/README.md); run.sh checks
	# it against the clock once CLOCK= has had its say
	case "${WL[model]}" in
	none | cache) ;;
	*) kb_die "$file:${WL_LINE[model]}: model must be none or cache, not '${WL[model]}'" ;;
	esac
	local n d
	# disks: extra devices of every boot, "virtio-blk[,queues=N|vcpus]" each
	for d in ${WL[disks]}; do
		case "$d" in
		virtio-blk | virtio-blk,queues=vcpus) ;;
		virtio-blk,queues=[1-9] | virtio-blk,queues=[1-9][0-9] | virtio-blk,queues=[1-9][0-9][0-9]) ;;
		*) kb_die "$file:${WL_LINE[disks]}: disks: '$d' is not virtio-blk[,queues=N|vcpus] (N = 1..999)" ;;
		esac
	done
	for n in reps warmup mem timeout; do
		case "${WL[$n]}" in
		'' | *[!0-9]*) kb_die "$file: $n must be a whole number, not '${WL[$n]}'" ;;
		esac
	done
	wl_check_variants "$file"
	wl_check_reps_at "$file"
	wl_check_scale_x "$file"
	wl_check_claims "$file"
	return 0
}

# A program workload: instead of a kbbench benchmark, a program that
# kernel developers already use (perf bench, stress-ng, fio, ...):
#   command = the command line run in the guest by sh -c, in a directory
#             of its own for each sample; {PARAM} is the point's value of
#             matrix.PARAM, {vcpus} the boot's vCPU count, {variant} the
#             variant; $KB_DISK1 ... are the devices of the workload's disks
#   packages = the Debian packages it needs (the image gets them; a
#            bench may name some too: bpftrace-attach runs bpftrace)
#   parser = NAME: parsers/NAME.awk turns one sample's output into rows
#   output = what the parser reads: stdout (default), stderr, or a file
#            the command writes in its directory
#   default_run = yes|no: in the run without WORKLOADS= (default: yes for
#            a bench, no for a program: it is not about the series)
wl_check_program() {
	local file=$1 k p ph rest n d
	local -
	set -f
	case "${WL[default_run]:=$([ -n "${WL[command]:-}" ] && echo no || echo yes)}" in
	yes | no) ;;
	*) kb_die "$file:${WL_LINE[default_run]}: default_run must be yes or no, not '${WL[default_run]}'" ;;
	esac
	# a bench may need a Debian program too (bpftrace-attach runs bpftrace)
	for p in ${WL[packages]:-}; do
		wl_check_package "$file:${WL_LINE[packages]}" "$p"
	done
	if [ -z "${WL[command]:-}" ]; then
		for k in parser output; do
			[ -z "${WL[$k]:-}" ] || kb_die "$file:${WL_LINE[$k]}: $k is for a program workload (command =), not a bench"
		done
		return 0
	fi
	[ -z "${WL[bench]:-}" ] ||
		kb_die "$file:${WL_LINE[command]}: both bench (line ${WL_LINE[bench]}) and command: a workload runs a kbbench benchmark or a program, not both"
	[ -z "${WL[args]:-}" ] ||
		kb_die "$file:${WL_LINE[args]}: args is for a bench; a program's arguments go into command"
	[ "${WL[model]}" = none ] ||
		kb_die "$file:${WL_LINE[model]}: model = ${WL[model]} needs kbbench's sample windows; a program workload has none"
	case "${WL[command]}" in
	*$'\t'*) kb_die "$file:${WL_LINE[command]}: command: a tab cannot be in it (the plan is tab-separated)" ;;
	esac
	# {PARAM}: each a matrix parameter, vcpus or variant; each parameter
	# used, or its points would all run the same command
	rest=${WL[command]}
	while [ "${rest#*\{}" != "$rest" ]; do
		rest=${rest#*\{}
		ph=${rest%%\}*}
		[ "$ph" != "$rest" ] || kb_die "$file:${WL_LINE[command]}: command: a '{' without its '}'"
		rest=${rest#*\}}
		case "$ph" in
		vcpus | variant) ;;
		*) [ -n "${WL[matrix.$ph]:-}" ] ||
			kb_die "$file:${WL_LINE[command]}: command: {$ph} is not a matrix parameter (matrix.$ph), {vcpus} or {variant}" ;;
		esac
	done
	for k in "${!WL[@]}"; do
		case "$k" in matrix.vcpus | matrix.*[!a-z0-9_]*) continue ;; matrix.*) ;; *) continue ;; esac
		case "${WL[command]}" in
		*"{${k#matrix.}}"*) ;;
		*) kb_die "$file:${WL_LINE[$k]}: $k: the command never uses {${k#matrix.}}, so its points would all run the same command" ;;
		esac
	done
	# $KB_DISKn: the workload asks for n disks
	n=0
	for d in ${WL[disks]}; do n=$((n + 1)); done
	rest=${WL[command]}
	while [ "${rest#*KB_DISK}" != "$rest" ]; do
		rest=${rest#*KB_DISK}
		d=${rest%%[!0-9]*}
		if [ -n "$d" ] && { [ "${#d}" -gt 3 ] || [ "$((10#$d))" -gt "$n" ]; }; then
			kb_die "$file:${WL_LINE[command]}: command: \$KB_DISK$d, but disks gives $n disk(s)"
		fi
	done
	[ -n "${WL[parser]:-}" ] || kb_die "$file:${WL_LINE[command]}: a program workload needs parser = NAME (one of: $(wl_parser_names))"
	case "${WL[parser]}" in
	*[!a-z0-9-]* | -*) kb_die "$file:${WL_LINE[parser]}: parser: '${WL[parser]}' is not a parser name (one of: $(wl_parser_names))" ;;
	esac
	[ -f "$WL_PARSERS/${WL[parser]}.awk" ] ||
		kb_die "$file:${WL_LINE[parser]}: parser: no parser '${WL[parser]}' ($WL_PARSERS/${WL[parser]}.awk; have: $(wl_parser_names))"
	: "${WL[output]:=stdout}"
	case "${WL[output]}" in
	.* | *[!A-Za-z0-9._-]*) kb_die "$file:${WL_LINE[output]}: output: '${WL[output]}' is not stdout, stderr or a file name in the sample's directory" ;;
	esac
	[ -n "${WL[packages]:-}" ] ||
		kb_die "$file:${WL_LINE[command]}: a program workload needs packages = the Debian packages its command runs (linux-perf for perf)"
}

# wl_parser_names: the parsers there are, for errors
wl_parser_names() {
	local f n=''
	local -
	set +f
	for f in "$WL_PARSERS"/*.awk; do
		[ -f "$f" ] || continue
		f=${f##*/}
		n+="${n:+ }${f%.awk}"
	done
	echo "${n:-none}"
}

# wl_check_package WHERE PKG: PKG is a Debian package name that Debian 12
# can install. The host is Debian 12 like the image, so apt-cache's
# candidate on the host stands for the image's mirror (bookworm main);
# asked once per package. A package that is not there stops the run here,
# before any image build or boot.
declare -gA WL_PKG_OK=()
wl_check_package() {
	local where=$1 p=$2 cand
	case "$p" in
	[a-z0-9]*) ;;
	*) kb_die "$where: packages: '$p' is not a Debian package name" ;;
	esac
	case "$p" in
	?*[!a-z0-9+.-]*) kb_die "$where: packages: '$p' is not a Debian package name" ;;
	esac
	[ -z "${WL_PKG_OK[$p]:-}" ] || return 0
	command -v apt-cache >/dev/null ||
		kb_die "$where: packages: cannot check '$p': apt-cache is not installed (a Debian 12 host has it)"
	cand=$(LC_ALL=C apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n 1)
	case "$cand" in
	'' | '(none)')
		kb_die "$where: packages: '$p' is not a package Debian 12 can install (apt-cache policy $p: no candidate on this host; apt-get update if its lists are old): the workload cannot run" ;;
	esac
	WL_PKG_OK[$p]=$cand
}

# wl_command POINT VCPUS VARIANT: the command line of a program point:
# {PARAM} replaced by the value of PARAM in POINT (the label
# "k=v;k2=v2" of wl_points, "none" without parameters), {vcpus} and
# {variant} by theirs.
wl_command() {
	local point=$1 cmd=${WL[command]} kv
	local -
	set -f
	cmd=${cmd//\{vcpus\}/$2}
	cmd=${cmd//\{variant\}/$3}
	[ "$point" = none ] && point=
	for kv in ${point//;/ }; do
		cmd=${cmd//\{${kv%%=*}\}/${kv#*=}}
	done
	printf '%s\n' "$cmd"
}

# wl_default_run FILE: yes or no, the file's default_run (wl_check_program),
# read without loading it (no package check): the run without WORKLOADS=
# takes the files that say yes.
wl_default_run() {
	local line key val dr='' cmd=''
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		case "$line" in *=*) ;; *) continue ;; esac
		key=${line%%=*}
		key=${key//[[:space:]]/}
		val=${line#*=}
		val=${val//[[:space:]]/}
		case "$key" in
		default_run) dr=$val ;;
		command) cmd=1 ;;
		esac
	done <"$1"
	if [ -n "$dr" ]; then echo "$dr"; elif [ -n "$cmd" ]; then echo no; else echo yes; fi
}

# wl_files DIR WORKLOADS: the workload files of a run, one a line: each
# name (DIR/NAME.wl) or path (a .wl file of your own) of the comma
# separated WORKLOADS, or, when it is empty, every DIR/*.wl whose
# default_run is yes.
wl_files() {
	local dir=$1 w f
	local -a wanted=()
	local -
	set -f
	if [ -n "$2" ]; then
		IFS=, read -r -a wanted <<<"$2"
		for w in "${wanted[@]}"; do
			case "$w" in
			*/* | *.wl)
				[ -f "$w" ] || kb_die "WORKLOADS: no workload file '$w'"
				printf '%s\n' "$(cd "$(dirname "$w")" && pwd)/$(basename "$w")"
				continue ;;
			esac
			[ -f "$dir/$w.wl" ] || kb_die "WORKLOADS: no workload '$w' (no $dir/$w.wl; have: $(set +f; cd "$dir" && printf '%s ' *.wl))"
			printf '%s\n' "$dir/$w.wl"
		done
		return 0
	fi
	set +f
	for f in "$dir"/*.wl; do
		[ -f "$f" ] || continue
		[ "$(wl_default_run "$f")" = no ] || printf '%s\n' "$f"
	done
}

# scale_x = PARAM=METRIC ...: on the report's scaling charts, a value of
# matrix.PARAM that is not a number (funcs = all) is drawn at the median
# of METRIC at that point, per kernel (bpf-attach: the number of
# functions "all" found), instead of being left out.
wl_check_scale_x() {
	local file=$1 e k
	local -
	set -f
	for e in ${WL[scale_x]:-}; do
		k=${e%%=*}
		case "$e" in
		[a-z]*=[a-z]*) ;;
		*) kb_die "$file:${WL_LINE[scale_x]}: scale_x: '$e' is not PARAM=METRIC" ;;
		esac
		[ -n "${WL[matrix.$k]:-}" ] ||
			kb_die "$file:${WL_LINE[scale_x]}: scale_x: '$e': '$k' is not a matrix parameter (no matrix.$k)"
	done
}

# reps_at: fewer samples at the points that are too slow for reps (say
# why in a comment next to it): space-separated entries
#   VARIANT@PARAM=VALUE[,PARAM=VALUE...]:REPS[/WARMUP]
# VARIANT is one of variants or '*'; an entry applies to each point
# whose parameters include every PARAM=VALUE. The first entry that
# applies sets the point's reps (at most reps) and warm-up (default 0).
# The plan keeps the point: it is never dropped.

# wl_reps_at_entry ENTRY: "VARIANT PARAM=VALUE[,...] REPS WARMUP"
wl_reps_at_entry() {
	local rest=${1#*@} r w=0
	r=${rest#*:}
	case "$r" in */*) w=${r#*/} r=${r%%/*} ;; esac
	echo "${1%%@*} ${rest%%:*} $r $w"
}

wl_check_reps_at() {
	local file=$1 e v kvs r w kv k
	local -
	set -f
	for e in ${WL[reps_at]:-}; do
		read -r v kvs r w < <(wl_reps_at_entry "$e")
		case "$e" in
		*@*:*) ;;
		*) kb_die "$file:${WL_LINE[reps_at]}: reps_at: '$e' is not VARIANT@PARAM=VALUE[,PARAM=VALUE]:REPS[/WARMUP]" ;;
		esac
		case " ${WL[variants]} * " in
		*" $v "*) ;;
		*) kb_die "$file:${WL_LINE[reps_at]}: reps_at: '$e': variant '$v' is not one of variants (${WL[variants]}) or *" ;;
		esac
		for kv in ${kvs//,/ }; do
			k=${kv%%=*}
			case "$kv" in
			*=?*) ;;
			*) kb_die "$file:${WL_LINE[reps_at]}: reps_at: '$e': '$kv' is not PARAM=VALUE" ;;
			esac
			if [ "$k" = vcpus ] || [ -z "${WL[matrix.$k]:-}" ]; then
				kb_die "$file:${WL_LINE[reps_at]}: reps_at: '$e': '$k' is not a matrix parameter (matrix.$k; vcpus is per boot)"
			fi
		done
		case "$r$w" in
		'' | *[!0-9]*) kb_die "$file:${WL_LINE[reps_at]}: reps_at: '$e': REPS and WARMUP must be whole numbers" ;;
		esac
		if [ "$r" -lt 1 ] || [ "$r" -gt "${WL[reps]}" ]; then
			kb_die "$file:${WL_LINE[reps_at]}: reps_at: '$e': $r reps is not in 1..${WL[reps]} (reps)"
		fi
	done
}

# wl_reps_at VARIANT POINT: "REPS WARMUP" of the point (the label
# "k=v;k2=v2" of wl_points) for the variant: reps_at's first entry that
# applies, else reps and warmup.
wl_reps_at() {
	local variant=$1 point=$2 e v kvs r w kv hit
	local -
	set -f
	for e in ${WL[reps_at]:-}; do
		read -r v kvs r w < <(wl_reps_at_entry "$e")
		[ "$v" = '*' ] || [ "$v" = "$variant" ] || continue
		hit=1
		for kv in ${kvs//,/ }; do
			case ";$point;" in
			*";$kv;"*) ;;
			*) hit=0 ;;
			esac
		done
		if [ "$hit" = 1 ]; then
			echo "$r $w"
			return
		fi
	done
	echo "${WL[reps]} ${WL[warmup]}"
}

# base_variant: the variant the others are compared with on one kernel
# (default: the first of variants). table: the columns of the variant
# comparison's summary table, each a matrix parameter or LABEL=EXPR,
# EXPR being parameters and numbers joined by * and / (nr=max_entries*fill/100).
wl_check_variants() {
	local file=$1 c e t
	if [ -n "${WL[base_variant]:-}" ]; then
		case " ${WL[variants]} " in
		*" ${WL[base_variant]} "*) ;;
		*) kb_die "$file:${WL_LINE[base_variant]}: base_variant '${WL[base_variant]}' is not one of variants (${WL[variants]})" ;;
		esac
	fi
	for c in ${WL[table]:-}; do
		e=${c#*=}
		case "$c" in
		=* | *=) kb_die "$file:${WL_LINE[table]}: table: column '$c' is not PARAM or LABEL=EXPR" ;;
		esac
		for t in ${e//[*\/]/ }; do
			case "$t" in
			*[!0-9.]*) [ -n "${WL[matrix.$t]:-}" ] ||
				kb_die "$file:${WL_LINE[table]}: table: '$t' in column '$c' is not a matrix parameter (matrix.$t) or a number" ;;
			esac
		done
		case "$e" in
		[*/]* | *[*/] | *[*/][*/]*) kb_die "$file:${WL_LINE[table]}: table: column '$c': an operator needs a term on each side" ;;
		esac
	done
	[ -z "${WL[table_metric]:-}" ] || [ -n "${WL[table]:-}" ] ||
		kb_die "$file:${WL_LINE[table_metric]}: table_metric without table (the columns of the table)"
}

# The in-guest parameter points (every matrix.* but vcpus), one per line:
# the label "k=v;k2=v2" ("none" when there is none), a tab, and the
# bench's arguments for it ("--k v --k2 v2"). Parsed here, once: the host
# check and the guest use the arguments as they are.
wl_points() {
	local -a params=() key
	# a '*' in a matrix key or value is a '*', as in wl_load
	local -
	set -f
	for key in "${!WL[@]}"; do
		case "$key" in
		matrix.vcpus) ;;
		matrix.*) params+=("${key#matrix.}") ;;
		esac
	done
	if [ "${#params[@]}" -eq 0 ]; then
		printf 'none\t\n'
		return
	fi
	local -a points=("") args=("")
	local p v i
	for p in $(printf '%s\n' "${params[@]}" | sort); do
		local -a next=() nargs=()
		for i in "${!points[@]}"; do
			for v in ${WL[matrix.$p]}; do
				next+=("${points[$i]:+${points[$i]};}$p=$v")
				nargs+=("${args[$i]:+${args[$i]} }--$p $v")
			done
		done
		points=("${next[@]}")
		args=("${nargs[@]}")
	done
	for i in "${!points[@]}"; do
		printf '%s\t%s\n' "${points[$i]}" "${args[$i]}"
	done
}

# claim.<id> = FIELDS | DESCRIPTION [| UPSTREAM]: a claim of the series
# the report's answer block shows first (analysis/README.md). FIELDS:
# compare=kernel (patched against baseline; variant=V when the workload
# has several) or compare=variant (base=V new=V kernel=LABEL: one
# variant against another on one kernel); metric=M; point=k=v[;k=v] (a
# subset of the point's parameters, vcpus included). UPSTREAM: upstream's
# own figure for it, "N.NNx" first when there is a ratio.
wl_check_claims() {
	local file=$1 key f fields desc k v kv
	local -A c=()
	local -
	set -f
	for key in "${!WL[@]}"; do
		case "$key" in claim.*) ;; *) continue ;; esac
		f="$file:${WL_LINE[$key]}: $key"
		fields=${WL[$key]%% | *}
		desc=${WL[$key]#"$fields"}
		desc=${desc# | }
		desc=${desc%% | *}
		if [ -z "$desc" ] || [ "$fields" = "${WL[$key]}" ]; then
			kb_die "$f: expected 'FIELDS | DESCRIPTION [| UPSTREAM]'"
		fi
		c=()
		for kv in $fields; do
			k=${kv%%=*} v=${kv#*=}
			case "$k" in
			compare | metric | point | variant | base | new | kernel) c[$k]=$v ;;
			*) kb_die "$f: unknown field '$k' (compare, metric, point, variant, base, new, kernel)" ;;
			esac
		done
		case "${c[compare]:-}" in
		kernel) for k in base new kernel; do
				[ -z "${c[$k]:-}" ] || kb_die "$f: $k= is for compare=variant"
			done ;;
		variant) for k in base new kernel; do
				[ -n "${c[$k]:-}" ] || kb_die "$f: compare=variant needs $k="
			done ;;
		*) kb_die "$f: compare must be kernel or variant, not '${c[compare]:-}'" ;;
		esac
		[ -n "${c[metric]:-}" ] || kb_die "$f: metric= is missing"
		for k in variant base new; do
			[ -n "${c[$k]:-}" ] || continue
			case " ${WL[variants]} " in
			*" ${c[$k]} "*) ;;
			*) kb_die "$f: $k=${c[$k]} is not one of variants (${WL[variants]})" ;;
			esac
		done
		for kv in ${c[point]//;/ }; do
			k=${kv%%=*}
			[ "$k" = vcpus ] || [ -n "${WL[matrix.$k]:-}" ] ||
				kb_die "$f: point: '$k' is not a matrix parameter (matrix.$k)"
		done
	done
}
