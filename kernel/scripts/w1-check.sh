#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series' C files under W=1 and sparse: after build.sh built WORKTREE
# (the series as commits on BASE) into OUTDIR for LABEL, compile again,
# with W=1 C=1, every .c file the series adds or changes that this config
# builds. A warning or error on a line the series added or changed fails
# the check, naming the file, the line and the patch that wrote it.
# Warnings on the base tree's own lines are counted, not fatal: 6.12 is
# not W=1 clean and the series is not the place to fix it.
#
#   w1-check.sh WORKTREE OUTDIR LABEL BASE REPORT
#
# REPORT gets the summary and every warning; the make output goes to
# REPORT.log. Exit 0 when clean, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"
# shellcheck source=kernel/scripts/build-cmds.sh
. "$here/build-cmds.sh"
kb_conf JOBS KCC KBENCH_CACHE

[ $# -eq 5 ] || kb_die "usage: w1-check.sh WORKTREE OUTDIR LABEL BASE REPORT"
wt=$1
out=$2
label=$3
base=$4
report=$5
command -v sparse >/dev/null || kb_die "w1-check: sparse not found (Debian package sparse): run make deps"

kbc_setup "$wt" "$out" "$label"

# The objects: changed .c files that this config compiles (kbuild left
# the .o's command file in OUTDIR; the .o itself may be gone, removed by
# an earlier check). tools/ and files behind options that are off have none.
objs=()
skipped=0
while IFS= read -r f; do
	if [ -f "$out/$(dirname "$f")/.$(basename "${f%.c}").o.cmd" ]; then
		objs+=("${f%.c}.o")
	else
		skipped=$((skipped + 1))
	fi
done < <(git -C "$wt" diff --name-only --diff-filter=AM "$base" HEAD -- '*.c')

# The lines the series added or changed, as "FILE LINE", from the hunk
# headers of a zero-context diff (+START,COUNT; COUNT 0 is a deletion).
git -C "$wt" diff -U0 --diff-filter=AM "$base" HEAD |
	awk '/^\+\+\+ b\// { f = substr($0, 7); next }
	     /^@@ / {
		split($3, a, ","); start = substr(a[1], 2) + 0
		n = (length(a) > 1) ? a[2] + 0 : 1
		for (i = 0; i < n; i++) print f, start + i
	     }' >"$report.lines"

{
	echo "W=1 C=1 over the series' C files for $label (base $base):"
	echo "  ${#objs[@]} objects compiled; $skipped changed .c files not built by this config"
} >"$report"
if [ "${#objs[@]}" -eq 0 ]; then
	rm -f "$report.lines"
	exit 0
fi

# The objects must compile again: drop them so make cannot say "up to date".
for o in "${objs[@]}"; do
	rm -f "$out/$o"
done
# -Wno-error: CONFIG_WERROR would stop at the first W=1 warning in a file,
# and every diagnostic is wanted, classified below.
if ! kbc_make W=1 C=1 KCFLAGS="-fno-var-tracking -Wno-error" "${objs[@]}" </dev/null >"$report.log" 2>&1; then
	grep -n -m 5 -E 'error:|Error [0-9]' "$report.log" >&2 || true
	kb_die "w1-check: W=1 C=1 compile of ${objs[*]} failed for $label; log: $report.log"
fi

# Each diagnostic as "FILE LINE TEXT", FILE relative to the source tree
# (gcc names it ../FILE or WORKTREE/FILE from OUTDIR).
grep -E '^[^ :]+:[0-9]+:([0-9]+:)? (warning|error):' "$report.log" |
	sed -e "s|^$wt/||" -e 's|^\(\.\./\)*||' |
	sed -E 's/^([^:]+):([0-9]+):([0-9]+:)? (.*)/\1 \2 \4/' | sort -u >"$report.diag" || true

bad=0
base_warn=0
while read -r f n text; do
	if grep -qxF "$f $n" "$report.lines"; then
		c=$(git -C "$wt" blame -L "$n,$n" --porcelain HEAD -- "$f" 2>/dev/null | head -n 1 | cut -d' ' -f1)
		subj=$(git -C "$wt" log -1 --format=%s "$c" 2>/dev/null || echo "?")
		echo "SERIES $f:$n: $text  [patch: $subj]" >>"$report"
		bad=$((bad + 1))
	else
		echo "base   $f:$n: $text" >>"$report"
		base_warn=$((base_warn + 1))
	fi
done <"$report.diag"
rm -f "$report.lines" "$report.diag"
echo "  $bad on lines the series wrote; $base_warn on the base tree's own lines (not the series')" >>"$report"
[ "$bad" -eq 0 ]
