#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of make fuzz-kernel and the kfuzz smoke test: the payload's
# `run` (images/launch.sh starts it as root: run RESULTS_DIR). Reads
# kfuzz.conf next to it (written by kernel/fuzz/run.sh):
#   SEED       kfuzz's seed (trinity gets its low 32 bits)
#   ROOT_S     seconds of kfuzz as root
#   USER_S     seconds of kfuzz as an unprivileged user (nobody); 0 skips.
#              With kernel.unprivileged_bpf_disabled != 0 (Debian's
#              default is 2) every bpf() of it fails with EPERM: the
#              phase is skipped, its time goes to root, and info.txt
#              says so
#   TRINITY_S  seconds of trinity (half as an unprivileged child, half
#              as root with --dangerous); 0 skips; without a trinity
#              binary in the image the phase fails
# Phases run one after the other, each with a "kbench-run:" marker on
# the console so that the splat scan names it. Every 5 s the kernel log
# of the phase (since its mark, klog.sh) is judged by splat-scan.sh
# (copied next to this script):
# on a splat the phase is stopped (SIGTERM: kfuzz prints its counts and
# syncs its ring), the splat goes to splat.txt and nothing else runs.
# A process that SIGKILL does not end is stuck in the kernel, and a
# kfuzz that exits non-zero failed: either ends the run too.
# Results: info.txt, <phase>.out, <phase>.ring (kfuzz's last 1000
# operations), <phase>.dmesg, <phase>.rc, status (ok, "splat PHASE",
# "stuck PHASE", "failed PHASE ...", "trinity missing").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=guest/klog.sh
. "$here/klog.sh"
r=$1
# shellcheck source=/dev/null # written by run.sh
. "$here/kfuzz.conf"

console() { echo "$*" >/dev/console 2>/dev/null || true; }

{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "seed $SEED"
	echo "unprivileged_bpf_disabled $(cat /proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null || echo absent)"
	# the hang detectors' thresholds this boot has, as the kernel took them
	echo "hang detectors: rcu_cpu_stall_timeout $(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2>/dev/null || echo absent)" \
		"watchdog_thresh $(cat /proc/sys/kernel/watchdog_thresh 2>/dev/null || echo absent)" \
		"workqueue.watchdog_thresh $(cat /sys/module/workqueue/parameters/watchdog_thresh 2>/dev/null || echo absent)" \
		"hung_task_timeout_secs $(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || echo absent)"
} >"$r/info.txt"
unpriv=$(cat /proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null || echo 1)
if [ "$USER_S" -gt 0 ] && [ "$unpriv" != 0 ]; then
	echo "unprivileged phase skipped: kernel.unprivileged_bpf_disabled=$unpriv, every bpf() of a user without CAP_BPF fails with EPERM; its $USER_S s went to root" >>"$r/info.txt"
	ROOT_S=$((ROOT_S + USER_S))
	USER_S=0
fi
echo running >"$r/status"

