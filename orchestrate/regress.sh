#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make regression-check: is the NEW revision of the series worse than OLD?
#
# Builds NEW's kernel (and OLD's, unless it is the series `make kernels`
# built), runs the workloads on baseline, OLD and NEW interleaved, then
# compares NEW with OLD and NEW with the baseline. kbstat gate decides
# (analysis/README.md): exit 1 on a regression, listing each failed row
# (and, as not regressions, the inconclusive and insufficient rows);
# 0 otherwise. REF=reports/<id> takes OLD's samples (its "patched" kernel)
# from a stored run instead of booting OLD again, if the fingerprints match.
# BISECT=1: on a regression, make bisect-perf of NEW against OLD on the
# rows that failed the gate (orchestrate/bisect.sh), then exit 1; its
# step 0 is the gate's boots of NEW and OLD when the plan is the same
# (bisect.sh --gate), and NEW's and OLD's kernels are not built again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE
kb_conf SERIES OLD

[ -n "${NEW:-}" ] || kb_die "make regression-check needs NEW=<series file | patch dir | mbox | git:repo:base..head> (the new revision)"
abspath() { case "$1" in /* | git:*) printf '%s\n' "$1" ;; *) printf '%s\n' "$top/$1" ;; esac; }

# The patches' content, to recognise a revision already built. Checked
# here, once, naming the setting: a bad NEW= or OLD= must not hash as
# the empty string and go on to the kernel build.
series_sum() {
	local what=$1 spec tmp list msg
	spec=$(abspath "$2")
	tmp=$(mktemp -d)
	list=$tmp/list
	if ! "$top/kernel/scripts/series.sh" "$spec" "$tmp" >"$list" 2>"$tmp/err"; then
		msg=$(tail -n 1 "$tmp/err")
		msg=${msg#kbench: error: }
		kb_die "$what=$2: ${msg#"SERIES=$spec: "}"
	fi
	[ -s "$list" ] || kb_die "$what=$2: holds no patches"
	while IFS= read -r p; do
		kb_sha256_file "$p"
	done <"$list" | sha256sum | cut -d' ' -f1 >"$tmp/sum"
	cat "$tmp/sum"
	rm -rf "$tmp"
}

new_sum=$(series_sum NEW "$NEW") || exit 1
old_sum=$(series_sum OLD "$OLD") || exit 1
patched_sum=$(series_sum SERIES "$SERIES") || exit 1

if [ "$old_sum" = "$patched_sum" ]; then
	old_label=patched
else
	"$top/kernel/scripts/build.sh" old "$(abspath "$OLD")"
	old_label=old
fi
if [ "$new_sum" = "$old_sum" ]; then
	kb_say "NEW has the same patches as OLD: using one kernel for both"
	new_label=$old_label
else
	"$top/kernel/scripts/build.sh" new "$(abspath "$NEW")"
	new_label=new
fi

revisions() {
	echo "NEW=$NEW ($new_label, patches sha256 $new_sum)"
	echo "OLD=$OLD ($old_label, patches sha256 $old_sum)"
	echo "REF=${REF:-}"
}
export KB_TARGET=regression-check KB_TARGET_KEYS="NEW OLD REF"
kb_catch_signals
if [ -n "${RESUME:-}" ]; then
	# absolute: the boots' paths (and the fingerprint's view of them)
	# must not depend on where a script runs
	run=$(cd "$RESUME" 2>/dev/null && pwd) || kb_die "RESUME=$RESUME: no such run directory"
	if [ ! -f "$run/revisions.txt" ] || [ ! -f "$run/plan.id" ]; then
		kb_die "RESUME=$run is not a regression-check run kbench can resume (no revisions.txt or plan.id); start a new one without RESUME="
	fi
	revisions | cmp -s - "$run/revisions.txt" ||
		kb_die "RESUME=$run compared other revisions ($(tr '\n' ' ' <"$run/revisions.txt")), not these ($(revisions | tr '\n' ' ')); nothing was written to it"
	kb_say "resuming $run"
else
	run=$(kb_new_run_dir -regress)
	revisions >"$run/revisions.txt"
fi

if [ -n "${REF:-}" ]; then
	[ -d "$REF/raw/patched" ] || kb_die "REF=$REF has no raw/patched samples to stand for OLD"
	kb_run_boots "$run" --kernel baseline=baseline --kernel new="$new_label"
	if ! "$top/analysis/fpdiff.sh" "$REF/fingerprint.json" "$run/fingerprint.json" >"$run/ref-fpdiff.txt"; then
		if [ "${FORCE:-0}" = 1 ]; then
			kb_say "warning: REF differs from this run (FORCE=1): $(tr '\n' ' ' <"$run/ref-fpdiff.txt")"
		else
			kb_die "REF=$REF was not made the same way as this run; differing fields: $(tr '\n' ' ' <"$run/ref-fpdiff.txt") (FORCE=1 compares anyway)"
		fi
	fi
	mkdir -p "$run/raw/old"
	cp -r "$REF/raw/patched/." "$run/raw/old/"
else
	kb_run_boots "$run" --kernel baseline=baseline --kernel old="$old_label" --kernel new="$new_label"
fi

kbstat=$top/build/analysis/kbstat
floor=()
f=$("$here/floor.sh" "$run")
[ -z "$f" ] || floor=(--floor "$f")
"$kbstat" compare "$run" --base old --new new "${floor[@]}" --out "$run/new-vs-old.json"
"$kbstat" compare "$run" --base baseline --new new "${floor[@]}" --out "$run/new-vs-baseline.json"
# BOOTS=auto: the rule's verdicts, in the files the gate and report read
for r in new-vs-old new-vs-baseline; do
	"$top/analysis/seq-verdicts.sh" "$run/$r.json" "$run"
done
"$kbstat" summary "$run/new-vs-old.json" --format txt >"$run/new-vs-old.txt"
"$kbstat" summary "$run/new-vs-baseline.json" --format txt >"$run/new-vs-baseline.txt"
# The series behind each kernel, for the head of the report: path,
# revision label, patch count and cache key (the fingerprints' build-info;
# OLD's from REF's run when its samples came from there). A git: series
# adds the commit ids its range resolved to.
ids='def ids: if .git_series then " (\(.git_series.base_commit[0:12])..\(.git_series.head_commit[0:12]))" else "" end;'
{
	jq -r --arg p "$NEW" "$ids"'.kernels.new | ["NEW", $p + ids, .label, (.patches | length), .key] | @tsv' \
		"$run/fingerprint.json"
	if [ -n "${REF:-}" ]; then
		jq -r --arg p "$OLD (samples from REF=$REF)" \
			"$ids"'.kernels.patched | ["OLD", $p + ids, .label, (.patches | length), .key] | @tsv' "$REF/fingerprint.json"
	else
		jq -r --arg p "$OLD" "$ids"'.kernels.old | ["OLD", $p + ids, .label, (.patches | length), .key] | @tsv' \
			"$run/fingerprint.json"
	fi
	jq -r '.kernels.baseline | ["baseline", .base_version, .label, (.patches | length), .key] | @tsv' \
		"$run/fingerprint.json"
} >"$run/series.tsv.tmp"
mv "$run/series.tsv.tmp" "$run/series.tsv"
# The report shows the comparison the gate below judges, computed once,
# and leads with the gate's verdict (kbstat gate).
RESULTS=$run/new-vs-old.json BASE=old NEW_LABEL=new "$top/analysis/report.sh" "$run"

echo "== NEW vs OLD"
cat "$run/new-vs-old.txt"
echo "== NEW vs baseline"
cat "$run/new-vs-baseline.txt"

# The decision: kbstat gate, on the files the report's gate read (its
# first lines), so the exit status is the verdict the report leads with.
echo "== the gate"
rc=0
"$kbstat" gate "$run/new-vs-old.json" --baseline "$run/new-vs-baseline.json" \
	--series "$run/series.tsv" || rc=$?
[ "$rc" -le 1 ] || kb_die "kbstat gate failed on $run/new-vs-old.json (see the error above)"
if [ "$rc" != 0 ]; then
	kb_say "report: $run/index.html"
	if [ "${BISECT:-0}" = 1 ]; then
		# which patch of NEW: its prefixes against OLD, on the rows
		# that failed the gate (orchestrate/bisect.sh)
		jq -r '.results[] | select(.verdict == "worse") | [.workload, .variant, .point, .metric] | @tsv' \
			"$run/new-vs-old.json" >"$run/bisect-targets.tsv"
		if [ -s "$run/bisect-targets.tsv" ]; then
			kb_say "BISECT=1: bisecting NEW's series against OLD on the $(grep -c . "$run/bisect-targets.tsv") worse row(s)"
			GOOD=$OLD KB_GOOD_LABEL=$old_label KB_BISECT_LOG_TO=$run/bisect.log \
				"$here/bisect.sh" --targets "$run/bisect-targets.tsv" --gate "$run" || true
			# the report again, with the bisect log after the gate
			if [ -f "$run/bisect.log" ]; then
				RESULTS=$run/new-vs-old.json BASE=old NEW_LABEL=new "$top/analysis/report.sh" "$run"
			fi
		else
			kb_say "BISECT=1: no worse row to bisect (the gate failed on a crash or an absent variant: see above)"
		fi
	fi
	exit 1
fi
kb_say "no regression of NEW against OLD; report: $run/index.html"
