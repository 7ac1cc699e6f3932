#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest-side profiler (PROFILE=1). guest/run.sh (the payload's run) calls it as root after a
# workload's timed samples, with the same kbbench command line but one rep:
#   profile.sh RESULTS_DIR TAG -- COMMAND...
# It runs COMMAND once under 'perf record -g' with a software event (TCG
# has no hardware PMU) and writes RESULTS_DIR/profile/TAG/:
#   top.txt     the top symbols by self overhead (perf report --no-children
#               --sort sym): "  12.34%  [k] symbol" rows, '#' comments
#   folded.txt  one "root;caller;...;leaf COUNT" line per distinct stack,
#               root = comm, kernel frames suffixed "_[k]", COUNT = samples,
#               a run of unresolved frames kept as one "[unknown]"
#   meta.txt    key=value facts (event, frequency, samples, kernel samples)
#   perf.data   only if it is at most KB_PROFILE_KEEP_BYTES
# The COMMAND's own output is thrown away: the profile run is never a timed
# sample. On any failure it writes RESULTS_DIR/profile/TAG/error.txt instead
# and still exits 0, so that profiling never fails the timed results.
#
# Environment: KB_PROFILE_EVENT (default cpu-clock), KB_PROFILE_FREQ (999),
# KB_PROFILE_TOP (40), KB_PROFILE_KEEP_BYTES (1048576), KB_PROFILE_TIMEOUT
# (seconds, 600), TMPDIR (for perf.data while it is being processed).
#
# Filters, also used by the host-side tests:
#   profile.sh --fold [FILE]   perf script text -> folded stacks
#   profile.sh --top [N] [FILE]   perf report --stdio -> top.txt rows
set -eu

# Fold 'perf script' output (leaf-first call chains, one blank line after
# each sample) into root-first stacks with a count. Plain POSIX awk: the
# guest's awk is mawk.
fold() {
	LC_ALL=C awk '
	function flush(	s, i) {
		if (!insample)
			return
		s = comm
		if (nf == 0)
			s = s ";[unknown]"
		for (i = nf; i >= 1; i--)
			s = s ";" fr[i]
		count[s]++
		insample = 0
		nf = 0
	}
	function clean(s) {
		gsub(/;/, ":", s)
		gsub(/[\t\r]/, " ", s)
		return s
	}
	function header(line) {
		flush()
		sub(/^[ \t]+/, "", line)
		# comm may hold spaces: it ends before " PID[/TID] "
		if (match(line, /[ \t]+[0-9]+(\/[0-9]+)?[ \t]/))
			comm = substr(line, 1, RSTART - 1)
		else
			comm = line
		if (comm == "")
			comm = "[unknown]"
		comm = clean(comm)
		insample = 1
		nf = 0
	}
	function frame(line,	ip, rest, dso, sym, p, name) {
		sub(/^[ \t]+/, "", line)
		sub(/[ \t]+$/, "", line)
		ip = line
		sub(/[ \t].*$/, "", ip)
		rest = substr(line, length(ip) + 1)
		sub(/^[ \t]+/, "", rest)
		dso = ""
		sym = rest
		if (rest ~ /\)$/) {
			# the dso is in the last " (...)"
			p = 0
			while (match(substr(rest, p + 1), / \(/))
				p += RSTART
			if (p > 0) {
				dso = substr(rest, p + 2, length(rest) - p - 2)
				sym = substr(rest, 1, p - 1)
			} else if (rest ~ /^\(/) {
				dso = substr(rest, 2, length(rest) - 2)
				sym = ""
			}
		}
		sub(/\+0x[0-9a-fA-F]+$/, "", sym)
		sub(/[ \t]+$/, "", sym)
		name = sym
		if (name == "" || name == "[unknown]") {
			if (dso != "" && dso != "[unknown]") {
				sub(/^.*\//, "", dso)
				sub(/^\[/, "", dso)
				sub(/\]$/, "", dso)
				name = "[" dso "]"
			} else {
				name = "[unknown]"
			}
		}
		name = clean(name)
		if (dso ~ /^\[kernel/ || (length(ip) == 16 && ip ~ /^ffff/))
			name = name "_[k]"
		# A user stack without frame pointers unwinds into a run of
		# garbage: keep one [unknown] for the whole run.
		if (name == "[unknown]" && nf > 0 && fr[nf] == name)
			return
		fr[++nf] = name
	}
	/^[ \t]*$/ { flush(); expect = 1; next }
	expect || /^[^ \t]/ { header($0); expect = 0; next }
	{ if (insample) frame($0) }
	END {
		flush()
		for (s in count)
			print s, count[s]
	}' "$@" | LC_ALL=C sort
}

# Keep the symbol rows of 'perf report --stdio --sort sym' (and its
# "# Samples:" line), the first N of them, in one fixed format.
top_rows() {
	n=$1
	shift
	LC_ALL=C awk -v n="$n" '
	/^# Samples:/ || /^# Event count/ { print; next }
	/^[ \t]*[0-9.]+%[ \t]+\[.\][ \t]/ {
		if (rows >= n)
			next
		pct = $1
		sub(/%$/, "", pct)
		typ = $2
		line = $0
		sub(/^[ \t]*[0-9.]+%[ \t]+\[.\][ \t]+/, "", line)
		sub(/[ \t]+$/, "", line)
		printf "%7.2f%%  %s %s\n", pct, typ, line
		rows++
	}' "$@"
}

case ${1:-} in
--fold)
	shift
	fold "$@"
	exit 0
	;;
--top)
	shift
	n=40
	case ${1:-} in
	'' | *[!0-9]*) ;;
	*)
		n=$1
		shift
		;;
	esac
	top_rows "$n" "$@"
	exit 0
	;;
