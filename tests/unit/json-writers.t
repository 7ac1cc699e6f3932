#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The JSON files the shell scripts write with jq: each is valid JSON with
# the keys it has always had, in their order, each of its type (what
# fingerprint.sh, launch.sh, bisect and the selftests read). kvm-probe.sh
# against a stand-in QEMU (it answers, then reads its cached answer);
# build-info.sh on a scratch git tree, plain, DEBUG=1 and with a git:
# series; build-image.sh's image.json lines, run alone (the script
# cannot run them without building an image). Nothing is booted or built.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..19"
for tool in jq git; do
	command -v "$tool" >/dev/null || { echo "Bail out! $tool is not installed (make deps installs it)"; exit 1; }
done

# shape FILE [PATH]: "key:type ..." of the object at PATH (default .)
shape() {
	jq -r "${2:-.} | [to_entries[] | \"\(.key):\(.value | type)\"] | join(\" \")" "$1" 2>&1
}

# 1-6: kvm-probe.sh. The stand-in QEMU reaches the root-mount panic
# (FAKE=panic) or fails (FAKE=fail). Where /dev/kvm is not usable the
# probe never starts it and answers tcg with that reason: the file has
# the same shape either way.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
[ "${1:-}" != --version ] || { echo 'QEMU emulator version 7.2.99 (stand-in "q")'; exit 0; }
for a in "$@"; do case "$a" in file:*) serial=${a#file:} ;; esac; done
[ "$FAKE" != panic ] || echo 'Kernel panic - not syncing: VFS: Unable to mount root fs' >"$serial"
[ "$FAKE" != fail ] || { echo 'qemu: no \ such "thing"'; exit 1; }
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
: >"$tmp/bzImage"
probe() { # FAKE CACHE: the answer on stdout
	FAKE=$1 PATH=$tmp/bin:$PATH KBENCH_CACHE=$2 KB_PROBE_FORCE=${FORCE:-0} \
		"$top/images/kvm-probe.sh" "$tmp/bzImage" 2>/dev/null
}
first=$(probe panic "$tmp/c1")
res=$(find "$tmp/c1/probe" -name 'kvm-*.json' 2>/dev/null | head -n 1)
t "kvm-probe.sh writes its answer to \$KBENCH_CACHE/probe/kvm-KEY.json" test -n "$res"
res=${res:-$tmp/none}
t "... valid JSON" jq -e . "$res"
is "... its keys and types" "$(shape "$res")" "kvm_works:boolean reason:string host:string probed:string"
t "... probed is a UTC time" jq -e '.probed | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")' "$res"
is "... the answer printed is the one written" \
	"$first" "$(jq -r 'if .kvm_works then "kvm" else "tcg" end' "$res" 2>&1)"
is "the next call answers from the cache (the stand-in would now fail)" "$(probe fail "$tmp/c1")" "$first"

# 7-16: build-info.sh, as build.sh calls it, on a scratch tree with two
# patches (one subject begins with a dash)
repo=$tmp/repo
mkdir -p "$repo" "$tmp/p"
printf '1\n' >"$repo/f"
git -C "$repo" init -q
git -C "$repo" add f
git -C "$repo" -c user.name=t -c user.email=t@t commit -qm base
git -C "$repo" tag kbench-base
for i in 1 2; do
	subj=$([ "$i" = 1 ] && echo 'demo: one' || echo '-n two')
	{
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		printf 'From: T <t@t>\nDate: Thu, 1 Jan 1970 00:00:00 +0000\n'
		printf 'Subject: [PATCH] %s\n\nbody\n---\n f | 2 +-\n\n' "$subj"
		printf 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-%s\n+%s\n' "$i" "$((i + 1))"
	} >"$tmp/p/000$i-demo.patch"
	printf '%s\n' "$tmp/p/000$i-demo.patch"
done >"$tmp/list"
"$top/kernel/scripts/apply.sh" "$repo" kbench-base "$tmp/list" "$tmp/apply.log" >/dev/null 2>"$tmp/apply.err" ||
	{ cat "$tmp/apply.err" >&2; echo "Bail out! apply.sh could not apply the scratch patches"; exit 1; }
printf 'CONFIG_X=y\n' >"$tmp/config"
printf 'CONFIG_KASAN=y\n' >"$tmp/debug.config"
mapfile -t ids < <(git -C "$repo" log --reverse --format=%H kbench-base..HEAD)
jq -n --arg a "${ids[0]}" --arg b "${ids[1]}" '{spec: "git:/r:v1..v2", repo: "/r", range: "v1..v2",
	base: "v1", head: "v2", base_commit: "b0", head_commit: "h0",
	commits: [{commit: $a, subject: "demo: one"}, {commit: $b, subject: "-n two"}]}' >"$tmp/desc.json"
