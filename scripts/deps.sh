#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that the Debian packages kbench needs are installed. As root,
# install the missing ones with apt-get; otherwise print the exact
# apt-get line and fail.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# One line per package, grouped by what needs it.
PKGS=(
	# kernel builds
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	dwarves ccache cpio kmod rsync xz-utils git python3
	# the series's files are checked with sparse (make C=1)
	sparse
	# guest image and launcher
	qemu-system-x86 qemu-utils mmdebstrap cloud-image-utils e2fsprogs
	# the boots of a run are units of work that GNU parallel runs
	parallel
	# boots on other hosts (HOSTS=): ssh and rsync; the tests start
	# their own sshd on loopback
	openssh-client openssh-server
	# bench programs (built on the host, run in the guest)
	clang llvm libbpf-dev linux-perf bpftool zlib1g-dev
	# 6.12's own BPF selftests (make upstream-selftests)
	clang-19 llvm-19 lld-19
	# analysis and reports
	gnuplot-nox jq libxml2-utils
	# the series' history (analysis/history.sh): the sqlite3 CLI; the
	# library's headers for C callers of the store
	sqlite3 libsqlite3-dev
	# tests; libclang-rt-14-dev has libFuzzer and the ASan/UBSan runtimes
	perl shellcheck chromium libclang-rt-14-dev
)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing+=("$p") ;;
	esac
done

if [ "${#missing[@]}" -eq 0 ]; then
	kb_verbose "all ${#PKGS[@]} packages present"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	kb_die "missing packages: ${missing[*]}
  install them with: sudo apt-get install -y --no-install-recommends ${missing[*]}"
fi

kb_say "installing missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log="${TMPDIR:-/tmp}/kbench-apt.$$.log"
# An old or empty package list makes install fail; refresh it once.
if ! apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	apt-get update >>"$log" 2>&1 || kb_die "apt-get update failed, see $log"
	apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1 ||
		kb_die "apt-get install ${missing[*]} failed, see $log"
fi
kb_say "installed: ${missing[*]}"
# Debian starts the system's sshd when openssh-server is installed; the
# tests need only its binary (they run their own on loopback)
case " ${missing[*]} " in
*" openssh-server "*)
	kb_say "note: Debian's openssh-server starts its own sshd (port 22); kbench only needs /usr/sbin/sshd: 'systemctl disable --now ssh' if you do not want it running" ;;
esac
