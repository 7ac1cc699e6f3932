#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PROFILE=1 pieces on fixtures (tests/fixtures/profile/): the guest-side
# folding of 'perf script' text and filtering of 'perf report', the diff
# table, the flame graphs (valid XML, geometry, escaping) and every file
# analysis/profile.sh writes. Then guest/profile.sh end to end on
# the host's own perf (the host stands in for the guest: same perf 6.1).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need perl awk dash shellcheck xmllint python3 perf
build_kbstat
# profile.sh calls kbstat table profile for the diff
export KBSTAT=$kbstat

fx=$top/tests/fixtures/profile
gp=$top/guest/profile.sh
prof=$top/analysis/profile.sh
fg=$top/analysis/flamegraph.pl
tag=procirq-read-default-vcpus-1
tag2=procirq-read-default-vcpus-2

xml_both() {
	xmllint --noout "$1" &&
		python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1"
}

# field N of the diff TSV row for SYMBOL
drow() {
	awk -F'\t' -v s="$2" -v f="$3" '$1 == s { print $f; exit }' "$1"
}

echo "1..40"

# ---- shell hygiene ----
check "shellcheck: guest/profile.sh as POSIX sh" shellcheck -s sh "$gp"
check "shellcheck: analysis/profile.sh and this test" shellcheck -x "$prof" "$0"
check "flamegraph.pl compiles with warnings on" perl -wc "$fg"

# ---- folding (under dash, with the guest's awk: mawk here as in Debian) ----
for k in baseline patched odd; do
	dash "$gp" --fold "$fx/$k.script" >"$tmp/$k.folded"
	check "fold $k.script under dash gives $k.folded" diff -u "$fx/$k.folded" "$tmp/$k.folded"
done
is "fold keeps every sample (20 in baseline.script)" \
	"$(awk '{ n += $NF } END { print n }' "$tmp/baseline.folded")" \
	"$(grep -c 'cpu-clock:' "$fx/baseline.script")"
is "root-first, comm at the root, kernel frames marked, offsets gone" \
	"$(grep -c '^kbbench;__libc_start_call_main;main;procirq_read_run;__GI___libc_read;entry_SYSCALL_64_after_hwframe_\[k\];.*;show_interrupts_\[k\];seq_printf_\[k\];vsnprintf_\[k\] 8$' "$tmp/baseline.folded")" 1
is "a run of unresolved user frames folds to one [unknown]" \
	"$(grep -c '^kbbench;\[unknown\] 1$' "$tmp/baseline.folded")" 1
is "comm with a space, ';' in a symbol, C++ name, no-callchain sample" \
	"$(grep -c -e '^kb bench;a:b;std::map<int, char>::find(int const&) const;\[kernel.kallsyms\]_\[k\];vsnprintf_\[k\] 1$' \
		-e '^kb bench;\[unknown\] 1$' "$tmp/odd.folded")" 2

# ---- perf report filter ----
dash "$gp" --top "$fx/baseline.report" >"$tmp/top.txt"
is "--top keeps the 7 symbol rows" "$(grep -c '%  \[' "$tmp/top.txt")" 7
is "--top row format" "$(grep -m1 'vsnprintf' "$tmp/top.txt")" "  40.00%  [k] vsnprintf"
is "--top 3 keeps 3 rows" "$(dash "$gp" --top 3 "$fx/baseline.report" | grep -c '%  \[')" 3

# ---- a fixture run: tag 1 on both kernels, tag 2 failed on patched ----
run=$tmp/run
for k in baseline patched; do
	d=$run/profile/$k/$tag
	mkdir -p "$d"
	dash "$gp" --top "$fx/$k.report" >"$d/top.txt"
	cp "$fx/$k.folded" "$d/folded.txt"
	cp "$fx/$k.meta" "$d/meta.txt"
done
mkdir -p "$run/profile/baseline/$tag2" "$run/profile/patched/$tag2"
cp "$run/profile/baseline/$tag/"* "$run/profile/baseline/$tag2/"
cp "$fx/patched.error" "$run/profile/patched/$tag2/error.txt"

check "profile.sh succeeds" "$prof" "$run"
missing=""
for f in profile.md profile.html "profile-diff-$tag.tsv" "flame-baseline-$tag.svg" \
	"flame-patched-$tag.svg" "flame-baseline-$tag2.svg"; do
	[ -s "$run/$f" ] || missing="$missing $f"
