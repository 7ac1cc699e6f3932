#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# images/seed.sh: the NoCloud seed (user-data runs the guest agent as
# runcmd, meta-data, iso9660 labelled cidata), and the image key of
# images/build-image.sh (stable; changes with the package list).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..16"
for c in cloud-localds blkid isoinfo; do
	command -v "$c" >/dev/null || { echo "Bail out! $c not installed (make deps)"; exit 1; }
done

t "seed.sh makes a seed" "$top/images/seed.sh" "$tmp/s" iid-test
u=$tmp/s/user-data
t "user-data starts with #cloud-config" test "$(head -n 1 "$u")" = "#cloud-config"
t "user-data has a runcmd block" grep -qx '  - |' "$u"
# The runcmd block, de-indented, is the agent without its comment lines.
sed -n '/^  - |$/,$p' "$u" | sed -e 1d -e 's/^    //' >"$tmp/block"
sed -e '/^[[:space:]]*#/d' "$top/images/guest-agent.sh" >"$tmp/agent"
t "runcmd is images/guest-agent.sh" cmp -s "$tmp/block" "$tmp/agent"
t "every runcmd line is indented (valid YAML block)" test -z "$(sed -n '/^  - |$/,$p' "$u" | sed 1d | grep -v '^    ' | grep -v '^$')"
t "the agent is valid sh" sh -n "$tmp/block"
t "agent finds the payload disk by serial kbpayload" grep -q 'kb_disk kbpayload' "$tmp/block"
t "agent finds the results disk by serial kbresults" grep -q 'kb_disk kbresults' "$tmp/block"
t "agent runs /kb/payload/run /kb/results" grep -q 'exec ./run /kb/results' "$tmp/block"
t "agent records exit-status and run.log" grep -q 'exit-status' "$tmp/block"
# shellcheck disable=SC2016 # a literal shell line
t "agent writes the results tar even when the runner fails" grep -qF 'tar -cf "$res" -C /kb/results' "$tmp/block"
t "agent syncs and powers off" grep -q 'poweroff -f' "$tmp/block"
t "meta-data has the instance-id" grep -qx 'instance-id: iid-test' "$tmp/s/meta-data"
t "seed.img is iso9660 labelled cidata" test "$(blkid -o value -s LABEL "$tmp/s/seed.img")" = cidata
isoinfo -J -i "$tmp/s/seed.img" -x /user-data >"$tmp/iso-ud" 2>/dev/null || isoinfo -R -i "$tmp/s/seed.img" -x /user-data >"$tmp/iso-ud" 2>/dev/null || true
t "seed.img holds that user-data" cmp -s "$tmp/iso-ud" "$u"

# Image key: depends on the builder files only; a copy with a changed
# package list gets another key.
mkdir -p "$tmp/tree/images" "$tmp/tree/scripts"
cp "$top/images/"*.sh "$top/images/packages.list" "$tmp/tree/images/"
cp "$top/scripts/lib.sh" "$tmp/tree/scripts/"
cp "$top/bench.conf" "$tmp/tree/"
k1=$(env -u IMAGE "$top/images/build-image.sh" --key)
k2=$(env -u IMAGE "$tmp/tree/images/build-image.sh" --key)
echo strace >>"$tmp/tree/images/packages.list"
k3=$(env -u IMAGE "$tmp/tree/images/build-image.sh" --key)
if [ "$k1" = "$k2" ] && [ "$k1" != "$k3" ]; then ok 0 "image key is content-based ($k1, changed list: $k3)"; else
	ok 1 "image key is content-based ($k1 $k2 $k3)"; fi
exit "$fail"
