#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compare two boots' kbcache windows files, window by window: the A/A
# check of the model (model/README.md: two boots of one kernel at 1 vCPU
# give identical windows).
#
#   cmp-windows.sh [--samples] A.csv B.csv
#
# --samples: only the sample windows (what becomes the model metrics),
# not the warm-ups, whose page faults run kernel code on pages that
# differ from boot to boot.
#
# Compares the model's own metrics of each window (kind, instructions,
# accesses, l1d_misses, llc_misses, dtlb_misses, model_cycles; not the
# irqs and irq_insns that say what was left out, which differ by
# design). Prints one line:
#   windows=N identical=K max_model_cycles_diff=D max_rel=R max_insn_diff=I
# and exits 0 when every window is identical, 1 when some differ, 2 on
# an error (a file that is not a windows file, different window counts).
set -euo pipefail
only=
if [ "${1:-}" = --samples ]; then
	only=sample
	shift
fi
[ $# = 2 ] || { echo "usage: cmp-windows.sh [--samples] A.csv B.csv" >&2; exit 2; }
for f in "$1" "$2"; do
	[ -f "$f" ] || { echo "cmp-windows.sh: no file $f" >&2; exit 2; }
done
awk -F, -v only="$only" '
	FNR == 1 && $0 !~ /^# kbcache v[0-9]+ / {
		printf "cmp-windows.sh: %s is not a kbcache windows file\n", FILENAME > "/dev/stderr"
		bad = 1
		exit 2
	}
	/^#/ || $1 == "window" { next }
	NR == FNR { a[$1] = $2 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9; na++; next }
	{ b[$1] = $2 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9; nb++ }
	function abs(x) { return x < 0 ? -x : x }
	END {
		if (bad)
			exit 2
		if (na != nb || !na) {
			printf "cmp-windows.sh: %d windows against %d\n", na, nb > "/dev/stderr"
			exit 2
		}
		for (w = 1; w <= na; w++) {
			if (only != "" && index(a[w], only ",") != 1 &&
			    index(b[w], only ",") != 1) {
				na2++
				continue
			}
			if (a[w] == b[w]) {
				same++
				continue
			}
			split(a[w], x, ",")
			split(b[w], y, ",")
			d = abs(x[7] - y[7])
			if (d > md)
				md = d
			if (x[7] && d / x[7] > mr)
				mr = d / x[7]
			if (abs(x[2] - y[2]) > mi)
				mi = abs(x[2] - y[2])
		}
		na -= na2
		printf "windows=%d identical=%d max_model_cycles_diff=%d max_rel=%.3g max_insn_diff=%d\n",
			na, same, md, mr, mi
		exit same != na
	}' "$1" "$2"
