#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel/checks/lib/harness.h, the kernel checks' harness, on the host: a
# check program of its own (two cases in a topic directory, no bpf())
# built as make check-tools builds the checks, then run with -l, -t, a
# failing ASSERT and kb_absent(); and the ported checks list their cases
# (-l runs no case: nothing here calls bpf()).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..16"

cc_check() { cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$top/kernel/checks/lib" -o "$@"; }

# the cases run in the order of their lines (__LINE__), not the linker's:
# "calls" follows "sums" in the file, but a #line puts it first
mkdir -p "$tmp/checks/faketopic"
cat >"$tmp/checks/faketopic/fake.c" <<'EOF'
#define _GNU_SOURCE
#include "harness.h"

KB_CASE(sums)
{
	ASSERT_EQ(2 + 2, 4, "two and two");
	ASSERT_EQ(getenv("FAKE_FAIL") ? 41 : 42, 42, "the answer");
	ASSERT_OK(0, "a call that worked");
}

#line 3
KB_CASE(calls)
{
	if (getenv("FAKE_ABSENT")) {
		kb_absent("FAKE", "the probe gives %s", err_name(-EINVAL));
		return;
	}
	ASSERT_ERRNO(-ENOENT, ENOENT, "a lookup of nothing");
	ASSERT_FD(3, "an open");
	ASSERT_TRUE(kb_verbose == !!getenv("FAKE_VERBOSE"), "-v sets kb_verbose");
}
EOF
if cc_check "$tmp/fake" "$tmp/checks/faketopic/fake.c" 2>"$tmp/cc.err"; then
	ok 0 "a check program of two cases builds with the checks' flags (-Wall -Wextra -Werror)"
else
	ok 1 "a check program of two cases builds: $(head -n 5 "$tmp/cc.err")"
	exit 1
fi

is "-l lists TOPIC/CASE by line, its topic the source's directory" \
	"$("$tmp/fake" -l | tr '\n' ' ')" "faketopic/calls faketopic/sums "
check "all cases pass: exit 0" "$tmp/fake"
is "one TAP line an assertion, a '# case' line before each case, the plan at the end" \
	"$(grep -c '^ok [0-9]* - ' "$tmp/out") $(grep -c '^# case ' "$tmp/out") $(tail -n 1 "$tmp/out")" "6 2 1..6"
is "ASSERT_EQ, ASSERT_ERRNO, ASSERT_FD and ASSERT_OK print got and want" \
	"$(sed -n 's/^ok [0-9]* - //p' "$tmp/out" | grep 'got' | tr '\n' '|')" \
	"a lookup of nothing: got ENOENT, want ENOENT|an open: got fd 3, want an fd|two and two: got 4, want 4|the answer: got 42, want 42|a call that worked: got 0, want 0|"

check_rc "a failed ASSERT: exit 1" 1 env FAKE_FAIL=1 "$tmp/fake"
grep -q '^not ok 5 - the answer: got 41, want 42$' "$tmp/out" &&
	grep -q "^#   at .*faketopic/fake.c:7$" "$tmp/out" &&
	grep -q '^# failed cases: faketopic/sums$' "$tmp/out" &&
	grep -q '^ok 6 - a call that worked' "$tmp/out" && r=0 || r=1
ok "$r" "the failed ASSERT prints got 41 and want 42 and its file:line, the case goes on, the failed case is named"
[ "$r" = 0 ] || diag "$(cat "$tmp/out")"

check_rc "-t faketopic/calls runs that case alone" 0 env FAKE_VERBOSE=1 "$tmp/fake" -v -t faketopic/calls
is "-t: only the selected case's lines, numbered from 1" \
	"$(grep -v '^# [0-9]* of' "$tmp/out" | tr '\n' '|')" \
	"# case faketopic/calls|ok 1 - a lookup of nothing: got ENOENT, want ENOENT|ok 2 - an open: got fd 3, want an fd|ok 3 - -v sets kb_verbose|1..3|"

check_rc "-t with a pattern that matches no case: exit 2 (a usage error)" 2 "$tmp/fake" -t nosuchcase
check_rc "kb_absent(): not a failure" 0 env FAKE_ABSENT=1 "$tmp/fake"
is "kb_absent(): one TAP skip line 'FEATURE absent: why' (what tests/vm/boot-kernels.t looks for), and no case after it runs" \
	"$(grep -v '^# [0-9]* of' "$tmp/out" | tr '\n' '|')" \
	"# case faketopic/calls|ok 1 # SKIP FAKE absent: the probe gives EINVAL|1..1|"

# a program's own options (KB_OPTIONS): parsed beside -l/-v/-t, a bad
# value or an unknown letter is a usage error naming them
cat >"$tmp/checks/faketopic/opts.c" <<'EOF'
#define _GNU_SOURCE
#include "harness.h"

static int size = 8;

static int parse(int opt, const char *arg)
{
	if (opt != 'k' || atoi(arg) <= 0)
		return -1;
	size = atoi(arg);
	return 0;
}

KB_OPTIONS("k:", "[-k KEY_SIZE]", parse);

KB_CASE(sized)
{
	ASSERT_EQ(size, atoi(getenv("FAKE_SIZE")), "the key size");
}
EOF
if cc_check "$tmp/opts" "$tmp/checks/faketopic/opts.c" 2>"$tmp/cc.err"; then
	check "KB_OPTIONS: -k 12 reaches the program, -t still selects" env FAKE_SIZE=12 "$tmp/opts" -k 12 -t sized
else
	ok 1 "a program with KB_OPTIONS builds: $(head -n 5 "$tmp/cc.err")"
fi
check_rc "KB_OPTIONS: a bad value is a usage error (exit 2)" 2 "$tmp/opts" -k 0
is "the usage line names the program's options after the harness's" \
	"$("$tmp/opts" -x 2>&1 >/dev/null | grep '^usage' | sed 's/^usage: [^ ]*//')" \
	" [-l] [-v] [-t PATTERN]... [-k KEY_SIZE]"

# the ported checks: their cases listed (-l runs none, so no bpf() here)
want="common-attrs/plain_calls common-attrs/probe common-attrs/map_create_log common-attrs/map_create_ok common-attrs/prog_load_log common-attrs/btf_load_log common-attrs/bad_input common-attrs/reserved_field common-attrs/other_commands ftrace-direct/fentry_eight ftrace-direct/detach_one ftrace-direct/fexit ftrace-direct/kprobe_beside ftrace-direct/kprobe_first ftrace-direct/mass ftrace-direct/detach_all ftrace-direct/attach_again "
want="${want}rhash/probe rhash/create_errors rhash/memcg rhash/memcg_full rhash/ops_key8 rhash/ops_key4 rhash/ops_key12 rhash/ops_key37 "
want="${want}rhash/probe rhash/prog_key8 rhash/prog_key12 rhash/iter rhash/iter_lost rhash/perf rhash/sched_key8 rhash/sched_key12 "
want="${want}rhash/create rhash/memlock_model rhash/stress rhash/final_walk rhash/final_batch rhash/final_lookups rhash/delete_all "
want="${want}proc-interrupts/parse proc-interrupts/statsum proc-interrupts/percpu proc-interrupts/format "
want="${want}tracing-multi/presence tracing-multi/fsession_and_verifier tracing-multi/fentry_multi tracing-multi/fexit_multi tracing-multi/test_run_by_multi tracing-multi/fexit_detach tracing-multi/all_closed tracing-multi/errors_attr tracing-multi/errors_duplicate tracing-multi/errors_ids tracing-multi/errors_notrace tracing-multi/sleepable tracing-multi/intersection tracing-multi/rollback tracing-multi/faults tracing-multi/cycles tracing-multi/detach_nomem tracing-multi/concurrent "
want="${want}tracing-multi/presence tracing-multi/sets_explained tracing-multi/ours_attaches tracing-multi/upstream_rest_attaches tracing-multi/refused_outside_ours tracing-multi/refusals_explained tracing-multi/totals "
got=""
for c in common-attrs/commonattrs ftrace-direct/directcheck rhash/rhashcheck rhash/rhashprog rhash/rhashstress proc-interrupts/irqcheck tracing-multi/tmcheck tracing-multi/tmall; do
	if cc_check "$tmp/${c##*/}" "$top/kernel/checks/$c.c" 2>"$tmp/cc.err"; then
		got="$got$("$tmp/${c##*/}" -l | tr '\n' ' ')"
	else
		got="$got(kernel/checks/$c.c does not build: $(head -n 3 "$tmp/cc.err")) "
	fi
done
# (tmskel, a libbpf skeleton's user, does not build on the host alone)
is "commonattrs, directcheck, rhash's programs, irqcheck, tmcheck and tmall register their cases with KB_CASE, in the order they ran before the harness" "$got" "$want"
exit "$fail"
