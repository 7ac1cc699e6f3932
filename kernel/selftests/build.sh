#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build 6.12's own BPF selftests (tools/testing/selftests/bpf: test_progs
# and test_maps) for one kernel, cached by content.
#
#   build.sh LABEL        prints the build's directory
#   build.sh --key LABEL  prints the key (nothing is built)
#
# LABEL is a kernel under $KBENCH_CACHE/labels. The sources are that
# kernel's own commit (build-info.json "commit": its worktree's HEAD, so
# the patched tree's libbpf and uapi carry the series), taken with git
# archive into a scratch directory: nothing is written into the
# worktree. The BPF programs are compiled against the kernel's own BTF
# (VMLINUX_BTF=<label>/vmlinux) with Debian's clang-19; user space with
# gcc, libbpf statically.
#
# The result is $KBENCH_CACHE/upstream-selftests/<key>/ with payload/
# (test_progs, test_maps and what they read at run time), build.log,
# not-built.tsv, tests.h (the test_progs tests built), build-info.json.
# The key is the sha256 of the commit, the vmlinux sha256, the compiler
# versions and the commands and flags that build the selftests: the text
# of build-cmds.sh without its comment and blank lines. This script's
# messages and checks are not in the key: rewording them rebuilds
# nothing.
#
# bpf_testmod.ko and the other test modules are not built: the kbench
# kernels have CONFIG_MODULES off. test_progs runs without them (its
# tests that need bpf_testmod fail or skip, and make upstream-selftests
# says so). Whatever of test_progs does not compile with Debian's
# toolchain is left out, one BPF program or test file at a time, and
# listed in not-built.tsv with the compiler's error line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=kernel/selftests/build-cmds.sh
. "$here/build-cmds.sh"

mode=build
if [ "${1:-}" = --key ]; then
	mode=key
	shift
