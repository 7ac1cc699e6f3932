#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run fuzz harnesses (make fuzz; tests/unit/fuzz.t), each SECONDS long.
#
#   run.sh SECONDS HARNESS...
#
# Each harness build/fuzz/HARNESS first runs the inputs that once made it
# crash (fuzz/regress/HARNESS/), then fuzzes from its corpus
# (build/fuzz/corpus/HARNESS/, kept between runs, or KB_FUZZ_CORPUS=DIR's
# HARNESS/), the seeds (made by fuzz/seeds.sh, or taken from
# KB_FUZZ_SEEDS=DIR) and those inputs. A
# crash, a sanitizer report, a leak, an input slower than the timeout
# (a hang) or more memory than the limit fails the harness, and its
# input is kept in build/fuzz/artifacts/HARNESS/ and named. Exit 0 when
# every harness ran clean, 1 otherwise.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

[ $# -ge 2 ] || kb_die "usage: fuzz/run.sh SECONDS HARNESS..."
secs=$1
shift
case "$secs" in '' | *[!0-9]* | 0) kb_die "FUZZ_TIME must be a positive whole number of seconds, not '$secs'" ;; esac
out=$top/build/fuzz
# The scripts run where make runs them: a glob in an input that matches
# the repository's files must show here as it would there.
cd "$top"

seeds=${KB_FUZZ_SEEDS:-}
if [ -z "$seeds" ]; then
	seeds=$out/seeds
	"$top/fuzz/seeds.sh" "$seeds"
fi

# The libFuzzer options of a harness. The C parsers' output and error
# messages (one per bad input) are silenced, their sanitizer reports are
# not; a shell harness prints nothing unless its property breaks. A
# script runs bash and its tools for each input: it gets a longer
# timeout (its own hang limit is 20 s, fuzz/sh.h) and smaller inputs.
opts() {
	case "$1" in
	check_conf | wl | series) echo -timeout=60 -max_len=512 ;;
	# a program's output: fio's JSON is 10 to 20 KB
	parse_*) echo -timeout=60 -max_len=24576 ;;
	*) echo -timeout=10 -close_fd_mask=3 ;;
	esac
}

# report HARNESS LOG WHAT: the error for a failed harness, with the
# sanitizer's or the property's report from its log.
report() {
	local h=$1 log=$2 what=$3 a found=()
	while IFS= read -r a; do
		found+=("$a")
	done < <(find "$out/artifacts/$h" -type f -newer "$out/artifacts/$h/.start" | sort)
	{
		echo "kbench: error: fuzz $h: $what"
		# the report: from the sanitizer's or the harness's first line on
		sed -n '/^==[0-9]*==ERROR\|^==[0-9]*== ERROR\|^kbench: fuzz \|runtime error:\|^SUMMARY: \|ERROR: libFuzzer/,$p' "$log" |
			sed '/^Shadow bytes around/,/ABORTING/d' |
			grep -vE '^#[0-9]|^stat::|in fuzzer::|__libc_start|INFO: to ignore| in (main|_start) ' |
			head -n 40 | sed 's/^/  | /'
		for a in "${found[@]}"; do
			echo "  input kept: ${a#"$top/"}"
			echo "  reproduce:  build/fuzz/$h ${a#"$top/"}"
		done
		echo "  full log: ${log#"$top/"}"
		echo "  fix the parser, then add the input to fuzz/regress/$h/ (fuzz/README.md)"
	} >&2
}

# final_stat NAME LOG: a -print_final_stats value.
final_stat() {
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

failed=()
for h in "$@"; do
	bin=$out/$h
	[ -x "$bin" ] || kb_die "$bin: not built; run make fuzz-tools"
	[ -d "$seeds/$h" ] || kb_die "$seeds/$h: no seed corpus (fuzz/seeds.sh makes it)"
	corpus=${KB_FUZZ_CORPUS:-$out/corpus}/$h
	mkdir -p "$out/artifacts/$h" "$corpus" "$out/logs"
	touch "$out/artifacts/$h/.start"
	log=$out/logs/$h.log
	read -r -a o <<<"$(opts "$h")"
	[ ! -f "$top/fuzz/dict/$h.dict" ] || o+=(-dict="$top/fuzz/dict/$h.dict")
	dirs=("$corpus" "$seeds/$h")
	regress=()
	if [ -d "$top/fuzz/regress/$h" ]; then
		dirs+=("$top/fuzz/regress/$h")
		mapfile -t regress < <(find "$top/fuzz/regress/$h" -type f | sort)
	fi

	# 1. every input that once crashed this harness, once each
	if [ "${#regress[@]}" -gt 0 ] &&
		! timeout 300 "$bin" "${o[@]}" "${regress[@]}" >"$log" 2>&1; then
		bad=$(sed -n 's/^Running: //p' "$log" | tail -n 1)
		report "$h" "$log" "an input that crashed it before crashes it again: ${bad#"$top/"}"
		failed+=("$h")
		continue
	fi

	# 2. fuzz; timeout(1) stops a fuzzer that would not stop by itself
	rc=0
	timeout $((secs + 300)) "$bin" "${o[@]}" -max_total_time="$secs" \
		-rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$h/" "${dirs[@]}" >"$log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		case "$rc" in
		124) what="libFuzzer did not stop after $((secs + 300)) s" ;;
		*) what="found a crash, sanitizer report, leak, hang or memory blow-up (libFuzzer exit $rc)" ;;
		esac
		report "$h" "$log" "$what"
		failed+=("$h")
		continue
	fi
	runs=$(final_stat number_of_executed_units "$log")
	rate=$(final_stat average_exec_per_sec "$log")
	rss=$(final_stat peak_rss_mb "$log")
	n=$(find "$corpus" -type f | wc -l)
	echo "fuzz $h: ${secs} s, ${runs:-?} runs (${rate:-?}/s), corpus $n, peak RSS ${rss:-?} MB: no crash, leak or hang"
done

if [ "${#failed[@]}" -gt 0 ]; then
	kb_die "fuzzing failed in: ${failed[*]} (each error above names the input and how to reproduce it)"
fi
