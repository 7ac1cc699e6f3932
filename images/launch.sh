#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one kernel in the kbench guest image, run a payload, bring back its
# results. See images/README.md for the payload and results contract.
#
# launch.sh --kernel DIR --payload DIR --out DIR [options] [--extra-qemu ARGS...]
#   --kernel DIR     bzImage and build-info.json ("release"); a kernel's
#                    name is its labels/ link: DIR given as
#                    $KBENCH_CACHE/labels/NAME names it NAME
#   --payload DIR    copied into the guest as /kb/payload; must hold an
#                    executable 'run', started as: run /kb/results
#   --out DIR        new or empty: serial.log, qemu.cmdline, qemu.log,
#                    user-data, results/, launch.json
#   --image QCOW     base image (default: $IMAGE, else the one `make image` built)
#   --root DEV       root device in the guest (default: $ROOT, else /dev/vda)
#   --vcpus N        (default: $VCPUS, else 1)
#   --mem MB         (default: $MEM, else 2048)
#   --accel A        auto|kvm|tcg (default: $ACCEL, else auto)
#   --clock C        icount|wall (default: $CLOCK, else icount)
#   --icount-sleep S on|off (default on): off lets idle guest time jump
#                    ahead, so guest timeouts fire while the host does I/O
#   --timeout SEC    whole boot, from QEMU start (default: $BOOT_TIMEOUT, else 600)
#   --results-mb MB  size of the results disk (default 256)
#   --append STR     extra kernel command line
#   --keep-disks     keep the overlay and the channel disks in OUT/.vm
#   --extra-qemu ... everything after it goes to QEMU as is (must be last)
#
# Exit status:
#   0 ok, 2 bad usage or setup, 3 the runner failed (results kept),
#   4 guest kernel panic, 5 guest kernel oops/BUG, 6 timeout (hang; QEMU
#   killed), 7 QEMU failed, died or was killed, 8 no results from the guest,
#   or results cut short (a full disk: the guest's MANIFEST is missing or
#   does not match).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"

usage() {
	sed -n '3,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
die2() {
	printf 'kbench: error: %s\n' "$*" >&2
	exit 2
}
# fsub A B DIGITS: A - B with DIGITS decimals; fgt A B LIMIT: A - B > LIMIT
fsub() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { printf "%.*f\n", d, a - b }'; }
fgt() { awk -v a="$1" -v b="$2" -v l="$3" 'BEGIN { exit !(a - b > l) }'; }
is_uint() {
	case "$1" in
	'' | *[!0-9]*) return 1 ;;
	*) return 0 ;;
	esac
}

kdir='' payload='' out='' extra_append=''
image=${IMAGE:-}
root=${ROOT:-/dev/vda}
vcpus=${VCPUS:-1}
mem=${MEM:-2048}
accel=${ACCEL:-auto}
clock=${CLOCK:-icount}
timeout=${BOOT_TIMEOUT:-600}
results_mb=256
icount_sleep=on
keep=0
extra_qemu=()

need() { [ $# -ge 2 ] || die2 "option $1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) need "$@"; kdir=$2; shift 2 ;;
	--payload) need "$@"; payload=$2; shift 2 ;;
	--out) need "$@"; out=$2; shift 2 ;;
	--image) need "$@"; image=$2; shift 2 ;;
	--root) need "$@"; root=$2; shift 2 ;;
	--vcpus) need "$@"; vcpus=$2; shift 2 ;;
	--mem) need "$@"; mem=$2; shift 2 ;;
	--accel) need "$@"; accel=$2; shift 2 ;;
	--clock) need "$@"; clock=$2; shift 2 ;;
	--icount-sleep) need "$@"; icount_sleep=$2; shift 2 ;;
	--timeout) need "$@"; timeout=$2; shift 2 ;;
	--results-mb) need "$@"; results_mb=$2; shift 2 ;;
	--append) need "$@"; extra_append=$2; shift 2 ;;
	--keep-disks) keep=1; shift ;;
	--extra-qemu) shift; extra_qemu=("$@"); break ;;
	-h | --help) usage ;;
	*) die2 "unknown option '$1' (see --help)" ;;
	esac
