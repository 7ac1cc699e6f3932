#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reject unknown keys in bench.local.conf: every key must be one that
# bench.conf defines. A typo would otherwise be silently ignored.
#
#   check-conf.sh bench.conf [bench.local.conf]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || kb_die "usage: check-conf.sh bench.conf [bench.local.conf]"
defaults=$1
known=$(sed -n 's/^\([A-Z_][A-Z0-9_]*\)[[:space:]]*?=.*/\1/p' "$defaults")
[ $# -ge 2 ] || exit 0
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case "$line" in "" | "#"*) continue ;; esac
	k=$(printf '%s\n' "$line" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*[:?+]*=.*/\1/p')
	[ -n "$k" ] || kb_die "$2:$lineno: not a KEY = value line: $line"
	# a here-string, not a pipe: under pipefail, grep -q may leave
	# the writer of a pipe to die of SIGPIPE and fail the test
	if ! grep -qxF "$k" <<<"$known"; then
		# shellcheck disable=SC2086 # one candidate per word
		near=$(kb_closest "$k" $known)
		kb_die "$2:$lineno: unknown key '$k'${near:+ (did you mean $near?)}; the known keys are those $defaults sets"
	fi
done <"$2"
