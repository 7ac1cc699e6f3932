#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The checks a series brings, copied into a guest payload:
#   checks-payload.sh SERIES PAYLOAD_DIR
# For a quilt series file, every topic it lists (patches/<topic>/...)
# whose directory <dir of the series>/checks/<topic>/ exists brings its
# boot-check, its scripts and its programs (built by make check-tools
# into build/checks/<topic>/), not their sources (*.c, *.h) or its
# documentation (*.md). The payload gets its runner PAYLOAD_DIR/run
# (guest/checks-run.sh: the boot's facts and the checks, the one runner
# of every checks boot), PAYLOAD_DIR/checks.sh (guest/checks.sh, and
# guest/klog.sh, its reader of the kernel log) with
# the one splat scan beside it (PAYLOAD_DIR/splat-scan.sh), and
# PAYLOAD_DIR/checks/<topic>/. Prints the topics.
# A patch directory or an mbox brings no checks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

[ $# -eq 2 ] || kb_die "usage: checks-payload.sh SERIES PAYLOAD_DIR"
spec=$1 pay=$2
case "$spec" in /*) ;; *) spec=$top/$spec ;; esac
mkdir -p "$pay/checks"
cp "$top/guest/checks-run.sh" "$pay/run"
cp "$top/guest/checks.sh" "$pay/checks.sh"
cp "$top/guest/klog.sh" "$pay/klog.sh"
cp "$here/splat-scan.sh" "$pay/splat-scan.sh"
[ -f "$spec" ] && ! head -n 1 "$spec" | grep -q '^From ' || exit 0
dir=$(cd "$(dirname "$spec")" && pwd)
sed -n 's|^[[:space:]]*\(patches/\)\{0,1\}\([^/#[:space:]][^/]*\)/.*|\2|p' "$spec" | awk '!seen[$0]++' |
	while IFS= read -r topic; do
		src=$dir/checks/$topic
		[ -d "$src" ] || continue
		[ -f "$src/boot-check" ] || kb_die "$src: a series check needs a boot-check script"
		mkdir -p "$pay/checks/$topic"
		cp "$src"/* "$pay/checks/$topic/"
		rm -f "$pay/checks/$topic"/*.[ch] "$pay/checks/$topic"/*.md
		for c in "$src"/*.c; do
			[ -f "$c" ] || continue
			# a program's BPF side, built into its skeleton
			case "$c" in *.bpf.c) continue ;; esac
			b=$top/build/checks/$topic/$(basename "$c" .c)
			[ -x "$b" ] || kb_die "$b not built: run make check-tools"
			cp "$b" "$pay/checks/$topic/"
		done
		printf '%s\n' "$topic"
	done
