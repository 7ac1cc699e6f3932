#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series' patch files back from a kernel tree whose history is
# the base commit plus one commit per entry of kernel/series, in order
# (the tree build.sh or a developer's own worktree made with git am):
#
#   regen-patches.sh TREE [BASE]
#
# BASE defaults to the tag kbench-base. Each topic's patches are written
# with git format-patch (numbered within the topic, zero commit ids, no
# signature), under the names kernel/series lists; a commit whose subject
# gives another file name is an error naming it, so the series file is
# never silently out of step. Patches are never edited by hand.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

case $# in 1 | 2) ;; *) kb_die "usage: regen-patches.sh TREE [BASE]" ;; esac
tree=$1
base=${2:-kbench-base}
series=$top/kernel/series

mapfile -t entries < <(grep -v '^[[:space:]]*#' "$series" | grep .)
mapfile -t commits < <(git -C "$tree" rev-list --reverse "$base..HEAD")
[ "${#commits[@]}" = "${#entries[@]}" ] ||
	kb_die "$tree has ${#commits[@]} commits on $base, but $series lists ${#entries[@]} patches: the tree must be the base plus one commit per patch"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-regen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# topics in series order: the directory of each entry (patches/<topic>)
topics=()
i=0
while [ "$i" -lt "${#entries[@]}" ]; do
	topic=$(dirname "${entries[$i]}")
	first=$i
	while [ "$i" -lt "${#entries[@]}" ] && [ "$(dirname "${entries[$i]}")" = "$topic" ]; do
		i=$((i + 1))
	done
	topics+=("$topic")
	out=$tmp/$topic
	mkdir -p "$out"
	git -C "$tree" format-patch -q --zero-commit --no-signature -o "$out" \
		"${commits[$first]}~1..${commits[$((i - 1))]}"
	for j in $(seq "$first" $((i - 1))); do
		want=$(basename "${entries[$j]}")
		[ -f "$out/$want" ] ||
			kb_die "commit ${commits[$j]} ($(git -C "$tree" log -1 --format=%s "${commits[$j]}")) gives $(cd "$out" && find . -name "$(printf '%04d' $((j - first + 1)))-*" -printf '%f'), but $series lists $want: rename it in $series"
	done
done
for topic in "${topics[@]}"; do
	cp "$tmp/$topic"/*.patch "$top/kernel/$topic/"
done
kb_say "wrote ${#entries[@]} patches from $tree into kernel/patches/"
