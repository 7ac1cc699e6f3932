# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The kernel log since a point, in the guest (sourced by checks.sh and
# kernel/fuzz/guest-run.sh; POSIX sh). A count of dmesg lines does not
# say where a phase began once the ring buffer is full (the count stops
# growing: a flood of OOM reports hid a check's splats). A mark written
# into the log does, and when the mark itself has scrolled out, all
# that is left was logged after it.
#   klog_mark NAME   writes a unique line into the kernel log
#   klog_since       prints what the log holds after the last mark; if
#                    the mark is gone, the whole log, after a line that
#                    says so
# KB_KMSG names the log's writer (default /dev/kmsg; the host tests
# give the file their stand-in dmesg prints).

klog_mark() {
	KLOG_MARK="kbench-klog: $1 $(cat /proc/sys/kernel/random/uuid 2>/dev/null || date +%s.%N)"
	# unwritten, klog_since finds no mark and gives the whole log:
	# more than the phase's, never less
	echo "$KLOG_MARK" 2>/dev/null >"${KB_KMSG:-/dev/kmsg}" || true
}

klog_since() {
	dmesg | awk -v m="$KLOG_MARK" '
		found { print; next }
		index($0, m) { found = 1; next }
		{ buf[n++] = $0 }
		END {
			if (found)
				exit
			print "kbench-klog: the mark scrolled out of the ring buffer: the whole log follows"
			for (i = 0; i < n; i++)
				print buf[i]
		}'
}
