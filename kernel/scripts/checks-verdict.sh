#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The one verdict on a series-checks boot (guest/checks-run.sh's results),
# for make test's boot test, make test-debug and make bisect-check alike:
#   checks-verdict.sh RESULTS_DIR [TOPIC...]
# TOPIC...: the topics the booted kernel holds whole. A check says
# "<FEATURE> absent" (kb_absent() of kernel/checks/lib/harness.h; the
# boot-check copies the line into its log) on a kernel without the
# feature: right on one that lacks the topic, a failure on one built
# with it, whatever the check's exit status.
# Prints one line: "ok ..." or what failed and where to look. Exits 0
# when every check passed and no held topic says absent, 1 otherwise,
# 2 when RESULTS_DIR has no checks-rc (the checks did not run).
set -euo pipefail
[ $# -ge 1 ] || {
	echo "usage: checks-verdict.sh RESULTS_DIR [TOPIC...]" >&2
	exit 2
}
r=$1
shift
if [ ! -r "$r/checks-rc" ]; then
	echo "the checks did not run: no $r/checks-rc (the boot ended before the payload's run finished; see the serial log)"
	exit 2
fi
ran=''
if [ -d "$r/checks" ]; then
	ran=$(find "$r/checks" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' ')
	ran=${ran% }
fi
bad=''
for t in "$@"; do
	l=$r/checks/$t/log
	if [ ! -f "$l" ]; then
		bad+="$t: no log ($l), the kernel holds the topic but its check did not run; "
		continue
	fi
	a=$(grep -oE '[A-Za-z_]+ absent' "$l" | sort -u | tr '\n' ' ' || true)
	[ -z "$a" ] || bad+="$t: ${a}on a kernel built with it ($l); "
done
rc=$(cat "$r/checks-rc")
if [ -n "$bad" ]; then
	echo "a topic the kernel holds reports its feature absent: ${bad%; }"
	exit 1
fi
if [ "$rc" != 0 ]; then
	failed=''
	for s in "$r"/checks/*/status; do
		[ -f "$s" ] || continue
		[ "$(cat "$s")" = 0 ] || failed+=" $(basename "$(dirname "$s")")"
	done
	echo "the series' checks failed (exit $rc):${failed:- no topic failed, the runner did} (each topic's log and TAP output in $r/checks/<topic>/)"
	exit 1
fi
echo "ok: the checks pass (${ran:-the series brings none}${*:+; held: $*})"