done
is "every file written (md, html, diff tsv, 3 flame graphs)" "$missing" ""
is "no flame graph for the failed side, no temp files left" \
	"$(find "$run" -maxdepth 1 \( -name "flame-patched-$tag2.svg" -o -name '.*' -o -name '*.tmp' \) ! -path "$run" | wc -l)" 0

tsv=$run/profile-diff-$tag.tsv
is "diff: 10 symbols" "$(($(wc -l <"$tsv") - 1))" 10
is "diff: vsnprintf 40 % -> 10 %, -30 pp" \
	"$(drow "$tsv" '[k] vsnprintf' 2) $(drow "$tsv" '[k] vsnprintf' 3) $(drow "$tsv" '[k] vsnprintf' 4)" \
	"40.0000 10.0000 -30.0000"
is "diff: seq_write only on patched, +20 pp" "$(drow "$tsv" '[k] seq_write' 4)" "+20.0000"
is "diff: handle_mm_fault unchanged" "$(drow "$tsv" '[k] handle_mm_fault' 4)" "+0.0000"
is "diff: unresolved user samples keyed [.] [unknown]" "$(drow "$tsv" '[.] [unknown]' 2)" "5.0000"
# 2 * 100 * sqrt(.4 * .6 / 20 + .1 * .9 / 20)
near "diff: 2 SE of the vsnprintf delta" "$(drow "$tsv" '[k] vsnprintf' 5)" 25.6905 0.0001
is "diff: sorted by |delta|, ties by name" \
	"$(tail -n +2 "$tsv" | cut -f1 | head -n 7 | tr '\n' ,)" \
	"[k] vsnprintf,[k] seq_write,[k] mt_find,[k] show_interrupts,[k] int_seq_next,[k] irq_proc_show,[k] seq_put_decimal_ull_width,"
is "diff: shares add up to 100 % on each side" \
	"$(awk -F'\t' 'NR > 1 { a += $2; b += $3 } END { printf "%.2f %.2f", a, b }' "$tsv")" "100.00 100.00"
check "profile.md: the diff row and the top-symbols table" \
	grep -q -e '^| \[k\] vsnprintf | 40.00 | 10.00 | -30.00 | 25.69 |$' "$run/profile.md"
check "profile.md: top symbols side by side" \
	grep -q '^| 1 | \[k\] vsnprintf | 40.00% | \[k\] seq_put_decimal_ull_width | 30.00% |$' "$run/profile.md"
check "profile.md: the failed profile is reported with its reason" \
	grep -q 'patched: profiling failed: .*exited with status 1' "$run/profile.md"

# ---- flame graphs ----
bad=0
for svg in "$run"/flame-*.svg; do
	if ! xml_both "$svg" >"$tmp/xml.log" 2>&1; then
		bad=1
		echo "# $svg:"
		sed 's/^/# /' "$tmp/xml.log"
	fi
done
ok "$bad" "every flame graph is well-formed XML (xmllint and minidom)"
check "flame graph: name as text and a <title> tooltip with samples and share" \
	grep -q '<g><title>vsnprintf \[kernel\]: 8 samples, 40.00%</title><rect [^>]*/><text [^>]*>vsnprintf</text></g>' \
	"$run/flame-baseline-$tag.svg"
# Widths proportional to samples, each frame on top of its caller.
cat >"$tmp/geom.py" <<'EOF'
import re, sys
svg = open(sys.argv[1]).read()
rects = [(float(x), float(y), float(w), t) for t, x, y, w in re.findall(
    r'<g><title>([^<]*)</title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"', svg)]
root = [r for r in rects if r[3].startswith('all:')][0]
total = int(re.search(r'all: (\d+) samples', root[3]).group(1))
for x, y, w, t in rects:
    n = int(re.search(r': (\d+) samples?,', t).group(1))
    if abs(w - root[2] * n / total) > 0.11:
        sys.exit('width of %s: %s, want %s' % (t, w, root[2] * n / total))
    if t.startswith('all:'):
        continue
    below = [r for r in rects if r[1] == y + 16 and r[0] - 0.11 <= x and x + w <= r[0] + r[2] + 0.11]
    if not below:
        sys.exit('no caller under %s' % t)
print(len(rects))
EOF
check "flame graph geometry: width = share, every frame on its caller" \
	python3 "$tmp/geom.py" "$run/flame-patched-$tag.svg"