# info OUT [DESC]: build-info.sh's JSON in OUT (KCC=true: a compiler of no version)
info() {
	KCC=true "$top/kernel/scripts/build-info.sh" patched 0123abcd "linux-source-6.12 6.12.118-1" \
		6.12.118 6.12.118-kb0123abcd "$repo" "$tmp/config" "$tmp/config" "$tmp/list" 42 ${2:+"$2"} \
		>"$1" 2>"$tmp/bi.err" || diag "build-info.sh failed:" "$(cat "$tmp/bi.err")"
}
head="key:string base_version:string kernel_version:string release:string commit:string base_commit:string config_sha256:string fragment_sha256:string debug:boolean"
tail="build_seconds:number built_at:string patches:array"
info "$tmp/plain.json"
t "build-info.json: valid JSON" jq -e . "$tmp/plain.json"
is "... its keys and types" "$(shape "$tmp/plain.json")" "$head compiler:string pahole:string $tail"
is "... each patch's keys and types" "$(shape "$tmp/plain.json" '.patches[1]')" "file:string subject:string sha256:string"
is "... the patches in order, a subject that begins with a dash as it is" \
	"$(jq -r '[.patches[] | .file + "=" + .subject] | join(",")' "$tmp/plain.json" 2>&1)" "0001-demo.patch=demo: one,0002-demo.patch=-n two"
t "... build_seconds 42, debug false" jq -e '.build_seconds == 42 and .debug == false' "$tmp/plain.json"
DEBUG=1 KCONFIG_DEBUG_FRAGMENT=$tmp/debug.config info "$tmp/debug.json"
is "DEBUG=1: the debug fragment's sha256 after debug: true" "$(shape "$tmp/debug.json")" \
	"$head debug_fragment_sha256:string compiler:string pahole:string $tail"
# shellcheck disable=SC2016 # jq's variable
t "... debug true, the fragment's sha256" jq -e --arg s "$(sha256sum "$tmp/debug.config" | cut -d' ' -f1)" \
	'.debug == true and .debug_fragment_sha256 == $s' "$tmp/debug.json"
info "$tmp/git.json" "$tmp/desc.json"
is "a git: series: git_series after pahole" "$(shape "$tmp/git.json")" \
	"$head compiler:string pahole:string git_series:object $tail"
is "... git_series' keys (not the commits list)" "$(shape "$tmp/git.json" .git_series)" \
	"spec:string repo:string range:string base:string head:string base_commit:string head_commit:string"
is "... each patch's commit" "$(jq -r '[.patches[] | .commit] | join(",")' "$tmp/git.json" 2>&1)" "${ids[0]},${ids[1]}"

# 17-19: image.json, by build-image.sh's own lines: base_packages and
# packages, then from t1= to the write, on a made-up build in $tmp
bi=$top/images/build-image.sh
# shellcheck disable=SC2016 # the script's text, not expansions
{
	sed -n '/^base_packages() {$/,/^}$/p; /^packages() {$/,/^}$/p' "$bi"
	sed -n '/^t1=\$(date +%s)$/,/kb_atomic_write "\$work\/image.json"$/p' "$bi"
} >"$tmp/image-json.sh"
# shellcheck disable=SC2016 # the script's text
grep -q 'kb_atomic_write "$work/image.json"' "$tmp/image-json.sh" ||
	diag "build-image.sh has no 't1=\$(date +%s)' ... 'kb_atomic_write \"\$work/image.json\"' lines: update this test"
# image_json OUT EXTRA...: image.json for an image with these extra packages
image_json() {
	local dst=$1
	shift
	mkdir -p "$tmp/work"
	printf 'not a qcow2' >"$tmp/work/base.qcow2"
	(
		# shellcheck source=scripts/lib.sh
		. "$top/scripts/lib.sh"
		# shellcheck disable=SC2034 # the lines run by eval read them
		here=$top/images key=0123456789abcdef suite=bookworm mirror='http://deb.example/"x"' \
			used_kb=297123 size_mb=1410 t0=100 work=$tmp/work extra=("$@")
		eval "$(cat "$tmp/image-json.sh")"
	) 2>"$tmp/img.err" || diag "image.json's lines failed:" "$(cat "$tmp/img.err")"
	mv "$tmp/work/image.json" "$dst" 2>/dev/null || :
}
image_json "$tmp/image.json"
t "image.json: valid JSON" jq -e . "$tmp/image.json"
is "... its keys and types" "$(shape "$tmp/image.json")" "key:string suite:string mirror:string packages:string \
extra_packages:string root:string rootfs_mb:number fs_mb:number qcow2_bytes:number sha256:string build_seconds:number built:string"
image_json "$tmp/image-p.json" fio stress-ng
is "... with extra packages: after packages.list's, and named" \
	"$(jq -r '(.packages | split(",") | .[-2:] | join(",")) + "|" + .extra_packages + "|\(.rootfs_mb)|\(.qcow2_bytes)"' "$tmp/image-p.json" 2>&1)" \
	"fio,stress-ng|fio stress-ng|290|11"
exit "$fail"
