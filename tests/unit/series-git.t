#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A series given as git:<repo>:<base>..<head> (kernel/scripts/series.sh):
# the range's commits come out as patches, in order, with the commits'
# content, into one directory per range under $KBENCH_CACHE whose bytes
# are the same each time; each bad input is a named error; a patch that
# does not apply names its commit; build-info.json and the run's
# fingerprint record the repository, the range and the commit ids.
# Everything runs on throwaway repositories and trees made here (a fake
# 6.12 Makefile), never on the kernel tree; no kernel is built.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ks=$top/kernel/scripts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

echo "1..41"
for tool in git jq; do
	if ! command -v "$tool" >/dev/null; then
		echo "Bail out! $tool is not installed (make deps installs it)"
		exit 1
	fi
done

# No user or system git settings, no repository above $tmp, a home of
# our own (for ~), fixed identities; the cache is ours.
mkdir -p "$tmp/home" "$tmp/cache"
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES=$tmp
export GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.org
export GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.org
export KBENCH_CACHE=$tmp/cache KERNEL_SRC_PKG=linux-source-6.12
unset GIT_DIR GIT_WORK_TREE

makefile() {
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = 0\nEXTRAVERSION =\nNAME = Fake\n' "$1" "$2"
}
commit() { git -C "$r" add -A && git -C "$r" commit -q -m "$1"; }

# The repository: v6.6, then v6.12 (the base), then the series on a
# branch, a merge on another, and a commit on a file the fake distro
# tree lacks.
r=$tmp/linux
mkdir -p "$r/lib"
git -C "$r" init -q -b master
printf 'a start\n' >"$r/README"
commit "README"
git -C "$r" tag pre
makefile 6 6 >"$r/Makefile"
printf 'int a = 1;\nint b = 2;\nint c = 3;\n' >"$r/demo.c"
commit "Linux 6.6"
git -C "$r" tag v6.6
makefile 6 12 >"$r/Makefile"
printf 'int m = 0;\n' >"$r/lib/missing.c"
commit "Linux 6.12"
git -C "$r" tag -a -m "Linux 6.12" v6.12
git -C "$r" checkout -q -b topic
sed -i 's/a = 1/a = 10/' "$r/demo.c"
commit "demo: raise a"
printf 'int d = 4;\n' >>"$r/demo.c"
commit "demo: add d"
printf 'int n = 1;\n' >"$r/new.c"
commit "new: a file of its own"
git -C "$r" checkout -q -b merged v6.12
printf 'int e = 5;\n' >"$r/e.c"
commit "e: a file"
git -C "$r" merge -q --no-ff -m "Merge branch topic" topic
git -C "$r" checkout -q -b bad v6.12
printf 'int m = 1;\n' >"$r/lib/missing.c"
commit "lib: change the missing file"
git -C "$r" checkout -q master
# settings that would change format-patch's output, were they read
git -C "$r" config diff.noprefix true
git -C "$r" config format.signature "a signature"
git -C "$r" config core.abbrev 7
git -C "$r" config format.numbered false
base_id=$(git -C "$r" rev-parse 'v6.12^{commit}')
head_id=$(git -C "$r" rev-parse topic)
mapfile -t ids < <(git -C "$r" rev-list --reverse v6.12..topic)

# A tree standing for the distro source: v6.12's files, committed
# under kbench-base as build.sh does (optionally without a file).
fake_tree() {
	local d=$1
	mkdir -p "$d"
	git -C "$r" archive v6.12 | tar -x -C "$d"
	[ -z "${2:-}" ] || rm -f "$d/$2"
	git -C "$d" init -q
	git -C "$d" add -A
	git -C "$d" commit -q -m "distro tree"
	git -C "$d" tag kbench-base
}

series() { "$ks/series.sh" "$@"; }

# 1-6: the range as patches, in order, with the commits' content
spec=git:$r:v6.12..topic
dir=$KBENCH_CACHE/git-series/$base_id-$head_id
check "git: spec gives a list" series "$spec" "$tmp/w"
cp "$tmp/out" "$tmp/list1"
is "one patch per commit of the range" "$(grep -c . "$tmp/list1")" 3
is "the patches lie in the cache, under the range's commit ids" \
	"$(xargs -n1 dirname <"$tmp/list1" | sort -u)" "$dir"
is "in order, named as format-patch names them" \
	"$(xargs -n1 basename <"$tmp/list1" | tr '\n' ' ')" \
	"0001-demo-raise-a.patch 0002-demo-add-d.patch 0003-new-a-file-of-its-own.patch "
