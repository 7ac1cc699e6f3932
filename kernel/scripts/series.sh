#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Resolve a series spec into the ordered list of patch files, one absolute
# path per line on stdout.
#
#   series.sh SPEC WORKDIR
#
# SPEC is one of:
#   none           the empty series (the baseline kernel)
#   a quilt file   one patch per line, '#' comments; paths are relative to
#                  <dir of file>/patches/ or, failing that, <dir of file>/
#   a directory    its *.patch files in name order
#   an mbox        split into WORKDIR with git mailsplit (b4 am output)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

[ $# -eq 2 ] || kb_die "usage: series.sh SPEC WORKDIR"
spec=$1
work=$2

if [ "$spec" = none ]; then
	exit 0
fi
[ -e "$spec" ] || kb_die "SERIES=$spec: no such file or directory (give a quilt series file, a directory of .patch files or an mbox)"

# An mbox ("From " envelope), or one mail: its first line is a header
# (From:, Subject:, ...), or its name says so.
is_mbox() {
	case "$1" in *.mbox | *.mbx | *.eml) [ -s "$1" ] && return 0 ;; esac
	head -n 1 "$1" | grep -Eq '^(From |(From|Subject|Date|Message-I[dD]|To|Cc):)'
}

if [ -d "$spec" ]; then
	dir=$(cd "$spec" && pwd)
	n=0
	for p in "$dir"/*.patch; do
		[ -f "$p" ] || continue
		printf '%s\n' "$p"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || kb_die "SERIES=$spec: directory holds no .patch files"
elif is_mbox "$spec"; then
	mkdir -p "$work/mbox"
	rm -f "$work/mbox"/*
	if head -n 1 "$spec" | grep -q '^From '; then
		n=$(git mailsplit -o"$work/mbox" "$spec" 2>&1) ||
			kb_die "SERIES=$spec: git mailsplit could not split the mbox: $n"
	else
		# one mail, without an mbox envelope
		cp "$spec" "$work/mbox/0001"
		n=1
	fi
	[ "$n" -gt 0 ] || kb_die "SERIES=$spec: mbox holds no patches"
	n=0
	for p in "$work/mbox"/*; do
		# A cover letter (or any message without a diff) is not a patch.
		if ! grep -q '^diff --git ' "$p"; then
			# tr: a NUL in the subject would make bash warn
			kb_verbose "skipping message without a diff: $(sed -n 's/^Subject: //p' "$p" | head -n 1 | tr -d '\0')"
			continue
		fi
		printf '%s\n' "$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || kb_die "SERIES=$spec: mbox holds no patches (no message with a diff)"
elif [ ! -s "$spec" ]; then
	case "$spec" in
	*.mbox | *.mbx | *.eml) kb_die "SERIES=$spec: mbox is empty, it holds no patches" ;;
	esac
	# An empty quilt file is the empty series.
	exit 0
else
	base=$(cd "$(dirname "$spec")" && pwd)
	lineno=0
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		# quilt allows options after the name (-p1); only -p1 is supported
		read -r name opt _ <<<"$line" || true
		[ -n "${name:-}" ] || continue
		if [ -n "${opt:-}" ] && [ "$opt" != "-p1" ]; then
			kb_die "$spec:$lineno: option '$opt' not supported (only -p1)"
		fi
		if [ -f "$base/patches/$name" ]; then
			printf '%s\n' "$base/patches/$name"
		elif [ -f "$base/$name" ]; then
			printf '%s\n' "$base/$name"
		else
			kb_die "$spec:$lineno: patch '$name' not found in $base/patches/ or $base/"
		fi
	done <"$spec"
fi
