# SPDX-License-Identifier: GPL-2.0
# fio --output-format=json (fio 3.33, Debian 12): for each job, each
# direction (read, write, trim) that did I/O:
#   DIR_iops            iops    higher   "iops"
#   DIR_bw_kib_s        KiB/s   higher   "bw" (fio's unit: KiB/s)
#   DIR_clat_mean_ns    ns      lower    "clat_ns" "mean"
#   DIR_clat_pP_ns      ns      lower    each "clat_ns" "percentile" "P",
#                                        P = 99.900000 -> p99_9
# The percentiles are those fio printed: the workload picks them with
# fio's --percentile_list. One job (or --group_reporting): the names as
# above; several: job1_..., job2_... in fio's order. A job with
# "error" other than 0 fails the sample, as does output with no I/O.
# Lines before the first one that starts with "{" are fio's notes, not
# JSON, and are left out; the JSON itself is read by a small reader
# (tokens by line: a JSON string never holds a raw newline).

function fail(why) {
	if (!err)
		err = why
}

# The reader: a stack of containers; path[d] is the key (object) or
# index (array) at depth d; each scalar read is flat["k1/k2/..."].
function path_of(   i, p) {
	p = path[1]
	for (i = 2; i <= depth; i++)
		p = p "/" path[i]
	return p
}

# value(TOKEN): a scalar where a value may come
function value(t) {
	if (state != "value") {
		fail("line " NR ": unexpected " t)
		return
	}
	if (depth == 0) {
		fail("line " NR ": a value outside the top-level object")
		return
	}
	flat[path_of()] = t
	after_value()
}

function after_value() {
	state = "sep"
}

function open_(kind) {
	if (state != "value") {
		fail("line " NR ": unexpected " (kind == "o" ? "{" : "["))
		return
	}
	if (depth == 0 && done) {
		fail("line " NR ": a second JSON text")
		return
	}
	if (depth >= 64) {
		fail("line " NR ": nested deeper than 64")
		return
	}
	kind_[++depth] = kind
	if (kind == "a") {
		path[depth] = 0
		state = "first"
	} else {
		state = "key"
	}
}

function close_(kind) {
	if (depth == 0 || kind_[depth] != kind) {
		fail("line " NR ": unexpected " (kind == "o" ? "}" : "]"))
		return
	}
	# an empty container, or after a value; not after a comma
	if (state != "sep" && state != "first" && !(state == "key" && !nkeys[depth])) {
		fail("line " NR ": unexpected " (kind == "o" ? "}" : "]"))
		return
	}
	nkeys[depth] = 0
	depth--
	if (depth == 0) {
		done = 1
		state = "end"
	} else {
		after_value()
	}
}

function comma() {
	if (state != "sep") {
		fail("line " NR ": unexpected ,")
		return
	}
	if (kind_[depth] == "a") {
		path[depth]++
		state = "value"
	} else {
		state = "key"
	}
}

function str(t) {
	if (state == "key") {
		path[depth] = substr(t, 2, length(t) - 2)
		nkeys[depth]++
		state = "colon"
		return
	}
	if (state == "first")
		state = "value"
	if (state != "value") {
		fail("line " NR ": unexpected " t)
		return
	}
	value(substr(t, 2, length(t) - 2))
}

function tokens(s,   t) {
	while (s != "" && !err) {
		if (match(s, /^[ \t\r]+/)) {
			s = substr(s, RLENGTH + 1)
			continue
		}
		if (state == "end") {
			fail("line " NR ": text after the JSON: " s)
			return
		}
		t = substr(s, 1, 1)
		if (t == "{" || t == "[") {
			if (state == "first")
				state = "value"
			open_(t == "{" ? "o" : "a")
			s = substr(s, 2)
		} else if (t == "}" || t == "]") {
			close_(t == "}" ? "o" : "a")
			s = substr(s, 2)
		} else if (t == ",") {
			comma()
			s = substr(s, 2)
		} else if (t == ":") {
			if (state != "colon")
				fail("line " NR ": unexpected :")
			state = "value"
			s = substr(s, 2)
		} else if (match(s, /^"([^"\\]|\\.)*"/)) {
			str(substr(s, 1, RLENGTH))
			s = substr(s, RLENGTH + 1)
		} else if (match(s, /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/) ||
			   match(s, /^(true|false|null|-?nan|-?inf)/)) {
			if (state == "first")
				state = "value"
			value(substr(s, 1, RLENGTH))
			s = substr(s, RLENGTH + 1)
		} else {
			fail("line " NR ": not JSON: " s)
		}
	}
}

!started && /^\{/ { started = 1; state = "value" }
started && !err { tokens($0) }

# put(METRIC, UNIT, BETTER, PATH): the row of flat[PATH], which must be there
function put(m, u, b, p) {
	if (!(p in flat)) {
		fail("job " j ": no " p)
		return
	}
	rows[++n] = m "\t" u "\t" b "\t" flat[p]
}

END {
	if (!err && !started)
		fail("no JSON (no line starting with {): not fio --output-format=json?")
	if (!err && !done)
		fail("the JSON ends early (depth " depth ")")
	njobs = 0
	while (!err && ("jobs/" njobs "/jobname" in flat))
		njobs++
	if (!err && !njobs)
		fail("no jobs[].jobname: not fio's JSON?")
	split("read write trim", dirs, " ")
	for (j = 0; j < njobs && !err; j++) {
		if (("jobs/" j "/error" in flat) && flat["jobs/" j "/error"] != "0")
			fail("job " j " (" flat["jobs/" j "/jobname"] ") reported error " flat["jobs/" j "/error"])
		pre = njobs == 1 ? "" : "job" (j + 1) "_"
		for (d = 1; d <= 3; d++) {
			base = "jobs/" j "/" dirs[d]
			if (!((base "/total_ios") in flat) || flat[base "/total_ios"] == "0")
				continue
			io++
			m = pre dirs[d]
			put(m "_iops", "iops", "higher", base "/iops")
			put(m "_bw_kib_s", "KiB/s", "higher", base "/bw")
			put(m "_clat_mean_ns", "ns", "lower", base "/clat_ns/mean")
			# the percentiles there are, ascending
			np = 0
			for (p in flat) {
				if (index(p, base "/clat_ns/percentile/") != 1)
					continue
				pc = substr(p, length(base "/clat_ns/percentile/") + 1)
				if (pc !~ /^[0-9]+(\.[0-9]+)?$/) {
					fail("job " j ": percentile \"" pc "\" is not a number")
					break
				}
				pl[++np] = pc
			}
			for (a = 2; a <= np; a++)
				for (b = a; b > 1 && pl[b - 1] + 0 > pl[b] + 0; b--) {
					t = pl[b]; pl[b] = pl[b - 1]; pl[b - 1] = t
				}
			for (a = 1; a <= np; a++) {
				name = pl[a]
				if (index(name, ".")) {
					sub(/0+$/, "", name)
					sub(/\.$/, "", name)
				}
				gsub(/\./, "_", name)
				put(m "_clat_p" name "_ns", "ns", "lower", base "/clat_ns/percentile/" pl[a])
			}
		}
	}
	if (!err && !io)
		fail("no job did any I/O (every total_ios is 0)")
	if (err) {
		printf "error\t%s\n", err
		exit 1
	}
	for (i = 1; i <= n; i++)
		print rows[i]
}