got=$(while IFS= read -r p; do sed -n '1s/^From \([0-9a-f]*\) .*/\1/p' "$p"; done <"$tmp/list1" | tr '\n' ' ')
is "each patch is its commit, in the range's order" "$got" "${ids[*]} "
fake_tree "$tmp/distro"
"$ks/apply.sh" "$tmp/distro" kbench-base "$tmp/list1" "$tmp/apply.log" >/dev/null 2>&1 || true
is "applied to the distro tree, the patches give the head's tree" \
	"$(git -C "$tmp/distro" rev-parse 'HEAD^{tree}')" "$(git -C "$r" rev-parse 'topic^{tree}')"

# 7-8: the repository's own diff and format settings are not read
t "full index lines, a/ b/ prefixes (diff.noprefix, core.abbrev ignored)" \
	grep -qE '^index [0-9a-f]{40}\.\.[0-9a-f]{40} [0-7]+$' "$dir/0001-demo-raise-a.patch"
t "no signature, no n/m in the subject (format.* ignored)" bash -c \
	"! grep -q 'a signature' '$dir'/*.patch && grep -q '^Subject: \[PATCH\] demo: add d' '$dir/0002-demo-add-d.patch' && grep -q '^diff --git a/demo.c b/demo.c' '$dir/0002-demo-add-d.patch'"

# 9-15: the same range, the same directory and bytes
sha_all() { while IFS= read -r p; do kb_sha256_file "$p"; done <"$1"; }
sha_all "$tmp/list1" >"$tmp/sha1"
series "$spec" "$tmp/w" >"$tmp/list2"
t "twice: the same list" cmp "$tmp/list1" "$tmp/list2"
t "twice: the same bytes" cmp "$tmp/sha1" <(sha_all "$tmp/list2")
series "git:$r:$base_id..$head_id" "$tmp/w" >"$tmp/list3"
t "the range by commit ids: the same directory" cmp "$tmp/list1" "$tmp/list3"
rm -rf "$dir"
series "$spec" "$tmp/w" >"$tmp/list4"
t "written again from nothing: the same files, byte for byte" \
	cmp "$tmp/sha1" <(sha_all "$tmp/list4")
# (the kernel key hashes these bytes, kernel/scripts/key.sh: the same
# range is the same kernel)
k1=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
series "git:$r:v6.12..topic~1" "$tmp/w" >"$tmp/list5"
t "a commit is the same patch in every range holding it (v1's 2 patches in v2's 3)" \
	cmp <(sha_all "$tmp/list5") <(head -n 2 "$tmp/sha1")
t "the repository's .git directory is the repository" \
	cmp "$tmp/list1" <(series "git:$r/.git:v6.12..topic" "$tmp/w")
git clone -q "$r" "$HOME/src/linux"
git -C "$HOME/src/linux" branch -q topic origin/topic
t "~ is the home directory; a clone's same range: the same directory" \
	cmp "$tmp/list1" <(series "git:~/src/linux:v6.12..topic" "$tmp/w")

# 16-21: what the range was, for build-info.json and the fingerprint
series --describe "$spec" >"$tmp/desc.json" 2>"$tmp/desc.err" || true
# shellcheck disable=SC2016 # jq's variables
t "--describe: repository, range, base and head, as given" jq -e --arg r "$r" --arg s "$spec" \
	'.repo == $r and .range == "v6.12..topic" and .base == "v6.12" and .head == "topic" and .spec == $s' \
	"$tmp/desc.json"
# shellcheck disable=SC2016
t "--describe: base and head as full commit ids (an annotated tag's commit)" \
	jq -e --arg b "$base_id" --arg h "$head_id" '.base_commit == $b and .head_commit == $h' "$tmp/desc.json"
is "--describe: each commit's id, in order" "$(jq -r '.commits[].commit' "$tmp/desc.json" 2>/dev/null | tr '\n' ' ')" "${ids[*]} "
is "--describe: each commit's subject" "$(jq -r '.commits[1].subject' "$tmp/desc.json" 2>/dev/null)" "demo: add d"
is "--describe ~/src/linux: the repository's full path" \
	"$(series --describe "git:~/src/linux:v6.12..topic" | jq -r .repo)" "$HOME/src/linux"
is "--describe of a patch directory prints nothing" \
	"$(series --describe "$top/tests/fixtures/kernel/dir")" ""

