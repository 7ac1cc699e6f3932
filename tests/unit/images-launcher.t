#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# images/launch.sh against a fake qemu-system-x86_64 (no VM): argument
# validation, the QEMU command line per accel/clock, the results channel,
# and the classification of every outcome into its exit status.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
launch=$top/images/launch.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# run DESC WANT_RC ARGS...: launch.sh output kept in $tmp/out
run() {
	local desc=$1 want=$2 rc=0
	shift 2
	"$launch" "$@" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ]; then ok 0 "$desc"; else
		ok 1 "$desc (exit $rc, wanted $want)"
		sed 's/^/# /' "$tmp/out"
	fi
}
has() {
	if grep -qE -- "$2" "$tmp/out"; then ok 0 "$1"; else ok 1 "$1"; sed 's/^/# /' "$tmp/out"; fi
}
# jeq DESC FILE JQ-EXPR EXPECTED
jeq() {
	local got
	got=$(jq -r "$3" "$2" 2>&1) || true
	if [ "$got" = "$4" ]; then ok 0 "$1"; else ok 1 "$1 (got '$got', wanted '$4')"; fi
}

echo "1..53"
for t in jq qemu-img cloud-localds tar; do
	command -v "$t" >/dev/null || { echo "Bail out! $t not installed (make deps)"; exit 1; }
done

# A fake QEMU: FAKE_MODE says what the "guest" does.
mkdir -p "$tmp/bin" "$tmp/kernel" "$tmp/payload" "$tmp/nopayload" "$tmp/cache"
cat >"$tmp/bin/qemu-system-x86_64" <<'FAKE'
#!/bin/bash
set -eu
if [ "${1:-}" = --version ]; then echo "QEMU emulator version 7.2.99 (fake)"; exit 0; fi
serial= results= payload=
for a in "$@"; do
	case "$a" in
	file:*) serial=${a#file:} ;;
	*id=kbresults,file=*) results=${a#*file=}; results=${results%%,*} ;;
	*id=kbpayload,file=*) payload=${a#*file=}; payload=${payload%%,*} ;;
	esac
done
case " $* " in *" -accel kvm "*)
	echo "KVM internal error. Suberror: 1"; exec sleep 30 ;;
esac
say() { printf '%s\n' "$*" >>"$serial"; }
say "[    0.000000] Linux version 6.12.0-fake"
guest() {
	local st=$1 d
	d=$(mktemp -d)
	mkdir "$d/p"
	tar -xf "$payload" -C "$d/p"
	say "kbench-guest: runcmd-start uptime=4.20"
	echo 4.20 >"$d/runcmd-uptime"
	echo "runner said hi" >"$d/run.log"
	cp "$d/p/run" "$d/copied-run"
	echo "$st" >"$d/exit-status"
	echo 42 >"$d/answer"
	rm -rf "$d/p"
	# as the guest agent does: MANIFEST last
	(cd "$d" && find . -type f | sort | xargs sha256sum >"$d.manifest")
	mv "$d.manifest" "$d/MANIFEST"
	case "${2:-}" in
	truncated) echo 4 >"$d/answer" ;;
	nomanifest) rm "$d/MANIFEST" ;;
	overflow) rm "$d/MANIFEST"; echo "results are 9999 bytes, the results disk holds 512 bytes" >"$d/results-overflow" ;;
	esac
	tar -cf "$results" -C "$d" .
	rm -rf "$d"
}
case "$FAKE_MODE" in
ok) guest 0 ;;
fail3) guest 3 ;;
truncated | nomanifest | overflow) guest 0 "$FAKE_MODE" ;;
oops) say "kbench-guest: runcmd-start uptime=4.20"; say "[    5.1] BUG: kernel NULL pointer dereference, address: 0000000000000000"; guest 0 ;;
panic) say "[    5.0] sysrq: Trigger a crash"; say "[    5.0] Kernel panic - not syncing: sysrq triggered crash" ;;
hang) say "kbench-guest: runcmd-start uptime=4.20"; exec sleep 1000 ;;
die) echo "qemu-system-x86_64: -drive x: Could not open" >&2; exit 1 ;;
signal) kill -KILL $$ ;;
noresults) say "kbench-guest: runcmd-start uptime=4.20" ;;
noruncmd) say "[    3.0] reboot: Power down" ;;
esac
exit 0
FAKE
chmod +x "$tmp/bin/qemu-system-x86_64"
export PATH="$tmp/bin:$PATH" KBENCH_CACHE="$tmp/cache"
unset IMAGE ROOT ACCEL CLOCK VCPUS MEM BOOT_TIMEOUT
echo fake >"$tmp/kernel/bzImage"
echo '{"release": "6.12.0-fake", "label": "fake"}' >"$tmp/kernel/build-info.json"
printf '#!/bin/sh\necho run\n' >"$tmp/payload/run"
chmod +x "$tmp/payload/run"
echo 'not executable' >"$tmp/nopayload/run"
qemu-img create -q -f qcow2 "$tmp/base.qcow2" 64M
base_sum=$(sha256sum "$tmp/base.qcow2" | cut -d' ' -f1)
common=(--kernel "$tmp/kernel" --image "$tmp/base.qcow2" --payload "$tmp/payload")

