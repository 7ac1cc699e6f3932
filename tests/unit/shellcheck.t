#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every shell script and shell test in the repository passes shellcheck.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
if ! command -v shellcheck >/dev/null; then
	echo "1..1"
	echo "not ok 1 - shellcheck is not installed (make deps installs it)"
	exit 1
fi
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.sh' '*.t' .ci/run 'kernel/checks/*/boot-check' |
	while IFS= read -r f; do
		[ -f "$f" ] && head -n 1 "$f" | grep -qE '^#!/bin/(ba)?sh|^# SPDX' && echo "$f"
	done | sort -u)
echo "1..${#files[@]}"
i=0
fail=0
for f in "${files[@]}"; do
	i=$((i + 1))
	if out=$(shellcheck -x "$f" 2>&1); then
		echo "ok $i - shellcheck $f"
	else
		echo "not ok $i - shellcheck $f"
		printf '%s\n' "$out" | sed 's/^/# /'
		fail=1
	fi
done
exit "$fail"
