#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest image's cache key (images/build-image.sh --key) covers what
# makes the image and nothing else. On a scratch copy of images/,
# scripts/lib.sh and bench.conf: rewording a comment or a message of
# build-image.sh, or a comment of image-cmds.sh, leaves the key as it
# is; a command or flag in image-cmds.sh, packages.list and
# rootfs-setup.sh change it; --packages adds -p<hash of the set>.
# --key runs as an unprivileged user, with the build tools replaced by
# ones that record a call, and builds nothing. No image is built.
# shellcheck disable=SC2016 # the sed expressions name $ literally
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..20"

# The copy keeps the repository's layout, which build-image.sh relies on.
k=$tmp/k
mkdir -p "$k/images" "$k/scripts"
cp "$top/images/"*.sh "$top/images/packages.list" "$k/images/"
cp "$top/scripts/lib.sh" "$k/scripts/"
cp "$top/bench.conf" "$k/"
cp -r "$k" "$tmp/pristine"
bi=$k/images/build-image.sh
unset IMAGE KB_IMAGE_TRIM KB_MIRROR V
export KBENCH_CACHE=$tmp/cache

key() {
	"$bi" --key "$@"
}

k0=$(key) || { echo "Bail out! build-image.sh --key failed on the scratch copy"; exit 1; }

# 1-2: sanity
t "the key is 16 hex digits" bash -c "[[ '$k0' =~ ^[0-9a-f]{16}$ ]]"
is "the key is stable" "$(key)" "$k0"

# shellcheck source=tests/lib/key-edits.sh
. "$top/tests/lib/key-edits.sh"

ic=$k/images/image-cmds.sh
# 3-6: wording is not an input
same "rewording a comment in build-image.sh keeps the key" \
	"$bi" 's/^# The base is never written by a boot .*/# No boot ever writes the base: each has its overlay./'
same "rewording a kb_say progress message in build-image.sh keeps the key" \
	"$bi" 's/kb_say "image \$key: configuring the rootfs (trimmed boot, see images\/README.md)"/kb_say "image $key: setting up the rootfs"/'
same "rewording a kb_die message in build-image.sh keeps the key" \
	"$bi" 's/kb_die "qemu-img convert failed, see \$log"/kb_die "could not convert the image to qcow2 (log: $log)"/'
same "rewording a comment in image-cmds.sh keeps the key" \
	"$ic" 's/^# kbi_qcow2 WORK: .*/# kbi_qcow2 WORK: the qcow2 image, from the raw one./'

# 7-13: the commands and flags, the package list and the rootfs setup are
differs "a changed mmdebstrap option changes the key" \
	"$ic" 's/--variant=apt/--variant=minbase/'
differs "a changed suite changes the key" \
	"$ic" 's/^kbi_suite=bookworm$/kbi_suite=trixie/'
differs "a changed filesystem size changes the key" \
	"$ic" 's/\* 13 \/ 10) \/ 1024 + 1024/* 13 \/ 10) \/ 1024 + 2048/'
differs "a changed mkfs.ext4 flag changes the key" \
	"$ic" 's/-L kbroot -U clear/-L kbroot -U clear -m 0/'
differs "a changed qcow2 option changes the key" \
	"$ic" 's/-O qcow2 /-O qcow2 -c /'
differs "a changed packages.list changes the key" \
	"$k/images/packages.list" '$a strace'
differs "a changed rootfs-setup.sh changes the key" \
	"$k/images/rootfs-setup.sh" 's/^echo kbench >/echo kbench-guest >/'

# 14-16: extra packages and the stock image
restore
kp=$(key --packages "fio stress-ng")
case "$kp" in "$k0"-p[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) r=0 ;; *) r=1 ;; esac
ok "$r" "--packages: the key plus -p<8 hex of the sorted set> ($kp)"
is "... the same set in another order is the same key" "$(key --packages "stress-ng fio")" "$kp"
is "KB_IMAGE_TRIM=0 is the -stock image" "$(KB_IMAGE_TRIM=0 key)" "$k0-stock"

# 17-18: build-image.sh runs no image command of its own (they are in
# image-cmds.sh, hashed): lines that are no comment, message or tool check
stray=$(sed -e '/^[[:space:]]*#/d' "$top/images/build-image.sh" |
	grep -v 'kb_say\|kb_verbose\|kb_die\|^for t in ' |
	grep -E '(mmdebstrap|mkfs\.ext4|qemu-img convert|truncate|--variant|--dpkgopt|bookworm|\* 13 / 10)' || true)
if [ -z "$stray" ]; then
	ok 0 "build-image.sh takes its image commands from image-cmds.sh"
else
	ok 1 "build-image.sh takes its image commands from image-cmds.sh"
	diag "$stray"
fi
t "image-cmds.sh has no message (kb_say, kb_verbose, kb_die, echo to stderr)" \
	bash -c "! grep -E 'kb_say|kb_verbose|kb_die|>&2' '$top/images/image-cmds.sh'"

# 19-20: --key as user nobody, the build tools replaced by ones that
# leave a mark, the cache directory one that does not exist: the key,
# no tool run, no directory made.
restore
chmod -R a+rX "$tmp"
mkdir -m 0777 "$tmp/marks" "$tmp/bin"
for c in mmdebstrap mkfs.ext4 qemu-img truncate chroot flock; do
	printf '#!/bin/sh\n: >"%s/%s"\nexit 1\n' "$tmp/marks" "$c" >"$tmp/bin/$c"
done
chmod a+rx "$tmp/bin"/*
asuser=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || { echo "Bail out! setpriv not found (util-linux): cannot run --key unprivileged"; exit 1; }
	asuser=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
rc=0
env PATH="$tmp/bin:$PATH" HOME=/nonexistent KBENCH_CACHE="$tmp/nocache" \
	${asuser[@]+"${asuser[@]}"} "$bi" --key >"$tmp/out" 2>"$tmp/err" || rc=$?
is "--key as an unprivileged user (uid $(${asuser[@]+"${asuser[@]}"} id -u)) exits 0 with the key" \
	"$rc $(cat "$tmp/out")" "0 $k0"
[ "$rc" = 0 ] || diag "$(cat "$tmp/err")"
t "... and runs no build tool and makes no cache directory" \
	bash -c "[ -z \"\$(ls -A '$tmp/marks')\" ] && [ ! -e '$tmp/nocache' ]"

exit "$fail"
