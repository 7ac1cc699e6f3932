#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deps (scripts/deps.sh) installs packages without starting or
# enabling a service: a policy-rc.d that exits 101 is in place during
# apt-get install only (one that was there before comes back, even when
# the install fails), and what the install enabled at boot is disabled
# again, nothing else. Nothing is installed: apt-get, dpkg-query, id,
# systemctl and update-rc.d are stubs that log their calls, on a PATH of
# stubs and the few tools deps.sh needs, over a scratch root
# (KB_DEPS_ROOT).
# shellcheck disable=SC2016 # the stubs' text is expanded when they run
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..37"

# The tools deps.sh and the stubs use, and nothing else.
tools=$tmp/tools
mkdir -p "$tools"
for c in bash sh cat chmod comm cp date dirname find grep ln mkdir mktemp mv \
	readlink rm sed sort; do
	p=$(command -v "$c") || { echo "Bail out! $c not found"; exit 1; }
	ln -s "$p" "$tools/$c"
done

# stub NAME BODY: a stub command in $tmp/stubs.
mkdir -p "$tmp/stubs"
stub() {
	printf '#!/bin/bash\nset -eu\n%s\n' "$2" >"$tmp/stubs/$1"
	chmod +x "$tmp/stubs/$1"
}
stub id 'echo "${STUB_UID:-0}"'
stub dpkg-query 'p=${*: -1}
case " ${STUB_MISSING:-} " in *" $p "*) exit 1 ;; esac
printf "install ok installed"'
# apt-get: an install runs openssh-server's postinst, as it would: it
# asks the policy layer whether to start ssh, enables ssh.service
# (a .wants link and the sshd.service alias) and the SysV script; and
# it adds a link to cron, which was enabled before.
stub apt-get 'echo "apt-get $*" >>"$STUB_LOG"
[ "$1" != update ] || exit 0
[ -z "${STUB_APT_FAIL:-}" ] || exit 100
r=$KB_DEPS_ROOT
rc=0
"$r/usr/sbin/policy-rc.d" ssh.service start || rc=$?
echo "policy-rc.d $rc" >>"$STUB_LOG"
s=$r/etc/systemd/system
mkdir -p "$s/multi-user.target.wants" "$s/graphical.target.wants"
ln -s /lib/systemd/system/ssh.service "$s/multi-user.target.wants/ssh.service"
ln -s /lib/systemd/system/ssh.service "$s/sshd.service"
ln -s /lib/systemd/system/cron.service "$s/graphical.target.wants/cron.service"
for d in 2 3 4 5; do
	mkdir -p "$r/etc/rc$d.d"
	ln -s ../init.d/ssh "$r/etc/rc$d.d/S01ssh"
