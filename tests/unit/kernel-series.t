#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Series parsing (quilt file, directory, mbox), the content key, and a
# patch that does not apply, against a scratch git tree (not the kernel).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/kernel
ks=$top/kernel/scripts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..17"

# scratch tree with a base commit, like the kernel cache tree
repo=$tmp/repo
mkdir -p "$repo"
cp "$fx/base/demo.c" "$repo/"
git -C "$repo" init -q
git -C "$repo" -c user.name=t -c user.email=t@t add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -qm base
git -C "$repo" tag kbench-base

# 1-3: the three series forms give the same two patches in order
"$ks/series.sh" "$fx/series" "$tmp/w1" >"$tmp/quilt.list"
"$ks/series.sh" "$fx/dir" "$tmp/w2" >"$tmp/dir.list"
"$ks/series.sh" "$fx/series.mbox" "$tmp/w3" >"$tmp/mbox.list"
check "quilt series lists 2 patches in order" \
	bash -c "[ \$(wc -l <'$tmp/quilt.list') = 2 ] && head -n1 '$tmp/quilt.list' | grep -q 0001-demo-raise-a.patch"
check "directory series lists 2 patches in order" \
	bash -c "[ \$(wc -l <'$tmp/dir.list') = 2 ] && tail -n1 '$tmp/dir.list' | grep -q 0002-demo-add-d.patch"
check "mbox series is split into 2 patches" \
	bash -c "[ \$(wc -l <'$tmp/mbox.list') = 2 ]"

# 4-6: each form applies as one commit per patch, same resulting tree
for form in quilt dir mbox; do
	"$ks/apply.sh" "$repo" kbench-base "$tmp/$form.list" "$tmp/apply.log" >"$tmp/$form.head" 2>/dev/null
	git -C "$repo" rev-parse "HEAD^{tree}" >"$tmp/$form.tree"
	git -C "$repo" rev-list --count kbench-base..HEAD >"$tmp/$form.count"
done
check "quilt applies as 2 commits" grep -qx 2 "$tmp/quilt.count"
check "directory and mbox give the same tree as quilt" \
	bash -c "cmp -s '$tmp/quilt.tree' '$tmp/dir.tree' && cmp -s '$tmp/quilt.tree' '$tmp/mbox.tree'"
check "the patched file has both changes" \
	bash -c "grep -q 'a = 10' '$repo/demo.c' && grep -q 'd = 4' '$repo/demo.c'"

# 7-9: errors for bad specs
check "missing SERIES path is a clear error" \
	bash -c "'$ks/series.sh' '$tmp/nope' '$tmp/w4' 2>&1 | grep -q 'SERIES=.*nope: no such file'"
printf 'From nobody Mon Sep 17 00:00:00 2001\n' >"$tmp/empty.mbox"
check "empty mbox is a clear error" \
	bash -c "'$ks/series.sh' '$tmp/empty.mbox' '$tmp/w5' 2>&1 | grep -q 'holds no patches'"
printf 'demo/0001-demo-raise-a.patch\nmissing.patch\n' >"$tmp/badseries"
mkdir -p "$tmp/patches/demo"
cp "$fx/patches/demo/0001-demo-raise-a.patch" "$tmp/patches/demo/"
check "unknown patch in a quilt file names file and line" \
	bash -c "'$ks/series.sh' '$tmp/badseries' '$tmp/w6' 2>&1 | grep -q 'badseries:2: patch .missing.patch. not found'"

# 10-12: a broken patch is named with its hunk, and the tree is left clean
printf '%s\n%s\n' "$fx/patches/demo/0001-demo-raise-a.patch" "$fx/broken.patch" >"$tmp/broken.list"
if "$ks/apply.sh" "$repo" kbench-base "$tmp/broken.list" "$tmp/apply.log" >"$tmp/apply.out" 2>"$tmp/apply.err"; then
	ok 1 "broken patch fails"
else
	ok 0 "broken patch fails"
fi
check "error names the patch file and the failing file:line" \
	bash -c "grep -q 'patch 2/2 does not apply: .*broken.patch' '$tmp/apply.err' && grep -q 'failed hunk at: demo.c:1' '$tmp/apply.err'"
check "tree is clean at the base commit after the failure" \
	bash -c "[ -z \"\$(git -C '$repo' status --porcelain)\" ] && [ \"\$(git -C '$repo' rev-parse HEAD)\" = \"\$(git -C '$repo' rev-parse kbench-base)\" ] && [ ! -d '$repo/.git/rebase-apply' ]"

# 13-17: the content key
export KB_SRCVER=6.12.118-1 KB_CCVER="gcc 12.2.0" KB_PAHOLEVER=v1.24
export KCONFIG_FRAGMENT=$tmp/frag.config
printf 'CONFIG_BPF=y\n' >"$KCONFIG_FRAGMENT"
cp -r "$fx/patches/demo" "$tmp/kp"
ls "$tmp"/kp/*.patch >"$tmp/k.list"
k1=$("$ks/key.sh" "$tmp/k.list")
k2=$("$ks/key.sh" "$tmp/k.list")
check "key is stable for identical inputs" test "$k1" = "$k2"
printf ' ' >>"$tmp/kp/0002-demo-add-d.patch"
k3=$("$ks/key.sh" "$tmp/k.list")
check "key changes when one patch byte changes" test "$k1" != "$k3"
printf '# CONFIG_DRM is not set\n' >>"$KCONFIG_FRAGMENT"
k4=$("$ks/key.sh" "$tmp/k.list")
check "key changes when the config fragment changes" test "$k3" != "$k4"
k5=$(KB_CCVER="gcc 13.1.0" "$ks/key.sh" "$tmp/k.list")
check "key changes when the compiler changes" test "$k4" != "$k5"
: >"$tmp/empty.list"
kb=$("$ks/key.sh" "$tmp/empty.list")
: >"$tmp/empty.series"
"$ks/series.sh" "$tmp/empty.series" "$tmp" >"$tmp/empty-quilt.list"
kp=$("$ks/key.sh" "$tmp/empty-quilt.list")
check "an empty quilt series is the baseline's kernel: one key (a label is not part of it)" test "$kb" = "$kp"

exit "$fail"
