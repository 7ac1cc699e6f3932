#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The results of 6.12's own BPF selftests (test_progs, test_maps), as
# make upstream-selftests reads them back from a guest.
#
#   results.sh progs NAME RC LOG   test_progs' output -> result rows
#   results.sh maps NAME RC LOG    test_maps' (binary NAME) output -> result rows
#   results.sh compare A.tsv B.tsv LABEL_A LABEL_B OUT_PREFIX
#
# A result row is four tab-separated fields: test (test_progs' "name" or
# "name/subtest", "test_maps", "test_maps/<part>" (or another test_maps binary's name), or "[test_progs -t
# NAME]" for the run itself), status (OK, FAIL, SKIP, TIMEOUT, CRASH),
# testmod (1 if the test's log mentions bpf_testmod: it needs the module,
# and the kbench kernels have no modules) and the first error line (or,
# for a skip, its first log line).
#
# compare writes OUT_PREFIX.tsv (test, A, B, note) and OUT_PREFIX.txt (the
# same as a table) and prints the table. It exits 1 if a test passes on A
# and does not on B (it fails, skips, times out or is missing there),
# naming each; a test that fails on both is listed with its first error
# line, never hidden.
set -euo pipefail

usage() {
	echo "usage: results.sh progs NAME RC LOG | maps NAME RC LOG | compare A.tsv B.tsv LABEL_A LABEL_B OUT_PREFIX" >&2
	exit 2
}

# A run's exit status: 124 is timeout(1)'s own, 137 its KILL after -k.
run_status() {
	case "$1" in
	0 | 1) echo OK ;;
	124 | 137) echo TIMEOUT ;;
	*) echo CRASH ;;
	esac
}

# test_progs prints, for each test, the log of what failed (ASSERT_*
# lines are "func:FAIL:tag ..."), then "#N/M test/subtest:RESULT" for
# each subtest and "#N test:RESULT" for the test; "All error logs:"
# repeats the failures at the end (not read twice).
parse_progs() {
	local name=$1 rc=$2 log=$3 st last
	[ -r "$log" ] || { echo "results.sh: no test_progs log $log" >&2; exit 2; }
	tr -d '\r' <"$log" | awk -F'\t' '
	function first_error(b,   n, i, j, l) {
		n = split(b, l, "\n")
		for (i = 1; i <= n; i++) if (l[i] ~ /:FAIL:/) {
			# with the first libbpf complaint before it: the reason
			for (j = 1; j < i; j++)
				if (l[j] ~ /^libbpf: .*(fail|not resolved|[Ee]rror|[Nn]o such)/)
					return l[i] " [" l[j] "]"
			return l[i]
		}
		for (i = 1; i <= n; i++) if (l[i] ~ /(^libbpf: |[Ee]rror|[Ff]ailed|errno)/) return l[i]
		for (i = 1; i <= n; i++) if (l[i] ~ /[^ \t]/) return l[i]
		return ""
	}
	function clean(s) { gsub(/\t/, " ", s); sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	/^All error logs:/ { exit }
	# test_progs own start-up messages about loading bpf_testmod.ko belong
	# to no test
	/bpf_testmod\.ko/ { next }
	/^#[0-9]+(\/[0-9]+)?[ \t]+[^ \t]+:(OK|FAIL|SKIP)/ {
		line = $0
		sub(/^#[0-9\/]+[ \t]+/, "", line)
		p = match(line, /:(OK|FAIL|SKIP)/)
		t = substr(line, 1, p - 1)
		res = substr(line, p + 1)
		st = res ~ /^FAIL/ ? "FAIL" : (res ~ /^SKIP/ ? "SKIP" : "OK")
		sub_test = ($0 ~ /^#[0-9]+\//)
		# a subtest: its own log is what came since the last result line;
		# a test: everything since the previous test ended
		b = sub_test ? buf : tbuf
		tm = (b ~ /testmod/) ? 1 : 0
		d = (st == "OK") ? "" : clean(first_error(b))
		if (!(t in seen)) {
			seen[t] = 1
			printf "%s\t%s\t%d\t%s\n", t, st, tm, d
		}
		buf = ""
		if (!sub_test) tbuf = ""
		next
	}
	{ buf = buf $0 "\n"; tbuf = tbuf $0 "\n" }
	'
	st=$(run_status "$rc")
	last=$(tr -d '\r' <"$log" | grep -v '^[[:space:]]*$' | tail -n 1 | tr '\t' ' ' || true)
	case "$st" in
	OK) printf '[test_progs -t %s]\tOK\t0\t\n' "$name" ;;
	TIMEOUT) printf '[test_progs -t %s]\tTIMEOUT\t0\ttime limit reached (exit %s); last output: %s\n' "$name" "$rc" "$last" ;;
	*) printf '[test_progs -t %s]\tCRASH\t0\texit %s; last output: %s\n' "$name" "$rc" "$last" ;;
	esac
}