done

# ---- validate ----
[ -n "$kdir" ] || die2 "--kernel DIR is required"
[ -n "$payload" ] || die2 "--payload DIR is required"
[ -n "$out" ] || die2 "--out DIR is required"
[ -r "$kdir/bzImage" ] || die2 "--kernel $kdir: no bzImage there (build it: make kernels)"
[ -r "$kdir/build-info.json" ] || die2 "--kernel $kdir: no build-info.json there"
[ -d "$payload" ] || die2 "--payload $payload: not a directory"
[ -x "$payload/run" ] || die2 "--payload $payload: no executable 'run' in it"
if ! is_uint "$vcpus" || [ "$vcpus" -lt 1 ]; then die2 "--vcpus '$vcpus': want a whole number >= 1"; fi
if ! is_uint "$mem" || [ "$mem" -lt 256 ]; then die2 "--mem '$mem': want MB, a whole number >= 256"; fi
if ! is_uint "$timeout" || [ "$timeout" -lt 1 ]; then die2 "--timeout '$timeout': want seconds >= 1"; fi
if ! is_uint "$results_mb" || [ "$results_mb" -lt 1 ]; then die2 "--results-mb '$results_mb': want MB >= 1"; fi
case "$accel" in auto | kvm | tcg) ;; *) die2 "--accel '$accel': want auto, kvm or tcg" ;; esac
case "$clock" in icount | wall) ;; *) die2 "--clock '$clock': want icount or wall" ;; esac
case "$icount_sleep" in on | off) ;; *) die2 "--icount-sleep '$icount_sleep': want on or off" ;; esac
if [ "$clock" = icount ] && [ "$accel" = kvm ]; then
	die2 "--clock icount needs TCG (instruction counting); use --accel tcg|auto or --clock wall"
