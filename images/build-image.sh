#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kbench guest image (Debian 12 cloud image, qcow2), cached by
# content: $KBENCH_CACHE/images/<key>/base.qcow2, key = sha256 of the
# package list and the builder scripts. Prints the image path on stdout.
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

kb_conf KBENCH_CACHE
cache=$KBENCH_CACHE
suite=bookworm
mirror=${KB_MIRROR:-http://deb.debian.org/debian}

# The files whose content defines the image.
key_files=("$here/packages.list" "$here/build-image.sh" "$here/rootfs-setup.sh")

image_key() {
	local f k
	k=$(for f in "${key_files[@]}"; do
		printf '%s %s\n' "$(basename "$f")" "$(kb_sha256_file "$f")"
	done | sha256sum | cut -c1-16)
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
for t in mmdebstrap mkfs.ext4 qemu-img; do
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
# No docs, man pages or locales: smaller image, faster mkfs and boot.
kb_run_logged "$log" mmdebstrap --mode=root --variant=apt \
	--aptopt='Apt::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-include=/usr/share/locale/locale.alias' \
	--include="$(packages)" \
	"$suite" "$work/rootfs" "deb $mirror $suite main" ||
	kb_die "mmdebstrap failed, see $log (mirror $mirror; set KB_MIRROR to change it)"

kb_say "image $key: configuring the rootfs (trimmed boot, see images/README.md)"
kb_run_logged "$log" "$here/rootfs-setup.sh" "$work/rootfs" "$key" ||
	kb_die "rootfs-setup.sh failed, see $log"

# Size: the rootfs plus 30 % plus 1 GiB free for the benchmarks.
used_kb=$(du -sxk "$work/rootfs" | cut -f1)
size_mb=$(((used_kb * 13 / 10) / 1024 + 1024))
kb_say "image $key: mkfs.ext4 -d ($((used_kb / 1024)) MB of files, ${size_mb} MB filesystem)"
truncate -s "${size_mb}M" "$work/root.raw"
kb_run_logged "$log" mkfs.ext4 -q -F -L kbroot -U clear -E root_owner=0:0 \
	-d "$work/rootfs" "$work/root.raw" || kb_die "mkfs.ext4 failed, see $log"
kb_run_logged "$log" qemu-img convert -f raw -O qcow2 "$work/root.raw" "$work/base.qcow2" ||
	kb_die "qemu-img convert failed, see $log"
# The base is never written by a boot (each boot gets an overlay).
chmod a-w "$work/base.qcow2"

t1=$(date +%s)
{
	printf '{\n'
	printf '  "key": "%s",\n' "$key"
	printf '  "suite": "%s",\n' "$suite"
	printf '  "mirror": "%s",\n' "$(kb_json_str "$mirror")"
	printf '  "packages": "%s",\n' "$(kb_json_str "$(packages)")"
	printf '  "extra_packages": "%s",\n' "$(kb_json_str "${extra[*]}")"
	printf '  "root": "/dev/vda",\n'
	printf '  "rootfs_mb": %d,\n' $((used_kb / 1024))
	printf '  "fs_mb": %d,\n' "$size_mb"
	printf '  "qcow2_bytes": %d,\n' "$(stat -c %s "$work/base.qcow2")"
	printf '  "sha256": "%s",\n' "$(kb_sha256_file "$work/base.qcow2")"
	printf '  "build_seconds": %d,\n' $((t1 - t0))
	printf '  "built": "%s"\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf '}\n'
} | kb_atomic_write "$work/image.json"
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
