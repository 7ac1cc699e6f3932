# SPDX-License-Identifier: GPL-2.0
# stress-ng --metrics --yaml FILE (stress-ng 0.15.06, Debian 12): the
# "metrics:" list, one entry per stressor. Rows per stressor S ('-' in
# its name becomes '_'):
#   S_bogo_ops_per_s      ops/s  higher  bogo-ops-per-second-real-time
#   S_bogo_ops_per_s_cpu  ops/s  higher  bogo-ops-per-second-usr-sys-time
#   S_bogo_ops            count  none    bogo-ops (with --timeout it
#                                        follows the rate; with --S-ops
#                                        it is fixed: informational)
# A stressor's own extra metrics (matrix's "add-matrix-ops-per-sec",
# ...) are left out. The YAML is read as stress-ng writes it: "---"
# first, top-level keys at column 0, "- stressor: S" opening an entry
# whose "key: value" lines are indented, "..." last (a file without it
# was cut short).

function fail(why) {
	if (!err)
		err = why
}

# close the entry being read: its rows
function flush(   s) {
	if (st == "")
		return
	s = st
	gsub(/-/, "_", s)
	if (s !~ /^[a-z][a-z0-9_]*$/)
		fail("stressor \"" st "\": not a name kbench can use in a metric")
	put(s "_bogo_ops_per_s", "ops/s", "higher", "bogo-ops-per-second-real-time")
	put(s "_bogo_ops_per_s_cpu", "ops/s", "higher", "bogo-ops-per-second-usr-sys-time")
	put(s "_bogo_ops", "count", "none", "bogo-ops")
	split("", kv)
	st = ""
}

function put(m, u, b, k) {
	if (!(k in kv)) {
		fail("stressor " st ": no " k)
		return
	}
	if (kv[k] !~ /^[0-9]+(\.[0-9]+)?$/) {
		fail("stressor " st ": " k " is not a number: " kv[k])
		return
	}
	rows[++n] = m "\t" u "\t" b "\t" kv[k]
}

err { next }
!started {
	if ($0 ~ /^[ \t]*$/)
		next
	if ($0 != "---") {
		fail("line " NR ": expected \"---\" first (stress-ng's --yaml file), got: " $0)
		next
	}
	started = 1
	next
}
ended {
	if ($0 !~ /^[ \t]*$/)
		fail("line " NR ": text after \"...\": " $0)
	next
}
$0 == "..." { flush(); ended = 1; next }
/^[^ \t-]/ {
	# a top-level key: metrics: starts the list, any other ends it
	flush()
	inm = $0 ~ /^metrics:[ \t]*$/
	if (inm)
		seen_metrics = 1
	next
}
!inm { next }
/^[ \t]*$/ { next }
/^[ \t]*- stressor:/ {
	flush()
	st = $0
	sub(/^[ \t]*- stressor:[ \t]*/, "", st)
	sub(/[ \t]+$/, "", st)
	if (st == "")
		fail("line " NR ": a stressor without a name")
	if (st in had)
		fail("line " NR ": stressor " st " twice")
	had[st] = 1
	next
}
/^[ \t]+[a-z0-9-]+:/ {
	if (st == "") {
		fail("line " NR ": a metric before \"- stressor:\": " $0)
		next
	}
	k = $0
	sub(/^[ \t]+/, "", k)
	v = k
	sub(/:.*/, "", k)
	sub(/^[^:]*:[ \t]*/, "", v)
	sub(/[ \t]+$/, "", v)
	if (k in kv)
		fail("line " NR ": stressor " st ": " k " twice")
	kv[k] = v
	next
}
{ fail("line " NR ": not stress-ng's YAML: " $0) }

END {
	if (!err && !started)
		fail("empty: no stress-ng YAML (did the command write the file the workload's output names?)")
	if (!err && !ended)
		fail("no \"...\" at the end: the YAML was cut short")
	if (!err && !seen_metrics)
		fail("no \"metrics:\" (stress-ng without --metrics?)")
	if (!err && !n)
		fail("no stressor in \"metrics:\"")
	if (err) {
		printf "error\t%s\n", err
		exit 1
	}
	for (i = 1; i <= n; i++)
		print rows[i]
}
