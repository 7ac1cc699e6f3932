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

# The programs make check-tools built (make test and make test-unit build
# them first); building them here would build the patched kernel on a
# cold cache, for the skeletons' vmlinux.h
stale=''
for c in "$top"/kernel/checks/*/*.c; do
	case "$c" in *.bpf.c) continue ;; esac
	b=$top/build/checks/${c#"$top"/kernel/checks/}
	b=${b%.c}
	if [ ! -x "$b" ] || [ "$c" -nt "$b" ] || { [ -f "${c%.c}.bpf.c" ] && [ "${c%.c}.bpf.c" -nt "$b" ]; }; then
		stale+=" ${b#"$top"/}"
	fi
done
if [ -n "$stale" ]; then
	echo "Bail out! check programs missing or older than their source:$stale; run make check-tools"
	exit 1
fi
# every directory of kernel/checks but lib/ is a topic the series brings
# (a check the series does not reach is dead), each program of it built
# into the payload (a libbpf program's X.bpf.c only into X's skeleton)
topics=$("$top/kernel/scripts/checks-payload.sh" kernel/series "$tmp/pay" | sort | tr '\n' ' ')
want="" missing=""
for d in "$top"/kernel/checks/*/; do
	t=$(basename "$d")
	[ "$t" != lib ] || continue
	want="$want$t "
	[ -f "$tmp/pay/checks/$t/boot-check" ] || missing="$missing $t/boot-check"
	for c in "$d"*.c; do
		[ -f "$c" ] || continue
		p=$tmp/pay/checks/$t/$(basename "$c" .c)
		case "$c" in
		*.bpf.c) [ ! -e "$p" ] || missing="$missing (no $t/${p##*/} wanted)" ;;
		*) [ -x "$p" ] || missing="$missing $t/${p##*/}" ;;
		esac
	done
done
want=$(printf '%s' "$want" | tr ' ' '\n' | sort | tr '\n' ' ')
if [ -n "$want" ] && [ "$topics" = "$want" ] && [ -z "$missing" ] && [ -f "$tmp/pay/checks.sh" ] &&
	[ ! -e "$tmp/pay/checks/lib" ]; then
	ok 0 "kernel/series brings every topic of kernel/checks/ (${want% }) with its boot-check and every program built (and kernel/checks/lib, no topic, stays out)"
else
	ok 1 "kernel/series brings every topic of kernel/checks/, each built: got '$topics', want '$want'${missing:+, missing:$missing}"
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
mkdir -p "$tmp/res" "$tmp/bin"
# a stand-in kernel log: checks.sh writes its marks there, not to this
# machine's /dev/kmsg
printf '#!/bin/sh\ncat "%s"\n' "$tmp/kmsg" >"$tmp/bin/dmesg"
chmod +x "$tmp/bin/dmesg"
: >"$tmp/kmsg"
rc=0
PATH=$tmp/bin:$PATH KB_KMSG=$tmp/kmsg sh "$tmp/p2/checks.sh" "$tmp/res" 2>"$tmp/err" || rc=$?
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
