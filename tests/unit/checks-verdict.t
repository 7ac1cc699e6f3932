#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel/scripts/checks-verdict.sh, the one verdict on a checks boot
# (boot test, test-debug, bisect-check): the results come from the real
# guest runner (guest/checks.sh) running stand-in boot-checks on the
# host. A topic saying "<FEATURE> absent" passes on a kernel that lacks
# it and fails on one that holds it, even when its check exited 0; a
# failed check fails whatever is held; no checks-rc is its own verdict.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..7"
verdict=$top/kernel/scripts/checks-verdict.sh

mkdir -p "$tmp/bin"
printf '#!/bin/sh\ncat "%s"\n' "$tmp/kmsg" >"$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"
: >"$tmp/kmsg"
export KB_KMSG=$tmp/kmsg
# run NAME TOPIC=SCRIPT...: the guest runner over these boot-checks,
# results in $tmp/NAME with the checks-rc guest/checks-run.sh writes
run() {
	local name=$1 p=$tmp/pay-$1 rc=0
	shift
	mkdir -p "$p/checks" "$tmp/$name"
	cp "$top/guest/checks.sh" "$top/guest/klog.sh" "$top/kernel/scripts/splat-scan.sh" "$p/"
	for tc in "$@"; do
		mkdir -p "$p/checks/${tc%%=*}"
		printf '#!/bin/sh\n%s\n' "${tc#*=}" >"$p/checks/${tc%%=*}/boot-check"
	done
	PATH=$tmp/bin:$PATH sh "$p/checks.sh" "$tmp/$name" >"$tmp/$name/checks.out" 2>&1 || rc=$?
	echo "$rc" >"$tmp/$name/checks-rc"
}
# is WANT_RC WANT_TEXT DESCRIPTION DIR TOPIC...
is() {
	local want=$1 text=$2 desc=$3 rc=0 v
	shift 3
	v=$("$verdict" "$@") || rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$text" <<<"$v"; then ok 0 "$desc"; else
		ok 1 "$desc (exit $rc, want $want; printed: $v)"
	fi
}

absent='echo "rhashcheck.tap:ok 1 # SKIP RHASH absent: no BPF_MAP_TYPE_RHASH"; exit 0'
run absent "rhash=$absent" "ftrace-direct=echo fine; exit 0"
is 0 '^ok: the checks pass (ftrace-direct rhash)$' \
	"a feature absent on a kernel that lacks its topic (a baseline) passes" "$tmp/absent"
is 1 'rhash: RHASH absent on a kernel built with it' \
	"the same results fail on a kernel that holds the topic, naming it" "$tmp/absent" rhash ftrace-direct
is 0 'held: ftrace-direct' \
	"held topics that are present pass beside an absent one not held (a bisect prefix)" "$tmp/absent" ftrace-direct
run failed "rhash=echo 'not ok 3 - lookup'; exit 1" "proc-interrupts=exit 0"
is 1 "checks failed (exit 1): rhash (each topic" \
	"a failed check fails, naming its topic, whatever the kernel holds" "$tmp/failed"
is 1 'proc-interrupts: no log' \
	"a held topic whose check did not run fails" "$tmp/absent" proc-interrupts
mkdir -p "$tmp/none"
is 2 'the checks did not run: no' \
	"results without checks-rc: the checks did not run (exit 2)" "$tmp/none"
run empty
is 0 'the series brings none' "a series without checks passes and says so" "$tmp/empty"
