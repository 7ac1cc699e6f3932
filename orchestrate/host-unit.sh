#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One boot on another host (HOSTS=): GNU parallel runs it there over ssh,
# in a working directory of its own (--workdir ...), as
#
#   host-unit.sh RUN_ID IMAGE_REL LOCAL_RUN LOCAL_IMAGE [KEY=VALUE...] -- UNIT...
#
# UNIT is orchestrate/boot-unit.sh's options (--unit N --name NAME ...,
# each with its value), from a line of RUN/units.tsv, with this
# machine's paths: their --kernel and --payload are made the host's, the
# others go to boot-unit.sh as they are. The host's cache is its own
# KBENCH_CACHE, else ~/.cache/kbench, which orchestrate/hosts.sh filled:
# kernels/<key>/, IMAGE_REL, runs/RUN_ID/ (payloads, units.tsv). KEY=VALUE
# are the run's settings boot-unit.sh reads (a fixed list). The boot runs
# in runs/RUN_ID/ there; then its directories go to ret/NAME/BOOT/ in the
# working directory (raw/, boot/, attempts/), with the paths in its
# launch.json, qemu.cmdline and failed rows made this machine's
# (LOCAL_RUN, LOCAL_IMAGE, the unit's kernel directory), and parallel
# brings them back (--return) into RUN/ret/, where orchestrate/hosts.sh
# files them. Its host.json keeps the host's own paths. stdout is
# boot-unit.sh's (its outcome line); the exit status is boot-unit.sh's, or
# 255 if this host cannot run it, so that parallel tries another host.
# SIGTERM, SIGINT or SIGHUP (the ssh connection gone) stop the boot and
# its QEMU; nothing of it is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

[ $# -ge 5 ] || kb_die "host-unit.sh: usage: RUN_ID IMAGE_REL LOCAL_RUN LOCAL_IMAGE [KEY=VALUE...] -- UNIT..."
run_id=$1 image_rel=$2 local_run=$3 local_image=$4
shift 4
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case "${1%%=*}" in
	KB_NBOOTS | KB_RUN_START | KB_BOOT_JOBS | BOOTS | RETRIES | V | KB_APPEND | KB_FAULT_APPEND | ROOT | ACCEL | KB_TARGET)
		export "${1?}" ;;
	*) kb_die "host-unit.sh: setting '${1%%=*}' is not one a boot takes" ;;
	esac
	shift
done
[ "${1:-}" = -- ] && shift
unit=() name='' boot='' kdir_local='' payload_local=''
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || kb_die "host-unit.sh: the unit's option $1 has no value"
	case "$1" in
	--kernel) kdir_local=$2 ;;
	--payload) payload_local=$2 ;;
	*)
		[ "$1" != --name ] || name=$2
		[ "$1" != --boot ] || boot=$2
		unit+=("$1" "$2") ;;
	esac
	shift 2
done
for o in "--name=$name" "--boot=$boot" "--kernel=$kdir_local" "--payload=$payload_local"; do
	[ -n "${o#*=}" ] || kb_die "host-unit.sh: the unit has no ${o%%=*} (boot-unit.sh's options, after --)"
done
login=${PARALLEL_SSHLOGIN:-$(id -un)@$(hostname)}
if [ "$(id -u)" = 0 ]; then
	printf 'kbench: error: host %s: refusing to boot as root; give HOSTS an unprivileged login\n' "$login" >&2
	exit 255
fi

cache=${KBENCH_CACHE:-$HOME/.cache/kbench}
cache=$(cd "$cache" && pwd)
rdir=$cache/runs/$run_id
kdir=$cache/kernels/$(basename "$kdir_local")
payload=$rdir/payload/$(basename "$payload_local")
for f in "$kdir/bzImage" "$payload/run" "$rdir/units.tsv" "$cache/$image_rel"; do
	if [ ! -e "$f" ]; then
		printf 'kbench: error: host %s: %s is missing (the copy before the first boot did not finish?)\n' "$login" "$f" >&2
		exit 255
	fi
done
export KBENCH_CACHE=$cache KB_RUN=$rdir IMAGE=$cache/$image_rel KB_HOST_LOGIN=$login

kb_catch_signals
trap 'kb_on_signal TERM' HUP
rc=0
kb_fg "$here/boot-unit.sh" "${unit[@]}" --kernel "$kdir" --payload "$payload" || rc=$?
[ -z "$KB_SIGNAL" ] || exit "$(kb_signal_rc)"

# what the boot left, to be returned: its attempts, its directory, its raw/
st=ret/$name/$boot
mkdir -p "$st/attempts"
for a in "$rdir/boots/$name/$boot".attempt*; do
	[ ! -d "$a" ] || mv "$a" "$st/attempts/"
done
[ ! -d "$rdir/boots/$name/$boot" ] || mv "$rdir/boots/$name/$boot" "$st/boot"
[ ! -d "$rdir/raw/$name/$boot" ] || mv "$rdir/raw/$name/$boot" "$st/raw"
# this machine's paths where the boot's records name files
while IFS= read -r -d '' f; do
	s=$(cat "$f")
	s=${s//"$rdir"/"$local_run"}
	s=${s//"$cache/$image_rel"/"$local_image"}
	s=${s//"$kdir"/"$kdir_local"}
	printf '%s\n' "$s" >"$f"
done < <(find "$st" \( -name launch.json -o -name qemu.cmdline -o -name failed-row.tsv \) -print0)
exit "$rc"
