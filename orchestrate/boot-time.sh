# SPDX-License-Identifier: GPL-2.0
# The time of a boot, for the plan's estimate and the progress lines.
# Sourced by orchestrate/run.sh and orchestrate/boot-unit.sh; needs
# KBENCH_CACHE. $KBENCH_CACHE/boot-times.tsv has one line per boot that
# ran: vCPUs, seconds (launch to results), run directory.
# shellcheck shell=bash

# A first guess for a vCPU count no boot has run at yet: BT_BASE seconds
# plus BT_PER_VCPU per vCPU. Under TCG on a 2-core host a boot reaches
# runcmd in 25-33 s at 1 vCPU, 30-51 s at 4-8, and a 64-vCPU boot took
# 6.5 minutes; the workloads' own time is not in it.
BT_BASE=30
BT_PER_VCPU=6

# boot_time V [RUN]: "SECONDS SOURCE" for one boot at V vCPUs. SOURCE is
# this-run (the mean of RUN's boots at V), earlier (of earlier boots at
# V), scaled:N (earlier boots at N vCPUs, the nearest count that has
# any, scaled by the guess's ratio), or guess (the first guess).
boot_time() {
	local f=$KBENCH_CACHE/boot-times.tsv
	[ -f "$f" ] || f=/dev/null
	awk -F '\t' -v v="$1" -v r="${2:-}" -v a="$BT_BASE" -v b="$BT_PER_VCPU" '
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
			s[$1] += $2; c[$1]++
			if (r != "" && $3 == r && $1 == v) { rs += $2; rc++ }
		}
		END {
			if (rc) { printf "%d this-run\n", rs / rc; exit }
			if (v in c) { printf "%d earlier\n", s[v] / c[v]; exit }
			for (k in c) {
				d = k - v; if (d < 0) d = -d
				if (near == "" || d < nd || (d == nd && k + 0 > near + 0)) { near = k; nd = d }
			}
			if (near != "") {
				printf "%d scaled:%d\n", s[near] / c[near] * (a + b * v) / (a + b * near), near
				exit
			}
			printf "%d guess\n", a + b * v
		}' "$f"
}

# fmt_min SECONDS: as MmSSs
fmt_min() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