# test_maps runs everything in one process and prints little: the
# map_tests parts print "name:PASS", an unsupported map type "name SKIP
# (...)", a failed CHECK "func(line):FAIL:tag ..." and exits, and the end
# is "test_maps: OK, N SKIPPED".
parse_maps() {
	local name=$1 rc=$2 log=$3 st last err skipped
	[ -r "$log" ] || { echo "results.sh: no test_maps log $log" >&2; exit 2; }
	tr -d '\r' <"$log" | awk -v m="$name" '
	/^[A-Za-z0-9_]+:PASS$/ { t = $0; sub(/:PASS$/, "", t); if (!(t in s)) printf "%s/%s\tOK\t0\t\n", m, t; s[t] = 1; next }
	/^[A-Za-z0-9_]+ SKIP / { t = $1; d = $0; sub(/^[^ ]+ /, "", d); if (!(t in s)) printf "%s/%s\tSKIP\t0\t%s\n", m, t, d; s[t] = 1 }
	'
	st=$(run_status "$rc")
	last=$(tr -d '\r' <"$log" | grep -v '^[[:space:]]*$' | tail -n 1 | tr '\t' ' ' || true)
	err=$(tr -d '\r' <"$log" | grep -m 1 -E ':FAIL:|Assertion|[Ff]ailed|error' | tr '\t' ' ' || true)
	skipped=$(tr -d '\r' <"$log" | sed -n 's/^test_maps: OK, \([0-9]*\) SKIPPED.*/\1/p' | tail -n 1)
	if [ "$rc" = 0 ] && [ -n "$skipped" ]; then
		if [ "$skipped" = 0 ]; then
			printf '%s\tOK\t0\t\n' "$name"
		else
			printf '%s\tOK\t0\t%s skipped\n' "$name" "$skipped"
		fi
	elif [ "$st" = TIMEOUT ]; then
		printf '%s\tTIMEOUT\t0\ttime limit reached (exit %s); last output: %s\n' "$name" "$rc" "$last"
	else
		printf '%s\tFAIL\t0\texit %s: %s\n' "$name" "$rc" "${err:-$last}"
	fi
}

compare() {
	local a=$1 b=$2 la=$3 lb=$4 out=$5 regs
	[ -r "$a" ] || { echo "results.sh: no results $a" >&2; exit 2; }
	[ -r "$b" ] || { echo "results.sh: no results $b" >&2; exit 2; }
	awk -F'\t' -v OFS='\t' -v la="$la" -v lb="$lb" -v regfile="$out.regressions" '
	FNR == 1 { f++ }
	NF >= 2 {
		if (!($1 in known)) { known[$1] = 1; order[++n] = $1 }
		st[f, $1] = $2; tm[f, $1] = $3; d[f, $1] = $4
	}
	END {
		printf "test\t%s\t%s\tnote\n", la, lb
		nreg = 0
		for (i = 1; i <= n; i++) {
			t = order[i]
			sa = ((1, t) in st) ? st[1, t] : "missing"
			sb = ((2, t) in st) ? st[2, t] : "missing"
			note = ""
			testmod = (tm[1, t] == 1 || tm[2, t] == 1)
			if (sa == "OK" && sb != "OK") {
				note = "REGRESSION: passes on " la ", " sb " on " lb
				if (d[2, t] != "") note = note ": " d[2, t]
				reg[++nreg] = t " (" sb ")"
			} else if (sa == "OK" && sb == "OK") {
				note = ""
			} else if (testmod && sa != "OK" && sb != "OK") {
				note = "needs bpf_testmod (modules are off in kbench kernels)"
				e = (d[1, t] != "") ? d[1, t] : d[2, t]
				if (e != "") note = note ": " e
			} else if (sa == "missing") {
				note = "only on " lb
				if (d[2, t] != "") note = note ": " d[2, t]
			} else if (sb == "missing") {
				note = sa " on " la "; not run on " lb
				if (d[1, t] != "") note = note ": " d[1, t]
			} else if (sa == "SKIP" && sb == "SKIP") {
				note = "skipped on both"
				e = (d[1, t] != "") ? d[1, t] : d[2, t]
				if (e != "") note = note ": " e
			} else if (sb == "OK") {
				note = sa " on " la " only"
				if (d[1, t] != "") note = note ": " d[1, t]
			} else if (sa == "SKIP" || sb == "SKIP") {
				note = sa " on " la ", " sb " on " lb
				e = (d[1, t] != "") ? d[1, t] : d[2, t]
				if (e != "") note = note ": " e
			} else {
				note = "fails on both (" sa ", " sb ")"
				e = (d[1, t] != "") ? d[1, t] : d[2, t]
				if (e != "") note = note ": " e
				if (d[2, t] != "" && d[2, t] != d[1, t]) note = note "; on " lb ": " d[2, t]
			}
			print t, sa, sb, note
		}
		for (i = 1; i <= nreg; i++) print reg[i] > regfile
		close(regfile)
	}' "$a" "$b" >"$out.tsv.tmp"
	mv -f "$out.tsv.tmp" "$out.tsv"
	# the table: fixed-width columns, notes cut at 200 characters
	awk -F'\t' '
	{ r[NR] = $0; for (i = 1; i <= 3; i++) if (length($i) > w[i]) w[i] = length($i) }
	END {
		for (j = 1; j <= NR; j++) {
			split(r[j], c, "\t")
			note = c[4]
			if (length(note) > 200) note = substr(note, 1, 197) "..."
			line = sprintf("%-" w[1] "s  %-" w[2] "s  %-" w[3] "s  %s", c[1], c[2], c[3], note)
			sub(/ +$/, "", line)
			print line
		}
	}' "$out.tsv" >"$out.txt.tmp"
	mv -f "$out.txt.tmp" "$out.txt"
	cat "$out.txt"
	if [ -s "$out.regressions" ]; then
		regs=$(paste -sd, "$out.regressions" | sed 's/,/, /g')
		echo
		echo "FAIL: passes on $la, not on $lb: $regs"
		return 1
	fi
	rm -f "$out.regressions"
	return 0
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
progs) [ $# -eq 3 ] || usage; parse_progs "$@" ;;
maps) [ $# -eq 3 ] || usage; parse_maps "$@" ;;
compare) [ $# -eq 5 ] || usage; compare "$@" ;;
*) usage ;;
esac
