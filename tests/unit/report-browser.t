#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# index.html in a real browser (headless Chromium): the headline and the
# primary chart are in the rendered DOM, the page logs no console message
# (it has no script; a message means a failed load or a bad construct)
# and makes no network request. A control page with an external stylesheet,
# image and a console.error proves the two detectors see what they look for.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/fixtures/analysis/lib.sh
. "$top/tests/fixtures/analysis/lib.sh"
need jq perl gnuplot
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "Bail out! chromium not found (make deps)"
	exit 1
fi
build_kbstat

# Blink's resource loads carry this traffic annotation in the NetLog;
# Chromium's own background requests (updates, accounts) carry others.
PAGE_LOAD=101845102

# render PAGE NAME: DOM to NAME.dom, stderr to NAME.err, NetLog to NAME.net.
# No name resolves, so nothing leaves the host even if the page asks.
render() {
	timeout 50 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --user-data-dir="$tmp/profile-$2" \
		--host-resolver-rules='MAP * ~NOTFOUND' --log-net-log="$tmp/$2.net" \
		--enable-logging=stderr --v=0 --dump-dom "file://$1" >"$tmp/$2.dom" 2>"$tmp/$2.err"
}

# Page requests (URLs) in a NetLog.
page_requests() {
	grep -o "{[^{}]*\"traffic_annotation\":$PAGE_LOAD,[^{}]*\"url\":\"[^\"]*\"[^{}]*}" "$1" |
		grep -o '"url":"[^"]*"' | grep -v '"url":"\(file\|data\):' | sort -u || true
}

echo "1..19"

run=$tmp/run
gen report "$run"
KBSTAT=$kbstat "$top/analysis/report.sh" "$run" 2>"$tmp/report.err" || {
	sed 's/^/# /' "$tmp/report.err"
	echo "Bail out! report.sh failed on the fixture run"
	exit 1
}

printf '%s\n' '<!DOCTYPE html><html><head><link rel="stylesheet" href="http://example.com/x.css"></head>' \
	'<body><img src="https://example.com/x.png"><script>console.error("control")</script></body></html>' >"$tmp/control.html"
render "$tmp/control.html" control || true
check "control page: the NetLog shows its two external requests" \
	bash -c "[ \$(printf '%s\n' \"$(page_requests "$tmp/control.net")\" | grep -c example.com) = 2 ]"
check "control page: its console.error is logged" grep -q 'CONSOLE.*"control"' "$tmp/control.err"

check "chromium renders index.html" render "$run/index.html" page
check "rendered DOM: the headline section of irq with its primary rows" \
	bash -c "sed -n '/<section class=\"headline\" id=\"headline-irq\">/,/<\/section>/p' '$tmp/page.dom' |
		grep -A3 '<caption>latency (ns): lower is better</caption>' | grep -q '<tr class='"
check "rendered DOM: the primary chart is an inline SVG in the headline" \
	bash -c "sed -n '/<section class=\"headline\" id=\"headline-irq\">/,/<\/section>/p' '$tmp/page.dom' |
		grep -A1 '<figure id=\"chart-primary-irq-latency\">' | grep -q '<svg'"
check "rendered DOM: headline before the full results table" \
	bash -c "awk '/id=\"headline\"/ { h = NR } /<h2>Results/ { r = NR } END { exit !(h && h < r) }' '$tmp/page.dom'"

