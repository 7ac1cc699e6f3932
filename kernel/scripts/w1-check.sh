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
#   w1-check.sh WORKTREE OUTDIR LABEL BASE REPORT [BASE_WORKTREE BASE_LABEL]
#
# With BASE_WORKTREE (the baseline kernel's, built in its _build), the
# same files are compiled there too: a warning the base already gives in
# the same file with the same text (sparse's "context imbalance in 'f'"
# names a line of the function, which moves when the series edits it) is
# the base's, even on a line the series wrote. The cost: a new warning
# identical to one of the base's in the same file is not seen.
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

[ $# -eq 5 ] || [ $# -eq 7 ] ||
	kb_die "usage: w1-check.sh WORKTREE OUTDIR LABEL BASE REPORT [BASE_WORKTREE BASE_LABEL]"
wt=$1
out=$2
label=$3
base=$4
report=$5
base_wt=${6:-}
base_label=${7:-}
command -v sparse >/dev/null || kb_die "w1-check: sparse not found (Debian package sparse): run make deps"

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

# compile WORKTREE OUTDIR LABEL LOG OBJ...: compile the objects again
# with W=1 C=1 (removed first, so make cannot say "up to date") and print
# each diagnostic as "FILE LINE TEXT", FILE relative to the source tree
# (gcc names it ../FILE or WORKTREE/FILE from OUTDIR).
compile() {
	local w=$1 o=$2 l=$3 log=$4 obj
	shift 4
	kbc_setup "$w" "$o" "$l"
	for obj in "$@"; do
		rm -f "${o:?}/$obj"
	done
	# -Wno-error: CONFIG_WERROR would stop at the first W=1 warning in a
	# file, and every diagnostic is wanted, classified below.
	if ! kbc_make W=1 C=1 KCFLAGS="-fno-var-tracking -Wno-error" "$@" </dev/null >"$log" 2>&1; then
		grep -n -m 5 -E 'error:|Error [0-9]' "$log" >&2 || true
		kb_die "w1-check: W=1 C=1 compile of $* failed for $l; log: $log"
	fi
	grep -E '^[^ :]+:[0-9]+:([0-9]+:)? (warning|error):' "$log" |
		sed -e "s|^$w/||" -e 's|^\(\.\./\)*||' |
		sed -E 's/^([^:]+):([0-9]+):([0-9]+:)? (.*)/\1 \2 \4/' | sort -u || true
}

compile "$wt" "$out" "$label" "$report.log" "${objs[@]}" >"$report.diag"

# The base's diagnostics in the same files, as "FILE TEXT".
: >"$report.basediag"
if [ -n "$base_wt" ]; then
	bobjs=()
	for o in "${objs[@]}"; do
		[ ! -f "$base_wt/_build/$(dirname "$o")/.$(basename "$o").cmd" ] || bobjs+=("$o")
	done
	if [ "${#bobjs[@]}" -gt 0 ]; then
		compile "$base_wt" "$base_wt/_build" "$base_label" "$report.base.log" "${bobjs[@]}" |
			awk '{ f = $1; $1 = ""; $2 = ""; sub(/^  /, ""); print f " " $0 }' >"$report.basediag"
	fi
	echo "  base: the same files compiled in $base_wt (${#bobjs[@]} objects)" >>"$report"
else
	echo "  base: not compiled (no baseline worktree): every warning on a series line counts" >>"$report"
fi

bad=0
base_warn=0
while read -r f n text; do
	if grep -qxF "$f $n" "$report.lines" && ! grep -qxF "$f $text" "$report.basediag"; then
		c=$(git -C "$wt" blame -L "$n,$n" --porcelain HEAD -- "$f" 2>/dev/null | head -n 1 | cut -d' ' -f1)
		subj=$(git -C "$wt" log -1 --format=%s "$c" 2>/dev/null || echo "?")
		echo "SERIES $f:$n: $text  [patch: $subj]" >>"$report"
		bad=$((bad + 1))
	elif grep -qxF "$f $n" "$report.lines"; then
		echo "base   $f:$n: $text  [on a series line; the base gives it too]" >>"$report"
		base_warn=$((base_warn + 1))
	else
		echo "base   $f:$n: $text" >>"$report"
		base_warn=$((base_warn + 1))
	fi
done <"$report.diag"
rm -f "$report.lines" "$report.diag" "$report.basediag"
echo "  $bad on lines the series wrote; $base_warn on the base tree's own lines (not the series')" >>"$report"
[ "$bad" -eq 0 ]
