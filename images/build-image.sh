#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kbench guest image (Debian 12 cloud image, qcow2), cached by
# content: $KBENCH_CACHE/images/<key>/base.qcow2, key = sha256 of what
# makes the image: packages.list, rootfs-setup.sh and the commands and
# flags in image-cmds.sh (its comment and blank lines aside). This
# script's messages and checks are not in the key: rewording them
# rebuilds nothing. Prints the image path on stdout.
#
#   build-image.sh          build if needed, print the path
#   build-image.sh --path   print the path of the current image, fail if absent
#   build-image.sh --key    print the key
#   build-image.sh --packages "P ..." [--path|--key]
#                           the image with these Debian packages too (the
#                           program workloads' packages, workloads/README.md):
#                           another key, <key>-p<hash of the sorted names>;
#                           names already in packages.list add nothing
#
# IMAGE=<qcow2> (environment) means the user brings an image: it is checked
# and its path printed, nothing is built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"
# shellcheck source=images/image-cmds.sh
. "$here/image-cmds.sh"

kb_conf KBENCH_CACHE
cache=$KBENCH_CACHE
suite=$kbi_suite
mirror=${KB_MIRROR:-http://deb.debian.org/debian}

# What defines the image: the package list, the rootfs setup, and the
# commands and flags that make it (not their comments).
image_key() {
	local k
	k=$({
		printf 'packages.list %s\n' "$(kb_sha256_file "$here/packages.list")"
		printf 'rootfs-setup.sh %s\n' "$(kb_sha256_file "$here/rootfs-setup.sh")"
		kb_code "$here/image-cmds.sh" | sed 's/^/image-cmds | /'
	} | sha256sum | cut -c1-16)
	# KB_IMAGE_TRIM=0 (stock boot, only to measure the trimming) is another image.
	[ "${KB_IMAGE_TRIM:-1}" = 1 ] || k=$k-stock
	# extra packages: another image, one per set
	[ "${#extra[@]}" = 0 ] || k=$k-p$(printf '%s\n' "${extra[@]}" | sha256sum | cut -c1-8)
	printf '%s\n' "$k"
}

# base_packages: packages.list's names, one a line
base_packages() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/packages.list" | grep -v '^$'
}

mode=build
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--path) mode=path; shift ;;
	--key) mode=key; shift ;;
	--packages)
		[ $# -ge 2 ] || kb_die "build-image.sh: --packages needs a list of Debian package names"
		read -r -a plist <<<"$2"
		for p in ${plist[@]+"${plist[@]}"}; do
			# a Debian package name (Policy 5.6.1), never an option
			case "$p" in
			[a-z0-9]*) ;;
			*) kb_die "build-image.sh: --packages: '$p' is not a Debian package name" ;;
			esac
			case "$p" in
			?*[!a-z0-9+.-]*) kb_die "build-image.sh: --packages: '$p' is not a Debian package name" ;;
			esac
			base_packages | grep -qxF "$p" || extra+=("$p")
		done
		shift 2 ;;
	*) kb_die "build-image.sh: unknown argument '$1' (use --path, --key or --packages LIST)" ;;
	esac
done
# the extra packages, sorted, each once: the same set is the same image
if [ "${#extra[@]}" -gt 0 ]; then
	mapfile -t extra < <(printf '%s\n' "${extra[@]}" | LC_ALL=C sort -u)
fi

# packages: every package the image gets, comma separated
packages() {
	{
		base_packages
		[ "${#extra[@]}" = 0 ] || printf '%s\n' "${extra[@]}"
	} | paste -sd, -
}

if [ -n "${IMAGE:-}" ]; then
	[ "$mode" = key ] && kb_die "IMAGE=$IMAGE is set: a user image has no key"
	[ -r "$IMAGE" ] || kb_die "IMAGE=$IMAGE: no such readable file"
	qemu-img info "$IMAGE" >/dev/null 2>&1 ||
		kb_die "IMAGE=$IMAGE: qemu-img cannot read it (not a disk image?)"
	kb_verbose "using the user's image $IMAGE (root device ${ROOT:-/dev/vda})"
	printf '%s\n' "$IMAGE"
	exit 0
fi

key=$(image_key)
dir=$cache/images/$key
img=$dir/base.qcow2
case "$mode" in
key)
	printf '%s\n' "$key"
	exit 0
	;;
