# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the bash tests. Source it, print the plan, call
# ok STATUS DESCRIPTION for each test (STATUS 0 passes), exit "$fail".
# t DESCRIPTION CMD...: one test that passes if CMD succeeds (output hidden).
# diag LINE...: TAP comment lines.
# is DESCRIPTION GOT WANT: one test that passes if the strings are equal.
# shellcheck shell=bash

# The callers read n and fail.
# shellcheck disable=SC2034
n=0
fail=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		# shellcheck disable=SC2034
		fail=1
	fi
}

t() {
	local d=$1
	shift
	if "$@" >/dev/null 2>&1; then ok 0 "$d"; else ok 1 "$d"; fi
}

diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# is DESC GOT WANT: one test that passes if the two strings are equal.
is() {
	if [ "$2" = "$3" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		echo "#   got:  '$2'"
		echo "#   want: '$3'"
	fi
}

# check_rc DESCRIPTION RC CMD...: one test that passes if CMD exits RC.
# Its stdout is kept in $tmp/out and its stderr in $tmp/err (the caller
# sets tmp), both shown on failure.
check_rc() {
	local desc=$1 want=$2 rc=0
	shift 2
	# shellcheck disable=SC2154 # tmp is the caller's
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = "$want" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc (exit $rc, wanted $want)"
		sed 's/^/# /' "$tmp/out" "$tmp/err"
	fi
}

# check DESCRIPTION CMD...: check_rc with RC 0.
check() {
	local desc=$1
	shift
	check_rc "$desc" 0 "$@"
}

# make_or_bail TARGET...: build what the test needs, or stop the test
# with the reason (a test that cannot run fails, it never skips).
make_or_bail() {
	# shellcheck disable=SC2154 # top and tmp are the caller's
	make -s -C "$top" "$@" >/dev/null 2>"$tmp/make.err" || {
		echo "Bail out! make $* failed: $(tail -n 1 "$tmp/make.err")"
		exit 1
	}
}

# fake_image QCOW2 [nocloud]: a small qcow2 guest image (ext4 on the
# whole disk) that images/check-image.sh accepts, or, with nocloud, one
# without cloud-init. It never boots: for tests that stop before a boot
# or give the launcher a fake QEMU.
fake_image() {
	local d
	d=$(mktemp -d)
	mkdir -p "$d/root/usr/bin" "$d/root/etc"
	echo kbench-test >"$d/root/etc/hostname"
	[ "${2:-}" = nocloud ] || printf '#!/bin/sh\n' >"$d/root/usr/bin/cloud-init"
	truncate -s 8M "$d/fs.raw"
	mkfs.ext4 -q -F -d "$d/root" "$d/fs.raw"
	qemu-img convert -f raw -O qcow2 "$d/fs.raw" "$1"
	rm -rf "$d"
}