# ---- no horizontal overflow at 1280 px (a laptop's screen) ----
# probe PAGE NAME JS [WIDTH]: the value of JS in a copy of PAGE with a
# probe script (the report itself has none), rendered WIDTH (1280) px wide.
probe() {
	sed "s|</body>|<script>document.body.setAttribute(\"data-w\", $3)</script></body>|" \
		"$1" >"$(dirname "$1")/.probe-$2.html"
	timeout 50 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--window-size="${4:-1280}",900 --user-data-dir="$tmp/profile-w$2" \
		--host-resolver-rules='MAP * ~NOTFOUND' \
		--dump-dom "file://$(dirname "$1")/.probe-$2.html" 2>/dev/null |
		sed -n 's/.*data-w="\([0-9.]*\) \([0-9.]*\)".*/\1 \2/p'
	rm -f "$(dirname "$1")/.probe-$2.html"
}
# width PAGE NAME: "scrollWidth clientWidth"
width() {
	probe "$1" "$2" 'document.documentElement.scrollWidth + " " + document.documentElement.clientWidth'
}
# same W: the two numbers equal
# shellcheck disable=SC2317 # called through check
same() {
	[ -n "$1" ] && [ "${1% *}" = "${1#* }" ]
}
printf '%s\n' '<!DOCTYPE html><html><body><div style="width: 2000px">wide</div></body></html>' >"$tmp/wide.html"
w=$(width "$tmp/wide.html" wide)
check "control page: a 2000 px element overflows 1280 px ($w)" bash -c "[ -n '$w' ] && ! [ '${w% *}' = '${w#* }' ]"
w=$(width "$run/index.html" report)
check "index.html fits 1280 px: scroll width = client width ($w)" same "$w"
m=$tmp/variants
gen_variants "$m"
KBSTAT=$kbstat "$top/analysis/report.sh" "$m" 2>/dev/null
w=$(width "$m/index.html" variants)
check "with long points, variant tables and cover tables: fits 1280 px ($w)" same "$w"
# The rows of the full table that fold a reason (why) under their
# verdict: their heights with the reason, then without it (removed). A
# folded reason adds nothing: the two are equal. Rows differ from each
# other anyway (a long point or name wraps), so each is set against
# itself. The control page has its reasons open: removing them shrinks
# its rows.
# shellcheck disable=SC2016 # JavaScript, not shell
# (one line: probe() puts it in with sed, and reads two numbers back:
# the rows, and 1 if their heights stayed the same)
fold_js='(function () { var rows = Array.from(document.getElementById("results-table").rows).filter(function (r) { return r.querySelector("details small"); }); var h = function () { return rows.map(function (r) { return r.getBoundingClientRect().height; }).join(","); }; var a = h(); rows.forEach(function (r) { r.querySelectorAll("details small").forEach(function (e) { e.remove(); }); }); return rows.length + " " + (a === h() ? 1 : 0); })()'
h=$(probe "$m/index.html" rows "$fold_js")
sed 's/<details>/<details open>/g' "$m/index.html" >"$m/open.html"
ho=$(probe "$m/open.html" rows-open "$fold_js")
check "the Results table: a row with a reason (why folded) is as tall as without it (${h%% *} rows)" \
	bash -c "[ '${h% *}' -gt 0 ] && [ '${h#* }' = 1 ]"
is "control: with its reasons open, those rows are taller" "${ho:-?}" "${h% *} 0"
check "the headline of a workload with variants holds its cover table, before its chart" \
	bash -c "sed -n '/<section class=\"headline\" id=\"headline-synth\">/,/<\/section>/p' '$m/index.html' |
		awk '/<pre class=\"cover\">/ && !c { c = NR } /<figure/ && !f { f = NR } END { exit !(c && f && c < f) }'"

# ---- the answer on the first screen (issue 37) ----
# The variants run with claims as the workload files write them: the
# answer's rows are in the rendered page, inside the first 1280x900.
cat >>"$m/workloads/synth.wl" <<'WL'
claim.lookup_1k = compare=variant base=hash new=rhash kernel=patched metric=latency point=key_size=8;max_entries=1024;fill=100 | rhash against hash lookups, key 8, 1K in 1K | 0.80x
claim.lookup_1m = compare=variant base=hash new=rhash kernel=patched metric=latency point=key_size=8;max_entries=1048576 | rhash against hash lookups, key 8, 1M in 1M (fill 75) | 4.01x
claim.lookup_64 = compare=variant base=hash new=rhash kernel=patched metric=latency point=key_size=64;max_entries=1024 | rhash against hash lookups, key 64, 1K in 1K
claim.hash_8 = compare=kernel variant=hash metric=latency point=key_size=8;max_entries=1024 | hash lookups, patched against baseline, key 8, 1K in 1K
claim.hash_64 = compare=kernel variant=hash metric=latency point=key_size=64;max_entries=1048576 | hash lookups, patched against baseline, key 64, 1M
claim.rhash_k = compare=kernel variant=rhash metric=latency point=key_size=8;max_entries=1024 | rhash, patched against baseline (the baseline lacks it)
claim.lookup_256 = compare=variant base=hash new=rhash kernel=patched metric=latency point=key_size=256 | rhash against hash lookups, key 256 | 1.008x (+0.8 %)
WL
KBSTAT=$kbstat "$top/analysis/report.sh" "$m" 2>/dev/null
timeout 50 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--hide-scrollbars --window-size=1280,900 --user-data-dir="$tmp/profile-shot" \
	--host-resolver-rules='MAP * ~NOTFOUND' --screenshot="$tmp/first-screen.png" \
	"file://$m/index.html" >/dev/null 2>&1 || true