perl "$fg" --title 'odd <&> names' "$tmp/odd.folded" >"$tmp/odd.svg"
check "flame graph escapes <, & and > and stays valid XML" \
	bash -c "xmllint --noout '$tmp/odd.svg' && grep -q 'std::map&lt;int, char&gt;::find(int const&amp;)' '$tmp/odd.svg'"
printf 'a;b 3\nnot a stack\n' >"$tmp/bad.folded"
check "flame graph: a bad line is an error naming file:line" \
	bash -c "! perl '$fg' '$tmp/bad.folded' 2>'$tmp/fg.err' >/dev/null && grep -q 'bad.folded:2:' '$tmp/fg.err'"

# ---- the HTML fragment ----
check "profile.html is one well-formed <section> with 3 inlined SVGs, no prolog, no external reference" \
	bash -c "python3 -c 'import sys, xml.dom.minidom; d = xml.dom.minidom.parse(sys.argv[1]); assert d.documentElement.tagName == \"section\"' '$run/profile.html' &&
		[ \$(grep -c '<svg' '$run/profile.html') = 3 ] && ! grep -q '<?xml' '$run/profile.html' &&
		! grep -Eq '<(img|link|script)[ >]' '$run/profile.html'"

# ---- rerun, errors, nothing to do ----
cp "$run/profile.html" "$tmp/first.html"
"$prof" "$run" 2>/dev/null
check "profile.sh is deterministic (same input, same bytes)" cmp "$tmp/first.html" "$run/profile.html"
cp -r "$run" "$tmp/badrun"
printf 'kbbench;x 2\nkbbench;y\n' >"$tmp/badrun/profile/patched/$tag/folded.txt"
check "a malformed folded.txt stops profile.sh, naming file:line" \
	bash -c "! '$prof' '$tmp/badrun' 2>'$tmp/bad.err' && grep -q 'patched/$tag/folded.txt:2:' '$tmp/bad.err'"
mkdir -p "$tmp/noprof/raw"
check "no RUN/profile: exit 0, nothing written" \
	bash -c "'$prof' '$tmp/noprof' 2>/dev/null && [ -z \"\$(ls '$tmp/noprof' | grep -v raw)\" ]"

# ---- guest/profile.sh end to end, on the host's perf ----
res=$tmp/res
# shellcheck disable=SC2016 # the inner sh expands it
# One cat reads /proc/interrupts 500 times a run: most of the samples land
# in seq_read_iter, not in fork and exec (100 cats of one read each gave
# too few there once, on a loaded host).
dash "$gp" "$res" t-ok -- sh -c 'set --; i=0; while [ $i -lt 500 ]; do i=$((i + 1)); set -- "$@" /proc/interrupts; done; for r in 1 2 3 4 5; do cat "$@" >/dev/null; done; echo CSV-LINE' \
	>"$tmp/gp.out" 2>"$tmp/gp.err" || true
if [ -s "$res/profile/t-ok/error.txt" ]; then
	echo "# perf record does not work on this host, so the in-guest path is untested here:"
	sed 's/^/# /' "$res/profile/t-ok/error.txt"
fi
check "guest/profile.sh writes top.txt, folded.txt, meta.txt (host perf $(perf --version 2>/dev/null | cut -d' ' -f3))" \
	bash -c "[ -s '$res/profile/t-ok/top.txt' ] && [ -s '$res/profile/t-ok/folded.txt' ] && grep -q '^samples=[1-9]' '$res/profile/t-ok/meta.txt'"
check "guest/profile.sh resolves kernel symbols (seq_read_iter in the stacks)" \
	grep -q 'seq_read_iter_\[k\]' "$res/profile/t-ok/folded.txt"
check "the profiled command's output is not passed on (not a sample), no temp left" \
	bash -c "! grep -q CSV-LINE '$tmp/gp.out' && [ -z \"\$(ls -A '$res/profile' | grep '^\\.')\" ]"
rc=0
dash "$gp" "$res" t-fail -- false >/dev/null 2>&1 || rc=$?
check "a failing command: exit 0 and error.txt only" \
	bash -c "[ $rc = 0 ] && grep -q 'exited with status 1' '$res/profile/t-fail/error.txt' && [ ! -e '$res/profile/t-fail/top.txt' ]"
exit "$fail"