# 22-26: build-info.json (build-info.sh as build.sh calls it) and the
# fingerprint a run writes from it (orchestrate/fingerprint.sh)
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "fakecc 1.0"\n' >"$tmp/bin/fakecc"
printf '#!/bin/sh\necho v1.24\n' >"$tmp/bin/pahole"
chmod +x "$tmp/bin/fakecc" "$tmp/bin/pahole"
printf 'CONFIG_X=y\n' >"$tmp/config"
bi_ok=0
PATH=$tmp/bin:$PATH KCC=fakecc "$ks/build-info.sh" new "$k1" "linux-source-6.12 6.12.118-1" \
	6.12.118 6.12.118-kb-new "$tmp/distro" "$tmp/config" "$tmp/config" "$tmp/list1" 42 \
	"$tmp/desc.json" >"$tmp/bi.json" 2>"$tmp/bi.err" || bi_ok=1
ok "$bi_ok" "build-info.sh writes build-info.json for a git: series"
[ "$bi_ok" = 0 ] || diag "$(cat "$tmp/bi.err")"
# shellcheck disable=SC2016
t "build-info.json: git_series with repository, range and commit ids" jq -e \
	--arg r "$r" --arg b "$base_id" --arg h "$head_id" \
	'.git_series.repo == $r and .git_series.range == "v6.12..topic" and .git_series.base_commit == $b
	 and .git_series.head_commit == $h and .git_series.base == "v6.12" and .git_series.head == "topic"' "$tmp/bi.json"
is "build-info.json: each patch's commit" "$(jq -r '.patches[].commit' "$tmp/bi.json" 2>/dev/null | tr '\n' ' ')" "${ids[*]} "
PATH=$tmp/bin:$PATH KCC=fakecc "$ks/build-info.sh" new "$k1" "linux-source-6.12 6.12.118-1" \
	6.12.118 6.12.118-kb-new "$tmp/distro" "$tmp/config" "$tmp/config" "$tmp/list1" 42 >"$tmp/bi-plain.json" 2>/dev/null || true
t "without a description (the other forms): no git_series, no commit" \
	jq -e 'has("git_series") == false and ([.patches[] | has("commit")] | any | not) and (.patches | length) == 3' "$tmp/bi-plain.json"
# a run directory as run.sh leaves it before the fingerprint
run=$tmp/run
mkdir -p "$run/boots/new/1" "$run/payload/p/bin" "$KBENCH_CACHE/kernels/$k1" "$KBENCH_CACHE/labels"
cp "$tmp/bi.json" "$KBENCH_CACHE/kernels/$k1/build-info.json"
ln -s "$KBENCH_CACHE/kernels/$k1" "$KBENCH_CACHE/labels/new"
printf 'image\n' >"$tmp/image.qcow2"
printf 'kbbench\n' >"$run/payload/p/bin/kbbench"
jq -n --arg img "$tmp/image.qcow2" '{image: $img, qemu_version: "8.0", accel: "tcg", vcpus: 2,
	clock: "icount", qemu_cmdline: "qemu -nic none", cmdline: "console=ttyS0"}' >"$run/boots/new/1/launch.json"
if "$top/orchestrate/fingerprint.sh" "$run" new -- new >"$tmp/fp.out" 2>&1; then
	# shellcheck disable=SC2016
	t "the run's fingerprint records repository, range and commit ids" jq -e \
		--arg r "$r" --arg b "$base_id" --arg h "$head_id" --arg c "${ids[2]}" \
		'.kernels.new.git_series.repo == $r and .kernels.new.git_series.range == "v6.12..topic"
		 and .kernels.new.git_series.base_commit == $b and .kernels.new.git_series.head_commit == $h
		 and .kernels.new.patches[2].commit == $c' "$run/fingerprint.json"
else
	ok 1 "the run's fingerprint records repository, range and commit ids"
	diag "$(cat "$tmp/fp.out")"
fi

# 27-38: each bad input is a named error, exit 1, and writes no patches
ndirs() { find "$KBENCH_CACHE/git-series" -mindepth 1 -maxdepth 1 | wc -l; }
before=$(ndirs)
# refused NAME SPEC WANT: series.sh exits 1 with one error line matching WANT
refused() {
	local desc=$1 s=$2 want=$3 rc=0
	series "$s" "$tmp/w" >"$tmp/r.out" 2>"$tmp/r.err" || rc=$?
	if [ "$rc" = 1 ] && [ ! -s "$tmp/r.out" ] && [ "$(grep -c 'error' "$tmp/r.err")" = 1 ] &&
		grep -qE "$want" "$tmp/r.err"; then
		ok 0 "$desc"
	else
		ok 1 "$desc (exit $rc)"
		diag "want: $want" "$(cat "$tmp/r.out" "$tmp/r.err")"
	fi
}
refused "no such repository" "git:$tmp/nope:v6.12..topic" \
	"SERIES=git:$tmp/nope:v6.12..topic: no such repository: $tmp/nope does not exist"