# phase NAME SECONDS CMD...: CMD in the background for at most SECONDS
# (+30 s to stop), its output in NAME.out, judged every 5 s. Returns 1
# on a splat.
phase() {
	name=$1 secs=$2
	shift 2
	console "kbench-run: $name seed $SEED"
	klog_mark "phase $name"
	"$@" >"$r/$name.out" 2>&1 &
	pid=$!
	start=$(date +%s)
	splat=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		klog_since >"$r/$name.dmesg"
		if ! bash "$here/splat-scan.sh" "$r/$name.dmesg" >"$r/splat.txt" 2>&1; then
			splat=1
			console "kbench-fuzz: splat during $name, seed $SEED: stopping"
			kill -TERM "$pid" 2>/dev/null || true
			break
		fi
		# a tool that does not stop by itself (trinity) is stopped
		el=$(($(date +%s) - start))
		if [ "$el" -gt $((secs + 30)) ]; then
			kill -TERM "$pid" 2>/dev/null || true
		fi
		[ "$el" -le $((secs + 60)) ] || break
	done
	# a process stuck in the kernel does not stop on SIGTERM: 30 s, then KILL
	waited=0
	while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 30 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	kill -KILL "$pid" 2>/dev/null || true
	sleep 1
	rc=0
	if kill -0 "$pid" 2>/dev/null; then
		# not even SIGKILL: it is stuck in the kernel (a hang, which
		# the splat scan or the hung task detector reports)
		rc=stuck
		console "kbench-fuzz: $name does not die (stuck in the kernel), seed $SEED"
	else
		wait "$pid" || rc=$?
	fi
	echo "$rc" >"$r/$name.rc"
	klog_since >"$r/$name.dmesg"
	if [ "$splat" = 0 ] && ! bash "$here/splat-scan.sh" "$r/$name.dmesg" >"$r/splat.txt" 2>&1; then
		splat=1
	fi
	sync
	if [ "$splat" = 1 ]; then
		echo "splat $name" >"$r/status"
		return 1
	fi
	rm -f "$r/splat.txt"
	if [ "$rc" = stuck ]; then
		echo "stuck $name" >"$r/status"
		return 1
	fi
	return 0
}

# trinity_ok NAME: trinity ran until timeout stopped it (124) or ended
# by itself (0); any other status (its own crash) stops the run here
trinity_ok() {
	trc=$(cat "$r/$1.rc")
	case "$trc" in 0 | 124) return 0 ;; esac
	echo "failed $1 (exit $trc, see $1.out)" >"$r/status"
	return 1
}

# kfuzz_ok NAME: kfuzz ended by itself (exit 0), or the run stops here
kfuzz_ok() {
	krc=$(cat "$r/$1.rc")
	[ "$krc" != 0 ] || return 0
	echo "failed $1 (exit $krc, see $1.out)" >"$r/status"
	return 1
}

if [ "$ROOT_S" -gt 0 ]; then
	phase kfuzz-root "$ROOT_S" "$here/kfuzz" -s "$SEED" -t "$ROOT_S" -i 30 -o "$r/kfuzz-root.ring" || exit 0
	kfuzz_ok kfuzz-root || exit 0
fi
if [ "$USER_S" -gt 0 ]; then
	mkdir -p "$r/user"
	chmod 0777 "$r/user"
	phase kfuzz-user "$USER_S" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$here/kfuzz" -s "$SEED" -t "$USER_S" -i 30 -o "$r/user/kfuzz-user.ring" || exit 0
	kfuzz_ok kfuzz-user || exit 0
fi
if [ "$TRINITY_S" -gt 0 ]; then
	if ! command -v trinity >/dev/null; then
		echo "no trinity in the guest image (build-image.sh --packages trinity)" >"$r/trinity.missing"
		echo "trinity missing" >"$r/status"
		exit 0
	fi
	tseed=$((SEED % 4294967296))
	half=$((TRINITY_S / 2))
	# bpf, perf_event_open, mmap/munmap, and the syscalls kfuzz's links
	# trace; no socket fds: trinity 1.9 segfaults making its socket
	# cache in our guest (no network), and no target takes a socket
	set -- -q -a64 -C 2 -s "$tseed" --disable-fds=sockets \
		-c bpf -c perf_event_open -c mmap -c munmap \
		-c getppid -c getpgrp -c getuid -c geteuid -c getgid -c getegid -c gettid -c getpid
	mkdir -p /tmp/trinity-user /tmp/trinity-root
	chown 65534:65534 /tmp/trinity-user
	phase trinity-user "$half" timeout -s TERM "$half" setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'cd /tmp/trinity-user && exec trinity "$@"' trinity "$@" || exit 0
	trinity_ok trinity-user || exit 0
	phase trinity-root "$half" timeout -s TERM "$half" \
		sh -c 'cd /tmp/trinity-root && exec trinity --dangerous "$@"' trinity "$@" || exit 0
	trinity_ok trinity-root || exit 0
fi
echo ok >"$r/status"
