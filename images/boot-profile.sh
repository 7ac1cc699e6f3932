#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where does a guest boot spend its time before cloud-init's runcmd?
# Boots one kernel with launch.sh (initcall_debug on the command line) and a
# payload that collects, at runcmd: the kernel log with every initcall's
# duration, the journal with monotonic times, each unit's activation time
# and its cgroup's CPU time, cloud-init's own timings (cloud-init analyze)
# and what importing cloud-init costs (python3 -X importtime). Then it
# writes OUT/profile.txt, a summary in guest seconds (under icount:
# instructions at 1 ns each while the vCPU is busy, host time while idle).
#
#   boot-profile.sh --kernel DIR --out DIR [launch.sh options...]
#   boot-profile.sh --summary OUT     (re)write OUT/profile.txt from OUT/results
#   boot-profile.sh --print-payload   print the payload's run script
#
# systemd-analyze blame and critical-chain refuse to answer before the boot
# has finished, and the boot finishes only after runcmd (the runner is part
# of cloud-init's unit), so the unit times are read from the units'
# properties, which is what systemd-analyze reads too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"

# The payload's run: POSIX sh, in the guest, as root; $1 is the results dir.
payload_run() {
	cat <<'RUN'
#!/bin/sh
r=$1
cat /proc/uptime >"$r/uptime-at-run"
# CPU time first, before this script's own commands add to it.
for f in /sys/fs/cgroup/init.scope/cpu.stat /sys/fs/cgroup/system.slice/*/cpu.stat; do
	[ -r "$f" ] || continue
	u=${f%/cpu.stat}
	printf '%s %s\n' "$(sed -n 's/^usage_usec //p' "$f")" "${u##*/}"
done >"$r/unit-cpu.txt"
dmesg >"$r/dmesg.txt" 2>&1
journalctl -b -o short-monotonic --no-pager >"$r/journal.txt" 2>&1
# unit, seconds from start to active (like systemd-analyze blame)
systemctl show --all --no-pager --type=service,mount,socket,swap,target \
	-p Id -p InactiveExitTimestampMonotonic -p ActiveEnterTimestampMonotonic \
	'*' >"$r/units.props" 2>&1
cloud-init analyze show >"$r/cloud-init-show.txt" 2>&1
cloud-init analyze blame >"$r/cloud-init-blame.txt" 2>&1
cp /var/log/cloud-init.log "$r/" 2>/dev/null
python3 -X importtime -c 'import cloudinit.cmd.main' 2>"$r/importtime.txt" >/dev/null
cat /proc/uptime >"$r/uptime-at-end"
exit 0
RUN
}

# summary OUT: OUT/profile.txt from OUT/results
summary() {
	local r=$1/results s=$1/profile.txt
	[ -d "$r" ] || kb_die "$r: no results directory"
	{
		echo "# boot profile: guest seconds since boot (see images/README.md)"
		echo "## milestones"
		[ -f "$r/journal.txt" ] && grep -E 'Run /sbin/init|systemd\[1\]: systemd [0-9]|Queued start job|Reached target multi-user|cloud-init\[[0-9]+\]: Cloud-init v' \
			"$r/journal.txt" | sed -E 's/^\[ *([0-9.]+)\] [^ ]+ /\1 /' | cut -c1-110
		[ -f "$r/runcmd-uptime" ] && echo "$(cat "$r/runcmd-uptime") runcmd started"
		echo
		echo "## kernel: slowest initcalls (ms)"
		[ -f "$r/dmesg.txt" ] && sed -nE 's/.*initcall ([^ ]+) returned .* after ([0-9]+) usecs.*/\2 \1/p' "$r/dmesg.txt" |
			sort -rn | head -n 12 | awk '{ printf "%8.1f %s\n", $1 / 1000, $2 }'
		echo
		echo "## units: start to active (s), slowest"
		[ -f "$r/units.props" ] && awk -F= '
			/^Id=/ { id = $2 }
			/^InactiveExitTimestampMonotonic=/ { s = $2 }
			/^ActiveEnterTimestampMonotonic=/ { e = $2 }
			/^$/ { if (s > 0 && e >= s) printf "%8.3f %s\n", (e - s) / 1e6, id; id = ""; s = 0; e = 0 }
			END { if (s > 0 && e >= s) printf "%8.3f %s\n", (e - s) / 1e6, id }' "$r/units.props" |
			sort -rn | head -n 12
		echo
		echo "## units: CPU time of each cgroup at runcmd (s; cloud-final is cloud-init)"
		[ -f "$r/unit-cpu.txt" ] && sort -rn "$r/unit-cpu.txt" | awk '{ printf "%8.3f %s\n", $1 / 1e6, $2 }'
		echo
		echo "## cloud-init analyze blame"
		[ -f "$r/cloud-init-blame.txt" ] && grep -E '^ +[0-9]' "$r/cloud-init-blame.txt" | head -n 8
		echo
		echo "## importing cloud-init: total and slowest top-level packages (ms, cumulative)"
		[ -f "$r/importtime.txt" ] && awk -F'|' '
			$3 ~ /cloudinit\.cmd\.main$/ { printf "%8.1f total\n", $2 / 1000 }' "$r/importtime.txt"
		[ -f "$r/importtime.txt" ] && awk -F'|' '
			NR > 1 { n = $3; sub(/^ +/, "", n); if (n !~ /^cloudinit/ && n !~ /\./) printf "%8.1f %s\n", $2 / 1000, n }' \
			"$r/importtime.txt" | sort -rn | head -n 8
	} >"$s"
	printf '%s\n' "$s"
}

if [ "${1:-}" = --print-payload ]; then
	payload_run
	exit 0
fi
if [ "${1:-}" = --summary ]; then
	[ $# = 2 ] || kb_die "usage: boot-profile.sh --summary OUT"
	summary "$2"
	exit 0
fi

out='' append=initcall_debug args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out)
		[ $# -ge 2 ] || kb_die "--out needs a directory"
		out=$2
		shift 2
		;;
	--append)
		[ $# -ge 2 ] || kb_die "--append needs a command line"
		append="$append $2"
		shift 2
		;;
	--payload) kb_die "boot-profile.sh brings its own payload" ;;
	--extra-qemu)
		args+=("$@")
		break
		;;
	*)
		args+=("$1")
		shift
		;;
	esac
done
[ -n "$out" ] || kb_die "usage: boot-profile.sh --kernel DIR --out DIR [launch.sh options]"
pay=$(mktemp -d "${TMPDIR:-/tmp}/kbench-profile.XXXXXX")
trap 'rm -rf "$pay"' EXIT
payload_run >"$pay/run"
chmod +x "$pay/run"
rc=0
"$here/launch.sh" --append "$append" --payload "$pay" --out "$out" "${args[@]}" || rc=$?
[ "$rc" = 0 ] || kb_die "launch.sh failed (exit $rc); see $out/launch.json"
summary "$out"
