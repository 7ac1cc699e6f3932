# SPDX-License-Identifier: GPL-2.0
# The progress line of a kernel build: objects compiled of the number the
# last build of the same config compiled, and the time left at the rate
# so far. Source it; build.sh calls these. Not a key input (key.sh hashes
# build-cmds.sh only): nothing here changes a built kernel.
#
# $KBENCH_CACHE/build-stats.tsv has one line per finished build that
# started from an empty output tree (a full build), tab-separated:
#   config-sha256  objects  seconds  label  finished (UTC)
# The config's sha256 stands for the object set. It is only an
# estimate of it: a series can add or drop objects without touching the
# config (the patched kernel's config may equal the baseline's), and
# ccache changes the time, never the count of objects (a cache hit is a
# "  CC" line as well). A build in an output tree that was built before
# recompiles only what changed: it gets no total and is not recorded.
# shellcheck shell=bash

# kbp_tree_built OUTDIR: true if OUTDIR holds objects of an earlier
# build (scripts/ aside: configuring builds the kconfig tools there).
kbp_tree_built() {
	[ -n "$(find "$1" -path "$1/scripts" -prune -o -name '*.o' -print -quit 2>/dev/null)" ]
}

# kbp_count LOG OFFSET: the objects compiled so far, from the "  CC"
# lines LOG has after its first OFFSET bytes (the build's own part).
kbp_count() {
	tail -c +$(($2 + 1)) "$1" 2>/dev/null | grep -c '^  CC ' || true
}

# kbp_expected STATS SHA: "OBJECTS SECONDS" of the last full build of
# the config with sha256 SHA, or nothing.
kbp_expected() {
	[ -f "$1" ] || return 0
	awk -F '\t' -v sha="$2" '
		$1 == sha && $2 ~ /^[0-9]+$/ && $2 > 0 && $3 ~ /^[0-9]+$/ { last = $2 " " $3 }
		END { if (last != "") print last }' "$1"
}

# kbp_record STATS SHA OBJECTS SECONDS LABEL: add a finished full build.
# Builds take the kernel lock in turn, and one short append is one write.
kbp_record() {
	[ "$3" -gt 0 ] 2>/dev/null || return 0
	[ -f "$1" ] || printf '# config-sha256\tobjects\tseconds\tlabel\tfinished\n' >>"$1"
	printf '%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$5" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$1"
}

# kbp_dur SECONDS: "MmSSs".
kbp_dur() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# kbp_line DONE ELAPSED BUILT EXPECTED: the progress text after
# "build LABEL: ". DONE objects in ELAPSED seconds; BUILT is 1 if the
# output tree was built before; EXPECTED is kbp_expected's answer.
kbp_line() {
	local nd=$1 el=$2 built=$3 total secs left
	if [ "$built" = 1 ]; then
		printf '%s objects compiled so far (incremental: the tree was built before and only what changed is recompiled; no total to compare)' "$nd"
		return 0
	fi
	if [ -z "$4" ]; then
		printf '%s objects, no earlier build of this config to compare' "$nd"
		return 0
	fi
	read -r total secs <<<"$4"
	if [ "$nd" -ge "$total" ]; then
		printf '%s objects (the last build of this config compiled %s): the compile should be nearly done' \
			"$nd" "$total"
	elif [ "$nd" -eq 0 ] || [ "$el" -le 0 ]; then
		printf '0 of ~%s objects (the last build of this config took %s)' "$total" "$(kbp_dur "$secs")"
	else
		# the rate so far: ccache hits make it faster than the last build's
		left=$(((total - nd) * el / nd))
		printf '%s of ~%s objects (%s%%), about %s of compiling left at the rate so far' \
			"$nd" "$total" $((nd * 100 / total)) "$(kbp_dur "$left")"
	fi
}
