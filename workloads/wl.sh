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
# shellcheck shell=bash

declare -gA WL
# WL_LINE[key]: the line of WL_FILE that set WL[key] (for errors).
declare -gA WL_LINE
WL_FILE=

# Keys a workload may set; matrix.<param> adds a parameter dimension.
WL_KEYS="name description bench args variants base_variant reps reps_at warmup mem clock timeout disks primary table table_metric model scale_x"
# Keys MATRIX=claims replaces, from claims.<key>
WL_CLAIMS_KEYS="reps_at"

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
	for key in name bench; do
		[ -n "${WL[$key]:-}" ] || kb_die "$file: required key '$key' is missing"
	done
	: "${WL[reps]:=10}" "${WL[warmup]:=2}" "${WL[mem]:=2048}"
	: "${WL[clock]:=icount}" "${WL[timeout]:=900}" "${WL[matrix.vcpus]:=1}"
	: "${WL[variants]:=default}" "${WL[args]:=}" "${WL[disks]:=}"
	: "${WL[model]:=none}"
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