path)
	[ -f "$img" ] || [ "${#extra[@]}" != 0 ] || kb_die "no guest image for key $key ($img); run: make image"
	[ -f "$img" ] || kb_die "no guest image for key $key ($img) with the extra packages ${extra[*]}; run: images/build-image.sh --packages '${extra[*]}' (make bench-compare builds it)"
	printf '%s\n' "$img"
	exit 0
	;;
esac

if [ -f "$img" ]; then
	kb_verbose "image $key is up to date: $img"
	printf '%s\n' "$img"
	exit 0
fi

[ "$(id -u)" = 0 ] || kb_die "building the image needs root (mmdebstrap --mode=root, mkfs.ext4 -d keeps owners); run as root or give IMAGE=<qcow2>"
for t in mmdebstrap mkfs.ext4 qemu-img jq; do
	command -v "$t" >/dev/null || kb_die "$t not found; run: make deps"
done

mkdir -p "$dir"
# One builder per key at a time.
exec 9>"$dir/.lock"
flock 9
if [ -f "$img" ]; then
	printf '%s\n' "$img"
	exit 0
fi

work=$(mktemp -d "$dir/.build.XXXXXX")
cleanup() {
	# mmdebstrap unmounts on its own; never leave a half-built image around.
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
log=$dir/build.log
: >"$log"
t0=$(date +%s)

kb_say "image $key: mmdebstrap $suite ($(packages)) (log: $log)"
kb_run_logged "$log" kbi_rootfs "$work" "$(packages)" "$mirror" ||
	kb_die "mmdebstrap failed, see $log (mirror $mirror; set KB_MIRROR to change it)"

kb_say "image $key: configuring the rootfs (trimmed boot, see images/README.md)"
kb_run_logged "$log" kbi_configure "$here/rootfs-setup.sh" "$work" "$key" ||
	kb_die "rootfs-setup.sh failed, see $log"

used_kb=$(du -sxk "$work/rootfs" | cut -f1)
size_mb=$(kbi_fs_mb "$used_kb")
kb_say "image $key: mkfs.ext4 -d ($((used_kb / 1024)) MB of files, ${size_mb} MB filesystem)"
kb_run_logged "$log" kbi_mkfs "$work" "$size_mb" || kb_die "mkfs.ext4 failed, see $log"
kb_run_logged "$log" kbi_qcow2 "$work" ||
	kb_die "qemu-img convert failed, see $log"
# The base is never written by a boot (each boot gets an overlay).
chmod a-w "$work/base.qcow2"

t1=$(date +%s)
jq -n --arg key "$key" --arg suite "$suite" --arg mirror "$mirror" --arg packages "$(packages)" \
	--arg extra "${extra[*]}" --argjson rootfs_mb $((used_kb / 1024)) --argjson fs_mb "$size_mb" \
	--argjson qcow2 "$(stat -c %s "$work/base.qcow2")" --arg sha "$(kb_sha256_file "$work/base.qcow2")" \
	--argjson seconds $((t1 - t0)) --arg built "$(date -u +%Y-%m-%dT%H:%M:%SZ)" '
	{
		key: $key, suite: $suite, mirror: $mirror, packages: $packages, extra_packages: $extra,
		root: "/dev/vda", rootfs_mb: $rootfs_mb, fs_mb: $fs_mb, qcow2_bytes: $qcow2,
		sha256: $sha, build_seconds: $seconds, built: $built
	}' | kb_atomic_write "$work/image.json"
# Dpkg list for the fingerprint.
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
chroot "$work/rootfs" dpkg-query -W -f='${Package}\t${Version}\n' >"$work/packages.txt" 2>/dev/null || true

mv -f "$work/image.json" "$dir/image.json"
mv -f "$work/packages.txt" "$dir/packages.txt"
mv -f "$work/base.qcow2" "$img"
# current: the default image (no extra packages, trimmed)
[ "${KB_IMAGE_TRIM:-1}" != 1 ] || [ "${#extra[@]}" != 0 ] || ln -sfn "$key" "$cache/images/current"
kb_say "image $key: done in $((t1 - t0)) s, $(du -m "$img" | cut -f1) MB: $img"
printf '%s\n' "$img"
