#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compare two run fingerprints: everything must match but the kernels.
#   analysis/fpdiff.sh A.json B.json
# Prints each differing field as a dotted path (nested objects are
# walked; arrays compare whole) and exits 1 if any differ, 0 if none,
# 2 on a usage or parse error. Fields under "kernel" or "kernels" are
# ignored: they are what a comparison is about.
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: analysis/fpdiff.sh A.json B.json" >&2
	exit 2
fi
command -v jq >/dev/null || {
	echo "kbench: error: jq not found: install jq (make deps)" >&2
	exit 2
}
for f in "$1" "$2"; do
	if ! jq -e 'type == "object"' "$f" >/dev/null 2>&1; then
		echo "kbench: error: $f: not a JSON object (a fingerprint.json)" >&2
		exit 2
	fi
done

diffs=$(jq -n -r --slurpfile a "$1" --slurpfile b "$2" --arg an "$1" --arg bn "$2" '
	def leaves:
		if type == "object" and length > 0 then
			to_entries[] | .key as $k | (.value | leaves) | [$k] + .
		else [] end;
	def has_path($p): . as $o | $p as $p | reduce $p[] as $k ({ok: true, v: $o};
		if .ok and (.v | type) == "object" and (.v | has($k))
		then .v = .v[$k] else .ok = false end) | .ok;
	$a[0] as $a | $b[0] as $b
	| ([$a | leaves] + [$b | leaves] | unique)[]
	| select(.[0] != "kernel" and .[0] != "kernels") as $p
	| ($p | map(tostring) | join(".")) as $name
	| if ($a | has_path($p)) and ($b | has_path($p)) then
		select(($a | getpath($p)) != ($b | getpath($p)))
		| "\($name): \($a | getpath($p) | tojson) != \($b | getpath($p) | tojson)"
	  elif ($a | has_path($p)) then "\($name): only in \($an)"
	  else "\($name): only in \($bn)" end
')
if [ -n "$diffs" ]; then
	printf '%s\n' "$diffs"
	exit 1
fi
exit 0
