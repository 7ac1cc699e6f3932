#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that every prefix of the series builds and boots: patch 1, then
# patches 1-2, and so on. Each prefix is built as the kernel "bisect" (one
# worktree, so each step recompiles only what its patch touches) and booted
# with a payload that prints uname and runs the checks the series brings
# (kernel/checks/<topic>/boot-check); every message the kernel printed
# reaches the serial log (ignore_loglevel), which splat-scan.sh scans, as
# make test-debug does. build.sh also checks each prefix's lines under
# W=1 and sparse (w1-check.sh).
#
#   bisect-check.sh [SPEC]      (default: $SERIES or kernel/series)
#
# A topic's checks test the whole feature: they run on the prefixes where
# the topic is complete or not begun (then they report it absent), not
# while only some of its patches are in. BISECT_FROM=N starts at prefix N
# (to resume after a fix; the earlier prefixes are not built or booted),
# BISECT_TO=M stops after prefix M (a range that fits the time at hand).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/kernel/scripts
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE DEBUG
# DEBUG=1: every prefix as a debug kernel (build.sh names it bisect-debug)
# and boots with the debug kernels' options (kernel/config/debug.cmdline)
blabel=bisect append=ignore_loglevel
if [ "$DEBUG" = 1 ]; then
	blabel=bisect-debug append=$(kb_debug_cmdline)
fi
spec=${1:-${SERIES:-kernel/series}}
case "$spec" in /* | git:*) ;; *) spec=$top/$spec ;; esac

work=$KBENCH_CACHE/work/bisect-check
rm -rf "$work"
mkdir -p "$work"
"$here/series.sh" "$spec" "$work" >"$work/all.list"
total=$(grep -c . "$work/all.list" || true)
[ "$total" -gt 0 ] || kb_die "SERIES=$spec is empty: nothing to bisect"
# the range first: check-tools may build a kernel
from=${BISECT_FROM:-1}
case "$from" in '' | *[!0-9]* | 0) kb_die "BISECT_FROM must be a prefix number from 1 to $total, not '$from'" ;; esac
[ "$from" -le "$total" ] || kb_die "BISECT_FROM=$from: the series has $total patches"
[ "$from" = 1 ] || kb_say "BISECT_FROM=$from: prefixes 1-$((from - 1)) are not built or booted"
to=${BISECT_TO:-$total}
case "$to" in '' | *[!0-9]* | 0) kb_die "BISECT_TO must be a prefix number from $from to $total, not '$to'" ;; esac
if [ "$to" -lt "$from" ] || [ "$to" -gt "$total" ]; then
	kb_die "BISECT_TO=$to: want a prefix number from $from to $total"
fi
[ "$to" = "$total" ] || kb_say "BISECT_TO=$to: prefixes $((to + 1))-$total are not built or booted"

make -s -C "$top" check-tools >/dev/null

pay=$work/payload
topics=$("$top/kernel/scripts/checks-payload.sh" "$spec" "$pay" | tr '\n' ' ')
kb_say "series checks: ${topics:-none}"

# each topic's first and last patch in the series
declare -A tfirst tlast
j=0
while IFS= read -r p; do
	j=$((j + 1))
	t=$(basename "$(dirname "$p")")
	[ -n "${tfirst[$t]:-}" ] || tfirst[$t]=$j
	tlast[$t]=$j
done <"$work/all.list"

for i in $(seq "$from" "$to"); do
	# this prefix's payload: the checks of the topics it has whole or not at all
	pi=$work/payload-$i
	mkdir -p "$pi/checks"
	# the runner, checks.sh and the splat scan beside them: every file of the payload's top
	find "$pay" -maxdepth 1 -type f -exec cp {} "$pi/" \;
	partial='' held=()
	for t in $topics; do
		if [ "${tfirst[$t]:-0}" -gt "$i" ] || [ "${tlast[$t]:-0}" -le "$i" ]; then
			cp -a "$pay/checks/$t" "$pi/checks/"
			# whole in this prefix: its feature must not be absent
			[ "${tlast[$t]:-0}" -gt "$i" ] || held+=("$t")
		else
			partial="$partial $t ($((i - tfirst[$t] + 1))/$((tlast[$t] - tfirst[$t] + 1)) patches)"
		fi
	done
	d=$work/prefix-$i
	mkdir -p "$d"
	j=0
	while IFS= read -r p; do
		j=$((j + 1))
		ln -sf "$p" "$d/$(printf '%04d' "$j")-$(basename "$p")"
	done < <(head -n "$i" "$work/all.list")
	last=$(sed -n "${i}p" "$work/all.list")
	kb_say "bisect $i/$total: up to $(basename "$last")${partial:+; checks not run for the topics half in:$partial}"
	"$here/build.sh" bisect "$d" ||
		kb_die "prefix $i/$total does not build: the series up to $(basename "$last"); see the log named above"
	out=$work/boot-$i
	# icount (one TCG thread): 2 vCPUs under MTTCG race on text patching
	# (images/README.md); a wall-clock boot of prefix 2 took an int3 Oops
	# in a static key being patched at boot.
	"$top/images/launch.sh" --kernel "$KBENCH_CACHE/labels/$blabel" --payload "$pi" \
		--out "$out" --vcpus 2 --clock icount --timeout 900 --append "$append" \
		>"$work/boot-$i.log" 2>&1 ||
		kb_die "prefix $i/$total: the boot failed, up to $(basename "$last"); serial log $out/serial.log, launcher log $work/boot-$i.log"
	v=$("$here/checks-verdict.sh" "$out/results" ${held[@]+"${held[@]}"}) ||
		kb_die "prefix $i/$total, up to $(basename "$last"): $v; serial log $out/serial.log"
	"$here/splat-scan.sh" "$out/serial.log" >"$work/splats-$i.txt" 2>&1 || {
		cat "$work/splats-$i.txt" >&2
		kb_die "prefix $i/$total splats: up to $(basename "$last"); the report above names the line of $out/serial.log"
	}
	kb_say "bisect $i/$total: builds and boots ($(cat "$out/results/uname.txt"))"
done
if [ "$from" = 1 ] && [ "$to" = "$total" ]; then
	kb_say "all $total prefixes of the series build and boot"
else
	kb_say "prefixes $from-$to of the series' $total build and boot"
fi
