#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Join the kbcache plugin's windows to the measured samples of one boot
# and add the model's metrics to the boot's raw CSVs (model/README.md).
#
#   join.sh --windows FILE --plan PLAN.tsv --raw DIR [--workloads W1,W2] [--boot LABEL]
#
# FILE is what the plugin wrote (outfile=): its parameter line, a header,
# one line per window, and its end line. PLAN.tsv is the payload's plan,
# in the order the guest runner ran it; DIR holds the boot's
# <workload>.csv files. The sample windows, in order, are the measured
# samples of the plan's lines in order, each line's reps 1..R as its
# CSV holds them (an absent point has none). For every sample of the
# workloads named by --workloads (default: all) four rows are appended,
# with clock "model" and the sample's rep: model_cycles (cycles, lower is
# better: judged), l1d_misses, llc_misses and dtlb_misses (count,
# informational). Values are the window's totals, not per operation.
#
# All or nothing: any mismatch (the windows file missing, malformed or
# without its end line; an unclosed, stray or restarted window; a count
# of sample windows other than the count of samples; model rows already
# in a CSV) is an error naming LABEL and the file, and DIR is unchanged.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"

windows='' plan='' raw='' only='*' boot=''
while [ $# -gt 0 ]; do
	case "$1" in
	--windows | --plan | --raw | --workloads | --boot)
		[ $# -ge 2 ] || kb_die "join.sh: $1 needs a value"
		case "$1" in
		--windows) windows=$2 ;;
		--plan) plan=$2 ;;
		--raw) raw=$2 ;;
		--workloads) only=$2 ;;
		--boot) boot=$2 ;;
		esac
		shift 2 ;;
	*) kb_die "join.sh: unknown argument '$1' (usage: join.sh --windows FILE --plan PLAN.tsv --raw DIR [--workloads W1,W2] [--boot LABEL])" ;;
	esac
done
if [ -z "$windows" ] || [ -z "$plan" ] || [ -z "$raw" ]; then
	kb_die "join.sh: --windows, --plan and --raw are required"
fi
who="model join${boot:+ of boot $boot}"
die() { kb_die "$who: $*"; }

