#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# analysis/history.sh's rev_of(): the revision label the history store
# gives a series. A git: range is labelled from its head ref, never from
# its base (v6.12 is the kernel's version, not the series' revision);
# an mbox from its subjects or file name; anything else by its hash.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..7"

# the function alone: history.sh runs its command when sourced
sed -n '/^rev_of() {/,/^}/p' "$top/analysis/history.sh" >"$tmp/rev_of.sh"
if ! grep -q '^rev_of() {' "$tmp/rev_of.sh"; then
	echo "not ok 1 - rev_of() not found in analysis/history.sh"
	exit 1
fi
# shellcheck source=/dev/null
. "$tmp/rev_of.sh"
sha=0123456789abcdef0123

is "git: head ref my-series-v3 is v3" "$(rev_of 'git:~/linux:v6.12..my-series-v3' $sha)" v3
is "git: base v6.12 is not a revision (head 'topic': the hash)" "$(rev_of 'git:/l:v6.12..topic' $sha)" h:0123456789ab
is "git: head v6.13 (a kernel tag) is not a revision either" "$(rev_of 'git:/l:v6.12..v6.13' $sha)" h:0123456789ab
is "git: head v2/fix is v2" "$(rev_of 'git:/l:v6.12..v2/fix' $sha)" v2
printf 'From x\nSubject: [PATCH v4 1/2] a: b\n' >"$tmp/s.mbx"
is "mbox: [PATCH v4 1/2] is v4" "$(rev_of "$tmp/s.mbx" $sha)" v4
printf 'From x\nSubject: [PATCH 1/2] a: b\n' >"$tmp/plain.mbx"
is "mbox: [PATCH 1/2] is v1" "$(rev_of "$tmp/plain.mbx" $sha)" v1
is "a quilt file named series: the hash" "$(rev_of "$top/kernel/series" $sha)" h:0123456789ab
exit "$fail"
