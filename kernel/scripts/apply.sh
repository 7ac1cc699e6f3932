#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Put WORKTREE at BASE plus the patches listed in LISTFILE, one commit per
# patch (git am). On failure, name the patch and the file/hunk that failed,
# abort the am and leave the worktree clean at BASE.
#
#   apply.sh WORKTREE BASE LISTFILE LOG
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=kernel/scripts/build-cmds.sh
. "$(dirname "$0")/build-cmds.sh"

[ $# -eq 4 ] || kb_die "usage: apply.sh WORKTREE BASE LISTFILE LOG"
wt=$1
base=$2
list=$3
log=$4

g() {
	git -C "$wt" "$@"
}

kbc_git_identity

reset_to_base() {
	g am --abort >/dev/null 2>&1 || true
	g reset -q --hard
	g checkout -q --detach "$base"
	g clean -q -fd -e _build
}

reset_to_base

total=$(grep -c . "$list" || true)
n=0
while IFS= read -r p; do
	[ -n "$p" ] || continue
	n=$((n + 1))
	kb_say "apply $n/$total: $(basename "$p")"
	out=$(kbc_am "$wt" "$p" 2>&1) && {
		printf '%s\n' "$out" >>"$log"
		continue
	}
	printf '%s\n' "$out" >>"$log"
	# git apply reports "error: patch failed: FILE:LINE" per bad hunk.
	where=$(printf '%s\n' "$out" | sed -n 's/^error: patch failed: //p' | head -n 3 | tr '\n' ' ')
	why=$(printf '%s\n' "$out" | grep '^error:' | grep -v 'patch failed' | head -n 2 | tr '\n' ' ')
	reset_to_base
	# a patch of a git: series (series.sh): the commit it was made from
	from=''
	real=$(readlink -f "$p")
	if [ -f "$(dirname "$real")/series.json" ]; then
		from=$(jq -r --arg f "$(basename "$real")" \
			'.commits[] | select(.file == $f) | "  made from commit \(.commit) (\(.subject))"' \
			"$(dirname "$real")/series.json" 2>/dev/null) || from=''
	fi
	kb_die "patch $n/$total does not apply: $p${from:+
$from}
  failed hunk at: ${where:-unknown} ${why}
  the tree was reset to the base commit; rebase the patch onto $base (full output in $log)"
done <"$list"

g rev-parse HEAD
