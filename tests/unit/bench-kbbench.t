#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/kbbench: the registry, the CSV contract and the procirq_read bench
# (run on the host itself: reading its /proc/interrupts is harmless),
# `kbbench check` and option parsing, and bench/perfstat2csv.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# KB_TEST_KBBENCH: another build to test (tests/unit/sanitizers.t: ASan)
kb=${KB_TEST_KBBENCH:-$top/build/bench/kbbench}
p2c=$top/bench/perfstat2csv.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header='workload,variant,point,metric,unit,better,clock,rep,value'

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# csv_ok FILE WORKLOAD VARIANT POINT CLOCK: every row after the header is valid
csv_ok() {
	awk -F, -v w="$2" -v v="$3" -v p="$4" -v c="$5" '
		NF != 9 { print "line " NR ": " NF " fields"; bad = 1; next }
		$1 != w || $2 != v || $3 != p || $7 != c { print "line " NR ": bad key fields: " $0; bad = 1 }
		$4 !~ /^[a-z0-9_]+$/ || $5 == "" { print "line " NR ": bad metric/unit: " $0; bad = 1 }
		$6 != "lower" && $6 != "higher" && $6 != "none" { print "line " NR ": bad better: " $0; bad = 1 }
		$8 !~ /^[1-9][0-9]*$/ { print "line " NR ": bad rep: " $0; bad = 1 }
		$9 !~ /^[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?$/ { print "line " NR ": bad value: " $0; bad = 1 }
		END { exit bad }' "$1"
}

# err_is DESC WANT: the last check's stderr is exactly the line WANT
err_is() {
	if [ "$(cat "$tmp/err")" = "$2" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		diag "wanted: $2" "got: $(cat "$tmp/err")"
	fi
}
# err_has DESC TEXT...: the last check's stderr is one line holding each TEXT
err_has() {
	local desc=$1 bad=0 s
	shift
	[ "$(wc -l <"$tmp/err")" = 1 ] || bad=1
	for s in "$@"; do
		grep -qF -- "$s" "$tmp/err" || bad=1
	done
	ok "$bad" "$desc"
	[ "$bad" = 0 ] || diag "wanted one line with: $*" "got: $(cat "$tmp/err")"
}

echo "1..94"

if ! make -s -C "$top" -j1 bench-tools >"$tmp/make" 2>&1; then
	echo "Bail out! make bench-tools failed: $(tail -n 5 "$tmp/make" | tr '\n' ' ')"
	exit 1
fi

# registry
check_rc "kbbench --list" 0 "$kb" --list
if grep -q $'^procirq_read\t' "$tmp/out"; then ok 0 "registry lists procirq_read"; else ok 1 "registry lists procirq_read"; sed 's/^/# /' "$tmp/out"; fi

# the CSV of a short run on the host
check_rc "procirq_read --reps 3 --warmup 1 --loops 5 --clock wall" 0 \
	"$kb" procirq_read --reps 3 --warmup 1 --loops 5 --clock wall
cp "$tmp/out" "$tmp/run.csv"
if [ "$(head -n 1 "$tmp/run.csv")" = "$header" ]; then ok 0 "CSV header"; else ok 1 "CSV header: $(head -n 1 "$tmp/run.csv")"; fi
tail -n +2 "$tmp/run.csv" >"$tmp/rows"
if csv_ok "$tmp/rows" procirq-read default none wall >"$tmp/why"; then ok 0 "every row has 9 valid fields"; else ok 1 "every row has 9 valid fields"; sed 's/^/# /' "$tmp/why"; fi
good=0
for m in ns_per_read bytes_per_read irq_rows cpu_columns; do
	reps=$(awk -F, -v m="$m" '$4 == m { printf "%s ", $8 }' "$tmp/rows")
	[ "$reps" = "1 2 3 " ] || { echo "# $m: reps '$reps', wanted '1 2 3 '"; good=1; }
done
ok "$good" "3 lines (reps 1..3, warm-up not printed) for each of the 4 metrics"
if [ "$(wc -l <"$tmp/rows")" = 12 ]; then ok 0 "12 rows in all"; else ok 1 "12 rows in all: $(wc -l <"$tmp/rows")"; fi
cpus=$(head -n 1 /proc/interrupts | grep -o 'CPU[0-9]*' | wc -l)
rows=$(($(wc -l </proc/interrupts) - 1))
got=$(awk -F, '$4 == "cpu_columns" && $8 == 1 { print $9 }' "$tmp/rows")
if [ "$got" = "$cpus" ]; then ok 0 "cpu_columns matches the host ($cpus)"; else ok 1 "cpu_columns $got, host has $cpus"; fi
got=$(awk -F, '$4 == "irq_rows" && $8 == 1 { print $9 }' "$tmp/rows")
# a device may register between the two reads; allow +-2
if [ -n "$got" ] && [ "$got" -ge $((rows - 2)) ] && [ "$got" -le $((rows + 2)) ]; then
	ok 0 "irq_rows matches the host ($rows)"
else
	ok 1 "irq_rows '$got', host has $rows"
fi
# the count-like metrics are informational, the time is a cost
got=$(awk -F, '{ print $4 "," $5 "," $6 }' "$tmp/rows" | sort -u | tr '\n' ' ')
want='bytes_per_read,bytes,none cpu_columns,count,none irq_rows,count,none ns_per_read,ns,lower '
if [ "$got" = "$want" ]; then ok 0 "better: ns_per_read lower, the other three none"; else ok 1 "better: got '$got', wanted '$want'"; fi

# point/variant/workload and per-sample perf counters
check_rc "--point, --variant, --workload and --perf" 0 "$kb" procirq_read --reps 2 --warmup 0 \
	--loops 3 --clock icount --point 'vcpus=2;mode=x' --variant patched --workload wl-a --perf
tail -n +2 "$tmp/out" >"$tmp/rows"
if csv_ok "$tmp/rows" wl-a patched 'vcpus=2;mode=x' icount >"$tmp/why"; then ok 0 "fields echoed"; else ok 1 "fields echoed"; sed 's/^/# /' "$tmp/why"; fi
if [ "$(grep -c ',task_clock_ms,ms,lower,' "$tmp/rows")" = 2 ] &&
	[ "$(grep -c ',context_switches,count,none,' "$tmp/rows")" = 2 ] &&
	[ "$(grep -c ',page_faults,count,none,' "$tmp/rows")" = 2 ]; then
	ok 0 "--perf adds task_clock_ms (lower), context_switches and page_faults (none) per sample"
else
	ok 1 "--perf adds task_clock_ms (lower), context_switches and page_faults (none) per sample"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
fi

# bad command lines fail and say why
check_rc "missing --clock is an error" 2 "$kb" procirq_read --reps 1 --warmup 0
check_rc "--clock other than icount|wall is an error" 2 "$kb" procirq_read --reps 1 --warmup 0 --clock tsc
check_rc "a point with a comma is an error" 2 "$kb" procirq_read --reps 1 --warmup 0 --clock wall --point a=1,b=2
check_rc "an unknown bench option is an error" 2 "$kb" procirq_read --reps 1 --warmup 0 --clock wall --nope 1
check_rc "a run rejects --loops 12x" 2 "$kb" procirq_read --reps 1 --warmup 0 --clock wall --loops 12x
err_is "... naming bench, option and value" "kbbench: procirq_read: --loops: '12x' is not a non-negative integer"

# kbbench check: the options of a run, validated on the host, nothing run
check_rc "check procirq_read --loops 200" 0 "$kb" check procirq_read --loops 200
if [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then ok 0 "... prints nothing"; else ok 1 "... prints nothing"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi
check_rc "check takes a full run command line" 0 "$kb" check procirq_read --workload procirq-read \
	--variant patched --point 'vcpus=2' --reps 30 --warmup 5 --clock icount --loops 200 --perf
check_rc "check of an unknown bench" 2 "$kb" check nope --loops 1
err_is "... names it and lists the known benches" "kbbench: no benchmark 'nope'; known: $("$kb" --list | cut -f1 | tr '\n' ' ' | sed 's/ $//')"
# --quiesce_ms: after setup, wait until the CPUs are idle, and say so
check_rc "check --quiesce_ms 600001 (out of range)" 2 "$kb" check procirq_read --quiesce_ms 600001
err_has "... names the option and the range" "--quiesce_ms" "0..600000"
check_rc "a run with --quiesce_ms 2000" 0 "$kb" ptrchase --reps 1 --warmup 0 --clock wall --size 4096 --accesses 1024 --quiesce_ms 2000
err_has "... says on stderr whether and when the system went quiet" "kbbench: ptrchase: " "quiet"
check_rc "check with an unknown option" 2 "$kb" check procirq_read --nope 1
err_has "... names the bench and the option" "procirq_read" "--nope"
check_rc "check --loops 12x" 2 "$kb" check procirq_read --loops 12x
err_is "... names the option and the value" "kbbench: procirq_read: --loops: '12x' is not a non-negative integer"
check_rc "check --loops -1" 2 "$kb" check procirq_read --loops -1
err_has "... names the option and the value" "procirq_read" "--loops" "'-1'"
check_rc "check --loops ''" 2 "$kb" check procirq_read --loops ''
err_has "... names the option" "procirq_read" "--loops" "''"
check_rc "check --loops=+5 (no sign on an unsigned)" 2 "$kb" check procirq_read --loops=+5
err_has "... names the option and the value" "--loops" "'+5'"
check_rc "check --loops ' 5' (no blanks)" 2 "$kb" check procirq_read --loops ' 5'
err_has "... names the option" "--loops" "' 5'"
check_rc "check --loops 99999999999999999999999 (overflow)" 2 "$kb" check procirq_read --loops 99999999999999999999999
err_has "... names the option and the value" "--loops" "'99999999999999999999999'" "too large"
check_rc "check --loops 0 (the bench's validate)" 2 "$kb" check procirq_read --loops 0
err_has "... names the option" "procirq_read" "--loops" "1..10000000"
# bpf_syscall: the workload's points and variants pass, others are named
for v in plain flag attrlog common; do
	check_rc "check bpf_syscall prog_load, variant $v" 0 "$kb" check bpf_syscall --cmd prog_load --variant "$v" --loops 100
done
check_rc "check bpf_syscall array_create, variant flag" 0 "$kb" check bpf_syscall --cmd array_create --variant flag
check_rc "check bpf_syscall --cmd btf_load" 2 "$kb" check bpf_syscall --cmd btf_load --variant plain
err_is "... names the command it does not time" "kbbench: bpf_syscall: --cmd: 'btf_load' is not map_create, array_create or prog_load"
check_rc "check bpf_syscall --variant hash" 2 "$kb" check bpf_syscall --variant hash
err_is "... names the variant" "kbbench: bpf_syscall: --variant: 'hash' is not plain, flag, attrlog or common"
check_rc "check bpf_syscall --loops 1001 (fds held per sample)" 2 "$kb" check bpf_syscall --variant plain --loops 1001
err_has "... names the option and the range" "bpf_syscall" "--loops" "1..1000"
# bpf_attach: the workload's variants and sizes pass, others are named
for v in fentry kprobe_multi tracing_multi; do
	for f in 1 1000 all; do
		check_rc "check bpf_attach, variant $v, --funcs $f" 0 "$kb" check bpf_attach --variant "$v" --funcs "$f"
	done
done
check_rc "check bpf_attach --variant kprobe (not a method)" 2 "$kb" check bpf_attach --variant kprobe
err_is "... names the variant" "kbbench: bpf_attach: --variant: 'kprobe' is not fentry, kprobe_multi or tracing_multi"
check_rc "check bpf_attach --funcs 0" 2 "$kb" check bpf_attach --variant fentry --funcs 0
err_has "... names the option and the range" "bpf_attach" "--funcs" "1..200000"
check_rc "check bpf_attach --funcs most" 2 "$kb" check bpf_attach --variant fentry --funcs most
err_is "... names the value" "kbbench: bpf_attach: --funcs: 'most' is not a number or all"
check_rc "check bpf_attach --funcs 10x" 2 "$kb" check bpf_attach --variant fentry --funcs 10x
check_rc "check --loops with no value" 2 "$kb" check procirq_read --loops
err_has "... names the option" "--loops" "needs a value"
check_rc "check --reps 3x" 2 "$kb" check procirq_read --reps 3x
err_has "... names the option and the value" "--reps" "'3x'"
check_rc "check --warmup -1" 2 "$kb" check procirq_read --warmup -1
err_has "... names the option and the value" "--warmup" "'-1'"
check_rc "check --reps 0 (out of range)" 2 "$kb" check procirq_read --reps 0
check_rc "check --clock tsc" 2 "$kb" check procirq_read --clock tsc
err_has "... names the option and the value" "--clock" "'tsc'"
check_rc "check --point with a comma" 2 "$kb" check procirq_read --point a=1,b=2
check_rc "check --file ''" 2 "$kb" check procirq_read --file ''
check_rc "check with no bench" 2 "$kb" check
# check must not read the file: a missing one fails a run, not a check
check_rc "a run with a missing --file fails" 1 "$kb" procirq_read --reps 1 --warmup 0 --clock wall \
	--file "$tmp/missing"
check_rc "check with the same missing --file passes" 0 "$kb" check procirq_read --reps 1 --warmup 0 \
	--clock wall --file "$tmp/missing"
if command -v strace >/dev/null; then
	# the run's trace shows the tracing works; then check must open nothing of it
	strace -f -e trace=open,openat -o "$tmp/trace.run" "$kb" procirq_read --reps 1 --warmup 0 \
		--clock wall --loops 1 >/dev/null 2>&1 || true
	if ! grep -q '"/proc/interrupts"' "$tmp/trace.run"; then
		ok 1 "check does not open /proc/interrupts: strace saw no open in a real run"
		sed 's/^/# /' "$tmp/trace.run"
	elif strace -f -e trace=open,openat -o "$tmp/trace.check" "$kb" check procirq_read \
		--reps 30 --warmup 5 --clock wall --loops 200 --perf >/dev/null 2>&1 &&
		! grep -q '/proc/interrupts' "$tmp/trace.check"; then
		ok 0 "check does not open /proc/interrupts (strace)"
	else
		ok 1 "check does not open /proc/interrupts (strace)"
		sed 's/^/# /' "$tmp/trace.check"
	fi
else
	# the missing --file tests above cover it
	check_rc "check does not open /proc/interrupts (strace not installed: a missing --file)" 0 \
		"$kb" check procirq_read --loops 200 --file /nonexistent/proc/interrupts
fi

# perfstat2csv.sh
if command -v shellcheck >/dev/null; then
	check_rc "shellcheck bench/*.sh" 0 shellcheck -x "$top"/bench/*.sh
else
	ok 1 "shellcheck bench/*.sh: shellcheck is not installed (apt-get install shellcheck)"
fi
printf '# started on Thu Dec  3 11:09:55 2026\n\n1.93,msec,task-clock,1930922,100.00,0.705,CPUs utilized\n0,,context-switches,1930922,100.00,0.000,/sec\n62,,page-faults,1930922,100.00,32.109,K/sec\n' >"$tmp/perf.txt"
check_rc "perfstat2csv.sh converts perf stat -x, output" 0 "$p2c" --workload procirq-read \
	--variant patched --point vcpus=1 --clock icount "$tmp/perf.txt"
printf 'procirq-read,patched,vcpus=1,run_task_clock_ms,ms,lower,icount,0,1.93\nprocirq-read,patched,vcpus=1,run_context_switches,count,none,icount,0,0\nprocirq-read,patched,vcpus=1,run_page_faults,count,none,icount,0,62\n' >"$tmp/want"
if cmp -s "$tmp/out" "$tmp/want"; then ok 0 "perfstat2csv.sh rows (task clock lower, event counts none)"; else ok 1 "perfstat2csv.sh rows"; diff "$tmp/want" "$tmp/out" | sed 's/^/# /'; fi
printf '5,,cycles:u,1,100.00,,\n7,,instructions,1,100.00,,\n' >"$tmp/perf.hw"
check_rc "perfstat2csv.sh with cycles and instructions" 0 "$p2c" --workload a --variant b \
	--point none --clock wall "$tmp/perf.hw"
if [ "$(cut -d, -f4,6 "$tmp/out" | tr '\n' ' ')" = "run_cycles_u,lower run_instructions,lower " ]; then
	ok 0 "... both are costs (lower)"
else
	ok 1 "... both are costs (lower)"
	sed 's/^/# /' "$tmp/out"
fi
printf '<not supported>,,cycles,0,100.00,,\n' >"$tmp/perf.bad"
check_rc "perfstat2csv.sh fails on an event perf could not count" 1 "$p2c" --workload a \
	--variant b --point none --clock wall "$tmp/perf.bad"

# one more C file is all a new bench needs (built here in $tmp)
cat >"$tmp/zz_demo.c" <<'EOC'
// SPDX-License-Identifier: GPL-2.0
#include "kbbench.h"
static const struct kb_metric demo_metrics[] = { { "one", "count", KB_HIGHER } };
static int demo_run(double *vals)
{
	vals[0] = 1;
	return 0;
}
static const struct kb_bench zz_demo = {
	.name = "zz_demo", .help = "demo", .metrics = demo_metrics,
	.nr_metrics = 1, .run = demo_run,
};
KB_BENCH(zz_demo);
EOC
if cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$top/bench" -o "$tmp/kb2" \
	"$top/bench/kbbench.c" "$top/bench/procirq_read.c" "$tmp/zz_demo.c" 2>"$tmp/err" &&
	"$tmp/kb2" --list >"$tmp/out" && [ "$(cut -f1 "$tmp/out" | tr '\n' ' ')" = "procirq_read zz_demo " ]; then
	ok 0 "a second module registers itself (linker section)"
else
	ok 1 "a second module registers itself (linker section)"
	sed 's/^/# /' "$tmp/err" "$tmp/out"
fi
want='zz-demo,default,none,one,count,higher,wall,1,1 zz-demo,default,none,one,count,higher,wall,2,1 '
if "$tmp/kb2" zz_demo --reps 2 --warmup 1 --clock wall >"$tmp/out" 2>"$tmp/err" &&
	[ "$(tail -n +2 "$tmp/out" | tr '\n' ' ')" = "$want" ]; then
	ok 0 "the new bench runs and prints its rows"
else
	ok 1 "the new bench runs and prints its rows"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
fi

exit "$fail"