mkdir -p "$tmp/plain" "$r/sub"
refused "a directory that is not a git repository" "git:$tmp/plain:v6.12..topic" \
	"not a git repository: $tmp/plain"
refused "a directory inside a repository is not that repository" "git:$r/sub:v6.12..topic" \
	"not a git repository: $r/sub \\(it lies inside $r;"
refused "an unknown revision is named" "git:$r:v6.12..no-such-branch" \
	"unknown revision 'no-such-branch' in $r"
refused "an empty range" "git:$r:topic..topic" "empty range: topic is v6.12|empty range: topic is topic"
merge_id=$(git -C "$r" rev-parse merged)
refused "a merge in the range: the merge commit is named" "git:$r:v6.12..merged" \
	"commit $merge_id \\(Merge branch topic\\) in v6.12..merged is a merge"
refused "a base of another version: what was expected" "git:$r:v6.6..topic" \
	"base v6.6 is Linux 6.6; the distro tree is 6.12.x \\(linux-source-6.12\\): rebase the series on a v6.12 tag"
refused "a base that is no Linux tree (no Makefile)" "git:$r:pre..topic" \
	"base pre has no top-level Makefile with VERSION and PATCHLEVEL: not a Linux tree; the distro tree is 6.12.x"
refused "a base that is not the head's ancestor" "git:$r:bad..topic" \
	"base bad is not an ancestor of head topic"
refused "no range" "git:$r" "want git:<repo>:<base>..<head>"
refused "a symmetric difference" "git:$r:v6.12...topic" "symmetric difference"
is "no patch directory was written by a refused range" "$(ndirs)" "$before"

# 39: a patch that does not apply names its commit, its subject, the hunk
fake_tree "$tmp/distro2" lib/missing.c
series "git:$r:v6.12..bad" "$tmp/w" >"$tmp/bad.list"
bad_id=$(git -C "$r" rev-parse bad)
rc=0
"$ks/apply.sh" "$tmp/distro2" kbench-base "$tmp/bad.list" "$tmp/apply2.log" >/dev/null 2>"$tmp/apply2.err" || rc=$?
if [ "$rc" = 1 ] && grep -q 'patch 1/1 does not apply: .*0001-lib-change-the-missing-file.patch' "$tmp/apply2.err" &&
	grep -q "made from commit $bad_id (lib: change the missing file)" "$tmp/apply2.err" &&
	grep -q 'failed hunk at: .*lib/missing.c' "$tmp/apply2.err"; then
	ok 0 "a patch that does not apply: the patch, its commit and subject, the file"
else
	ok 1 "a patch that does not apply: the patch, its commit and subject, the file (exit $rc)"
	diag "$(cat "$tmp/apply2.err")"
fi

# 40-41: make regression-check names NEW= with the same errors, before
# any build (orchestrate/regress.sh)
rc=0
NEW="git:$r:v6.12..merged" "$top/orchestrate/regress.sh" >"$tmp/reg.out" 2>&1 || rc=$?
if [ "$rc" = 1 ] && [ "$(grep -c error "$tmp/reg.out")" = 1 ] &&
	grep -q "error: NEW=git:$r:v6.12..merged: commit $merge_id (Merge branch topic)" "$tmp/reg.out" &&
	! grep -q 'building\|SERIES=' "$tmp/reg.out"; then
	ok 0 "regression-check NEW=git: with a merge: one error naming NEW= and the merge"
else
	ok 1 "regression-check NEW=git: with a merge: one error naming NEW= and the merge (exit $rc)"
	diag "$(cat "$tmp/reg.out")"
fi
rc=0
NEW="git:~/nowhere:v6.12..topic" "$top/orchestrate/regress.sh" >"$tmp/reg.out" 2>&1 || rc=$?
if [ "$rc" = 1 ] && grep -q "error: NEW=git:~/nowhere:v6.12..topic: no such repository: $HOME/nowhere" "$tmp/reg.out"; then
	ok 0 "regression-check NEW=git:~/nowhere: no such repository, ~ expanded"
else
	ok 1 "regression-check NEW=git:~/nowhere: no such repository, ~ expanded (exit $rc)"
	diag "$(cat "$tmp/reg.out")"
fi

exit "$fail"