# argument validation (exit 2, message names the problem)
run "no --kernel" 2 --payload "$tmp/payload" --out "$tmp/o1"
has "says --kernel is required" "--kernel DIR is required"
run "kernel dir without bzImage" 2 --kernel "$tmp/payload" --image "$tmp/base.qcow2" --payload "$tmp/payload" --out "$tmp/o1"
run "payload without an executable run" 2 --kernel "$tmp/kernel" --image "$tmp/base.qcow2" --payload "$tmp/nopayload" --out "$tmp/o1"
has "names the payload problem" "no executable 'run'"
run "bad --clock" 2 "${common[@]}" --out "$tmp/o1" --clock fast
run "icount with kvm refused" 2 "${common[@]}" --out "$tmp/o1" --clock icount --accel kvm
run "bad --icount-sleep" 2 "${common[@]}" --out "$tmp/o1" --icount-sleep maybe
run "bad --vcpus" 2 "${common[@]}" --out "$tmp/o1" --vcpus 0
run "unknown option" 2 "${common[@]}" --out "$tmp/o1" --frobnicate
mkdir -p "$tmp/full" && touch "$tmp/full/x"
run "non-empty --out refused (never overwritten)" 2 "${common[@]}" --out "$tmp/full"

# a good boot (icount), contents of OUT, the QEMU command line
FAKE_MODE=ok run "ok boot exits 0" 0 "${common[@]}" --out "$tmp/ok" --append "foo=bar" --extra-qemu -device virtio-rng-pci
jeq "launch.json status ok" "$tmp/ok/launch.json" .status ok
jeq "launch.json clock icount" "$tmp/ok/launch.json" .clock icount
jeq "launch.json accel tcg (icount needs TCG)" "$tmp/ok/launch.json" .accel tcg
jeq "launch.json guest uptime at runcmd" "$tmp/ok/launch.json" .guest_uptime_at_runcmd_s 4.2
jeq "launch.json records the qemu version" "$tmp/ok/launch.json" .qemu_version "QEMU emulator version 7.2.99 (fake)"
if [ "$(cat "$tmp/ok/results/answer" 2>/dev/null)" = 42 ] && [ -f "$tmp/ok/results/run.log" ]; then
	ok 0 "results extracted from the results disk"; else ok 1 "results extracted from the results disk"; fi
c=$(cat "$tmp/ok/qemu.cmdline")
case "$c" in *"-nic none"*"-icount shift=0\\,sleep=on"*) ok 0 "cmdline: -nic none, -icount shift=0,sleep=on" ;; *) ok 1 "cmdline: -nic none, -icount ($c)" ;; esac
case "$c" in *"kbench.clock=icount"*"foo=bar"*) ok 0 "cmdline: kbench.clock= and --append on the kernel cmdline" ;; *) ok 1 "kernel cmdline ($c)" ;; esac
case "$c" in *"-no-reboot"*"panic=-1"*"virtio-rng-pci") ok 0 "cmdline: -no-reboot, panic=-1, --extra-qemu last" ;; *) ok 1 "cmdline: -no-reboot panic=-1 extra ($c)" ;; esac
if [ ! -e "$tmp/ok/.vm" ] && [ -f "$tmp/ok/serial.log" ] && [ -f "$tmp/ok/user-data" ]; then
	ok 0 "serial.log and user-data kept, channel disks removed"; else ok 1 "serial.log kept, .vm removed"; fi

