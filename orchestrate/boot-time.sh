# SPDX-License-Identifier: GPL-2.0
# The time of a boot, for the plan's estimate and the progress lines.
# Sourced by orchestrate/run.sh and orchestrate/boot-unit.sh; needs
# KBENCH_CACHE. $KBENCH_CACHE/boot-times.tsv has one line per boot that
# ran: vCPUs, seconds (launch to results), run directory, kernel name
# (baseline, patched, ...) and the boot's plan signature (plan_sig: what
# its payload runs). orchestrate/boot-times.ref.tsv has the same columns
# for boots measured on the 2-core reference host (README, Benchmarks):
# the estimate of a first run on a new machine.
# shellcheck shell=bash

# A first guess for a vCPU count no boot has run at yet: BT_BASE seconds
# plus BT_PER_VCPU per vCPU. Under TCG on a 2-core host a boot reaches
# runcmd in 25-33 s at 1 vCPU, 30-51 s at 4-8, and a 64-vCPU boot took
# 6.5 minutes; the workloads' own time is not in it.
BT_BASE=30
BT_PER_VCPU=6

# plan_sig: the signature of a boot's plan (plan.tsv on stdin), whatever
# the order of its lines (boots rotate their variants)
plan_sig() { LC_ALL=C sort | sha256sum | cut -c1-12; }

# boot_time V [RUN [NAME SIG]]: "SECONDS SOURCE" for one boot at V vCPUs
# of kernel NAME running the plan SIG. SOURCE is the first of: this-run
# (the mean of RUN's boots of NAME at V, else of any kernel's at V),
# earlier (of earlier boots of NAME with SIG), reference (the reference
# host's boots of NAME with SIG, orchestrate/boot-times.ref.tsv),
# earlier-any (earlier boots at V of other plans), scaled:N (earlier
# boots at N vCPUs, the nearest count that has any, scaled by the
# guess's ratio), or guess (the first guess).
boot_time() {
	local f=$KBENCH_CACHE/boot-times.tsv ref
	ref=$(dirname "${BASH_SOURCE[0]}")/boot-times.ref.tsv
	[ -f "$f" ] || f=/dev/null
	[ -f "$ref" ] || ref=/dev/null
	awk -F '\t' -v v="$1" -v r="${2:-}" -v nm="${3:-}" -v sg="${4:-}" \
		-v a="$BT_BASE" -v b="$BT_PER_VCPU" '
		$1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ { next }
		FILENAME == ARGV[2] {
			if (nm != "" && $1 == v && $4 == nm && $5 == sg) { fs += $2; fc++ }
			next
		}
		{
			s[$1] += $2; c[$1]++
			if (r != "" && $3 == r && $1 == v) {
				rs += $2; rc++
				if ($4 == nm) { rns += $2; rnc++ }
			}
			if (nm != "" && $1 == v && $4 == nm && $5 == sg) { es += $2; ec++ }
		}
		END {
			if (rnc) { printf "%d this-run\n", rns / rnc; exit }
			if (rc) { printf "%d this-run\n", rs / rc; exit }
			if (ec) { printf "%d earlier\n", es / ec; exit }
			if (fc) { printf "%d reference\n", fs / fc; exit }
			if (v in c) { printf "%d earlier-any\n", s[v] / c[v]; exit }
			for (k in c) {
				d = k - v; if (d < 0) d = -d
				if (near == "" || d < nd || (d == nd && k + 0 > near + 0)) { near = k; nd = d }
			}
			if (near != "") {
				printf "%d scaled:%d\n", s[near] / c[near] * (a + b * v) / (a + b * near), near
				exit
			}
			printf "%d guess\n", a + b * v
		}' "$f" "$ref"
}

# fmt_min SECONDS: as MmSSs
fmt_min() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
