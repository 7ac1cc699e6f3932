#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kb_json_str escapes per RFC 8259: every control character, quotes and
# backslashes give a JSON document that jq parses and that round-trips to
# the same bytes; UTF-8 stays as it is. Then build-info.sh, the writer of
# build-info.json, on a scratch git tree whose commit subject, compiler and
# pahole versions carry control characters (no kernel is built).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ks=$top/kernel/scripts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

echo "1..15"
for tool in jq git; do
	if ! command -v "$tool" >/dev/null; then
		echo "Bail out! $tool is not installed (make deps installs it)"
		exit 1
	fi
done

# Every control character 0x01-0x1f (a bash string cannot hold 0x00), DEL,
# quotes, backslashes, a newline inside and UTF-8 of 2, 3 and 4 bytes.
ctl=
for i in $(seq 1 31); do
	printf -v c '%b' "\\x$(printf '%02x' "$i")"
	ctl+=$c
done
printf -v s '%s|"q" '\''a'\'' \\ \\\\ \\n \\u0041 / |%s|line1\nline2|é € 😀|\177|end' "$ctl" "$ctl"
printf '%s' "$s" >"$tmp/s.bin"

# 1-3: a document built the way the scripts build theirs
printf '{"s": "%s"}\n' "$(kb_json_str "$s")" >"$tmp/doc.json"
t "the document with every control character parses" jq -e . "$tmp/doc.json"
jq -j .s "$tmp/doc.json" >"$tmp/back.bin" 2>/dev/null || true
t "the string round-trips to the same bytes" cmp "$tmp/s.bin" "$tmp/back.bin"
LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$tmp/doc.json") && r=1 || r=0
ok "$r" "no raw control character is left in the document"

# 4-9: the escapes RFC 8259 names, \u00XX for the rest, UTF-8 kept
t "short escapes: \\b \\f \\n \\r \\t" \
	test "$(kb_json_str "$(printf 'a\bb\fc\nd\re\tf')")" = 'a\bb\fc\nd\re\tf'
t "other controls as \\u00XX: 0x01 0x0b 0x1b 0x1f" \
	test "$(kb_json_str "$(printf '\001\013\033\037')")" = '\u0001\u000b\u001b\u001f'
t "quote and backslash" test "$(kb_json_str 'a"b\c\\d')" = 'a\"b\\c\\\\d'
t "UTF-8 is kept as its bytes" test "$(kb_json_str 'é € 😀')" = 'é € 😀'
t "plain text is unchanged (callers' format)" \
	test "$(kb_json_str 'linux-source-6.12 6.12.118-1 /a/b,c=d')" = 'linux-source-6.12 6.12.118-1 /a/b,c=d'
t "the empty string gives nothing" test -z "$(kb_json_str '')"

# 10-15: build-info.json through build-info.sh, as build.sh calls it
repo=$tmp/repo
mkdir -p "$repo" "$tmp/bin" "$tmp/p"
printf 'a\n' >"$repo/f"
git -C "$repo" init -q
git -C "$repo" add f
git -C "$repo" -c user.name=t -c user.email=t@t commit -qm base
git -C "$repo" tag kbench-base
# A header line cannot hold a newline; every other control character.
subj="demo: ctl ${ctl//$'\n'/} \"q\" \\ é end"
p=$tmp/p/0001-demo-ctl.patch
{
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: T <t@t>\nDate: Thu, 1 Jan 1970 00:00:00 +0000\n'
	printf 'Subject: [PATCH] %s\n\nbody\n---\n f | 2 +-\n\n' "$subj"
	printf 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n'
} >"$p"
printf '%s\n' "$p" >"$tmp/list"
"$ks/apply.sh" "$repo" kbench-base "$tmp/list" "$tmp/apply.log" >/dev/null 2>"$tmp/apply.err" ||
	{ cat "$tmp/apply.err" >&2; echo "Bail out! apply.sh could not apply the scratch patch"; exit 1; }
# What git recorded (it turns tab and CR into spaces; the others stay).
git -C "$repo" log -1 --format=%s >"$tmp/gitsubj.bin"
printf '#!/bin/sh\nprintf '\''fakecc\\001 (\\033[1m) 1.0\\t"x"\\n'\''\n' >"$tmp/bin/fakecc"
printf '#!/bin/sh\nprintf '\''v1.0\\037\\n'\''\n' >"$tmp/bin/pahole"
chmod +x "$tmp/bin/fakecc" "$tmp/bin/pahole"
printf 'CONFIG_X=y\n' >"$tmp/config"
if PATH=$tmp/bin:$PATH KCC=fakecc "$ks/build-info.sh" patched 0123abcd \
	"linux-source-6.12 6.12.118-1" 6.12.118 6.12.118-kb0123abcd "$repo" \
	"$tmp/config" "$tmp/config" "$tmp/list" 42 >"$tmp/build-info.json" 2>"$tmp/bi.err"; then
	ok 0 "build-info.sh writes build-info.json"
else
	ok 1 "build-info.sh writes build-info.json"
	diag "$(cat "$tmp/bi.err")"
fi
t "build-info.json parses" jq -e . "$tmp/build-info.json"
t "the commit subject holds control characters (the case under test)" \
	bash -c "LC_ALL=C grep -q \$'\\001.*\\033.*\\037' '$tmp/gitsubj.bin'"
jq -j '.patches[0].subject' "$tmp/build-info.json" >"$tmp/subj.bin" 2>/dev/null || true
t "the subject round-trips to the commit's bytes" \
	cmp "$tmp/subj.bin" <(tr -d '\n' <"$tmp/gitsubj.bin")
t "compiler and pahole round-trip" test \
	"$(jq -r '.compiler + "|" + .pahole' "$tmp/build-info.json" 2>/dev/null)" = \
	"$(printf 'fakecc\001 (\033[1m) 1.0\t"x"|v1.0\037')"
# shellcheck disable=SC2016 # jq's variables, not the shell's
t "the other fields: file, sha256, commits, seconds; no label (labels/ names a kernel)" jq -e --arg f "$(basename "$p")" \
	--arg sha "$(kb_sha256_file "$p")" --arg head "$(git -C "$repo" rev-parse HEAD)" \
	--arg base "$(git -C "$repo" rev-parse kbench-base)" \
	'.patches[0].file == $f and .patches[0].sha256 == $sha and .commit == $head
	 and .base_commit == $base and .build_seconds == 42 and (has("label") | not)
	 and (.patches | length) == 1' "$tmp/build-info.json"

exit "$fail"
