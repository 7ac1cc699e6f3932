#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deps-proof: make deps on a machine with systemd opens no port.
# A guest of the kbench image (Debian 12, systemd; no network) gets
# openssh-server and its dependencies as a local repository (apt-get
# download on the host, from Debian's mirror) and runs
# scripts/deps-proof/guest-run.sh: `ss -ltn` and the ssh unit before,
# after scripts/deps.sh installs openssh-server (KB_DEPS_PACKAGES), and
# after a plain apt-get install of it, the control that shows the check
# would see a daemon. Passes when kbench's install leaves no listening
# socket and ssh.service disabled and inactive, and the plain install
# has sshd on port 22 (else the control proves nothing).
# Results: reports/<date>-deps-proof/ (results/, serial.log, summary.txt).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE

kd=$KBENCH_CACHE/labels/baseline
[ -r "$kd/bzImage" ] || kb_die "no baseline kernel ($kd/bzImage): make kernels"
out=$(kb_new_run_dir -deps-proof)
pay=$out/payload
mkdir -p "$pay/repo"
cp "$top/scripts/deps-proof/guest-run.sh" "$pay/run"
cp "$top/scripts/deps.sh" "$top/scripts/lib.sh" "$pay/"
chmod +x "$pay/run"
# openssh-server and what it needs beyond the image (apt-cache depends
# on this host, less what the image has: its packages.txt)
img=$("$top/images/build-image.sh") || kb_die "no guest image: make image"
have=$(dirname "$img")/packages.txt
[ -r "$have" ] || kb_die "$have: the image's package list is missing; make image rebuilds it"
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances openssh-server openssh-client 2>/dev/null |
	grep '^[a-z]' | sort -u >"$out/ssh-deps.txt"
cut -f1 "$have" | sed 's/:.*//' | sort -u >"$out/image-pkgs.txt"
mapfile -t need < <(comm -23 "$out/ssh-deps.txt" "$out/image-pkgs.txt" |
	grep -vx 'cdebconf\|libdebian-installer4\|libnewt0.52\|libtextwrap1\|libelogind0\|install-info')
(cd "$pay/repo" && apt-get download "${need[@]}") >"$out/download.log" 2>&1 ||
	kb_die "apt-get download ${need[*]} failed (Debian's mirror reachable? apt-get update?): $out/download.log"
(cd "$pay/repo" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null) ||
	kb_die "dpkg-scanpackages failed in $pay/repo (dpkg-dev installed?)"
rc=0
"$top/images/launch.sh" --kernel "$kd" --image "$img" --payload "$pay" --out "$out/boot" \
	--vcpus 1 --clock wall --timeout 1800 >"$out/launch.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || kb_die "the guest boot failed (launch.sh exit $rc): $out/launch.log, serial log $out/boot/serial.log"
r=$out/boot/results
[ -f "$r/done" ] || kb_die "the guest did not finish its steps: $r, serial log $out/boot/serial.log"
{
	for s in before after-kbench after-plain; do
		echo "== $s: ss -ltn"
		cat "$r/ss-$s.txt"
		cat "$r/unit-$s.txt"
	done
	echo "== deps.sh (exit $(cat "$r/deps-rc"))"
	cat "$r/deps.out"
} >"$out/summary.txt"
cat "$out/summary.txt"
fail=''
[ "$(cat "$r/deps-rc")" = 0 ] || fail="$fail deps.sh-failed"
[ ! -s "$r/ss-after-kbench.txt" ] || cmp -s "$r/ss-before.txt" "$r/ss-after-kbench.txt" || fail="$fail new-listening-socket"
grep -qx 'is-enabled: disabled' "$r/unit-after-kbench.txt" || fail="$fail ssh-enabled"
grep -qx 'is-active: inactive' "$r/unit-after-kbench.txt" || fail="$fail ssh-active"
grep -q ':22 ' "$r/ss-after-plain.txt" || fail="$fail control-saw-no-sshd"
[ -z "$fail" ] || kb_die "deps-proof FAILED:$fail (see $out/summary.txt)"
kb_say "deps-proof: kbench's install left no new listening socket and ssh.service disabled and inactive; a plain apt-get install has sshd on :22 ($out)"
