#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Resolve a series spec into the ordered list of patch files, one absolute
# path per line on stdout.
#
#   series.sh SPEC WORKDIR
#   series.sh --describe SPEC
#
# SPEC is one of:
#   none           the empty series (the baseline kernel)
#   a quilt file   one patch per line, '#' comments; paths are relative to
#                  <dir of file>/patches/ or, failing that, <dir of file>/
#   a directory    its *.patch files in name order
#   an mbox        split into WORKDIR with git mailsplit (b4 am output)
#   git:REPO:BASE..HEAD
#                  the commits of a range of a local git repository (REPO:
#                  a path, ~ is $HOME, relative to the kbench checkout),
#                  written by git format-patch, in order, into
#                  $KBENCH_CACHE/git-series/<base id>-<head id>/ (made
#                  once: the same range gives the same files, byte for
#                  byte, so the kernel's key is the same). BASE must be a
#                  tree of the distro source's version (its Makefile's
#                  VERSION.PATCHLEVEL, 6.12 for linux-source-6.12); a
#                  merge in the range, an empty range, an unknown
#                  revision or repository are named errors.
#
# --describe prints, for a git: spec, a JSON object that says where the
# series came from (repo, range, base and head as given and as full
# commit ids, each commit's id and subject, in order), for build-info.json
# and the run's fingerprint; for the other forms it prints nothing.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