[ -f "$plan" ] || die "no plan $plan"
[ -d "$raw" ] || die "no raw directory $raw"
[ -f "$windows" ] || die "no windows file $windows: the kbcache plugin wrote none (did QEMU load it? see qemu.log beside it)"
[ -s "$windows" ] || die "$windows is empty: the kbcache plugin never started (see qemu.log beside it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-join.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. The windows: checked line by line; the sample windows' values, in
# order, to $tmp/windows (window l1d llc dtlb model_cycles).
awk -F, -v file="$windows" -v out="$tmp/windows" '
	function bad(line, msg) {
		printf "%s:%d: %s\n", file, line, msg > "/dev/stderr"
		failed = 1
		exit 1
	}
	function num(s) { return s ~ /^[0-9]+$/ }
	NR == 1 {
		if ($0 !~ /^# kbcache v2 /)
			bad(1, "first line is not the plugin'"'"'s parameters (# kbcache v2 ...)")
		next
	}
	NR == 2 {
		if ($0 != "window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,dtlb_misses,model_cycles,irqs,irq_insns")
			bad(2, "header is not window,kind,vcpu,instructions,accesses,l1d_misses,llc_misses,dtlb_misses,model_cycles,irqs,irq_insns")
		next
	}
	endl { bad(NR, "a line after the end line") }
	/^# kbcache end: / {
		endl = NR
		for (i = 4; i <= split($0, kv, " "); i++) {
			split(kv[i], p, "=")
			if (!num(p[2]))
				bad(NR, "end line: \"" kv[i] "\" is not key=count")
			cnt[p[1]] = p[2]
		}
		for (k in want)
			if (!(k in cnt))
				bad(NR, "end line has no " k "=")
		next
	}
	{
		if (NF != 11)
			bad(NR, NF " fields, expected 11")
		if ($1 != ++w)
			bad(NR, "window " $1 ", expected " w " (windows are numbered in order)")
		if ($2 != "sample" && $2 != "warmup")
			bad(NR, "kind \"" $2 "\" is not sample or warmup")
		for (i = 3; i <= 11; i++)
			if (!num($i))
				bad(NR, "field " i " (\"" $i "\") is not a count")
		if ($2 == "sample")
			printf "%d\t%s\t%s\t%s\t%s\n", w, $6, $7, $8, $9 > out
	}
	BEGIN {
		want["windows"]; want["unclosed"]; want["stray_ends"]; want["restarts"]
		want["entries"]; want["irqs"]; want["unbalanced"]
		printf "" > out
	}
	END {
		if (failed)
			exit 1
		if (NR < 2)
			bad(NR, "no header line")
		if (!endl)
			bad(NR, "no \"# kbcache end:\" line: QEMU did not exit cleanly (killed, or still running), so windows may be missing")
		if (cnt["windows"] != w)
			bad(endl, "the end line counts " cnt["windows"] " windows, the file has " w)
		if (cnt["unclosed"] || cnt["stray_ends"] || cnt["restarts"])
			bad(endl, "unclosed=" cnt["unclosed"] " stray_ends=" cnt["stray_ends"] " restarts=" cnt["restarts"] \
				": a sample started and never ended (unclosed, or restarted by the next start) or an end came without a start, so the windows cannot be matched to the samples")
		if (cnt["entries"] && !cnt["irqs"])
			bad(endl, "entries=" cnt["entries"] " irqs=0: no interrupt entry of the kernel ran in the whole boot, so its addresses were not the entries file'"'"'s (a kernel booted without nokaslr, or another vmlinux), and interrupts were counted in the windows")
		if (cnt["unbalanced"])
			bad(endl, "unbalanced=" cnt["unbalanced"] ": a window ended inside an interrupt it was leaving out (an entry without its iretq), so its counts lack part of the sample")
	}' "$windows" 2>"$tmp/err" || die "$(cat "$tmp/err")"

# 2. The samples, in the order the guest ran them: for each plan line,
# the reps of its variant and point in its workload's CSV (in the order
# of the CSV). Output: workload variant point rep (tab-separated).
awk -F'\t' -v raw="$raw" -v planf="$plan" -v out="$tmp/samples" -v counts="$tmp/counts" '
	function bad(msg) {
		print msg > "/dev/stderr"
		failed = 1
		exit 1
	}
	# read_csv W: every sample (rep >= 1) of raw/W.csv, by variant and point
	function read_csv(w,    f, line, n, fl, k, key) {
		seen_csv[w] = 1
		f = raw "/" w ".csv"
		if ((getline line < f) < 0)
			return	# no CSV: every point absent or failed
		n = 0
		do {
			n++
			if (n == 1)
				continue
			if (split(line, fl, ",") != 9)
				bad(f ":" n ": not a CSV row of 9 fields")
			if (fl[7] == "model")
				bad(f ":" n ": already has model rows (joined before?)")
			if (fl[8] !~ /^[0-9]+$/)
				bad(f ":" n ": rep \"" fl[8] "\" is not a number")
			if (fl[8] == 0)
				continue
			key = w SUBSEP fl[2] SUBSEP fl[3]
			if ((key SUBSEP fl[8]) in have)
				continue
			have[key SUBSEP fl[8]] = 1
			reps[key, ++nrep[key]] = fl[8]
		} while ((getline line < f) > 0)
		close(f)
	}
	NF == 0 { next }
	{
		w = $1; v = $3; p = $4
		if (!(w in seen_csv))
			read_csv(w)
		key = w SUBSEP v SUBSEP p
		if (key in planned)
			bad(planf ":" FNR ": workload " w " variant " v " point " p " is planned twice: its samples cannot be told apart")
		planned[key] = 1
		if (nrep[key] && nrep[key] != $5)
			bad(raw "/" w ".csv: variant " v " point " p " has " nrep[key] " samples, the plan (" planf ":" FNR ") runs " $5)
		for (i = 1; i <= nrep[key]; i++)
			printf "%s\t%s\t%s\t%s\n", w, v, p, reps[key, i] > out
		total[w] += nrep[key]
		if (!(w in order))
			order[w] = ++nw
	}
	BEGIN { printf "" > out; printf "" > counts }
	END {
		if (failed)
			exit 1
		for (w in order)
			names[order[w]] = w
		for (i = 1; i <= nw; i++)
			printf("%s%s %d", (i > 1 ? ", " : ""), names[i], total[names[i]]) > counts
	}' "$plan" 2>"$tmp/err" || die "$(cat "$tmp/err")"

nwin=$(wc -l <"$tmp/windows")
nsmp=$(wc -l <"$tmp/samples")
if [ "$nwin" != "$nsmp" ]; then
	die "$windows has $nwin sample windows, but the boot's CSVs in $raw hold $nsmp measured samples ($(cat "$tmp/counts")): they cannot be matched"
fi

# 3. The rows, appended to a copy of each CSV; then every copy is renamed
# over its CSV (a CSV is whole before or after, never in between).
paste "$tmp/samples" "$tmp/windows" | awk -F'\t' -v only="$only" -v raw="$raw" -v tmp="$tmp" '
	BEGIN {
		if (only != "*")
			for (i = 1; i <= split(only, l, ","); i++)
				want[l[i]] = 1
	}
	only != "*" && !($1 in want) { next }
	{
		f = tmp "/" $1 ".csv"
		if (!($1 in started)) {
			started[$1] = 1
			print $1 > (tmp "/list")
		}
		pre = $1 "," $2 "," $3 ","
		post = ",model," $4 ","
		# $5..$9: window, l1d, llc, dtlb, model_cycles
		print pre "model_cycles,cycles,lower" post $9 > f
		print pre "l1d_misses,count,none" post $6 > f
		print pre "llc_misses,count,none" post $7 > f
		print pre "dtlb_misses,count,none" post $8 > f
	}' || die "writing the rows failed"
[ -f "$tmp/list" ] || exit 0
while IFS= read -r w; do
	cat "$raw/$w.csv" "$tmp/$w.csv" >"$raw/.$w.csv.model.tmp" ||
		{ rm -f "$raw"/.*.csv.model.tmp; die "writing $raw/.$w.csv.model.tmp failed (host disk full?)"; }
done <"$tmp/list"
while IFS= read -r w; do
	mv -f "$raw/.$w.csv.model.tmp" "$raw/$w.csv"
done <"$tmp/list"
kb_verbose "$who: $nsmp samples ($(cat "$tmp/counts")) joined from $windows"
