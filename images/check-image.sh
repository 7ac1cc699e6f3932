#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check, before any boot, that a guest image can run kbench's workloads:
# a qcow2 disk image (each boot gets a qcow2 overlay over it) whose root
# filesystem (ROOT: /dev/vdX whole disk, or /dev/vdXN on an MBR or GPT
# partition) is ext2/3/4 and holds cloud-init, which runs the payload.
#
#   check-image.sh IMAGE ROOT
#
# Exit 0 if usable, 1 with a named error otherwise. The answer for an
# image (by path, size and modification time) is cached in
# $KBENCH_CACHE/image-checks/, since reading the filesystem means
# converting the image to a raw file once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"
kb_conf KBENCH_CACHE

[ $# -eq 2 ] || kb_die "usage: check-image.sh IMAGE ROOT"
img=$1 root=$2
fix="use the image make image builds (leave IMAGE= empty) or a Debian cloud image with cloud-init"

if [ ! -f "$img" ] || [ ! -r "$img" ]; then kb_die "IMAGE=$img: no such readable file; $fix"; fi
info=$(qemu-img info --output=json "$img" 2>&1) ||
	kb_die "IMAGE=$img is not a disk image qemu-img can read: $(printf '%s' "$info" | head -n 1); $fix"
fmt=$(printf '%s' "$info" | jq -r '.format // empty')
[ "$fmt" = qcow2 ] ||
	kb_die "IMAGE=$img is not a qcow2 disk image (qemu-img reads it as ${fmt:-unknown}); kbench boots each guest on a qcow2 overlay of it: convert it (qemu-img convert -O qcow2) or $fix"

case "$root" in
/dev/vd[a-z]) part=0 ;;
/dev/vd[a-z][1-9] | /dev/vd[a-z][1-9][0-9]) part=${root#/dev/vd?} ;;
*) kb_die "ROOT=$root: want /dev/vdX or /dev/vdXN (the guest's virtio disk)" ;;
esac

real=$(readlink -f "$img")
key=$(kb_sha256_str "$real $(stat -c '%s %Y' "$real") $root")
cache=$KBENCH_CACHE/image-checks
[ ! -f "$cache/$key.ok" ] || exit 0

mkdir -p "$cache"
raw=$cache/.raw.$$
trap 'rm -f "$raw"' EXIT
kb_say "checking IMAGE=$img (once per image): is cloud-init on its root filesystem?"
err=$(qemu-img convert -f qcow2 -O raw "$img" "$raw" 2>&1) ||
	kb_die "IMAGE=$img: qemu-img cannot read it: $err"

# u64 LE at byte OFFSET of the raw disk (od prints it in decimal)
u64() { od -An -tu8 -j "$1" -N8 "$raw" | tr -d ' '; }
u32() { od -An -tu4 -j "$1" -N4 "$raw" | tr -d ' '; }
offset=0
if [ "$part" != 0 ]; then
	if [ "$(od -An -tx1 -j 450 -N1 "$raw" | tr -d ' ')" = ee ]; then
		# GPT: entries from LBA 2, 128 bytes each; first LBA at +32
		lba=$(u64 $((1024 + 128 * (part - 1) + 32)))
	elif [ "$part" -le 4 ]; then
		# MBR: 16-byte entries from byte 446; first sector at +8
		lba=$(u32 $((446 + 16 * (part - 1) + 8)))
	else
		kb_die "IMAGE=$img: ROOT=$root is a logical partition, which kbench cannot look into; use a primary partition"
	fi
	if [ -z "$lba" ] || [ "$lba" = 0 ]; then
		kb_die "IMAGE=$img has no partition $part (ROOT=$root); check ROOT="
	fi
	offset=$((lba * 512))
fi

out=$(debugfs -R 'stat /usr/bin/cloud-init' "$raw?offset=$offset" 2>&1) || true
case "$out" in
*"Inode:"*) ;;
*"not found"*) kb_die "IMAGE=$img has no cloud-init (/usr/bin/cloud-init is missing on $root): the guest would never run the workloads; $fix" ;;
*) kb_die "IMAGE=$img: no ext2/3/4 root filesystem at $root ($(printf '%s' "$out" | grep -v '^debugfs [0-9]' | head -n 1)); check ROOT= or $fix" ;;
esac
: >"$cache/$key.ok"
