#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs shellcheck over the image builder, seed generator, launcher and their tests.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
command -v shellcheck >/dev/null || { echo "1..1"; echo "not ok 1 - shellcheck not installed (make deps)"; exit 1; }
shopt -s nullglob
files=(images/*.sh tests/unit/images-*.t tests/vm/boot-*.t tests/vm/launcher-*.t)
echo "1..${#files[@]}"
n=0 fail=0
for f in "${files[@]}"; do
	n=$((n + 1))
	sh_opt=()
	case "$f" in images/guest-agent.sh) sh_opt=(-s sh) ;; esac
	if out=$(shellcheck -x "${sh_opt[@]}" "$f" 2>&1); then echo "ok $n - shellcheck $f"; else
		echo "not ok $n - shellcheck $f"
		printf '%s\n' "$out" | sed 's/^/# /'
		fail=1
	fi
done
exit "$fail"
