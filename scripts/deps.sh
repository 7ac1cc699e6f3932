#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that the Debian packages kbench needs are installed. As root,
# install the missing ones with apt-get; otherwise print the exact
# apt-get line and fail.
#
# The install opens no port and leaves nothing to start at boot: a
# policy-rc.d that denies every action is in place for the length of
# apt-get (so the postinst of openssh-server, or of any dependency, starts
# no daemon), and every service the install newly enabled at boot
# (systemd .wants/.requires links, SysV rc S links) is disabled again.
# Services that were there before are left as they were.
#
# KB_DEPS_ROOT (tests only, default /): the root whose
# usr/sbin/policy-rc.d and etc/systemd, etc/rc?.d are used.
# KB_DEPS_PACKAGES (tests only): these packages instead of kbench's list
# (the proof on a systemd guest installs openssh-server alone).
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
	# analysis and reports; kbstat reads JSON with libjansson and takes
	# the distributions' tails and quantiles from libgsl
	gnuplot-nox jq libxml2-utils libjansson-dev libgsl-dev
	# the series' history (analysis/history.sh): the sqlite3 CLI; the
	# library's headers for C callers of the store
	sqlite3 libsqlite3-dev
	# tests; libclang-rt-14-dev has libFuzzer and the ASan/UBSan runtimes
	perl shellcheck chromium libclang-rt-14-dev
)

if [ -n "${KB_DEPS_PACKAGES:-}" ]; then
	read -r -a PKGS <<<"$KB_DEPS_PACKAGES"
fi
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

root=${KB_DEPS_ROOT:-/}
root=${root%/}
prc=$root/usr/sbin/policy-rc.d
saved=$prc.kbench-saved
mark='# kbench deps.sh: no service starts during its apt-get install'
tmp=$(mktemp -d)
prc_ours=0

# Put back the policy-rc.d there was before (or none).
prc_restore() {
	if [ -e "$saved" ] || [ -L "$saved" ]; then
		mv -f "$saved" "$prc"
	else
		rm -f "$prc"
	fi
}
cleanup() {
	[ "$prc_ours" = 0 ] || prc_restore
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A make deps that was killed during its install left its policy-rc.d.
if [ -f "$prc" ] && grep -qxF "$mark" "$prc"; then
	kb_say "$prc is left from an interrupted make deps: restoring the one from before"
	prc_restore
elif [ -e "$saved" ] || [ -L "$saved" ]; then
	if [ ! -e "$prc" ] && [ ! -L "$prc" ]; then
		kb_say "$saved is left from an interrupted make deps: putting it back as $prc"
		mv -f "$saved" "$prc"
	else
		kb_die "$saved is left from an interrupted make deps, and $prc is not kbench's: keep the right one as $prc, remove the other, and run make deps again"
	fi
fi

# The links that enable a service at boot: systemd's .wants/.requires
# (what systemctl enable and deb-systemd-helper enable make) and SysV's
# rc S links (what update-rc.d defaults makes), relative to etc/.
boot_links() {
	{
		find "$root/etc/systemd/system" -mindepth 2 -maxdepth 2 -type l \
			\( -path '*.wants/*' -o -path '*.requires/*' \) -printf 'systemd/system/%P\n' 2>/dev/null || true
		find "$root/etc" -mindepth 2 -maxdepth 2 -type l -path "$root/etc/rc[S2-5].d/S*" -printf '%P\n' 2>/dev/null || true
	} | sort -u
}
boot_links >"$tmp/before"

kb_say "installing missing packages: ${missing[*]}"
# policy-rc.d (Debian's policy layer: invoke-rc.d and deb-systemd-invoke
# ask it) exits 101, action forbidden, for the length of the install.
mkdir -p "$(dirname "$prc")"
if [ -e "$prc" ] || [ -L "$prc" ]; then
	mv -f "$prc" "$saved"
fi
prc_ours=1
printf '#!/bin/sh\n%s\nexit 101\n' "$mark" >"$prc.tmp.$$"
chmod 755 "$prc.tmp.$$"
mv -f "$prc.tmp.$$" "$prc"

export DEBIAN_FRONTEND=noninteractive
log="${TMPDIR:-/tmp}/kbench-apt.$$.log"
# An old or empty package list makes install fail; refresh it once.
if ! apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	apt-get update >>"$log" 2>&1 || kb_die "apt-get update failed, see $log"
	apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1 ||
		kb_die "apt-get install ${missing[*]} failed, see $log"
fi
prc_restore
prc_ours=0
kb_say "installed: ${missing[*]}"

# Disable at boot what the install enabled: a unit or SysV script with a
# link now and none before. systemctl disables a unit whether or not
# systemd runs (deb-systemd-helper is for maintainer scripts only) and
# keeps deb-systemd-helper's state, so an upgrade of the package keeps it
# disabled; update-rc.d disable turns a script's S links into K links.
# A new link either leaves (neither tool there) is removed by hand.
boot_links >"$tmp/after"
# link_names LIST: the unit ("ssh.service") or SysV script ("sysv:ssh")
# of each link
link_names() {
	sed -e 's|^systemd/.*/||' -e 's|^rc[S2-5]\.d/S[0-9][0-9]|sysv:|' "$1" | sort -u
}
comm -13 <(link_names "$tmp/before") <(link_names "$tmp/after") >"$tmp/new"
sc=()
[ -z "$root" ] || sc=(--root="$root")
disabled=()
while IFS= read -r u; do
	case "$u" in
	sysv:*)
		if command -v update-rc.d >/dev/null; then
			update-rc.d "${u#sysv:}" disable >>"$log" 2>&1 ||
				kb_say "warning: update-rc.d ${u#sysv:} disable failed, see $log"
		fi ;;
	*)
		if command -v systemctl >/dev/null; then
			systemctl "${sc[@]}" disable --quiet "$u" >>"$log" 2>&1 ||
				kb_say "warning: systemctl disable $u failed, see $log"
		fi ;;
	esac
	disabled+=("$u")
done <"$tmp/new"
boot_links | while IFS= read -r l; do
	printf '%s\n' "$l" >"$tmp/l"
	! grep -qxFf "$tmp/new" <(link_names "$tmp/l") || rm -f "$root/etc/$l"
done

if [ "${#disabled[@]}" -gt 0 ]; then
	kb_say "no service was started during the install (a policy-rc.d denied it), and those it enabled at boot are disabled again: ${disabled[*]}. kbench needs only their programs (the tests run their own sshd on loopback); to have one running: systemctl enable --now UNIT"
fi
