#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Convert `perf stat -x,` output into kbbench CSV rows (no header), so the
# counters of a whole kbbench run land in the same raw file as its samples.
#
#   perfstat2csv.sh --workload W --variant V --point P --clock C [--rep N] [FILE]
#
# FILE (default stdin) is what `perf stat -x, -o FILE -- kbbench ...` wrote.
# rep defaults to 0, which marks "the whole invocation" (warm-up included),
# as opposed to kbbench's per-sample reps 1..R.
# Metric names start with run_ (the whole invocation, not one sample, so
# never the same key as kbbench --perf's per-sample rows): task-clock
# becomes run_task_clock_ms (ms); any other event run_ and its name with
# '-' and ':' turned into '_' (unit count). CPU time, cycles and
# instructions are costs ("lower"); any other event count (context-switches,
# page-faults, ...) is informational ("none"), as in kbbench --perf.
# An event perf could not count is an error, not a missing row.
set -euo pipefail

usage() {
	echo "usage: $0 --workload W --variant V --point P --clock icount|wall [--rep N] [FILE]" >&2
	exit 2
}

workload=
variant=
point=
clock=
rep=0
file=-
while [ $# -gt 0 ]; do
	case "$1" in
	--workload) [ $# -ge 2 ] || usage; workload=$2; shift 2 ;;
	--variant) [ $# -ge 2 ] || usage; variant=$2; shift 2 ;;
	--point) [ $# -ge 2 ] || usage; point=$2; shift 2 ;;
	--clock) [ $# -ge 2 ] || usage; clock=$2; shift 2 ;;
	--rep) [ $# -ge 2 ] || usage; rep=$2; shift 2 ;;
	-*) usage ;;
	*) file=$1; shift ;;
	esac
done
if [ -z "$workload" ] || [ -z "$variant" ] || [ -z "$point" ] || [ -z "$clock" ]; then
	usage
fi
case "$clock" in icount | wall) ;; *) echo "$0: --clock must be icount or wall" >&2; exit 2 ;; esac
case "$rep" in '' | *[!0-9]*) echo "$0: --rep must be a number" >&2; exit 2 ;; esac
for f in "$workload" "$variant" "$point"; do
	case "$f" in *[,\ \"]*) echo "$0: '$f' must not contain commas, blanks or quotes" >&2; exit 2 ;; esac
done
if [ "$file" != - ] && [ ! -r "$file" ]; then
	echo "$0: cannot read $file" >&2
	exit 1
fi

# perf -x, fields: value,unit,event,run-time,pct-enabled,metric,metric-unit
awk -F, -v w="$workload" -v v="$variant" -v p="$point" -v c="$clock" \
	-v r="$rep" -v src="$file" '
	/^#/ || /^[[:space:]]*$/ { next }
	{
		val = $1; unit = $2; ev = $3
		if (val ~ /^<not (supported|counted)>$/) {
			printf "perfstat2csv: %s: line %d: event %s %s\n", src, NR, ev, val > "/dev/stderr"
			bad = 1
			next
		}
		if (val !~ /^[0-9]+(\.[0-9]+)?$/ || ev == "") {
			printf "perfstat2csv: %s: line %d: not a perf stat -x, line: %s\n", src, NR, $0 > "/dev/stderr"
			bad = 1
			next
		}
		name = "run_" ev
		gsub(/[-:]/, "_", name)
		if (ev ~ /^task-clock/ || ev ~ /^cpu-clock/) {
			if (unit != "msec") {
				printf "perfstat2csv: %s: line %d: %s in %s, expected msec\n", src, NR, ev, unit > "/dev/stderr"
				bad = 1
				next
			}
			name = name "_ms"
			u = "ms"
		} else {
			u = (unit == "") ? "count" : unit
		}
		# ev may carry modifiers, e.g. cycles:u
		better = ev ~ /^(task-clock|cpu-clock|cycles|instructions|ref-cycles)(:|$)/ ? "lower" : "none"
		printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", w, v, p, name, u, better, c, r, val
		rows++
	}
	END {
		if (!rows && !bad) {
			printf "perfstat2csv: %s: no counters found\n", src > "/dev/stderr"
			bad = 1
		}
		exit bad
	}' "$file"
