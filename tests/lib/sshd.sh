# SPDX-License-Identifier: GPL-2.0
# "Hosts" on this machine for the tests of HOSTS=: sshd instances on
# 127.0.0.1 only, each with a throwaway host key, run as an unprivileged
# user with a throwaway user key, all under the test's own directory.
# Source it; set tmp (a directory of the test's) first.
#
#   sshd_user                 the unprivileged user (KB_TEST_SSH_USER,
#                             default kbhost; made with useradd if root
#                             and missing); sets suser; returns 1, with
#                             the reason in sshd_why, if it cannot
#   sshd_start NAME PORT [KEY=VALUE...]
#                             an sshd for host NAME on 127.0.0.1:PORT;
#                             KEY=VALUE go to its sessions' environment
#                             (sshd SetEnv: KBENCH_CACHE, PATH, ...), and
#                             HOME is a directory of its own; its
#                             key in $tmp/known_hosts, an alias NAME in
#                             $tmp/ssh_config; its pid in sshd_pid[NAME]
#   sshd_kill NAME            kills that sshd and every process under it
#                             (a host that dies), by pid
#   sshd_stop_all             stops every sshd this test started
# shellcheck shell=bash
# tmp is the caller's, and sshd_why is for it
# shellcheck disable=SC2154,SC2034

declare -A sshd_pid=()
sshd_why=''

sshd_user() {
	suser=${KB_TEST_SSH_USER:-kbhost}
	if ! id -u "$suser" >/dev/null 2>&1; then
		if [ "$(id -u)" != 0 ]; then
			sshd_why="no user $suser, and only root can add one: useradd -m $suser, or give KB_TEST_SSH_USER=<an unprivileged user>"
			return 1
		fi
		useradd -m -s /bin/bash "$suser" || { sshd_why="useradd $suser failed"; return 1; }
	fi
	[ "$(id -u "$suser")" != 0 ] || { sshd_why="$suser is root"; return 1; }
	# not locked: sshd refuses a locked account even with a key
	if [ "$(id -u)" = 0 ] && passwd -S "$suser" 2>/dev/null | grep -q ' L '; then
		usermod -p '*' "$suser"
	fi
	command -v /usr/sbin/sshd >/dev/null || { sshd_why="no /usr/sbin/sshd (make deps installs openssh-server)"; return 1; }
	[ -f "$tmp/userkey" ] || ssh-keygen -q -t ed25519 -N '' -C kbench-test -f "$tmp/userkey"
	chmod 755 "$tmp"
	: >>"$tmp/known_hosts"
	: >>"$tmp/ssh_config"
}

sshd_start() {
	local name=$1 port=$2 d=$tmp/$1 i
	shift 2
	mkdir -p "$d/home"
	ssh-keygen -q -t ed25519 -N '' -C "kbench-test-$name" -f "$d/hostkey"
	cp "$tmp/userkey.pub" "$d/authorized_keys"
	{
		printf 'ListenAddress 127.0.0.1\nPort %s\nHostKey %s\nAuthorizedKeysFile %s\n' "$port" "$d/hostkey" "$d/authorized_keys"
		printf 'PidFile %s\nUsePAM no\nStrictModes no\nPasswordAuthentication no\n' "$d/sshd.pid"
		printf 'KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin no\n'
		# a home of its own, as on another machine
		printf 'SetEnv HOME=%s%s\n' "$d/home" "${*:+ $*}"
	} >"$d/sshd_config"
	chown -R "$suser" "$d"
	printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1-2 "$d/hostkey.pub")" >>"$tmp/known_hosts"
	printf 'Host %s\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n' \
		"$name" "$port" "$suser" "$tmp/userkey" >>"$tmp/ssh_config"
	setpriv --reuid "$suser" --regid "$(id -g "$suser")" --init-groups \
		/usr/sbin/sshd -D -f "$d/sshd_config" -E "$d/sshd.log" &
	sshd_pid[$name]=$!
	for i in $(seq 1 50); do
		grep -q 'Server listening' "$d/sshd.log" 2>/dev/null && return 0
		kill -0 "${sshd_pid[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	echo "# sshd $name did not start (try $i): $(tail -n 2 "$d/sshd.log" 2>/dev/null)"
	return 1
}

# descendants PID: PID and every process under it
descendants() {
	local c
	echo "$1"
	for c in $(ps -o pid= --ppid "$1"); do descendants "$c"; done
}

sshd_kill() {
	local p
	[ -n "${sshd_pid[$1]:-}" ] || return 0
	p=$(descendants "${sshd_pid[$1]}")
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $p 2>/dev/null || true
	wait "${sshd_pid[$1]}" 2>/dev/null || true
	unset 'sshd_pid[$1]'
}

sshd_stop_all() {
	local n
	for n in "${!sshd_pid[@]}"; do sshd_kill "$n"; done
}