fi
case "$root" in /dev/*) ;; *) die2 "--root '$root': want a device path such as /dev/vda" ;; esac
if [ -z "$image" ]; then
	image=$("$here/build-image.sh" --path) || die2 "no guest image: run make image, or give --image/IMAGE="
fi
[ -r "$image" ] || die2 "--image $image: no such readable file"
command -v qemu-system-x86_64 >/dev/null || die2 "qemu-system-x86_64 not found; run: make deps"
command -v jq >/dev/null || die2 "jq not found; run: make deps"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die2 "--out $out exists and is not empty; a run directory is never overwritten"
fi
release=$(jq -r '.release // empty' "$kdir/build-info.json") ||
	die2 "$kdir/build-info.json is not valid JSON"
# the label is the caller's name for the kernel, not the kernel's: one
# build (kernels/<key>) may have several (kernel/scripts/build.sh)
label=''
[ "$(basename "$(dirname "$kdir")")" != labels ] || label=$(basename "$kdir")
[ -n "$release" ] || die2 "$kdir/build-info.json has no \"release\""

mkdir -p "$out/results" "$out/.vm"
out=$(cd "$out" && pwd)
vm=$out/.vm
serial=$out/serial.log
qlog=$out/qemu.log
: >"$serial"

# ---- accelerator ----
accel_used=$accel
accel_note="as asked"
if [ "$accel" = auto ]; then
	if [ "$clock" = icount ]; then
		accel_used=tcg
		accel_note="icount needs TCG"
	else
		accel_used=$("$here/kvm-probe.sh" "$kdir/bzImage")
		accel_note="probed"
	fi
fi
case "$accel_used" in
kvm) accel_args=(-accel kvm -cpu host) ;;
tcg)
	if [ "$clock" = icount ]; then
		# sleep=on: while every vCPU is idle (waiting for the host's disk
		# I/O, say) guest time runs at host speed. With sleep=off it jumps
		# to the next guest timer at once, which is often a timeout:
		# measured on a loaded host, 186 virtual seconds passed while
		# systemd's generators waited for the disk, systemd killed them,
		# and cloud-init never started. Busy vCPUs count instructions
		# either way.
		accel_args=(-accel 'tcg,thread=single' -cpu max -icount "shift=0,sleep=$icount_sleep")
	else
		accel_args=(-accel 'tcg,thread=multi' -cpu max)
	fi
	;;
esac

# ---- disks: overlay over the base, seed, payload, results ----
kb_verbose "preparing disks in $vm"
qemu-img create -q -f qcow2 -b "$(readlink -f "$image")" -F qcow2 "$vm/overlay.qcow2" ||
	die2 "qemu-img cannot make an overlay over $image (is it qcow2?)"
"$here/seed.sh" "$vm" "kbench-$(basename "$out")" || die2 "cannot make the NoCloud seed"
cp "$vm/user-data" "$out/user-data"
tar -cf "$vm/payload.tar" -C "$payload" . || die2 "cannot archive the payload $payload"
truncate -s "${results_mb}M" "$vm/results.img"

cmdline="root=$root rw console=ttyS0 panic=-1 kbench.clock=$clock kbench.accel=$accel_used"
[ -n "$extra_append" ] && cmdline="$cmdline $extra_append"
qemu=(qemu-system-x86_64 -name kbench -machine q35 -nodefaults -no-user-config
	-display none -no-reboot -nic none
	"${accel_args[@]}" -smp "$vcpus" -m "$mem" -rtc "base=utc,clock=vm"
	-serial "file:$serial"
	-kernel "$kdir/bzImage" -append "$cmdline"
	-drive "if=none,id=kbroot,file=$vm/overlay.qcow2,format=qcow2,cache=unsafe"
	-device "virtio-blk-pci,drive=kbroot,serial=kbroot"
	-drive "if=none,id=kbseed,file=$vm/seed.img,format=raw,readonly=on"
	-device "virtio-blk-pci,drive=kbseed,serial=kbseed"
	-drive "if=none,id=kbpayload,file=$vm/payload.tar,format=raw,readonly=on"
	-device "virtio-blk-pci,drive=kbpayload,serial=kbpayload"
	-drive "if=none,id=kbresults,file=$vm/results.img,format=raw"
	-device "virtio-blk-pci,drive=kbresults,serial=kbresults"
	"${extra_qemu[@]}")
printf '%q ' "${qemu[@]}" | sed 's/ $/\n/' >"$out/qemu.cmdline"
qver=$(qemu-system-x86_64 --version | head -n 1)

# ---- run ----
pid=
killed=0
stop_qemu() {
	# Ends only the QEMU this script started, by its PID.
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
}
# shellcheck disable=SC2317 # called by the EXIT trap
on_exit() {
	stop_qemu
	if [ "$keep" = 0 ]; then rm -rf "$vm"; fi
}
trap on_exit EXIT
trap 'kb_say "interrupted: stopping QEMU (pid ${pid:-none})"; exit 130' INT TERM

kb_say "boot ${label:-kernel} $release: $accel_used/$clock, $vcpus vCPU, $mem MB, timeout ${timeout}s (serial: $serial)"
t0=$(date +%s.%N)
"${qemu[@]}" </dev/null >"$qlog" 2>&1 &
pid=$!
echo "$pid" >"$vm/qemu.pid"

t_runcmd=
timed_out=0
panic_seen_at=
while kill -0 "$pid" 2>/dev/null; do
	now=$(date +%s.%N)
	if [ -z "$t_runcmd" ] && grep -q '^kbench-guest: runcmd-start' "$serial"; then
		t_runcmd=$now
		kb_say "guest reached runcmd after $(fsub "$now" "$t0" 1) s" 2>&3
	fi
	# panic=-1 normally ends QEMU at once; a kernel that ignores it gets 10 s.
	if [ -z "$panic_seen_at" ] && grep -q 'Kernel panic - not syncing' "$serial"; then
		panic_seen_at=$now
	fi
	if [ -n "$panic_seen_at" ] && fgt "$now" "$panic_seen_at" 10; then
		killed=1
		break
	fi
	if fgt "$now" "$t0" "$timeout"; then
		timed_out=1
		break
	fi
	sleep 0.25
	# stderr: bash's own "Killed"/"Aborted" job notices, not ours (fd 3).
done 3>&2 2>/dev/null
qrc=0
if [ "$timed_out" = 1 ] || [ "$killed" = 1 ]; then
	stop_qemu
	qrc=killed
else
	wait "$pid" 2>/dev/null || qrc=$?
fi
gone=yes
if kill -0 "$pid" 2>/dev/null; then gone=no; fi
pid=
t1=$(date +%s.%N)
wall=$(fsub "$t1" "$t0" 2)
boot_s=null
[ -n "$t_runcmd" ] && boot_s=$(fsub "$t_runcmd" "$t0" 2)

# ---- results ----
tar_err=
if ! tar_err=$(tar -xf "$vm/results.img" -C "$out/results" --no-same-owner 2>&1); then
	kb_verbose "results disk: $tar_err"
fi
runner_rc=null
if [ -f "$out/results/exit-status" ]; then
	runner_rc=$(tr -dc '0-9' <"$out/results/exit-status")
	[ -n "$runner_rc" ] || runner_rc=null
fi
# Complete results only: the guest's MANIFEST must be there (it is the
# last member of the tar) and every file must match it.
results_bad=
if [ "$runner_rc" != null ]; then
	if [ -f "$out/results/results-overflow" ]; then
		results_bad="$(cat "$out/results/results-overflow"); raise --results-mb"
	elif [ ! -f "$out/results/MANIFEST" ]; then
		results_bad="the results tar ends before its MANIFEST (cut short: results disk full?${tar_err:+ tar: $tar_err})"
	elif ! sumerr=$(cd "$out/results" && sha256sum --quiet -c MANIFEST 2>&1); then
		results_bad="files do not match the guest's MANIFEST: $(printf '%s' "$sumerr" | grep -v '^sha256sum:' | tr '\n' ' ')${tar_err:+(tar: $tar_err)}"
	fi
fi
guest_up=null
if [ -f "$out/results/runcmd-uptime" ]; then
	guest_up=$(tr -dc '0-9.' <"$out/results/runcmd-uptime")
	[ -n "$guest_up" ] || guest_up=null
fi

# ---- classify ----
panic=0 oops=0
grep -q 'Kernel panic - not syncing' "$serial" && panic=1
grep -v '^kbench-guest:' "$serial" | grep -Eq 'Oops:|BUG:|general protection fault' && oops=1
oops_line=
[ "$oops" = 1 ] && oops_line=$(grep -v '^kbench-guest:' "$serial" |
	grep -Em1 'Oops:|BUG:|general protection fault' | tr -d '\r')
panic_line=
[ "$panic" = 1 ] && panic_line=$(grep -m1 'Kernel panic - not syncing' "$serial" | tr -d '\r')

if [ "$panic" = 1 ]; then
	rc=4 status=panic
	msg="guest kernel panic (${panic_line#*] }); see the serial log $serial"
elif [ "$oops" = 1 ]; then
	rc=5 status=oops
	msg="guest kernel oops (${oops_line#*] })"
	[ "$timed_out" = 1 ] && msg="$msg, then the guest hung until the ${timeout} s timeout (QEMU killed)"
	msg="$msg; see the serial log $serial"
elif [ "$timed_out" = 1 ]; then
	rc=6 status=timeout
	where="before reaching runcmd"
	[ -n "$t_runcmd" ] && where="in the runner (runcmd started at ${boot_s} s)"
	msg="guest hang: timeout after ${timeout} s $where; QEMU killed, gone: $gone; see the serial log $serial"
elif [ "$qrc" != 0 ]; then
	rc=7 status=qemu-failed
	if [ "$qrc" -gt 128 ] 2>/dev/null; then
		msg="QEMU was killed by signal $((qrc - 128))"
	else
		msg="QEMU exited with status $qrc: $(head -n 3 "$qlog" | tr '\n' ' ')"
	fi
	msg="$msg; see $qlog and the serial log $serial"
elif [ "$runner_rc" = null ]; then
	rc=8 status=no-results
	if [ -z "$t_runcmd" ]; then
		msg="no results: the guest stopped before cloud-init's runcmd ran"
	else
		msg="no results: the guest stopped before writing them back"
	fi
	msg="$msg; see the serial log $serial"
elif [ -n "$results_bad" ]; then
	rc=8 status=results-incomplete
	msg="incomplete results, none accepted: $results_bad; see $out/results"
elif [ "$runner_rc" != 0 ]; then
	rc=3 status=runner-failed
	msg="the runner exited with status $runner_rc; results kept in $out/results (log: $out/results/run.log)"
else
	rc=0 status=ok
	msg="ok: runcmd after ${boot_s} s, ${wall} s in all; results in $out/results"
fi

# launch.json, by one jq: the numbers come as text ("null" when the
# guest never said) and are numbers or null in the file
jq -n --arg status "$status" --arg rc "$rc" --arg msg "$msg" --arg runner_rc "$runner_rc" \
	--arg klabel "$label" --arg release "$release" --arg kdir "$(readlink -f "$kdir")" \
	--arg bz "$(kb_sha256_file "$kdir/bzImage")" --arg image "$(readlink -f "$image")" --arg root "$root" \
	--arg accel_used "$accel_used" --arg accel "$accel" --arg accel_note "$accel_note" --arg clock "$clock" \
	--arg icount "$([ "$clock" = icount ] && echo "shift=0,sleep=$icount_sleep")" \
	--arg vcpus "$vcpus" --arg mem "$mem" --arg timeout "$timeout" --arg qver "$qver" --arg qrc "$qrc" \
	--arg gone "$gone" --arg cmdline "$cmdline" --rawfile qcmd "$out/qemu.cmdline" --arg boot_s "$boot_s" \
	--arg guest_up "$guest_up" --arg wall "$wall" --arg panic "$panic" --arg oops "$oops" \
	--arg timed_out "$timed_out" --arg serial "$serial" \
	--arg started "$(date -u -d "@${t0%.*}" +%Y-%m-%dT%H:%M:%SZ)" '
	def num: tonumber? // null;
	{
		status: $status, exit_code: ($rc | num), message: $msg, runner_exit: ($runner_rc | num),
		kernel_label: $klabel, kernel_release: $release, kernel_dir: $kdir, bzimage_sha256: $bz,
		image: $image, root: $root, accel: $accel_used, accel_requested: $accel,
		accel_note: $accel_note, clock: $clock, icount: $icount, vcpus: ($vcpus | num),
		mem_mb: ($mem | num), timeout_s: ($timeout | num), qemu_version: $qver, qemu_exit: $qrc,
		qemu_gone: $gone, cmdline: $cmdline, qemu_cmdline: ($qcmd | sub("\n+$"; "")),
		boot_to_runcmd_s: ($boot_s | num), guest_uptime_at_runcmd_s: ($guest_up | num),
		wall_s: ($wall | num), panic: ($panic == "1"), oops: ($oops == "1"),
		timed_out: ($timed_out == "1"), serial_log: $serial, started: $started
	}' | kb_atomic_write "$out/launch.json"

if [ "$rc" = 0 ]; then
	kb_say "$msg"
else
	printf 'kbench: error: %s\n' "$msg" >&2
fi
exit "$rc"
