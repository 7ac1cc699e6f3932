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

# cloud-init in one stage instead of four: under TCG each stage is a
# Python start that spends about 0.9 s of guest time (icount) importing
# cloud-init (requests, jsonschema, jinja2, yaml) before doing anything.
# `cloud-init init` (the network stage) finds the NoCloud seed itself (a
# local disk, so the local stage is not needed), reads the user-data, and
# then runs runcmd and scripts_user, which are listed in its module list.
# It runs in cloud-final.service's place (after multi-user.target, so the
# benchmark starts on a settled system), by a drop-in that replaces that
# unit's ExecStart; cloud-init-local, cloud-init and cloud-config are
# masked below. Only the modules kbench uses are left: bootcmd and
# write_files (they only act when the user-data asks), runcmd (writes the
# script) and scripts_user (runs it). Dropped: users/groups (creates the
# 'debian' user), ssh, growpart, resizefs, locale, timezone, apt
# configuration, ntp, keys to console, final_message and the rest.
cat >"$root/etc/cloud/cloud.cfg.d/91-kbench-modules.cfg" <<'CFG'
cloud_init_modules: [ bootcmd, write_files, runcmd, scripts_user ]
cloud_config_modules: []
cloud_final_modules: []
manage_etc_hosts: false
preserve_hostname: true
CFG
mkdir -p "$root/etc/systemd/system/cloud-final.service.d"
cat >"$root/etc/systemd/system/cloud-final.service.d/kbench-one-stage.conf" <<'UNIT'
# kbench: the only cloud-init stage (see images/README.md). It finds the
# NoCloud seed, reads the user-data and runs runcmd: one Python start.
[Unit]
Description=cloud-init (kbench: one stage, NoCloud seed, runcmd)
[Service]
ExecStart=
ExecStart=/usr/bin/cloud-init init
UNIT

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
	cloud-init-local.service cloud-init.service cloud-config.service \
	modprobe@.service systemd-modules-load.service \
	systemd-sysusers.service systemd-random-seed.service \
	systemd-user-sessions.service systemd-remount-fs.service

# udev coldplug for block devices only: /dev/disk/by-* for the guest's
# disks (the guest agent's fallback), and udevd still handles every new
# event. Replaying every device's "add" (PCI, ACPI, CPUs, memory blocks,
# ttys, ...) through the rules cost more than anything but cloud-init: in
# one pair of boots at 1 vCPU under icount, a boot without udev reached
# runcmd 0.46 s sooner in guest time and 9 s sooner in host time.
mkdir -p "$root/etc/systemd/system/systemd-udev-trigger.service.d"
cat >"$root/etc/systemd/system/systemd-udev-trigger.service.d/kbench-block.conf" <<'UNIT'
# kbench: coldplug block devices only (see images/README.md).
[Service]
ExecStart=
ExecStart=-udevadm trigger --type=devices --action=add --subsystem-match=block
UNIT

# Generators that have nothing to find in this guest (no LUKS, dm-verity,
# dm-integrity, GPT auto-mount, hibernation image, SysV scripts, rc.local,
# system updates, systemd.run=, gettys): each is an exec at every boot
# and a unit-file reload. Kept: fstab, cloud-init (it enables
# cloud-init.target after ds-identify) and debug (systemd.mask= and the
# like on the kernel command line, for --append).
mkdir -p "$root/etc/systemd/system-generators"
for g in systemd-cryptsetup-generator systemd-integritysetup-generator \
	systemd-veritysetup-generator systemd-gpt-auto-generator \
	systemd-hibernate-resume-generator systemd-sysv-generator \
	systemd-rc-local-generator systemd-system-update-generator \
	systemd-run-generator systemd-getty-generator; do
	ln -sfn /dev/null "$root/etc/systemd/system-generators/$g"
done
exit 0
