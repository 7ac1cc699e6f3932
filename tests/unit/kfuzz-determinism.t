#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kfuzz (kernel/fuzz/kfuzz.c), the generator of make fuzz-kernel, built
# for the host from its source and run ONLY in its dry-run mode (-n):
# it prints the operation sequence a seed gives and makes no syscall
# that reaches a BPF or perf interface (checked with strace). The real
# mode loads programs: it never runs on the host.
# - the seed is the first line; the same seed gives a byte-identical
#   sequence, also a second later, from another directory and with
#   other -t/-o options (a PRNG seeded from the clock, the pid or the
#   environment fails here);
# - another seed gives another sequence; without -s the printed seed
#   differs between runs, and replaying the printed seed gives the run;
# - each worker has its own stream: worker 0 of -j 1 is worker 0 of -j 2;
# - every operation kind is generated.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..10"

# the same flags as make kfuzz-tools (kernel/fuzz.mk)
if cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$tmp/kfuzz" \
	"$top/kernel/fuzz/kfuzz.c" 2>"$tmp/cc.err"; then
	ok 0 "kfuzz builds for the host with -Wall -Wextra -Werror"
else
	ok 1 "kfuzz builds for the host: $(head -n 5 "$tmp/cc.err")"
	echo "Bail out! kfuzz does not build (kernel/fuzz/kfuzz.c)"
	exit 1
fi
k=$tmp/kfuzz
dry() { (cd "$tmp" && "$k" -n "$@"); }

dry -s 12345 -c 500 >"$tmp/a"
first=$(head -n 1 "$tmp/a")
is "the seed is the first line" "$first" "kfuzz: seed 12345"
lines=$(wc -l <"$tmp/a")
is "-c 500 with the default 2 workers prints 1000 operations" "$lines" 1001

sleep 1
mkdir "$tmp/elsewhere"
(cd "$tmp/elsewhere" && FOO=bar "$k" -n -s 12345 -c 500 -t 7 -o "$tmp/elsewhere/r") >"$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then
	ok 0 "seed 12345 again, a second later, elsewhere, with -t and -o: byte-identical"
else
	ok 1 "seed 12345 again gives another sequence"
	diff "$tmp/a" "$tmp/b" | head -n 6 | sed 's/^/# /' || true
fi
if [ ! -e "$tmp/elsewhere/r" ] && [ ! -e "$tmp/kfuzz.ring" ]; then
	ok 0 "a dry run writes no ring"
else
	ok 1 "a dry run wrote a ring file"
fi

dry -s 12346 -c 500 >"$tmp/c"
same=$(tail -n +2 "$tmp/a" | grep -cxF -f <(tail -n +2 "$tmp/c") || true)
if ! cmp -s <(tail -n +2 "$tmp/a") <(tail -n +2 "$tmp/c") && [ "$same" -lt 500 ]; then
	ok 0 "seed 12346 gives another sequence ($same of 1000 lines also in 12345's)"
else
	ok 1 "seed 12346 gives the same sequence as 12345 ($same of 1000 lines alike)"
fi

dry -c 50 >"$tmp/r1"
dry -c 50 >"$tmp/r2"
s1=$(head -n 1 "$tmp/r1" | sed -n 's/^kfuzz: seed \([0-9]*\)$/\1/p')
s2=$(head -n 1 "$tmp/r2" | sed -n 's/^kfuzz: seed \([0-9]*\)$/\1/p')
if [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" != "$s2" ] && dry -s "$s1" -c 50 | cmp -s - "$tmp/r1"; then
	ok 0 "without -s the seed is drawn and printed ($s1, $s2), and -s $s1 replays that run"
else
	ok 1 "without -s: seeds '$s1' '$s2', or -s $s1 does not replay the run"
fi

dry -s 99 -c 300 -j 1 >"$tmp/j1"
dry -s 99 -c 300 -j 2 | grep '^T0 ' >"$tmp/j2"
if cmp -s <(tail -n +2 "$tmp/j1") "$tmp/j2"; then
	ok 0 "worker 0's sequence does not depend on the number of workers"
else
	ok 1 "worker 0's sequence changes with -j"
fi

dry -s 4242 -c 3000 >"$tmp/all"
missing=
for kind in map_create map_close update lookup delete lookup_delete burst batch walk iter \
	tm_attach fentry_attach tp_attach perf_attach link_close trigger cattr; do
	grep -q "^T[0-9]* #[0-9]* $kind " "$tmp/all" || grep -q "^T[0-9]* #[0-9]* $kind\$" "$tmp/all" ||
		missing="$missing $kind"
done
ids=$(grep -o 'ids=[^ ]*' "$tmp/all" | tr ',=' '\n' | sed -n 's/^\([vdzrsn]\)[0-9]*$/\1/p' | sort -u | tr -d '\n')
if [ -z "$missing" ] && [ "$ids" = dnrsvz ] && grep -q ' lock' "$tmp/all" && grep -q 'ca=on/[0-9]*/log[0-9]*/l[0-9]*/rsv' "$tmp/all"; then
	ok 0 "6000 operations hold every kind, every id kind (valid, dup, zero, range, stub, non-func), lock maps and reserved common attrs"
else
	ok 1 "6000 operations lack:${missing:-} (id kinds '$ids', want dnrsvz)"
fi

# no BPF, perf or ioctl-on-an-event syscall, and no file read (BTF, kallsyms) in a dry run
if strace -f -qq -e trace=bpf,perf_event_open,openat,open -o "$tmp/strace" "$k" -n -s 5 -c 2000 >/dev/null 2>"$tmp/strace.err"; then
	bad=$(grep -E 'bpf\(|perf_event_open\(|open(at)?\(.*"/(sys|proc)/' "$tmp/strace" | head -n 3 || true)
	if [ -z "$bad" ]; then
		ok 0 "a dry run of 4000 operations makes no bpf() or perf_event_open() and opens nothing under /sys or /proc (strace)"
	else
		ok 1 "a dry run made a syscall it must not: $bad"
	fi
else
	ok 1 "strace could not trace the dry run (apt-get install strace; ptrace allowed?): $(tail -n 1 "$tmp/strace.err")"
fi
exit "$fail"
