# SPDX-License-Identifier: GPL-2.0
# Common helpers for kbench shell scripts. Source it; do not execute it.
# shellcheck shell=bash

KB_START=$(date +%s)

# Elapsed seconds since the script started, as "MmSSs".
kb_elapsed() {
	_now=$(date +%s)
	_d=$((_now - KB_START))
	printf '%dm%02ds' $((_d / 60)) $((_d % 60))
}

# Progress line on stderr: always shown, short.
kb_say() {
	printf 'kbench: [%s] %s\n' "$(kb_elapsed)" "$*" >&2
}

# Detail line: only with V=1.
kb_verbose() {
	if [ "${V:-0}" = 1 ]; then
		printf 'kbench:   %s\n' "$*" >&2
	fi
}

# Fatal error: says what failed and what to do.
kb_die() {
	printf 'kbench: error: %s\n' "$*" >&2
	exit 1
}

# Run a command with its output going to a log file, or to the terminal
# as well with V=1. Returns the command's status.
kb_run_logged() {
	_log=$1
	shift
	if [ "${V:-0}" = 1 ]; then
		"$@" 2>&1 | tee -a "$_log"
		return "${PIPESTATUS[0]}"
	fi
	"$@" >>"$_log" 2>&1
}

kb_sha256_file() {
	sha256sum "$1" | cut -d' ' -f1
}

kb_sha256_str() {
	printf '%s' "$1" | sha256sum | cut -d' ' -f1
}

# kb_code FILE: FILE's text without its comment lines and blank lines.
# A cache key takes this of a file of build commands, so that rewording
# a comment rebuilds nothing.
kb_code() {
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$1"
}

# Write stdin to FILE atomically (temp file in the same dir, then rename).
kb_atomic_write() {
	_dst=$1
	_tmp="$_dst.tmp.$$"
	cat >"$_tmp"
	mv -f "$_tmp" "$_dst"
}

# Escape a string for inclusion inside a JSON string literal (the caller
# writes the quotes): RFC 8259, so \" \\ \b \f \n \r \t and \u00XX for the
# other control characters; UTF-8 is kept as it is (a byte that is not
# UTF-8 becomes U+FFFD, since JSON text is UTF-8). jq does the escaping.
kb_json_str() {
	_j=$(printf '%s' "$1" | jq -Rsj 'tojson | .[1:-1]') ||
		kb_die "kb_json_str: jq failed (make deps installs jq)"
	printf '%s' "$_j"
}

# The repository root, from this file's place in it.
KB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# kb_conf KEY...: make sure each setting is in the environment. make
# exports them; for a script run by hand (or a key make does not export)
# make itself reads bench.local.conf, then bench.conf, with the
# Makefile's two include lines: one reader decides every value, so ?=,
# $(VAR) and a local override mean here what they mean to make. A key
# neither file sets is an error naming it.
kb_conf() {
	local k v out unset_keys=()
	for k in "$@"; do
		[ -n "${!k+set}" ] || unset_keys+=("$k")
	done
	[ "${#unset_keys[@]}" -gt 0 ] || return 0
	# "ORIGIN KEY=VALUE" a key; not the MAKEFLAGS of a make that runs
	# this script (its jobserver and options are not this make's)
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$KB_TOP" -f - \
		KB_CONF_KEYS="${unset_keys[*]}" <<'MK'
-include bench.local.conf
include bench.conf
$(foreach k,$(KB_CONF_KEYS),$(info $(origin $(k)) $(k)=$($(k))))
kb-conf: ;
MK
	) || kb_die "make could not read $KB_TOP/bench.conf or bench.local.conf (above): fix the line it names"
	while IFS= read -r v; do
		k=${v#* } k=${k%%=*}
		[ "$v" != "undefined $k=" ] || kb_die "setting $k is not set and $KB_TOP/bench.conf has no default for it"
		v=${v#*=}
		export "$k=${v%"${v##*[![:space:]]}"}"
	done <<<"$out"
}

# kb_debug_cmdline: the kernel command line of a debug kernel's boot,
# kernel/config/debug.cmdline's options (kb_code: no comment or blank
# lines) on one line.
kb_debug_cmdline() {
	local f=$KB_TOP/kernel/config/debug.cmdline
	[ -r "$f" ] || kb_die "$f is missing: the debug kernels' boot options"
	kb_code "$f" | sed 's/[[:space:]]*$//' | paste -sd' '
}

# kb_new_run_dir SUFFIX: make and print a new run directory,
# reports/<date-time>SUFFIX[-N]; never an existing one (mkdir without -p
# fails if another run took the name first).
kb_new_run_dir() {
	local base d i=1
	base=$KB_TOP/reports/$(date +%Y%m%d-%H%M%S)$1
	d=$base
	mkdir -p "$KB_TOP/reports"
	until mkdir "$d" 2>/dev/null; do
		i=$((i + 1))
		d=$base-$i
		[ "$i" -lt 1000 ] || kb_die "cannot create a run directory under $KB_TOP/reports"
	done
	printf '%s\n' "$d"
}

# stdin to stdout with the HTML special characters escaped.
kb_html_escape() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

# Interruption. kb_catch_signals makes SIGINT and SIGTERM set KB_SIGNAL
# (INT or TERM) and pass SIGTERM on to the command kb_fg is running, so
# that it stops at once (bash runs a trap only after a foreground command
# ends, hence kb_fg runs it in the background and waits). kb_fg returns
# the command's own status once it has stopped.
KB_SIGNAL=
kb_fg_pid=
# shellcheck disable=SC2317 # called by the traps
kb_on_signal() {
	KB_SIGNAL=$1
	[ -z "$kb_fg_pid" ] || kill -TERM "$kb_fg_pid" 2>/dev/null || true
}
kb_catch_signals() {
	trap 'kb_on_signal INT' INT
	trap 'kb_on_signal TERM' TERM
}
kb_fg() {
	local rc=0
	"$@" &
	kb_fg_pid=$!
	# a signal that came before the command had a pid: pass it on now
	[ -z "$KB_SIGNAL" ] || kill -TERM "$kb_fg_pid" 2>/dev/null || true
	wait "$kb_fg_pid" || rc=$?
	# a signal cuts wait short: wait again for the command's own status
	if [ -n "$KB_SIGNAL" ] && kill -0 "$kb_fg_pid" 2>/dev/null; then
		rc=0
		wait "$kb_fg_pid" || rc=$?
	fi
	kb_fg_pid=
	return "$rc"
}
# kb_signal_rc: the exit status for the signal caught (130 INT, 143 TERM)
kb_signal_rc() {
	case "$KB_SIGNAL" in INT) echo 130 ;; *) echo 143 ;; esac
}

