#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A series brings its own checks: kernel/scripts/checks-payload.sh puts
# the topics of the series in use into a guest payload, guest/checks.sh
# runs them and names the ones that fail. Both run here on the host.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..6"

make_or_bail check-tools
topics=$("$top/kernel/scripts/checks-payload.sh" kernel/series "$tmp/pay" | tr '\n' ' ')
if [ "$topics" = "proc-interrupts rhash common-attrs ftrace-direct tracing-multi " ] && [ -x "$tmp/pay/checks/proc-interrupts/irqcompat" ] &&
	[ -f "$tmp/pay/checks/proc-interrupts/boot-check" ] && [ -f "$tmp/pay/checks.sh" ] &&
	[ -x "$tmp/pay/checks/rhash/rhashcheck" ] && [ -f "$tmp/pay/checks/rhash/boot-check" ] &&
	[ -x "$tmp/pay/checks/common-attrs/commonattrs" ] && [ -f "$tmp/pay/checks/common-attrs/boot-check" ] &&
	[ -x "$tmp/pay/checks/ftrace-direct/directcheck" ] && [ -f "$tmp/pay/checks/ftrace-direct/boot-check" ] &&
	[ -x "$tmp/pay/checks/tracing-multi/tmcheck" ] && [ -f "$tmp/pay/checks/tracing-multi/boot-check" ] &&
	[ -x "$tmp/pay/checks/tracing-multi/tmskel" ] && [ ! -e "$tmp/pay/checks/tracing-multi/tmskel.bpf" ] &&
	[ ! -e "$tmp/pay/checks/lib" ]; then
	ok 0 "kernel/series brings the proc-interrupts, rhash, common-attrs, ftrace-direct and tracing-multi checks, with irqcompat, rhashcheck, commonattrs, directcheck, tmcheck and tmskel (a libbpf skeleton) built (and kernel/checks/lib, no topic, stays out)"
else
	ok 1 "kernel/series brings the proc-interrupts, rhash, common-attrs, ftrace-direct and tracing-multi checks, each built (got: '$topics')"
fi

# a series of its own: two topics, one with checks that fail
mkdir -p "$tmp/s/patches/a" "$tmp/s/patches/b" "$tmp/s/checks/a" "$tmp/s/checks/b"
printf 'patches/a/0001-x.patch\npatches/b/0002-y.patch\n# patches/c/0003-z.patch\n' >"$tmp/s/series"
# shellcheck disable=SC2016 # $1 is the check script's own argument
printf '#!/bin/sh\necho fine >"$1/out"\n' >"$tmp/s/checks/a/boot-check"
printf '#!/bin/sh\necho "row 3 does not parse"\nexit 1\n' >"$tmp/s/checks/b/boot-check"
topics=$("$top/kernel/scripts/checks-payload.sh" "$tmp/s/series" "$tmp/p2" | tr '\n' ' ')
is_topics=0
[ "$topics" = "a b " ] || is_topics=1
ok "$is_topics" "topics in series order, commented lines left out ($topics)"
mkdir -p "$tmp/res"
rc=0
sh "$tmp/p2/checks.sh" "$tmp/res" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q 'series checks failed: b' "$tmp/err" && r=0 || r=1
ok "$r" "guest/checks.sh exits 1 and names the failing topic"
[ "$(cat "$tmp/res/checks/a/status")" = 0 ] && [ "$(cat "$tmp/res/checks/a/out")" = fine ] && r=0 || r=1
ok "$r" "the passing topic ran with its own results dir"
grep -q 'row 3 does not parse' "$tmp/res/checks/b/log" && r=0 || r=1
ok "$r" "the failing topic's output is kept in its log"

rm "$tmp/s/checks/a/boot-check"
if "$top/kernel/scripts/checks-payload.sh" "$tmp/s/series" "$tmp/p3" >/dev/null 2>"$tmp/err"; then r=1; else
	grep -q 'checks/a: a series check needs a boot-check script' "$tmp/err" && r=0 || r=1
fi
ok "$r" "a checks directory without boot-check is an error naming it"
exit "$fail"