# wall clock and the KVM probe (fake KVM fails like this host's)
FAKE_MODE=ok run "wall clock, accel auto: probe then boot" 0 "${common[@]}" --out "$tmp/wall" --clock wall --accel auto
jeq "probe fell back to TCG" "$tmp/wall/launch.json" .accel tcg
case "$(cat "$tmp/wall/qemu.cmdline")" in *"tcg\\,thread=multi"*) ok 0 "wall clock uses MTTCG" ;; *) ok 1 "wall clock uses MTTCG" ;; esac
if grep -qs '"kvm_works": false' "$tmp"/cache/probe/kvm-*.json; then ok 0 "probe answer cached in \$KBENCH_CACHE/probe"; else ok 1 "probe answer cached"; fi

# the runner fails
FAKE_MODE=fail3 run "runner exit 3 gives exit 3" 3 "${common[@]}" --out "$tmp/f3"
has "message gives the runner status" "runner exited with status 3"
jeq "launch.json runner_exit 3" "$tmp/f3/launch.json" .runner_exit 3
if [ "$(cat "$tmp/f3/results/answer" 2>/dev/null)" = 42 ]; then ok 0 "results kept after runner failure"; else ok 1 "results kept after runner failure"; fi

# results cut short (a full results disk): never accepted
FAKE_MODE=truncated run "a file that does not match MANIFEST gives exit 8" 8 "${common[@]}" --out "$tmp/tr"
has "message names the mismatched file" "incomplete results, none accepted: files do not match the guest's MANIFEST: ./answer: FAILED"
jeq "launch.json status results-incomplete" "$tmp/tr/launch.json" .status results-incomplete
FAKE_MODE=nomanifest run "a tar without its MANIFEST gives exit 8" 8 "${common[@]}" --out "$tmp/nm"
has "message says the tar was cut short" "ends before its MANIFEST \(cut short: results disk full"
FAKE_MODE=overflow run "results larger than the disk give exit 8" 8 "${common[@]}" --out "$tmp/ov"
has "message gives both sizes and the remedy" "results are 9999 bytes, the results disk holds 512 bytes; raise --results-mb"

# panic
FAKE_MODE=panic run "panic gives exit 4" 4 "${common[@]}" --out "$tmp/pa"
has "message says guest kernel panic" "guest kernel panic"
has "message names the serial log" "$tmp/pa/serial.log"

# oops
FAKE_MODE=oops run "oops gives exit 5" 5 "${common[@]}" --out "$tmp/oo"
has "message says oops and quotes it" "guest kernel oops \(BUG: kernel NULL pointer"

# hang
t0=$(date +%s)
FAKE_MODE=hang run "hang gives exit 6" 6 "${common[@]}" --out "$tmp/ha" --timeout 3 --keep-disks
t1=$(date +%s)
has "message says timeout, QEMU killed" "timeout after 3 s in the runner.*QEMU killed, gone: yes"
pid=$(cat "$tmp/ha/.vm/qemu.pid")
if ! kill -0 "$pid" 2>/dev/null; then ok 0 "the hung QEMU (pid $pid) is gone"; else ok 1 "the hung QEMU (pid $pid) is gone"; kill -KILL "$pid"; fi
if [ $((t1 - t0)) -lt 20 ]; then ok 0 "timeout fired promptly ($((t1 - t0)) s)"; else ok 1 "timeout fired promptly ($((t1 - t0)) s)"; fi

# QEMU fails, is killed; no results
FAKE_MODE=die run "QEMU error gives exit 7" 7 "${common[@]}" --out "$tmp/di"
has "message quotes QEMU" "QEMU exited with status 1: qemu-system-x86_64: -drive x: Could not open"
FAKE_MODE=signal run "QEMU killed by a signal gives exit 7" 7 "${common[@]}" --out "$tmp/si"
FAKE_MODE=noresults run "no results gives exit 8" 8 "${common[@]}" --out "$tmp/nr"

# power-off before runcmd
FAKE_MODE=noruncmd run "power-off before runcmd gives exit 8" 8 "${common[@]}" --out "$tmp/nc"
has "message says runcmd never ran" "before cloud-init's runcmd ran"

# the base image is never written
if [ "$(sha256sum "$tmp/base.qcow2" | cut -d' ' -f1)" = "$base_sum" ]; then
	ok 0 "base image unchanged"; else ok 1 "base image unchanged"; fi
exit "$fail"
