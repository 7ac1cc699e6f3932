#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print a built kernel's build-info.json on stdout: what was built, from
# what and with what.
#
#   build-info.sh LABEL KEY SOURCE VERSION RELEASE TREE CONFIG FRAGMENT LIST SECONDS [DESC]
#
# LABEL is the name the build was asked for, used in errors only: the
# kernel's directory is keyed by its content, so any number of labels
# may name it (labels/), and build-info.json records none of them.
# SOURCE is "<package> <version>"; VERSION and RELEASE are make
# kernelversion and kernelrelease; TREE is the kernel's git worktree, at
# the built commit, with the tag kbench-base at the base; CONFIG is the
# .config it was built with; LIST names the applied patch files in order
# (one commit each on top of kbench-base); SECONDS is the build time. The
# compiler is $KCC (default gcc). DESC, when given and not empty, is
# series.sh --describe's output for a git: series: it becomes "git_series"
# (repository, range, base and head as given and as commit ids) and each
# patch's "commit".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"

[ $# -eq 10 ] || [ $# -eq 11 ] ||
	kb_die "usage: build-info.sh LABEL KEY SOURCE VERSION RELEASE TREE CONFIG FRAGMENT LIST SECONDS [DESC]"
label=$1
key=$2
source=$3
version=$4
release=$5
tree=$6
config=$7
fragment=$8
list=$9
seconds=${10}
desc=${11:-}
kb_conf KCC

head=$(git -C "$tree" rev-parse HEAD)
base=$(git -C "$tree" rev-parse kbench-base)
# One commit per patch, in list order: the subjects as git am read them
# (unfolded, [PATCH] prefix dropped, RFC 2047 decoded).
mapfile -t subjects < <(git -C "$tree" log --reverse --format=%s kbench-base..HEAD)
npatches=$(grep -c . "$list" || true)
[ "${#subjects[@]}" -eq "$npatches" ] ||
	kb_die "kernel $label: $tree: ${#subjects[@]} commits on kbench-base, but $list names $npatches patches"
commits=()
if [ -n "$desc" ] && [ -s "$desc" ]; then
	ids=$(jq -r '.commits[].commit' "$desc") || kb_die "$desc: not series.sh --describe's JSON"
	mapfile -t commits <<<"$ids"
	[ "${#commits[@]}" -eq "$npatches" ] ||
		kb_die "$desc: ${#commits[@]} commits in the git: series, but $list names $npatches patches"
fi

# The patches, four arguments each (file, subject, sha256, commit or
# empty, after --: a subject may begin with -): one jq writes the document
pargs=()
i=0
while IFS= read -r p; do
	[ -n "$p" ] || continue
	pargs+=("$(basename "$p")" "${subjects[$i]}" "$(kb_sha256_file "$p")" "${commits[$i]:-}")
	i=$((i + 1))
done <"$list"
# DEBUG=1 kernels (build.sh): the debug fragment merged after it
debug=false dfrag=
if [ "${DEBUG:-0}" = 1 ]; then
	debug=true dfrag=$(kb_sha256_file "$KCONFIG_DEBUG_FRAGMENT")
fi
gs=null
[ "${#commits[@]}" = 0 ] || gs=$(jq -c '{spec, repo, range, base, head, base_commit, head_commit}' "$desc")
jq -n --arg key "$key" --arg source "$source" --arg version "$version" --arg release "$release" \
	--arg head "$head" --arg base "$base" --arg config "$(kb_sha256_file "$config")" \
	--arg fragment "$(kb_sha256_file "$fragment")" --argjson debug "$debug" --arg dfrag "$dfrag" \
	--arg cc "$("$KCC" --version | head -n 1)" --arg pahole "$(pahole --version 2>/dev/null || echo none)" \
	--argjson gs "$gs" --argjson seconds "$seconds" --arg built "$(date -u +%Y-%m-%dT%H:%M:%SZ)" '
	{
		key: $key, base_version: $source, kernel_version: $version, release: $release,
		commit: $head, base_commit: $base, config_sha256: $config, fragment_sha256: $fragment,
		debug: $debug
	}
	+ (if $debug then {debug_fragment_sha256: $dfrag} else {} end)
	+ {compiler: $cc, pahole: $pahole}
	+ (if $gs then {git_series: $gs} else {} end)
	+ {
		build_seconds: $seconds, built_at: $built,
		patches: [$ARGS.positional as $a | range(0; $a | length; 4) | $a[.:. + 4]
			| {file: .[0], subject: .[1], sha256: .[2]} + (if .[3] != "" then {commit: .[3]} else {} end)]
	}' --args -- ${pargs[@]+"${pargs[@]}"}