describe=0
if [ "${1:-}" = --describe ]; then
	describe=1
	shift
	[ $# -eq 1 ] || kb_die "usage: series.sh --describe SPEC"
	set -- "$1" ''
fi
[ $# -eq 2 ] || kb_die "usage: series.sh SPEC WORKDIR"
spec=$1
work=$2

# git:REPO:BASE..HEAD. Sets g_repo (absolute), g_base, g_head (as given),
# g_base_id, g_head_id (full ids); every check of the range is here.
git_resolve() {
	local rest repo range out top_dir want have mk merge n
	rest=${spec#git:}
	case "$rest" in
	*:*..*) ;;
	*) kb_die "SERIES=$spec: want git:<repo>:<base>..<head> (a local repository, a colon, a commit range such as v6.12..my-branch)" ;;
	esac
	# a ref cannot hold ':' (git check-ref-format), a path can
	repo=${rest%:*}
	range=${rest##*:}
	g_base=${range%%..*}
	g_head=${range#*..}
	case "$g_head" in .*) kb_die "SERIES=$spec: '$range' is a symmetric difference (...); give base..head" ;; esac
	if [ -z "$repo" ] || [ -z "$g_base" ] || [ -z "$g_head" ]; then
		kb_die "SERIES=$spec: want git:<repo>:<base>..<head>, each part non-empty"
	fi
	case "$repo" in
	\~) repo=$HOME ;;
	\~/*) repo=$HOME/${repo#\~/} ;;
	/*) ;;
	*) repo=$KB_TOP/$repo ;;
	esac
	# the user's repository, not one the environment points git at
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
	[ -e "$repo" ] || kb_die "SERIES=$spec: no such repository: $repo does not exist (give the path of a local git repository)"
	[ -d "$repo" ] || kb_die "SERIES=$spec: not a git repository: $repo is a file (give the path of a local git repository)"
	g_repo=$(cd "$repo" && pwd -P)
	if ! out=$(git -C "$g_repo" rev-parse --is-bare-repository 2>&1); then
		kb_die "SERIES=$spec: not a git repository: $g_repo ($(printf '%s' "$out" | head -n 1))"
	fi
	# a bare repository, or a .git directory, is the repository itself
	[ "$out" = true ] || out=$(git -C "$g_repo" rev-parse --is-inside-git-dir 2>/dev/null) || out=false
	if [ "$out" != true ]; then
		# a directory inside a work tree is not that repository
		top_dir=$(git -C "$g_repo" rev-parse --show-toplevel 2>/dev/null) || top_dir=
		if [ -z "$top_dir" ] || [ "$(cd "$top_dir" && pwd -P)" != "$g_repo" ]; then
			kb_die "SERIES=$spec: not a git repository: $g_repo (it lies inside ${top_dir:-a .git directory}; give the repository's top directory)"
		fi
	fi
	g_base_id=$(git -C "$g_repo" rev-parse -q --verify "$g_base^{commit}" 2>/dev/null) ||
		kb_die "SERIES=$spec: unknown revision '$g_base' in $g_repo (no commit of that name: fetch it, or check git -C $g_repo log --oneline -1 $g_base)"
	g_head_id=$(git -C "$g_repo" rev-parse -q --verify "$g_head^{commit}" 2>/dev/null) ||
		kb_die "SERIES=$spec: unknown revision '$g_head' in $g_repo (no commit of that name: fetch it, or check git -C $g_repo log --oneline -1 $g_head)"

	# The base must be a tree of the distro source's version: the
	# patches go onto Debian's linux-source-X.Y.
	kb_conf KERNEL_SRC_PKG
	want=${KERNEL_SRC_PKG#linux-source-}
	[[ $want =~ ^[0-9]+\.[0-9]+$ ]] ||
		kb_die "SERIES=$spec: cannot tell the distro tree's version from KERNEL_SRC_PKG=$KERNEL_SRC_PKG (want linux-source-X.Y)"
	mk=$(git -C "$g_repo" show "$g_base_id:Makefile" 2>/dev/null) || mk=
	have=$(printf '%s\n' "$mk" | awk -F= '
		/^VERSION[ \t]*=/ { gsub(/[ \t]/, "", $2); v = $2 }
		/^PATCHLEVEL[ \t]*=/ { gsub(/[ \t]/, "", $2); p = $2 }
		END { if (v != "" && p != "") print v "." p }')
	[ -n "$have" ] ||
		kb_die "SERIES=$spec: base $g_base has no top-level Makefile with VERSION and PATCHLEVEL: not a Linux tree; the distro tree is $want.x ($KERNEL_SRC_PKG): give a range based on a v$want tag"
	[ "$have" = "$want" ] ||
		kb_die "SERIES=$spec: base $g_base is Linux $have; the distro tree is $want.x ($KERNEL_SRC_PKG): rebase the series on a v$want tag"

	git -C "$g_repo" merge-base --is-ancestor "$g_base_id" "$g_head_id" ||
		kb_die "SERIES=$spec: base $g_base is not an ancestor of head $g_head, so $range is not a series on $g_base; give the commit the branch starts from as base (git -C $g_repo merge-base $g_base $g_head)"
	n=$(git -C "$g_repo" rev-list --count "$g_base_id..$g_head_id")
	[ "$n" -gt 0 ] ||
		kb_die "SERIES=$spec: empty range: $g_head is $g_base itself, so $range holds no commits"
	# the first merge (sed reads all of rev-list's output: no SIGPIPE,
	# which pipefail would turn into a silent exit)
	merge=$(git -C "$g_repo" rev-list --reverse --merges "$g_base_id..$g_head_id" | sed -n 1p)
	[ -z "$merge" ] ||
		kb_die "SERIES=$spec: commit $merge ($(git -C "$g_repo" log -1 --format=%s "$merge")) in $range is a merge: a merge is not a patch; make the range linear (git rebase $g_base) and give that"
}

# git_describe: the JSON object of --describe.
git_describe() {
	git -C "$g_repo" log --reverse --format='%H%x09%s' "$g_base_id..$g_head_id" |
		jq -R 'split("\t") | {commit: .[0], subject: (.[1:] | join("\t"))}' |
		jq -s --arg spec "$spec" --arg repo "$g_repo" --arg range "$g_base..$g_head" \
			--arg base "$g_base" --arg head "$g_head" --arg bid "$g_base_id" --arg hid "$g_head_id" \
			'{spec: $spec, repo: $repo, range: $range, base: $base, head: $head,
			  base_commit: $bid, head_commit: $hid, commits: .}'
}

# git_patches: the range as patch files, listed in order. The format is
# fixed here, whatever the repository's own diff.* and format.* settings
# say, so that a patch's bytes depend on its commit alone: full blob ids
# (an abbreviated id grows with the repository), and no "n/m" in the
# subject, so that a commit is the same patch in every range that holds
# it (a v2 that keeps v1's first patches shares their kernels, and
# bisect-perf starts after them). A change to these options changes the
# patches' bytes: give the directory a new name with it.
git_patches() {
	local dir=$KBENCH_CACHE/git-series/$g_base_id-$g_head_id tmpd n out
	if [ ! -f "$dir/series.json" ]; then
		mkdir -p "$KBENCH_CACHE/git-series"
		tmpd=$(mktemp -d "$dir.tmp.XXXXXX")
		if ! out=$(git -C "$g_repo" -c diff.noprefix=false -c diff.mnemonicPrefix=false \
			-c diff.relative=false -c diff.renames=true -c diff.orderFile=/dev/null \
			-c diff.srcPrefix=a/ -c diff.dstPrefix=b/ -c format.noprefix=false \
			-c format.encodeEmailHeaders=true -c format.forceInBodyFrom=false \
			-c core.quotePath=true -c diff.interHunkContext=0 -c diff.indentHeuristic=true \
			format-patch -q --full-index --no-stat --unified=3 --diff-algorithm=myers \
			--no-signature --no-cover-letter --no-thread --no-notes --no-attach \
			--no-base --no-from --no-to --no-cc --no-add-header --no-signoff \
			--no-numbered --subject-prefix=PATCH --suffix=.patch --filename-max-length=64 \
			-o "$tmpd" "$g_base_id..$g_head_id" 2>&1); then
			rm -rf "$tmpd"
			kb_die "SERIES=$spec: git format-patch of $g_base_id..$g_head_id in $g_repo failed: $(printf '%s\n' "$out" | tail -n 1)"
		fi
		# file names in order, beside each commit's id and subject
		git_describe | jq --arg files "$(cd "$tmpd" && LC_ALL=C ls -- *.patch)" \
			'($files | split("\n")) as $f | .commits |= [to_entries[] | .value + {file: $f[.key]}]
			 | {base_commit, head_commit, commits}' >"$tmpd/series.json"
		n=$(jq '[.commits[] | select(.file != null)] | length' "$tmpd/series.json")
		if [ "$n" != "$(jq '.commits | length' "$tmpd/series.json")" ] ||
			[ "$n" != "$(find "$tmpd" -name '*.patch' | wc -l)" ]; then
			rm -rf "$tmpd"
			kb_die "SERIES=$spec: git format-patch wrote another number of patches than the range has commits ($n); see $g_repo"
		fi
		# another make may have written it first: same ids, same bytes
		mv -T "$tmpd" "$dir" 2>/dev/null || rm -rf "$tmpd"
		[ -f "$dir/series.json" ] || kb_die "SERIES=$spec: could not write $dir"
	fi
	jq -r --arg d "$dir" '.commits[] | "\($d)/\(.file)"' "$dir/series.json"
}

if [ "$spec" = none ]; then
	exit 0
fi
case "$spec" in
git:*)
	kb_conf KBENCH_CACHE
	git_resolve
	if [ "$describe" = 1 ]; then
		git_describe
	else
		git_patches
	fi
	exit 0 ;;
esac
[ "$describe" = 0 ] || exit 0
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
