#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The profile part of a run's report (PROFILE=1):
#   analysis/profile.sh RUN [BASE NEW]      (defaults: baseline patched)
# Input, per kernel label and profile tag (as guest/profile.sh
# wrote it in the guest): RUN/profile/<label>/<TAG>/{top.txt,folded.txt,
# meta.txt}, or error.txt when profiling failed there.
# Output in RUN, each through a temp file in RUN and a rename:
#   flame-<label>-<TAG>.svg   flame graph of each kernel's profile
#   profile-diff-<TAG>.tsv    every symbol's self share on both kernels and
#                             the delta in percentage points, by |delta|
#   profile.md                top symbols, diff table, links to the SVGs
#   profile.html              the same as one <section id="profile">
#                             fragment, SVGs inlined, for index.html
# The shares in the diff come from folded.txt (every sample's leaf frame),
# so a symbol outside one kernel's top list still has its exact share.
# The diff's arithmetic (shares, binomial SE, order) is kbstat table profile.
# Environment: PROFILE_ROWS (rows of the diff and top tables, default 25),
# KBSTAT (the kbstat binary; default build/analysis/kbstat, built if needed).
# No RUN/profile: nothing to do, exit 0. A malformed input is an error that
# names the file and line (exit 1).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"



[ $# -eq 1 ] || [ $# -eq 3 ] || kb_die "usage: analysis/profile.sh RUN [BASE NEW]"
run=${1%/}
base=${2:-baseline}
new=${3:-patched}
rows=${PROFILE_ROWS:-25}
[[ $rows =~ ^[1-9][0-9]*$ ]] || kb_die "PROFILE_ROWS=$rows: want a positive integer"
[ -d "$run" ] || kb_die "$run: no such run directory"
if [ ! -d "$run/profile" ]; then
	kb_say "profile: no $run/profile: the run was not made with PROFILE=1; nothing to do"
	exit 0
fi
command -v perl >/dev/null || kb_die "perl not found (make deps)"
kbstat=${KBSTAT:-$top/build/analysis/kbstat}
if [ -z "${KBSTAT:-}" ]; then
	make -s -C "$top" analysis-tools >&2 ||
		kb_die "cannot build kbstat: run 'make analysis-tools' and read its errors"
fi
[ -x "$kbstat" ] || kb_die "$kbstat: not found; run 'make analysis-tools'"

tmp=$(mktemp -d "$run/.profile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT


h() {
	printf '%s' "$*" | kb_html_escape
}

# Check that a folded file is "stack COUNT" lines; name the first bad one.
check_folded() {
	awk '!/^.*[^ \t][ \t]+[0-9]+$/ && !/^[ \t]*$/ {
		printf "%s:%d: not a folded stack (want \"a;b;c COUNT\"): %s\n", FILENAME, FNR, $0
		bad = 1
		exit
	} END { exit bad }' "$1" >&2 || kb_die "$1 is malformed (see above); re-run the profile"
}

# "pct<TAB>[k] symbol" rows of a top.txt.
top_rows() {
	awk '/^[ \t]*[0-9.]+%[ \t]+\[.\][ \t]/ {
		pct = $1
		line = $0
		sub(/^[ \t]*[0-9.]+%[ \t]+/, "", line)
		printf "%s\t%s\n", pct, line
	}' "$1"
}

meta() {
	local f=$1 key=$2
	[ -f "$f" ] || return 0
	sed -n "s/^$key=//p" "$f" | head -n 1
}

md_cell() {
	printf '%s' "$*" | sed -e 's/|/\\|/g'
}

mapfile -t tags < <(
	for k in "$base" "$new"; do
		[ -d "$run/profile/$k" ] || continue
		find "$run/profile/$k" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n'
	done | LC_ALL=C sort -u
)
[ "${#tags[@]}" -gt 0 ] || kb_say "profile: no profiles for $base or $new under $run/profile"

