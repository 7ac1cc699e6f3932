# SPDX-License-Identifier: GPL-2.0
# perf bench's default output (perf 6.1, Debian's linux-perf), of one
# benchmark: sched pipe and sched messaging, and any other that prints
# the same lines. Rows (parse.sh's contract):
#   "Total time: 0.456 [sec]"   total_time_s   s      lower
#   "22.812350 usecs/op"        usecs_per_op   us     lower
#   "43835 ops/sec"             ops_per_sec    ops/s  higher
# The numbers are passed on as perf printed them. Its header line
# "# Running 'SUBSYS/BENCH' benchmark:" must come first, once; other
# lines are perf's comments and are left out. --format simple prints a
# bare number that says nothing of what it is: refused.

function fail(why) {
	if (!err)
		err = why
}

function num(s) {
	return s ~ /^[0-9]+(\.[0-9]+)?$/
}

# put(METRIC, UNIT, BETTER, VALUE): one row, once
function put(m, u, b, v) {
	if (!num(v)) {
		fail("line " NR ": '" v "' is not a number: " $0)
		return
	}
	if (m in got) {
		fail("line " NR ": a second " m ": two runs in one output?")
		return
	}
	got[m] = 1
	rows[++n] = m "\t" u "\t" b "\t" v
}

/^# Running '[^']*' benchmark:/ {
	if (bench != "")
		fail("line " NR ": a second benchmark (" $0 ") after '" bench "': one run a sample")
	bench = $3
	next
}
bench == "" && NF {
	fail("line " NR ": expected \"# Running '...' benchmark:\" first (perf bench's default format, not --format simple), got: " $0)
	next
}
$1 == "Total" && $2 == "time:" {
	if (NF != 4 || $4 != "[sec]")
		fail("line " NR ": not \"Total time: N [sec]\": " $0)
	else
		put("total_time_s", "s", "lower", $3)
	next
}
NF == 2 && $2 == "usecs/op" { put("usecs_per_op", "us", "lower", $1); next }
NF == 2 && $2 == "ops/sec" { put("ops_per_sec", "ops/s", "higher", $1); next }

END {
	if (!err && bench == "")
		fail("no \"# Running '...' benchmark:\" line: not perf bench's output")
	if (!err && !("total_time_s" in got))
		fail("no \"Total time: N [sec]\" line (" bench " did not finish?)")
	if (err) {
		printf "error\t%s\n", err
		exit 1
	}
	for (i = 1; i <= n; i++)
		print rows[i]
}
