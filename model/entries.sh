#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest kernel's entry points that kbcache needs to leave
# asynchronous interrupts out of its windows (model/README.md), from the
# kernel's vmlinux and config, for the plugin's entries= argument.
#
#   entries.sh KERNEL_DIR > entries.txt
#
# KERNEL_DIR holds vmlinux and config (a $KBENCH_CACHE/labels/<label>/
# directory). One line per range, "TYPE START SIZE STRIDE NAME" (hex):
#   irq     the x86-64 entry stubs of asynchronous events: every
#           asm_sysvec_* (system vectors: the APIC timer, IPIs, ...),
#           asm_exc_nmi and asm_exc_machine_check, and the per-vector
#           stubs irq_entries_start and spurious_entries_start (one every
#           IDT_ALIGN bytes: 16 with CONFIG_X86_KERNEL_IBT, else 8);
#   exc     every other asm_exc_* stub (synchronous exceptions: they nest
#           inside an interrupt, and stay the work's own cost outside);
#   switch  __switch_to_asm (the plugin finds its stack-pointer save and
#           load in it).
# The addresses are vmlinux's link addresses: the guest must boot with
# nokaslr (orchestrate/run.sh adds it to a model boot's command line).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"

[ $# = 1 ] || kb_die "usage: entries.sh KERNEL_DIR (with vmlinux and config)"
kdir=$1
[ -f "$kdir/vmlinux" ] || kb_die "entries.sh: no $kdir/vmlinux: the model needs the guest kernel's symbols"
[ -f "$kdir/config" ] || kb_die "entries.sh: no $kdir/config"
command -v nm >/dev/null || kb_die "entries.sh: nm not found (install binutils)"
align=8
! grep -qx 'CONFIG_X86_KERNEL_IBT=y' "$kdir/config" || align=16

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
nm -S --defined-only "$kdir/vmlinux" >"$tmp" || kb_die "entries.sh: nm $kdir/vmlinux failed"
awk -v align="$align" -v file="$kdir/vmlinux" '
	# nm -S: ADDR SIZE TYPE NAME; code symbols only
	NF != 4 || $3 !~ /^[Tt]$/ { next }
	$4 == "irq_entries_start" || $4 == "spurious_entries_start" {
		stride = sprintf("%x", align)
		type = "irq"
	}
	$4 ~ /^asm_sysvec_/ || $4 == "asm_exc_nmi" || $4 == "asm_exc_machine_check" {
		stride = $2
		type = "irq"
	}
	$4 ~ /^asm_exc_/ && $4 != "asm_exc_nmi" && $4 != "asm_exc_machine_check" {
		stride = $2
		type = "exc"
	}
	$4 == "__switch_to_asm" {
		stride = $2
		type = "switch"
	}
	type != "" {
		printf "%s %s %s %s %s\n", type, $1, $2, stride, $4
		n[type]++
		type = ""
	}
	END {
		if (!n["irq"] || !n["exc"] || !n["switch"]) {
			printf "entries.sh: %s has %d irq, %d exc, %d switch entries: not an x86-64 kernel with symbols?\n",
				file, n["irq"], n["exc"], n["switch"] > "/dev/stderr"
			exit 1
		}
	}' "$tmp" || exit 1
