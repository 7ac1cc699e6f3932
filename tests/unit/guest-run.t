#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest/run.sh, the payload's runner, on the host (it only reads
# /proc/interrupts): a plan line's bench arguments arrive as data, every
# sample lands in the workload's CSV, and perf stat's counters of the
# whole invocation come back as run_* rows (rep 0) in the same CSV.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..6"
for t in perf jq; do
	command -v "$t" >/dev/null || { echo "Bail out! $t not found (make deps)"; exit 1; }
done
make_or_bail bench-tools
mkdir -p "$tmp/p/bin" "$tmp/r"
cp "$top/build/bench/kbbench" "$top/bench/perfstat2csv.sh" "$tmp/p/bin/"
cp "$top/guest/run.sh" "$tmp/p/run"
printf 'procirq-read\tprocirq_read\tdefault\tvcpus=1;loops=5\t3\t1\ticount\t--perf\t--loops 5\n' >"$tmp/p/plan.tsv"
rc=0
KB_QUIESCE_MS=200 sh "$tmp/p/run" "$tmp/r" >"$tmp/out" 2>&1 || rc=$?
ok "$rc" "the runner runs the plan (exit $rc)"
[ "$rc" = 0 ] || diag "$(cat "$tmp/out")" "$(cat "$tmp"/r/perf/*.err 2>/dev/null)"
csv=$tmp/r/raw/procirq-read.csv
[ "$(grep -c ',ns_per_read,ns,lower,icount,[123],' "$csv")" = 3 ] && r=0 || r=1
ok "$r" "three samples of ns_per_read at point vcpus=1;loops=5"
grep -q '^procirq-read,default,vcpus=1;loops=5,run_task_clock_ms,ms,lower,icount,0,' "$csv" && r=0 || r=1
ok "$r" "perf stat's task-clock of the invocation is a run_task_clock_ms row (rep 0)"
[ "$(head -n 1 "$csv")" = "workload,variant,point,metric,unit,better,clock,rep,value" ] &&
	[ "$(grep -c '^workload,' "$csv")" = 1 ] && r=0 || r=1
ok "$r" "one header, every row in kbbench's CSV layout"
grep -q '^kbbench: procirq_read: \(quiet after\|the system did not go quiet in\) [0-9]* ms' "$tmp"/r/perf/*.err && r=0 || r=1
ok "$r" "each point first waits for the CPUs to go quiet, and its .err says how long"

# A variant this kernel lacks: kbbench exits 4 after the bench's reason
# and its own generic line. A stand-in that does just that (the real
# one would make bpf() calls on the host): the point is recorded as
# absent with the bench's reason, and the run does not fail.
mkdir -p "$tmp/a/bin" "$tmp/ra"
cp "$tmp/p/run" "$tmp/a/run"
cp "$top/bench/perfstat2csv.sh" "$tmp/a/bin/"
cat >"$tmp/a/bin/kbbench" <<'EOS'
#!/bin/sh
echo "kbbench: map_lookup: map_create: Invalid argument: no rhash map in this kernel" >&2
echo "kbbench: map_lookup: variant rhash is absent on this kernel" >&2
exit 4
EOS
chmod +x "$tmp/a/bin/kbbench"
printf 'rhash-lookup\tmap_lookup\trhash\tvcpus=1\t3\t1\ticount\t\t\n' >"$tmp/a/plan.tsv"
rc=0
KB_QUIESCE_MS=200 sh "$tmp/a/run" "$tmp/ra" >"$tmp/outa" 2>&1 || rc=$?
[ "$rc" = 0 ] && [ "$(cat "$tmp/ra/raw/rhash-lookup.absent" 2>/dev/null)" = "$(printf 'rhash\tvcpus=1\tkbbench: map_lookup: map_create: Invalid argument: no rhash map in this kernel')" ] && r=0 || r=1
ok "$r" "an absent variant is recorded with the bench's reason alone, and is no failure (exit $rc)"
[ "$r" = 0 ] || diag "$(cat "$tmp/outa")" "$(cat "$tmp/ra/raw/rhash-lookup.absent" 2>/dev/null)"
exit "$fail"
