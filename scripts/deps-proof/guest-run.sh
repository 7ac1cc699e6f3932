#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of make deps-proof (scripts/deps-proof.sh): listening
# sockets and the ssh unit before, after scripts/deps.sh installs
# openssh-server, and after a plain apt-get install of it (the control).
#   run RESULTS_DIR
set -eu
r=$1
here=$(cd "$(dirname "$0")" && pwd)
state() {
	ss -ltnH >"$r/ss-$1.txt" 2>&1 || true
	{
		echo "is-enabled: $(systemctl is-enabled ssh.service 2>&1 || true)"
		echo "is-active: $(systemctl is-active ssh.service 2>&1 || true)"
		echo "sshd: $(ls -l /usr/sbin/sshd 2>&1 || true)"
	} >"$r/unit-$1.txt"
}
state before
# the guest has no network: the payload's repository is its only source
mkdir -p /etc/apt/off
mv /etc/apt/sources.list /etc/apt/sources.list.d/* /etc/apt/off/ 2>/dev/null || true
echo "deb [trusted=yes] file:$here/repo ./" >/etc/apt/sources.list
apt-get update >"$r/apt-update.txt" 2>&1
rc=0
(cd "$here" && KB_DEPS_PACKAGES="openssh-client openssh-server" bash ./deps.sh) >"$r/deps.out" 2>&1 || rc=$?
echo "$rc" >"$r/deps-rc"
# a unit started in the background would be up by now
sleep 5
state after-kbench
# the control: what a plain install does (kbench's prevents it)
apt-get purge -y openssh-server >"$r/purge.txt" 2>&1
apt-get install -y --no-install-recommends openssh-server >"$r/plain-install.txt" 2>&1
sleep 5
state after-plain
echo finished >"$r/done"