fi
[ $# -eq 1 ] || kb_die "usage: kernel/selftests/build.sh [--key] LABEL"
label=$1
kb_conf KBENCH_CACHE JOBS

for t in "$CLANG" "$LLC" "$LLVM_STRIP" gcc make rsync jq; do
	command -v "$t" >/dev/null || kb_die "$t is not installed: run make deps"
done

kd=$KBENCH_CACHE/labels/$label
if [ ! -r "$kd/vmlinux" ] || [ ! -r "$kd/build-info.json" ]; then
	kb_die "no kernel '$label' ($kd has no vmlinux or build-info.json): build it first (make kernels, or make kernels DEBUG=1 for the -debug labels)"
fi
kd=$(readlink -f "$kd")
commit=$(jq -r '.commit // empty' "$kd/build-info.json")
[ -n "$commit" ] || kb_die "$kd/build-info.json has no commit: rebuild the kernel with make kernels"

vmsha=$(kb_sha256_file "$kd/vmlinux")
clangv=$("$CLANG" --version | head -n 1)
gccv=$(gcc --version | head -n 1)
inputs=$(printf 'commit %s\nvmlinux %s\nclang %s\ngcc %s\n' "$commit" "$vmsha" "$clangv" "$gccv"
	kb_code "$here/build-cmds.sh" | sed 's/^/build-cmds | /')
key=$(kb_sha256_str "$inputs")
if [ "$mode" = key ]; then
	printf '%s\n' "$key"
	exit 0
fi

# the kernel's git tree: the one that has its commit
repo=
for g in "$KBENCH_CACHE"/linux/*/git; do
	if [ -d "$g" ] && git -C "$g" cat-file -e "$commit^{commit}" 2>/dev/null; then
		repo=$g
		break
	fi
done
[ -n "$repo" ] || kb_die "commit $commit of kernel '$label' is in no tree under $KBENCH_CACHE/linux: rebuild it with make kernels"
wt=$(dirname "$repo")/wt/$label
if [ -d "$wt" ]; then
	head=$(git -C "$wt" rev-parse HEAD 2>/dev/null || echo unknown)
	[ "$head" = "$commit" ] ||
		kb_say "note: worktree $wt is at $head now; building the selftests of $label's own commit $commit"
fi

cache=$KBENCH_CACHE/upstream-selftests
dir=$cache/$key
if [ -f "$dir/build-info.json" ]; then
	kb_verbose "selftests for $label: cached ($dir)"
	printf '%s\n' "$dir"
	exit 0
fi
mkdir -p "$cache"

# One heavy compile at a time on this machine: the kernel builds' lock.
lock=$KBENCH_CACHE/kernel.lock
exec 9>"$lock"
if ! flock -n 9; then
	kb_say "selftests for $label: waiting for the build lock $lock (another build runs)"
	flock 9
fi
if [ -f "$dir/build-info.json" ]; then
	printf '%s\n' "$dir"
	exit 0
fi

# a failed build's scratch directory is kept until the next build (we
# hold the lock: no other build is using one)
rm -rf "$cache"/.tmp-*
tmp=$cache/.tmp-$key-$$
mkdir -p "$tmp/src" "$tmp/bpf" "$tmp/payload"
log=$tmp/build.log
printf '%s\n' "$inputs" >"$tmp/key-inputs.txt"
t0=$(date +%s)
kb_say "selftests for $label: building test_progs and test_maps (key ${key:0:12}; log $log)"

kbs_sources "$repo" "$commit" "$tmp" || kb_die "git archive of $commit from $repo failed"
kb_run_logged "$log" kbs_headers "$tmp" ||
	kb_die "selftests for $label: make headers_install failed; see $log (kept in $tmp)"

kbs_setup "$tmp" "$kd/vmlinux"
nb=$tmp/not-built.tsv
: >"$nb"
pass=0
while :; do
	pass=$((pass + 1))
	echo "=== pass $pass: ${mk[*]} -k test_progs test_maps" >>"$log"
	rc=0
	kb_run_logged "$log.pass" kbs_pass || rc=$?
	cat "$log.pass" >>"$log"
	if [ "$rc" = 0 ]; then
		rm -f "$log.pass"
		break
	fi
	[ "$pass" -lt 5 ] || kb_die "selftests for $label: still failing after $pass passes; see $log (kept in $tmp)"
	mapfile -t failed < <(kbs_failed "$log.pass")
	[ "${#failed[@]}" -gt 0 ] || kb_die "selftests for $label: make failed (exit $rc) with no failed target named; see $log"
	for f in "${failed[@]}"; do
		kbs_leaves_out "$f" ||
			kb_die "selftests for $label: $f failed to build (not a BPF program or a test file, so nothing to leave out); see $log (kept in $tmp)"
		kbs_leave_out "$f" "$log.pass" "$nb"
	done
	rm -f "$log.pass"
	kb_say "selftests for $label: pass $pass: $(grep -c . "$nb") files do not build so far, left out; building the rest"
done

kbs_payload "$tmp"
if [ ! -x "$tmp/payload/test_progs" ] || [ ! -x "$tmp/payload/test_maps" ]; then
	kb_die "selftests for $label: test_progs or test_maps missing after the build; see $log"
fi
kbs_maps_partial "$nb" ||
	kb_die "selftests for $label: test_maps.c does not call $kbs_missing once as 6.12 does: update kernel/selftests/build-cmds.sh"
echo "=== test_maps-partial: ${mk[*]} test_maps" >>"$log"
kb_run_logged "$log" kbs_maps_partial_make "$tmp" ||
	kb_die "selftests for $label: test_maps-partial did not build; see $log"
cp -p "$sdir/prog_tests/tests.h" "$tmp/tests.h"
needed=$(objdump -p "$tmp/payload/test_progs" "$tmp/payload/test_maps" | awk '/NEEDED/ { print $2 }' | sort -u | paste -sd' ')
took=$(($(date +%s) - t0))
nbad=$(grep -c . "$nb" || true)
ntests=$(grep -c '^DEFINE_TEST' "$tmp/tests.h" || true)
{
	echo "{"
	echo "  \"label\": \"$(kb_json_str "$label")\","
	echo "  \"key\": \"$key\","
	echo "  \"commit\": \"$commit\","
	echo "  \"vmlinux_sha256\": \"$vmsha\","
	echo "  \"clang\": \"$(kb_json_str "$clangv")\","
	echo "  \"gcc\": \"$(kb_json_str "$gccv")\","
	echo "  \"needed_libs\": \"$needed\","
	echo "  \"test_progs_tests\": $ntests,"
	echo "  \"not_built\": $nbad,"
	echo "  \"passes\": $pass,"
	echo "  \"build_seconds\": $took,"
	echo "  \"built_at\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""
	echo "}"
} >"$tmp/build-info.json"
rm -rf "${tmp:?}/src" "${tmp:?}/hdr" "${tmp:?}/usr" "${tmp:?}/bpf"
rm -rf "$dir"
mv "$tmp" "$dir"
kb_say "selftests for $label: built in $((took / 60))m$(printf '%02d' $((took % 60)))s ($ntests test_progs tests; $nbad entries in $dir/not-built.tsv) -> $dir"
printf '%s\n' "$dir"