esac

if [ $# -lt 4 ] || [ "$2" = "" ] || [ "$3" != -- ]; then
	echo "usage: profile.sh RESULTS_DIR TAG -- COMMAND..." >&2
	echo "       profile.sh --fold [FILE] | --top [N] [FILE]" >&2
	# Bad usage is the runner's bug, not the workload's: still exit 0.
	exit 0
fi
res=$1
tag=$2
shift 3
case $tag in
*/* | . | ..)
	tag=$(printf '%s' "$tag" | tr -c 'A-Za-z0-9._=-' '_')
	;;
esac

event=${KB_PROFILE_EVENT:-cpu-clock}
freq=${KB_PROFILE_FREQ:-999}
ntop=${KB_PROFILE_TOP:-40}
keep=${KB_PROFILE_KEEP_BYTES:-1048576}
limit=${KB_PROFILE_TIMEOUT:-600}

out=$res/profile/$tag
stage=$res/profile/.$tag.tmp
work=""

# Replace whatever is in OUT by error.txt (written through a temp file).
fail() {
	trap - EXIT
	{
		echo "kbench: profile $tag: $1"
		if [ -n "$work" ] && [ -s "$work/log" ]; then
			echo "--- last lines of the perf/command log:"
			tail -n 20 "$work/log"
		fi
	} >"$res/profile/.$tag.error" 2>/dev/null || true
	rm -rf "$stage" "$out" 2>/dev/null || true
	if mkdir -p "$out" 2>/dev/null; then
		mv -f "$res/profile/.$tag.error" "$out/error.txt" 2>/dev/null || true
	fi
	[ -z "$work" ] || rm -rf "$work"
	echo "kbench-profile: $tag: error: $1 (see $out/error.txt)" >&2
	exit 0
}

mkdir -p "$res/profile" || {
	echo "kbench-profile: cannot create $res/profile" >&2
	exit 0
}
# Anything set -e stops on ends up in error.txt, never in the exit status.
trap 'fail "unexpected error (exit status $?)"' EXIT

command -v perf >/dev/null 2>&1 || fail "perf not found in the guest (install linux-perf in the image)"
work=$(mktemp -d "${TMPDIR:-/tmp}/kbprof.XXXXXX") || fail "mktemp failed in ${TMPDIR:-/tmp}"
rm -rf "$stage"
mkdir -p "$stage" || fail "cannot create $stage"

# Kernel symbols come from /proc/kallsyms: make sure root sees addresses.
kptr=$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null || echo unknown)
if [ "$kptr" = 2 ]; then
	echo 1 >/proc/sys/kernel/kptr_restrict 2>/dev/null || true
fi

tmo=""
if command -v timeout >/dev/null 2>&1; then
	tmo="timeout -k 10 $limit"
fi
rc=0
# shellcheck disable=SC2086 # tmo is a word list (or nothing)
$tmo perf record -q -e "$event" -F "$freq" -g -N -o "$work/perf.data" -- "$@" \
	</dev/null >/dev/null 2>"$work/log" || rc=$?
if [ "$kptr" = 2 ]; then
	echo 2 >/proc/sys/kernel/kptr_restrict 2>/dev/null || true
fi
[ "$rc" != 124 ] || fail "perf record timed out after ${limit} s (KB_PROFILE_TIMEOUT)"
[ "$rc" = 0 ] || fail "perf record or the command exited with status $rc: $*"
[ -s "$work/perf.data" ] || fail "perf record wrote no data"

perf report -i "$work/perf.data" --stdio --no-children --sort sym -g none \
	--percent-limit 0 >"$work/report.txt" 2>>"$work/log" ||
	fail "perf report failed"
{
	echo "# kbench profile $tag: top $ntop symbols by self overhead (perf report --no-children --sort sym)"
	top_rows "$ntop" "$work/report.txt"
} >"$stage/top.txt" || fail "cannot write top.txt"
grep -q '%' "$stage/top.txt" || fail "perf report found no samples"

perf script -i "$work/perf.data" -F comm,tid,time,event,ip,sym,symoff,dso \
	>"$work/script.txt" 2>>"$work/log" || fail "perf script failed"
fold "$work/script.txt" >"$stage/folded.txt" || fail "folding the stacks failed"
[ -s "$stage/folded.txt" ] || fail "perf script gave no stacks"

samples=$(awk '{ n += $NF } END { print n + 0 }' "$stage/folded.txt")
ksamples=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); if (s ~ /_\[k\]$/) n += $NF } END { print n + 0 }' "$stage/folded.txt")
kunknown=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); if (s ~ /;\[[^;]*\]_\[k\]$/) n += $NF } END { print n + 0 }' "$stage/folded.txt")
{
	echo "tag=$tag"
	echo "uname=$(uname -r)"
	echo "perf=$(perf --version 2>/dev/null || echo unknown)"
	echo "event=$event"
	echo "freq=$freq"
	echo "samples=$samples"
	echo "kernel_samples=$ksamples"
	echo "kernel_unresolved=$kunknown"
	echo "kptr_restrict=$kptr"
	echo "command=$*"
} >"$stage/meta.txt" || fail "cannot write meta.txt"
if [ "$ksamples" -gt 0 ] && [ "$kunknown" -eq "$ksamples" ]; then
	echo "warning=no kernel symbol resolved (kptr_restrict=$kptr; is /proc/kallsyms readable?)" >>"$stage/meta.txt"
fi

size=$(wc -c <"$work/perf.data" | tr -d ' ')
if [ "$size" -le "$keep" ]; then
	mv "$work/perf.data" "$stage/perf.data" || fail "cannot keep perf.data"
fi

# Publish the directory in one rename.
rm -rf "$out"
mv "$stage" "$out" || fail "cannot rename $stage to $out"
trap - EXIT
rm -rf "$work"
echo "kbench-profile: $tag: $samples samples ($ksamples in the kernel) -> $out" >&2
exit 0
