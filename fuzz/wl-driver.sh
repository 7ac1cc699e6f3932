#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reads one workload file as orchestrate/run.sh does (wl_load, then the
# parameter points of wl_points), plain and with QUICK=1. For the fuzz
# harness fuzz/wl.c; exit 0, or 1 with the reader's error, or 3 when a
# property of the points breaks.
#
#   wl-driver.sh FILE.wl
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=workloads/wl.sh
. "$top/workloads/wl.sh"

[ $# -eq 1 ] || kb_die "usage: wl-driver.sh FILE.wl"
for q in 0 1; do
	# A file with a glob character: wl_load says the same with globbing
	# off (an error names the text of the file, not a file it matched).
	if grep -q '[][*?]' "$1"; then
		a=$( (QUICK=$q wl_load "$1") 2>&1) && a="ok $a"
		b=$( (set -f && QUICK=$q wl_load "$1") 2>&1) && b="ok $b"
		if [ "$a" != "$b" ]; then
			echo "wl-driver.sh: wl_load of $1 depends on the files in the current directory: '$a', with set -f '$b'" >&2
			exit 3
		fi
	fi
	QUICK=$q wl_load "$1"
	# The points are the file's words, whatever files the current
	# directory holds: a '*' in a value stays a '*' (set -f).
	got=$(wl_points)
	if [ "$got" != "$(set -f && wl_points)" ]; then
		echo "wl-driver.sh: wl_points expanded a glob of $1 against the current directory" >&2
		exit 3
	fi
done
