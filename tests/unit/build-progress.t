#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel build's progress line (kernel/scripts/progress.sh): objects
# compiled of the count the last full build of the same config compiled,
# with the time left at the rate so far; no total without an earlier
# build of the config, nor in a tree built before. On fake build logs and
# stats files: no kernel is built.
# shellcheck disable=SC2016 # the grep patterns name $ literally
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=kernel/scripts/progress.sh
. "$top/kernel/scripts/progress.sh"

echo "1..22"

# A log as build.sh writes it: apply and configure output, then make's.
log=$tmp/build.log
{
	echo "Applying: demo"
	echo "  HOSTCC  scripts/basic/fixdep"
	echo "  CC      scripts/mod/devicetable-offsets.s"
} >"$log"
off=$(stat -c %s "$log")
{
	echo "  SYSHDR  arch/x86/include/generated/uapi/asm/unistd_32.h"
	echo "  HOSTCC  scripts/sorttable"
	echo "  CC      init/main.o"
	echo "  CC      kernel/fork.o"
	echo "  AS      arch/x86/entry/entry_64.o"
	echo "  CC [M]  fs/fat/inode.o"
	echo "In file included from x.c:1:  CC not at the start"
} >>"$log"

# 1-3: the count
is "the objects of the build, not of the configure before it" "$(kbp_count "$log" "$off")" 3
is "every CC line from offset 0" "$(kbp_count "$log" 0)" 4
is "a missing log counts 0" "$(kbp_count "$tmp/nolog" 0)" 0

# 4-9: the stats file
stats=$tmp/build-stats.tsv
sha=$(printf 'CONFIG_A=y\n' | sha256sum | cut -d' ' -f1)
other=$(printf 'CONFIG_B=y\n' | sha256sum | cut -d' ' -f1)
is "no stats file: no expectation" "$(kbp_expected "$stats" "$sha")" ""
kbp_record "$stats" "$sha" 3000 600 baseline
is "a record is read back as objects and seconds" "$(kbp_expected "$stats" "$sha")" "3000 600"
t "the file starts with a comment naming the columns" grep -qx $'# config-sha256\tobjects\tseconds\tlabel\tfinished' "$stats"
kbp_record "$stats" "$other" 1000 100 other
kbp_record "$stats" "$sha" 3010 90 patched
printf '%s\tgarbage\t\n' "$sha" >>"$stats"
is "the last good record of this config wins" "$(kbp_expected "$stats" "$sha")" "3010 90"
is "another config's records are its own" "$(kbp_expected "$stats" "$other")" "1000 100"
kbp_record "$stats" "$sha" 0 5 failed
is "a build of no objects is not recorded" "$(kbp_expected "$stats" "$sha")" "3010 90"

# 10-16: the line
is "no earlier build of this config" "$(kbp_line 1520 120 0 "")" \
	"1520 objects, no earlier build of this config to compare"
is "a fraction and the time left at the rate so far" "$(kbp_line 1500 300 0 "3000 600")" \
	"1500 of ~3000 objects (50%), about 5m00s of compiling left at the rate so far"
is "ccache: the same fraction, a faster rate, less time left" "$(kbp_line 1500 30 0 "3000 600")" \
	"1500 of ~3000 objects (50%), about 0m30s of compiling left at the rate so far"
is "nothing compiled yet: the last build's time" "$(kbp_line 0 30 0 "3000 600")" \
	"0 of ~3000 objects (the last build of this config took 10m00s)"
is "as many as last time" "$(kbp_line 3000 500 0 "3000 600")" \
	"3000 objects (the last build of this config compiled 3000): the compile should be nearly done"
is "more than last time (a series adds objects under the same config): no fraction above 100 %" \
	"$(kbp_line 3012 500 0 "3000 600")" \
	"3012 objects (the last build of this config compiled 3000): the compile should be nearly done"
is "a tree built before: no total" "$(kbp_line 12 30 1 "3000 600")" \
	"12 objects compiled so far (incremental: the tree was built before and only what changed is recompiled; no total to compare)"

# 17-19: a tree built before
mkdir -p "$tmp/out/scripts/kconfig" "$tmp/out/include/config"
: >"$tmp/out/scripts/kconfig/conf.o"
if kbp_tree_built "$tmp/out"; then r=1; else r=0; fi
ok "$r" "a configured tree (the kconfig tools only) is not a built one"
mkdir -p "$tmp/out/init"
: >"$tmp/out/init/main.o"
t "a tree with kernel objects is a built one" kbp_tree_built "$tmp/out"
if kbp_tree_built "$tmp/none"; then r=1; else r=0; fi
ok "$r" "a missing tree is not a built one"

# 20-22: build.sh prints the line and records the build with these
bs=$top/kernel/scripts/build.sh
t "build.sh sources progress.sh" grep -q '^\. "\$here/progress.sh"' "$bs"
t "build.sh prints kbp_line's text" grep -q 'kb_say "build \$label: \$(kbp_line ' "$bs"
t "build.sh records a full build only" grep -q '^\[ "\$built" = 1 \] || kbp_record ' "$bs"

exit "$fail"
