#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan kernel logs (a boot's serial.log, a dmesg dump) for splats: KASAN,
# UBSAN and lockdep reports, BUG, Oops, WARNING, RCU and might_sleep splats,
# any Call Trace. For each splat, print the file and line, the test that
# was running (the last "kbench-run:" or "kbench-check:" marker the guest
# wrote to its console before it) and the splat itself.
#
#   splat-scan.sh LOG...
#
# Exit 0: no splat. Exit 1: at least one (all printed). Exit 2: a log is
# missing or unreadable.
#
# A check that fails allocations on purpose (tmcheck's fault injection)
# writes "kbench-fault-injection: begin" and "... end" to the kernel log.
# Between them, the kernel's report of a failed allocation (warn_alloc():
# "page allocation failure:", "vmalloc error:", or fault injection's own
# "forcing a failure") and the stack dump within 10 lines after it are
# expected, not splats. Any other report there (KASAN, WARNING, BUG,
# lockdep) still is one.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: splat-scan.sh LOG..." >&2; exit 2; }

# One pattern per kind of report (make test-debug, issue 12).
patterns='BUG:|WARNING:|Oops|inconsistent lock state|KASAN:|UBSAN:|possible recursive locking|possible circular locking|suspicious RCU usage|sleeping function called from invalid context|Call Trace'

found=0
for log in "$@"; do
	if [ ! -r "$log" ]; then
		echo "splat-scan: $log: no such log (the boot wrote none: see its launcher output)" >&2
		exit 2
	fi
	# A splat starts at a matching line and runs until its end marker
	# (---[ end trace, or KASAN's closing ====== line) or 150 lines (a
	# lockdep report with its chains); a
	# match inside a splat belongs to it. Serial logs have \r\n ends.
	rc=0
	tr -d '\r' <"$log" | awk -v pat="$patterns" -v file="$log" '
	/kbench-(run|check):/ {
		m = $0
		sub(/^.*kbench-(run|check): */, "", m)
		marker = m
	}
	/kbench-fault-injection: begin/ { infault = 1 }
	/kbench-fault-injection: end/ { infault = 0 }
	infault && /page allocation failure:|vmalloc error:|FAULT_INJECTION: forcing a failure/ {
		alloc_report = 10
	}
	function start() {
		n++
		left = 150
		printf "\n=== splat %d: %s:%d (running: %s)\n", n, file, NR, marker == "" ? "boot, before any test" : marker
	}
	{
		if (left > 0) {
			print
			left--
			if ($0 ~ /---\[ end trace/ || $0 ~ /====================/)
				left = 0
			next
		}
		if (alloc_report > 0) {
			alloc_report--
			if ($0 ~ /Call Trace/)
				next
		}
		if ($0 ~ pat) {
			start()
			print
		}
	}
	END { exit n > 0 }' || rc=$?
	case "$rc" in
	0) ;;
	1) found=1 ;;
	*) echo "splat-scan: reading $log failed (awk exit $rc)" >&2; exit 2 ;;
	esac
done
exit "$found"