# kb_resume_cmd TARGET RUN: the make command that resumes RUN, with the
# settings that shape a run's plan, as they are now (and the target's
# own, KB_TARGET_KEYS: NEW OLD REF for regression-check), and those that
# shape how it runs (RETRIES, BOOT_JOBS, HOSTS and, with HOSTS, its ssh
# settings).
KB_PLAN_KEYS="SERIES BOOTS QUICK BENCH_VCPUS WORKLOADS CLOCK MEM BOOT_TIMEOUT PROFILE MODEL RETRIES IMAGE ROOT ACCEL MATRIX BOOT_JOBS HOSTS"
kb_resume_cmd() {
	local k cmd run=$2
	case "$run" in "$KB_TOP"/*) run=${run#"$KB_TOP"/} ;; esac
	cmd="make $1 RESUME=$(printf '%q' "$run")"
	for k in ${KB_TARGET_KEYS:-} $KB_PLAN_KEYS ${HOSTS:+HOSTS_KNOWN_HOSTS HOSTS_SSH_CONFIG}; do
		[ -n "${!k:-}" ] || continue
		cmd="$cmd $k=$(printf '%q' "${!k}")"
	done
	printf '%s\n' "$cmd"
}

# kb_run_boots RUN ARGS...: orchestrate/run.sh --run RUN ARGS..., stopped
# at once by SIGINT or SIGTERM (the caller ran kb_catch_signals); then
# the command that resumes RUN ($KB_TARGET) is printed and the script
# exits with the signal's status.
kb_run_boots() {
	local rc=0 run=$1
	shift
	kb_fg "$KB_TOP/orchestrate/run.sh" --run "$run" "$@" || rc=$?
	if [ -n "$KB_SIGNAL" ] || [ "$rc" = 130 ] || [ "$rc" = 143 ]; then
		[ -n "$KB_SIGNAL" ] || KB_SIGNAL=$([ "$rc" = 130 ] && echo INT || echo TERM)
		kb_say "stopped by SIG$KB_SIGNAL; nothing of the boot it cut short is kept. Resume with:"
		kb_say "  $(kb_resume_cmd "$KB_TARGET" "$run")"
		exit "$(kb_signal_rc)"
	fi
	return "$rc"
}

# kb_closest WORD CANDIDATE...: the candidate nearest to WORD (edit
# distance, case-insensitive) if it is near enough to be a typo of it;
# nothing otherwise.
kb_closest() {
	local w=$1
	shift
	printf '%s\n' "$@" | awk -v w="$w" '
	function dist(a, b,    i, j, la, lb, c, d, x, y, z) {
		la = length(a); lb = length(b)
		for (j = 0; j <= lb; j++) d[0, j] = j
		for (i = 1; i <= la; i++) {
			d[i, 0] = i
			for (j = 1; j <= lb; j++) {
				c = substr(a, i, 1) != substr(b, j, 1)
				x = d[i - 1, j] + 1; y = d[i, j - 1] + 1; z = d[i - 1, j - 1] + c
				d[i, j] = x < y ? (x < z ? x : z) : (y < z ? y : z)
			}
		}
		return d[la, lb]
	}
	NF { k = dist(tolower(w), tolower($0)); if (best == "" || k < bk) { best = $0; bk = k } }
	END { if (best != "" && bk <= (length(w) > 5 ? 3 : 2)) print best }'
}