md=$tmp/profile.md
html=$tmp/profile.html
flames=()
diffs=()
{
	printf '## Profiles: %s vs %s\n\n' "$base" "$new"
	cat <<'EOF'
Each workload point ran once more on each kernel under `perf record -g`
(software clock event in the guest), after and apart from the timed
samples. Shares are of that one run's samples (self time, leaf frame):
a profile is a pointer to where time goes, not a statistic. "2 SE" is
twice the binomial standard error of the delta; a delta inside it is noise.

EOF
} >"$md"
{
	printf '<section id="profile">\n<h2>Profiles: %s vs %s</h2>\n' "$(h "$base")" "$(h "$new")"
	printf '<p>Each workload point ran once more on each kernel under <code>perf record -g</code>\n'
	printf '(software clock event in the guest), after and apart from the timed samples.\n'
	printf 'Shares are of that one run&#39;s samples (self time, leaf frame): a profile points\n'
	printf 'at where time goes, it is not a statistic. &quot;2 SE&quot; is twice the binomial\n'
	printf 'standard error of the delta; a delta inside it is noise.</p>\n'
} >"$html"

nsvg=0
for tag in "${tags[@]}"; do
	ok=()
	{
		printf '### %s\n\n' "$tag"
	} >>"$md"
	printf '<h3 id="profile-%s">%s</h3>\n' "$(h "$tag" | tr -c 'A-Za-z0-9._-' '_')" "$(h "$tag")" >>"$html"
	for k in "$base" "$new"; do
		d=$run/profile/$k/$tag
		if [ -f "$d/folded.txt" ] && [ -f "$d/top.txt" ]; then
			check_folded "$d/folded.txt"
			ok+=("$k")
			read -r samples ksamples < <(awk '{ n += $NF; s = $0; sub(/[ \t]+[0-9]+$/, "", s)
				if (s ~ /_\[k\]$/) k += $NF } END { print n + 0, k + 0 }' "$d/folded.txt")
			line="$k: $samples samples ($ksamples in the kernel), event $(meta "$d/meta.txt" event) at $(meta "$d/meta.txt" freq) Hz, kernel $(meta "$d/meta.txt" uname)"
			warn=$(meta "$d/meta.txt" warning)
			[ -z "$warn" ] || line="$line. Warning: $warn"
		elif [ -f "$d/error.txt" ]; then
			line="$k: profiling failed: $(head -n 1 "$d/error.txt") (profile/$k/$tag/error.txt)"
		else
			line="$k: no profile (profile/$k/$tag is missing or incomplete)"
		fi
		printf -- '- %s\n' "$(md_cell "$line")" >>"$md"
		printf '<p>%s</p>\n' "$(h "$line")" >>"$html"
	done
	printf '\n' >>"$md"
	slug=$(printf '%s' "$tag" | tr -c 'A-Za-z0-9._=-' '_')

	# Diff table, when both kernels have a profile.
	if [ "${#ok[@]}" = 2 ]; then
		tsv=profile-diff-$slug.tsv
		"$kbstat" table profile "$run/profile/$base/$tag/folded.txt" \
			"$run/profile/$new/$tag/folded.txt" --labels "$base" "$new" >"$tmp/$tsv" ||
			kb_die "kbstat table profile failed on $run/profile/*/$tag"
		diffs+=("$tsv")
		nsym=$(($(wc -l <"$tmp/$tsv") - 1))
		shown=$((nsym < rows ? nsym : rows))
		{
			printf 'Self share by symbol, largest change first (%d of %d symbols; all in [%s](%s)):\n\n' \
				"$shown" "$nsym" "$tsv" "$tsv"
			printf '| symbol | %s %% | %s %% | delta (pp) | 2 SE (pp) |\n' "$(md_cell "$base")" "$(md_cell "$new")"
			printf '|---|---:|---:|---:|---:|\n'
			tail -n +2 "$tmp/$tsv" | head -n "$rows" | while IFS=$'\t' read -r s a b dl se _ _; do
				printf '| %s | %.2f | %.2f | %+.2f | %.2f |\n' "$(md_cell "$s")" "$a" "$b" "$dl" "$se"
			done
			printf '\n'
		} >>"$md"
		{
			printf '<table>\n<caption>Self share by symbol, largest change first (%d of %d symbols; all in %s)</caption>\n' \
				"$shown" "$nsym" "$(h "$tsv")"
			printf '<tr><th>symbol</th><th>%s %%</th><th>%s %%</th><th>delta (pp)</th><th>2 SE (pp)</th></tr>\n' \
				"$(h "$base")" "$(h "$new")"
			tail -n +2 "$tmp/$tsv" | head -n "$rows" | while IFS=$'\t' read -r s a b dl se _ _; do
				# Shade a change beyond 2 SE: warm if the share grew, cool if
				# it shrank (a share is not a verdict, so no red/green).
				cls=""
				if awk -v d="$dl" -v e="$se" 'BEGIN { if (d < 0) d = -d; exit !(d > e && d >= 0.5) }'; then
					cls=' style="background: #fde9d9"'
					case $dl in -*) cls=' style="background: #dde9f8"' ;; esac
				fi
				printf '<tr%s><td><code>%s</code></td><td class="num">%.2f</td><td class="num">%.2f</td><td class="num">%+.2f</td><td class="num">%.2f</td></tr>\n' \
					"$cls" "$(h "$s")" "$a" "$b" "$dl" "$se"
			done
			printf '</table>\n'
		} >>"$html"
	fi

	# Top symbols, side by side.
	if [ "${#ok[@]}" -gt 0 ]; then
		for k in "${ok[@]}"; do
			top_rows "$run/profile/$k/$tag/top.txt" | head -n "$rows" >"$tmp/top-$k"
		done
		nrow=$(for k in "${ok[@]}"; do wc -l <"$tmp/top-$k"; done | sort -n | tail -n 1)
		{
			printf 'Top symbols by self overhead (perf report --no-children --sort sym):\n\n'
			printf '| # |'
			for k in "${ok[@]}"; do printf ' %s | %% |' "$(md_cell "$k")"; done
			printf '\n|---:|'
			for _ in "${ok[@]}"; do printf '%s' '---|---:|'; done
			printf '\n'
			for ((i = 1; i <= nrow; i++)); do
				printf '| %d |' "$i"
				for k in "${ok[@]}"; do
					IFS=$'\t' read -r p s < <(sed -n "${i}p" "$tmp/top-$k") || true
					printf ' %s | %s |' "$(md_cell "${s:-}")" "${p:-}"
				done
				printf '\n'
			done
			printf '\n'
		} >>"$md"
		{
			printf '<details><summary>Top symbols by self overhead (perf report --no-children --sort sym)</summary>\n<table>\n<tr><th>#</th>'
			for k in "${ok[@]}"; do printf '<th>%s</th><th>%%</th>' "$(h "$k")"; done
			printf '</tr>\n'
			for ((i = 1; i <= nrow; i++)); do
				printf '<tr><td class="num">%d</td>' "$i"
				for k in "${ok[@]}"; do
					IFS=$'\t' read -r p s < <(sed -n "${i}p" "$tmp/top-$k") || true
					printf '<td><code>%s</code></td><td class="num">%s</td>' "$(h "${s:-}")" "$(h "${p:-}")"
				done
				printf '</tr>\n'
			done
			printf '</table></details>\n'
		} >>"$html"
	fi

	# A flame graph per kernel.
	for k in "${ok[@]}"; do
		svg=flame-$k-$slug.svg
		d=$run/profile/$k/$tag
		perl "$top/analysis/flamegraph.pl" --title "$k: $tag" \
			--subtitle "perf record -g, $(meta "$d/meta.txt" event), kernel $(meta "$d/meta.txt" uname)" \
			"$d/folded.txt" >"$tmp/$svg" || kb_die "flamegraph.pl failed on $d/folded.txt"
		case $(head -c 5 "$tmp/$svg") in
		"<?xml" | "<svg"*) ;;
		*) kb_die "flamegraph.pl wrote no SVG for $d/folded.txt" ;;
		esac
		flames+=("$svg")
		nsvg=$((nsvg + 1))
		printf 'Flame graph, %s: [%s](%s)\n\n' "$(md_cell "$k")" "$svg" "$svg" >>"$md"
		{
			printf '<figure>\n'
			sed -n '/<svg/,$p' "$tmp/$svg"
			printf '<figcaption>%s</figcaption></figure>\n' "$(h "$svg")"
		} >>"$html"
	done
done
printf '</section>\n' >>"$html"

# Publish: SVGs and TSVs first, then the Markdown, the HTML fragment last.
rm -f "$run"/flame-*.svg "$run"/profile-diff-*.tsv
for f in "${flames[@]}" "${diffs[@]}"; do
	mv -f "$tmp/$f" "$run/$f"
done
mv -f "$md" "$run/profile.md"
mv -f "$html" "$run/profile.html"
kb_say "profile: wrote $run/profile.html, profile.md, ${#diffs[@]} diff tables and $nsvg flame graphs (${#tags[@]} profile tags)"
