#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# model/cmp-windows.sh, the A/A comparison of two boots' kbcache windows
# files (tests/vm/model-aa.t runs it on real boots): every window, or
# with --samples only the sample windows, and its exit codes.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..5"
cmpw=$top/model/cmp-windows.sh

# windows FILE LINE...: a windows file with these window lines
windows() {
	local f=$1
	shift
	{
		echo "# kbcache v2 machine=test irq=exclude"
		echo "window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,dtlb_misses,model_cycles,irqs,irq_insns"
		printf '%s\n' "$@"
		echo "# kbcache end: windows=$# unclosed=0 stray_ends=0 restarts=0 entries=1 irqs=3 unbalanced=0"
	} >"$f"
}
windows "$tmp/a" 1,warmup,0,100,50,5,5,2,1340,1,10 2,sample,0,90,50,0,0,0,90,0,0 3,sample,0,90,50,1,0,0,130,2,20
# the warm-up differs, the samples differ only in irqs and irq_insns
windows "$tmp/b" 1,warmup,0,100,50,6,5,2,1380,1,12 2,sample,0,90,50,0,0,0,90,1,9 3,sample,0,90,50,1,0,0,130,0,0
windows "$tmp/c" 1,warmup,0,100,50,5,5,2,1340,1,10 2,sample,0,90,50,0,0,0,90,0,0 3,sample,0,96,50,1,0,0,136,2,20
windows "$tmp/d" 1,warmup,0,100,50,5,5,2,1340,1,10 2,sample,0,90,50,0,0,0,90,0,0

check_rc "a warm-up that differs: not every window is identical" 1 "$cmpw" "$tmp/a" "$tmp/b"
is "--samples: the sample windows are, irqs aside" \
	"$("$cmpw" --samples "$tmp/a" "$tmp/b")" \
	"windows=2 identical=2 max_model_cycles_diff=0 max_rel=0 max_insn_diff=0"
rc=0
out=$("$cmpw" --samples "$tmp/a" "$tmp/c") || rc=$?
is "--samples: a sample 6 instructions longer is found, exit 1" "$rc $out" \
	"1 windows=2 identical=1 max_model_cycles_diff=6 max_rel=0.0462 max_insn_diff=6"
check_rc "different window counts: exit 2" 2 "$cmpw" "$tmp/a" "$tmp/d"
check_rc "not a windows file: exit 2" 2 "$cmpw" "$tmp/a" "$0"
exit "$fail"
