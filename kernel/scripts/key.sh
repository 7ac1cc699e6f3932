#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the content key of a kernel: the sha256 over everything that
# determines it. With -v, print the inputs instead (for build-info.json
# and for debugging a cache miss).
#
#   key.sh [-v] LISTFILE
#
# Inputs: source package version, Kconfig fragment (with DEBUG=1 the
# debug fragment too), every patch's bytes in order (LISTFILE names the
# patch files), compiler and pahole versions, and the commands and flags
# that apply, configure and build: the text of build-cmds.sh without its
# comment and blank lines. A kernel's label is not an input: it only
# names the kernel (labels/LABEL), and the release string is made from
# this key (build.sh), so two labels of the same inputs are one kernel.
# The rest of the scripts (progress, checks, error messages) is not an
# input, so rewording a message rebuilds nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"

verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
[ $# -eq 1 ] || kb_die "usage: key.sh [-v] LISTFILE (the patch files, one a line; a kernel's label is not part of its key)"
list=$1
[ -r "$list" ] || kb_die "key.sh: $list: no such list of patch files"

kb_conf KERNEL_SRC_PKG
kb_conf KCONFIG_FRAGMENT
case "$KCONFIG_FRAGMENT" in /*) ;; *) KCONFIG_FRAGMENT=$KB_TOP/$KCONFIG_FRAGMENT ;; esac
kb_conf KCC
kb_conf DEBUG KCONFIG_DEBUG_FRAGMENT
case "$KCONFIG_DEBUG_FRAGMENT" in /*) ;; *) KCONFIG_DEBUG_FRAGMENT=$KB_TOP/$KCONFIG_DEBUG_FRAGMENT ;; esac

srcver=${KB_SRCVER:-$(dpkg-query -W -f='${Version}' "$KERNEL_SRC_PKG" 2>/dev/null)} ||
	kb_die "source package $KERNEL_SRC_PKG is not installed (make deps installs it)"
[ -f "$KCONFIG_FRAGMENT" ] || kb_die "Kconfig fragment $KCONFIG_FRAGMENT not found"
cmds=$here/build-cmds.sh
[ -f "$cmds" ] || kb_die "$cmds not found"
ccver=${KB_CCVER:-$("$KCC" --version | head -n 1)}
pahole=${KB_PAHOLEVER:-$(pahole --version 2>/dev/null || echo none)}

inputs() {
	printf 'source %s %s\n' "$KERNEL_SRC_PKG" "$srcver"
	printf 'fragment %s\n' "$(kb_sha256_file "$KCONFIG_FRAGMENT")"
	if [ "$DEBUG" = 1 ]; then
		printf 'debug-fragment %s\n' "$(kb_sha256_file "$KCONFIG_DEBUG_FRAGMENT")"
	fi
	printf 'compiler %s\n' "$ccver"
	printf 'pahole %s\n' "$pahole"
	kb_code "$cmds" | sed 's/^/build-cmds | /'
	while IFS= read -r p; do
		[ -n "$p" ] || continue
		printf 'patch %s\n' "$(kb_sha256_file "$p")"
	done <"$list"
}

if [ "$verbose" = 1 ]; then
	inputs
else
	inputs | sha256sum | cut -d' ' -f1
fi
