#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does KVM work on this host? /dev/kvm existing proves nothing (a nested
# PVM host opens it and then fails every guest with "KVM internal error").
# So boot BZIMAGE under KVM with no root device and a short timeout: a
# working KVM runs the kernel all the way to its "VFS: Unable to mount root"
# panic within a second or two. The answer is cached per host kernel and
# QEMU version in $KBENCH_CACHE/probe/.
# Usage: kvm-probe.sh BZIMAGE    prints "kvm" or "tcg"; exit 0 either way.
# KB_PROBE_FORCE=1 ignores the cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"

[ $# -eq 1 ] || kb_die "usage: kvm-probe.sh BZIMAGE"
bz=$1
[ -r "$bz" ] || kb_die "kvm-probe.sh: no kernel image $bz"
kb_conf KBENCH_CACHE
cache=$KBENCH_CACHE
qver=$(qemu-system-x86_64 --version | head -n 1)
hostid="$(uname -r) $(uname -v) $(uname -m) | $qver"
key=$(kb_sha256_str "$hostid" | cut -c1-16)
pdir=$cache/probe
res=$pdir/kvm-$key.json
mkdir -p "$pdir"

if [ "${KB_PROBE_FORCE:-0}" != 1 ] && [ -f "$res" ]; then
	if jq -e '.kvm_works == true' "$res" >/dev/null 2>&1; then echo kvm; else echo tcg; fi
	kb_verbose "kvm probe: cached answer in $res"
	exit 0
fi

works=false
reason=
if [ ! -e /dev/kvm ]; then
	reason="no /dev/kvm"
elif [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
	reason="/dev/kvm not accessible to $(id -un)"
else
	kb_say "probing whether KVM works (a 20 s test boot; cached in $res)"
	tmp=$(mktemp -d)
	pid=
	cleanup() {
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
		rm -rf "$tmp"
	}
	trap cleanup EXIT
	qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
		-accel kvm -cpu host -m 256 -nic none \
		-serial "file:$tmp/serial.log" \
		-kernel "$bz" -append "console=ttyS0 panic=-1 root=/dev/kbench-no-root" \
		</dev/null >"$tmp/qemu.log" 2>&1 &
	pid=$!
	i=0
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 100 ]; do
		if grep -q 'KVM internal error' "$tmp/qemu.log" 2>/dev/null; then
			break
		fi
		if grep -q 'Kernel panic - not syncing' "$tmp/serial.log" 2>/dev/null; then
			break
		fi
		sleep 0.2
		i=$((i + 1))
	done 2>/dev/null
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	pid=
	if grep -q 'Kernel panic - not syncing' "$tmp/serial.log" 2>/dev/null; then
		works=true
		reason="test kernel reached its root-mount panic under KVM"
	elif grep -q 'KVM internal error' "$tmp/qemu.log"; then
		reason="$(grep -m1 'KVM internal error' "$tmp/qemu.log")"
	elif [ -s "$tmp/qemu.log" ]; then
		reason="qemu: $(head -n 1 "$tmp/qemu.log")"
	else
		reason="test kernel did not reach userspace-less panic within 20 s"
	fi
fi

jq -n --argjson works "$works" --arg reason "$reason" --arg host "$hostid" \
	--arg probed "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	'{kvm_works: $works, reason: $reason, host: $host, probed: $probed}' | kb_atomic_write "$res"
if [ "$works" = true ]; then
	kb_say "KVM works on this host"
	echo kvm
else
	kb_say "KVM does not work here ($reason): using TCG"
	echo tcg
fi