done
ln -s ../init.d/cron "$r/etc/rc3.d/S01cron"'
# systemctl [--root=R] disable [--quiet] UNIT: removes the unit'"'"'s links
stub systemctl 'echo "systemctl $*" >>"$STUB_LOG"
r=
for a in "$@"; do case "$a" in --root=*) r=${a#--root=} ;; esac; done
[ "$*" != "${*/disable/}" ] || exit 0
u=${*: -1}
find "$r/etc/systemd/system" -type l -name "$u" -delete
find "$r/etc/systemd/system" -type l -lname "*/$u" -delete'
# update-rc.d NAME disable: its S links become K links
stub update-rc.d 'echo "update-rc.d $*" >>"$STUB_LOG"
[ "$2" = disable ] || exit 0
for l in "$KB_DEPS_ROOT"/etc/rc[S2-5].d/S??"$1"; do
	[ -L "$l" ] || continue
	b=${l##*/}
	mv "$l" "${l%/*}/K${b#S}"
done'

export STUB_LOG=$tmp/calls
# setup: a scratch root where cron was enabled before; a fresh call log.
setup() {
	r=$tmp/root
	rm -rf "$r" "$STUB_LOG"
	: >"$STUB_LOG"
	mkdir -p "$r/usr/sbin" "$r/etc/systemd/system/multi-user.target.wants" "$r/etc/rc2.d"
	ln -s /lib/systemd/system/cron.service "$r/etc/systemd/system/multi-user.target.wants/cron.service"
	ln -s ../init.d/cron "$r/etc/rc2.d/S01cron"
	export KB_DEPS_ROOT=$r
}
# deps [NOSTUB...]: deps.sh on the stubs' PATH, without the named stubs.
# shellcheck disable=SC2317 # check and check_rc call it
deps() {
	rm -rf "${tmp:?}/bin"
	cp -a "$tools" "$tmp/bin"
	cp -a "$tmp/stubs/." "$tmp/bin/"
	for s in "$@"; do rm -f "$tmp/bin/$s"; done
	PATH=$tmp/bin TMPDIR=$tmp "$top/scripts/deps.sh"
}
export STUB_MISSING="openssh-server sparse"
sw=multi-user.target.wants

# 1-13: systemctl and update-rc.d there, no policy-rc.d before
setup
check "deps.sh installs the missing packages" deps
t "with apt-get install" grep -qx 'apt-get install -y --no-install-recommends sparse openssh-server' "$STUB_LOG"
t "policy-rc.d denied the start during the install (exit 101)" grep -qx 'policy-rc.d 101' "$STUB_LOG"
t "no policy-rc.d afterwards (there was none)" test ! -e "$r/usr/sbin/policy-rc.d" -a ! -L "$r/usr/sbin/policy-rc.d"
t "nothing left beside it" bash -c "! ls '$r/usr/sbin' | grep -q ."
is "systemctl disables the unit the install enabled, that one only" \
	"$(grep '^systemctl' "$STUB_LOG")" "systemctl --root=$r disable --quiet ssh.service"
is "update-rc.d disables the SysV script the install enabled, that one only" \
	"$(grep '^update-rc.d' "$STUB_LOG")" "update-rc.d ssh disable"
t "nothing is started or enabled" bash -c "! grep -Ew 'start|restart|reload|enable|unmask' '$STUB_LOG'"
t "ssh.service is not wanted at boot" test ! -L "$r/etc/systemd/system/$sw/ssh.service"
t "no S link starts ssh" bash -c "! ls '$r'/etc/rc?.d/S*ssh"
t "cron, enabled before, stays enabled (old and new links)" \
	test -L "$r/etc/systemd/system/$sw/cron.service" -a -L "$r/etc/systemd/system/graphical.target.wants/cron.service" \
	-a -L "$r/etc/rc2.d/S01cron" -a -L "$r/etc/rc3.d/S01cron"
t "the message names what was disabled" grep -q 'disabled again: ssh.service sysv:ssh' "$tmp/err"
t "and no longer tells the user to disable sshd" bash -c "! grep -q 'disable --now' '$tmp/err'"

# 14-16: a policy-rc.d of the admin's, allowing everything
setup
printf '#!/bin/sh\n# the admin'"'"'s\nexit 0\n' >"$r/usr/sbin/policy-rc.d"
chmod 755 "$r/usr/sbin/policy-rc.d"
cp -p "$r/usr/sbin/policy-rc.d" "$tmp/orig-prc"
check "deps.sh installs with a policy-rc.d there" deps
t "kbench's denied the start during the install" grep -qx 'policy-rc.d 101' "$STUB_LOG"
t "the admin's is back, unchanged" cmp "$tmp/orig-prc" "$r/usr/sbin/policy-rc.d"

# 17-20: the install fails
setup
cp -p "$tmp/orig-prc" "$r/usr/sbin/policy-rc.d"
STUB_APT_FAIL=1 check_rc "deps.sh fails when apt-get does" 1 deps
t "after apt-get update and a second try" test "$(grep -c '^apt-get' "$STUB_LOG")" = 3
t "the admin's policy-rc.d is back" cmp "$tmp/orig-prc" "$r/usr/sbin/policy-rc.d"
t "and nothing beside it" test "$(ls "$r/usr/sbin")" = policy-rc.d

# 21-23: no systemctl nor update-rc.d: the new links go by hand
setup
check "deps.sh installs without systemctl and update-rc.d" deps systemctl update-rc.d
t "ssh has no boot link left" bash -c "! ls '$r/etc/systemd/system/$sw/ssh.service' '$r'/etc/rc?.d/S*ssh"
t "cron's links stay" test -L "$r/etc/systemd/system/graphical.target.wants/cron.service" -a -L "$r/etc/rc3.d/S01cron"

# 24-25: nothing missing: no apt-get, policy-rc.d untouched
setup
cp -p "$tmp/orig-prc" "$r/usr/sbin/policy-rc.d"
STUB_MISSING='' check "deps.sh with every package there" deps
t "runs no apt-get and leaves policy-rc.d alone" \
	bash -c "[ ! -s '$STUB_LOG' ] && cmp '$tmp/orig-prc' '$r/usr/sbin/policy-rc.d'"

# 26-28: a make deps killed during its install left kbench's policy-rc.d
setup
cp -p "$tmp/orig-prc" "$r/usr/sbin/policy-rc.d.kbench-saved"
printf '#!/bin/sh\n# kbench deps.sh: no service starts during its apt-get install\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
check "deps.sh after an interrupted one" deps
t "says it restores the policy-rc.d from before" grep -q 'left from an interrupted make deps' "$tmp/err"
t "which is in place at the end" bash -c "cmp '$tmp/orig-prc' '$r/usr/sbin/policy-rc.d' && [ \"\$(ls '$r/usr/sbin')\" = policy-rc.d ]"

# 29-31: killed between moving the admin's policy-rc.d aside and writing
# kbench's
setup
cp -p "$tmp/orig-prc" "$r/usr/sbin/policy-rc.d.kbench-saved"
check "deps.sh after one killed before its policy-rc.d was written" deps
t "puts the admin's back" grep -q 'putting it back' "$tmp/err"
t "which is in place at the end, alone" bash -c "cmp '$tmp/orig-prc' '$r/usr/sbin/policy-rc.d' && [ \"\$(ls '$r/usr/sbin')\" = policy-rc.d ]"

# 32-33: a saved copy and a policy-rc.d that is not kbench's: which one
# is right is for the admin to say
setup
cp -p "$tmp/orig-prc" "$r/usr/sbin/policy-rc.d.kbench-saved"
printf '#!/bin/sh\nexit 0\n' >"$r/usr/sbin/policy-rc.d"
check_rc "deps.sh stops when it cannot tell which policy-rc.d is right" 1 deps
t "touching neither, running no apt-get" \
	bash -c "cmp -s '$tmp/orig-prc' '$r/usr/sbin/policy-rc.d.kbench-saved' && grep -qx 'exit 0' '$r/usr/sbin/policy-rc.d' && [ ! -s '$STUB_LOG' ]"

# 34-35: not root: the apt-get line, and nothing touched
setup
STUB_UID=1000 check_rc "deps.sh as a user fails" 1 deps
t "naming the apt-get line, with no policy-rc.d made" \
	bash -c "grep -q 'sudo apt-get install -y --no-install-recommends sparse openssh-server' '$tmp/err' && [ ! -e '$r/usr/sbin/policy-rc.d' ] && [ ! -s '$STUB_LOG' ]"

# 36-37: KB_DEPS_PACKAGES (the proof on a systemd guest) checks those alone
setup
KB_DEPS_PACKAGES="openssh-server" check "deps.sh with KB_DEPS_PACKAGES=openssh-server" deps
t "installs openssh-server alone (sparse, missing too, is not in that list)" \
	grep -qx 'apt-get install -y --no-install-recommends openssh-server' "$STUB_LOG"

exit "$fail"
