# SPDX-License-Identifier: GPL-2.0
# hackbench (rt-tests 2.4, Debian 12): groups of senders and receivers
# passing messages over sockets or pipes, processes or threads; it
# prints its setup and, last, "Time: SECONDS" (the time to pass every
# message, in seconds, three decimals). One row:
#   time_s  s  lower
# Its first line ("Running in process mode with ..." or "... threaded
# mode ...") must be there: output without it is not hackbench's.

function fail(why) {
	if (!err)
		err = why
}

/^Running in (process|threaded) mode with / { running++; next }
/^Each sender will pass / { next }
/^Time: / {
	if (!running)
		fail("line " NR ": \"Time:\" before hackbench's \"Running in ... mode\" line")
	else if (NF != 2 || $2 !~ /^[0-9]+(\.[0-9]+)?$/)
		fail("line " NR ": not \"Time: SECONDS\": " $0)
	else if (t != "")
		fail("line " NR ": a second \"Time:\" (two runs in one output?)")
	else
		t = $2
	next
}
/^[ \t]*$/ { next }
{ fail("line " NR ": not hackbench's output: " $0) }

END {
	if (!err && running != 1)
		fail(running ? "hackbench ran more than once in one output" : "no \"Running in ... mode\" line: not hackbench's output")
	if (!err && t == "")
		fail("no \"Time: SECONDS\" line (hackbench did not finish?)")
	if (err) {
		printf "error\t%s\n", err
		exit 1
	}
	print "time_s\ts\tlower\t" t
}
