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
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/kernel/scripts
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE DEBUG
# DEBUG=1: every prefix as a debug kernel (build.sh names it bisect-debug)
blabel=bisect
[ "$DEBUG" != 1 ] || blabel=bisect-debug
spec=${1:-${SERIES:-kernel/series}}
case "$spec" in /*) ;; *) spec=$top/$spec ;; esac

work=$KBENCH_CACHE/work/bisect-check
rm -rf "$work"
mkdir -p "$work"
"$here/series.sh" "$spec" "$work" >"$work/all.list"
total=$(grep -c . "$work/all.list" || true)
[ "$total" -gt 0 ] || kb_die "SERIES=$spec is empty: nothing to bisect"
make -s -C "$top" check-tools >/dev/null

pay=$work/payload
topics=$("$top/kernel/scripts/checks-payload.sh" "$spec" "$pay" | tr '\n' ' ')
kb_say "series checks: ${topics:-none}"
cat >"$pay/run" <<'RUN'
#!/bin/sh
set -eu
uname -r >"$1/uname.txt"
sh "$(dirname "$0")/checks.sh" "$1"
dmesg >"$1/dmesg.txt"
RUN
chmod +x "$pay/run"

for i in $(seq 1 "$total"); do
	d=$work/prefix-$i
	mkdir -p "$d"
	j=0
	while IFS= read -r p; do
		j=$((j + 1))
		ln -sf "$p" "$d/$(printf '%04d' "$j")-$(basename "$p")"
	done < <(head -n "$i" "$work/all.list")
	last=$(sed -n "${i}p" "$work/all.list")
	kb_say "bisect $i/$total: up to $(basename "$last")"
	"$here/build.sh" bisect "$d" ||
		kb_die "prefix $i/$total does not build: the series up to $(basename "$last"); see the log named above"
	out=$work/boot-$i
	# icount (one TCG thread): 2 vCPUs under MTTCG race on text patching
	# (images/README.md); a wall-clock boot of prefix 2 took an int3 Oops
	# in a static key being patched at boot.
	"$top/images/launch.sh" --kernel "$KBENCH_CACHE/labels/$blabel" --payload "$pay" \
		--out "$out" --vcpus 2 --clock icount --timeout 900 --append ignore_loglevel \
		>"$work/boot-$i.log" 2>&1 ||
		kb_die "prefix $i/$total does not boot cleanly: up to $(basename "$last"); serial log $out/serial.log, launcher log $work/boot-$i.log"
	"$here/splat-scan.sh" "$out/serial.log" >"$work/splats-$i.txt" 2>&1 || {
		cat "$work/splats-$i.txt" >&2
		kb_die "prefix $i/$total splats: up to $(basename "$last"); the report above names the line of $out/serial.log"
	}
	kb_say "bisect $i/$total: builds and boots ($(cat "$out/results/uname.txt"))"
done
kb_say "all $total prefixes of the series build and boot"
