# SPDX-License-Identifier: GPL-2.0
# The commands and flags that turn packages.list and rootfs-setup.sh into
# the guest image. Source it: build-image.sh runs these, and hashes this
# file's text (comment lines and blank lines aside) into the image key,
# so an edit here rebuilds the image. Progress and error messages belong
# in build-image.sh, never here: rewording them must rebuild nothing.
# The mirror is not here: it is not part of the key (KB_MIRROR).
# shellcheck shell=bash

kbi_suite=bookworm

# kbi_rootfs WORK PACKAGES MIRROR: WORK/rootfs, with PACKAGES (comma
# separated). No recommends; no docs, man pages or locales: a smaller
# image, a faster mkfs and boot.
kbi_rootfs() {
	mmdebstrap --mode=root --variant=apt \
		--aptopt='Apt::Install-Recommends "false"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-include=/usr/share/locale/locale.alias' \
		--include="$2" \
		"$kbi_suite" "$1/rootfs" "deb $3 $kbi_suite main"
}

# kbi_configure SETUP WORK KEY: SETUP (rootfs-setup.sh) on WORK/rootfs;
# the machine-id comes from KEY.
kbi_configure() {
	"$1" "$2/rootfs" "$3"
}

# kbi_fs_mb USED_KB: the filesystem's size in MB for USED_KB of files:
# 30 % more, plus 1 GiB free for the benchmarks.
kbi_fs_mb() {
	echo $((($1 * 13 / 10) / 1024 + 1024))
}

# kbi_mkfs WORK SIZE_MB: WORK/root.raw, ext4 labelled kbroot holding
# WORK/rootfs with its owners (root=/dev/vda: no partition table).
kbi_mkfs() {
	truncate -s "$2M" "$1/root.raw" &&
		mkfs.ext4 -q -F -L kbroot -U clear -E root_owner=0:0 -d "$1/rootfs" "$1/root.raw"
}

# kbi_qcow2 WORK: WORK/base.qcow2 from WORK/root.raw.
kbi_qcow2() {
	qemu-img convert -f raw -O qcow2 "$1/root.raw" "$1/base.qcow2"
}