# KB_SCREENSHOT=FILE keeps the first screen for a reviewer to look at
[ -z "${KB_SCREENSHOT:-}" ] || cp "$tmp/first-screen.png" "$KB_SCREENSHOT" || true
check "first screen: a 1280x900 screenshot" \
	python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(24)
sys.exit(not (d[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", d[16:24]) == (1280, 900)))' \
	"$tmp/first-screen.png"
# shot PAGE NAME JS: the value of JS in PAGE rendered at 1280x900 (as probe)
shot() {
	local page
	page=$(cat "$1")
	printf '%s\n' "${page/<\/body>/<script>document.body.setAttribute(\"data-w\", $3)</script></body>}" \
		>"$(dirname "$1")/.shot-$2.html"
	timeout 50 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--window-size=1280,900 --user-data-dir="$tmp/profile-s$2" \
		--host-resolver-rules='MAP * ~NOTFOUND' \
		--dump-dom "file://$(dirname "$1")/.shot-$2.html" 2>/dev/null |
		sed -n 's/.*data-w="\([^"]*\)".*/\1/p'
	rm -f "$(dirname "$1")/.shot-$2.html"
}
# Where the answer block is on the rendered page (top, bottom, the
# window's height, its horizontal overflow) and its rendered claim rows
# (innerText: what the browser lays out, not the HTML source).
# No "&" in the JavaScript: shot() puts it in with ${page/.../...}, whose
# replacement reads "&" as the matched text (bash 5.2).
# shellcheck disable=SC2016 # JavaScript, not shell
shot "$m/index.html" answer '(function () {
	var a = document.querySelector("pre.answer"), b = a.getBoundingClientRect();
	var rows = a.innerText.split("\n").filter(function (l) { return /^  (rhash|hash)/.test(l) ? !/ here \(/.test(l) : false; });
	return Math.round(b.top) + "|" + Math.round(b.bottom) + "|" + window.innerHeight + "|" +
		(a.scrollWidth - a.clientWidth) + "|" + rows.length + "|" + rows.join("~");
})()' >"$tmp/answer.geom"
IFS='|' read -r atop abottom aheight aover arows atext <"$tmp/answer.geom" || true
check "first screen: the answer block lies inside 1280x900 (top ${atop:-?}, bottom ${abottom:-?} of ${aheight:-?} px)" \
	bash -c "[ -n '${abottom:-}' ] && [ '${atop:-999}' -lt 200 ] && [ '$abottom' -le '${aheight:-0}' ]"
is "first screen: the rendered answer has the seven claim rows, none cut off (${aover:-?} px overflow)" \
	"${arows:-?} ${aover:-?}" "7 0"
# the rows as the answer text has them, at 132 columns
want=$("$kbstat" answer "$m/results.json" --run "$m" \
	--variants "$m/variants-patched-rhash-vs-hash.json" --width 132 | grep -E '^  (rhash|hash)' | grep -vF ' here (' | tr '\n' '~')
is "rendered answer: each claim on one line, ratio, verdict and upstream as kbstat answer wrote them" \
	"${atext:-}~" "$want"
# the 1M claim's upstream figure (a throughput's 4.01x set against a
# latency here) points the other way: marked, and explained below the rows
check "rendered answer: the rhash rows' upstream figures (4.01x marked as the other way) and the not-run point" \
	bash -c "printf '%s' '${atext:-}' | tr '~' '\n' | grep -q '1M in 1M (fill 75) .* better .*4\\.01x !\$' &&
		printf '%s' '${atext:-}' | tr '~' '\n' | grep -q 'key 256 .*not run (MATRIX=full) .*1\\.008x (+0\\.8 %)\$'"

reqs=$(page_requests "$tmp/page.net")
is "index.html makes no network request" "$reqs" ""
console=$(grep 'CONSOLE' "$tmp/page.err" || true)
is "index.html logs nothing to the console" "$console" ""

exit "$fail"
