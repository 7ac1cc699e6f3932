#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure an mmdebstrap'ed bookworm rootfs as the kbench guest: no
# console login, no network, cloud-init with the NoCloud datasource only,
# and a boot trimmed to what reaching cloud-init's runcmd needs.
# Usage: rootfs-setup.sh ROOTFS KEY
# KB_IMAGE_TRIM=0 keeps the stock boot (only the mandatory changes), to
# measure what the trimming saves; it is not for normal use.
set -euo pipefail
root=$1
key=$2
trim=${KB_IMAGE_TRIM:-1}
[ -d "$root/etc" ] || { echo "rootfs-setup.sh: $root is not a rootfs" >&2; exit 1; }

mask() {
	local u
	for u in "$@"; do
		ln -sfn /dev/null "$root/etc/systemd/system/$u"
	done
}

# Identity: fixed hostname and machine-id (same in every boot, so nothing
# is "first boot" and systemd-firstboot never prompts).
echo kbench >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tkbench\n' >"$root/etc/hosts"
printf '%s\n' "$(printf 'kbench-%s' "$key" | md5sum | cut -c1-32)" >"$root/etc/machine-id"
# The root filesystem is labelled kbroot by build-image.sh; the kernel
# mounts it rw (root=/dev/vda rw), so no fsck and no remount at boot.
printf 'LABEL=kbroot\t/\text4\trw,relatime\t0\t0\n' >"$root/etc/fstab"
ln -sfn /lib/systemd/system/multi-user.target "$root/etc/systemd/system/default.target"

# Mandatory: the serial line is the log, not a login; there is no network.
mask serial-getty@ttyS0.service systemd-networkd-wait-online.service

# cloud-init: NoCloud seed only (no probing of cloud metadata services),
# and no network configuration (the guest has no NIC).
mkdir -p "$root/etc/cloud/cloud.cfg.d"
cat >"$root/etc/cloud/cloud.cfg.d/90-kbench-datasource.cfg" <<'CFG'
datasource_list: [ NoCloud, None ]
network: {config: disabled}
CFG

rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin

[ "$trim" = 1 ] || exit 0

# ---- Boot trimming (each item is listed in images/README.md) ----

# cloud-init in two stages instead of four: under TCG each stage is a
# Python start of 5-7 s. The network stage (cloud-init.service) finds the
# NoCloud seed (a local disk, so the local stage is not needed) and reads
# the user-data; the final stage (cloud-final.service, after
# multi-user.target) writes and runs runcmd. cloud-init-local.service and
# cloud-config.service are masked below. Only the modules kbench uses are
# left: bootcmd and write_files (init; they only act when the user-data
# asks), runcmd and scripts_user (final). Dropped: users/groups (creates
# the 'debian' user), ssh, growpart, resizefs, locale, timezone, apt
# configuration, ntp, keys to console, final_message and the rest.
cat >"$root/etc/cloud/cloud.cfg.d/91-kbench-modules.cfg" <<'CFG'
cloud_init_modules: [ bootcmd, write_files ]
cloud_config_modules: []
cloud_final_modules: [ runcmd, scripts_user ]
manage_etc_hosts: false
preserve_hostname: true
CFG

# Journal in memory only: no disk writes behind the benchmarks.
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$root/etc/systemd/journald.conf.d/kbench.conf"

# Units that cost boot time or wake up during a benchmark, and that a
# throwaway guest with no network, no login and no persistence never needs.
mask getty@tty1.service getty.target \
	apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
	e2scrub_all.timer e2scrub_reap.service fstrim.timer \
	systemd-tmpfiles-clean.timer \
	systemd-firstboot.service systemd-pstore.service \
	systemd-journal-flush.service systemd-update-utmp.service \
	systemd-update-utmp-runlevel.service \
	systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
	sys-kernel-config.mount \
	systemd-networkd.service systemd-networkd.socket \
	systemd-resolved.service networking.service \
	cloud-init-hotplugd.socket \
	cloud-init-local.service cloud-config.service \
	modprobe@.service systemd-modules-load.service
exit 0
