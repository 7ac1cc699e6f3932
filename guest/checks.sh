#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the series checks: runs every checks/<topic>/boot-check
# found next to it (kernel/scripts/checks-payload.sh puts them there) as
#   boot-check RESULTS_DIR/checks/<topic>
# Each topic's output goes to its log and its exit status to 'status'.
# The kernel log the topic's check produced (since a mark, klog.sh)
# goes to dmesg.txt and is
# judged by the one splat scan (splat-scan.sh, copied next to this
# script): a splat fails the topic, its report in splats.txt.
# Exits 1 if any check failed, naming them; 0 when every check passed
# (or the series brings none).
#   checks.sh RESULTS_DIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=guest/klog.sh
. "$here/klog.sh"
res=$1
failed=""
for c in "$here"/checks/*/boot-check; do
	[ -f "$c" ] || continue
	topic=$(basename "$(dirname "$c")")
	out=$res/checks/$topic
	mkdir -p "$out"
	# on the serial log, so that a kernel splat names its check
	echo "kbench-check: start $topic" >/dev/console 2>/dev/null || true
	klog_mark "check $topic"
	rc=0
	sh "$c" "$out" >"$out/log" 2>&1 || rc=$?
	klog_since >"$out/dmesg.txt"
	src=0
	bash "$here/splat-scan.sh" "$out/dmesg.txt" >"$out/splats.txt" 2>&1 || src=$?
	if [ "$src" != 0 ]; then
		echo "$topic: the kernel logged a splat during the check (checks/$topic/splats.txt)" >>"$out/log"
		[ "$rc" != 0 ] || rc=1
	fi
	echo "$rc" >"$out/status"
	[ "$rc" = 0 ] || failed="$failed $topic"
done
if [ -n "$failed" ]; then
	echo "series checks failed:$failed (see checks/<topic>/log in the results)" >&2
	exit 1
fi
