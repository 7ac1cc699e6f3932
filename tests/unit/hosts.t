#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# HOSTS= as orchestrate/hosts.sh reads it, without ssh: logins from the
# setting or a file, N/login, and the errors for ':' (this machine), an
# entry that is not a login (an ssh option, a command), a login given
# twice, a missing known_hosts or ssh config file; the ssh command checks
# host keys strictly and never prompts; the merge of what hosts sent
# back: a failed attempt from each of two hosts gets its own number and
# row; the checks of hosts_check on what a stand-in ssh says each host
# has (orchestrate/host-probe.sh's lines): boots at a time per host, a
# root login, a missing package, a full disk, and the wall clock on
# hosts that differ.
# (subshells keep what hosts.sh sets away from the test)
# shellcheck disable=SC2030,SC2031
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
echo "1..19"

here=$top/orchestrate
# init HOSTS [KEY=VALUE...]: hosts_init in a subshell; prints the logins
# and wants, or the error
init() {
	(
		# shellcheck source=scripts/lib.sh
		. "$top/scripts/lib.sh"
		# shellcheck source=orchestrate/hosts.sh
		. "$here/hosts.sh"
		HOSTS=$1 HOSTS_KNOWN_HOSTS=$tmp/known_hosts HOSTS_SSH_CONFIG=
		shift
		for kv in "$@"; do eval "${kv%%=*}=\${kv#*=}"; done
		hosts_init
		echo "${host_login[*]}|${host_want[*]}|$ssh_str"
	) 2>&1 || true
}
: >"$tmp/known_hosts"

out=$(init 'a@h1,2/b@h2')
is "logins and N/login" "${out%%|ssh*}" "a@h1 b@h2| 2"
case "$out" in
*"-o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$tmp/known_hosts -o GlobalKnownHostsFile=/dev/null"*) r=0 ;;
*) r=1 ;;
esac
ok "$r" "ssh: keys only, no prompt, host keys checked against HOSTS_KNOWN_HOSTS alone"
case "$out" in *StrictHostKeyChecking=no* | *accept-new*) r=1 ;; *) r=0 ;; esac
ok "$r" "ssh: never StrictHostKeyChecking=no or accept-new"
printf '# the lab\nu@x   # first\n\n3/u@y\n' >"$tmp/hosts"
out=$(init "$tmp/hosts")
is "a HOSTS file: one login a line, comments" "${out%%|ssh*}" "u@x u@y| 3"
out=$(init 'a@h1,:')
case "$out" in *"list ssh logins only"*"user@localhost"*) r=0 ;; *) r=1 ;; esac
ok "$r" "':' is refused, saying how to add this machine ($out)"
out=$(init '-oProxyCommand=sh')
case "$out" in *"is not an ssh login"*) r=0 ;; *) r=1 ;; esac
ok "$r" "an ssh option is not a login"
out=$(init 'a@h1;rm -rf x')
case "$out" in *"is not an ssh login"*) r=0 ;; *) r=1 ;; esac
ok "$r" "a command is not a login"
out=$(init 'a@h1,a@h1')
case "$out" in *"names a@h1 twice"*) r=0 ;; *) r=1 ;; esac
ok "$r" "a login given twice is refused"
out=$(init 'a@h1' HOSTS_KNOWN_HOSTS="$tmp/none")
case "$out" in *"HOSTS_KNOWN_HOSTS=$tmp/none: no such file"*"ssh-keyscan"*) r=0 ;; *) r=1 ;; esac
ok "$r" "a missing known_hosts file is named, with what to do"
out=$(init 'a@h1' HOSTS_SSH_CONFIG="$tmp/none")
case "$out" in *"HOSTS_SSH_CONFIG=$tmp/none: no such file"*) r=0 ;; *) r=1 ;; esac
ok "$r" "a missing ssh config is named"

# the merge: v1-b01 failed on two hosts (each its attempt0 there), then
# came back complete
run=$tmp/run
mkdir -p "$run/boots/k"
printf 'kernel\tboot\tvcpus\tattempt\texit\treason\tserial_log\n' >"$run/failed-boots.tsv"
for h in 1 2; do
	a=$tmp/ret$h/ret/k/v1-b01/attempts/v1-b01.attempt0
	mkdir -p "$a"
	echo "panic on h$h" >"$a/serial.log"
	printf 'k\tv1-b01\t1\t0\t4\tkernel panic (on host h%s)\t/remote/serial.log\n' "$h" >"$a/failed-row.tsv"
done
mkdir -p "$tmp/ret2/ret/k/v1-b01/raw" "$tmp/ret2/ret/k/v1-b01/boot"
: >"$tmp/ret2/ret/k/v1-b01/raw/.done"
(
	# shellcheck source=scripts/lib.sh
	. "$top/scripts/lib.sh"
	# shellcheck source=orchestrate/hosts.sh
	. "$here/hosts.sh"
	cp -r "$tmp/ret1/ret" "$run/" && hosts_merge "$run"
	cp -r "$tmp/ret2/ret" "$run/" && hosts_merge "$run"
)
is "each host's failed attempt has its own number" \
	"$(cat "$run/boots/k/v1-b01.attempt0/serial.log" "$run/boots/k/v1-b01.attempt1/serial.log" 2>&1 | tr '\n' ' ')" \
	"panic on h1 panic on h2 "
is "and its row, with this machine's serial log" "$(tail -n +2 "$run/failed-boots.tsv" | cut -f4,6,7 | tr '\t\n' '| ')" \
	"0|kernel panic (on host h1)|$run/boots/k/v1-b01.attempt0/serial.log 1|kernel panic (on host h2)|$run/boots/k/v1-b01.attempt1/serial.log "
t "the boot itself is filed complete, and ret/ is gone" \
	test -f "$run/raw/k/v1-b01/.done" -a -d "$run/boots/k/v1-b01" -a ! -e "$run/ret"

# hosts_check with a stand-in ssh: the probe's lines of host LOGIN are
# $tmp/probe.LOGIN (as host-probe.sh prints them)
cat >"$tmp/fake-ssh" <<'SSH'
#!/bin/bash
for a in "$@"; do case "$a" in -*) ;; *) h=$a; break ;; esac; done
cat >/dev/null
cat "$KB_FAKE/probe.$h"
SSH
chmod +x "$tmp/fake-ssh"
probe() {
	printf 'uid\t%s\ncache\t/c/%s\nncpu\t%s\nmem_mb\t%s\ncpu\t%s\nkernel\t6.1\nhostname\t%s\nqemu\tQEMU 7.2\nkvm\tno\nfree_mb\t%s\n' \
		"$2" "$1" "$3" "$4" "$5" "$1" "$6" >"$tmp/probe.$1"
}
check() {
	(
		# shellcheck source=scripts/lib.sh
		. "$top/scripts/lib.sh"
		# shellcheck source=orchestrate/hosts.sh
		. "$here/hosts.sh"
		HOSTS=$1 HOSTS_KNOWN_HOSTS=$tmp/known_hosts HOSTS_SSH_CONFIG='' HOSTS_MIN_FREE_MB=2048 BOOT_JOBS=auto
		tmpd=$tmp
		export KB_FAKE=$tmp
		hosts_init
		ssh_cmd=("$tmp/fake-ssh")
		hosts_check 2048 "$2"
		echo "jobs ${host_jobs[*]}"
	) 2>&1 || true
}
probe a 1000 4 20000 "CPU A" 9000
probe b 1000 8 6000 "CPU B" 9000
out=$(check a,b 0)
is "icount, BOOT_JOBS=auto: one boot per core on each host, as its memory allows" "$(tail -n 1 <<<"$out")" "jobs 4 2"
out=$(check a,b 1)
case "$out" in *"the wall clock needs every boot"*"a: cpu=CPU A"*"b: cpu=CPU B"*) r=0 ;; *) r=1 ;; esac
ok "$r" "the wall clock on hosts that differ is refused, naming each one's fingerprint"
probe b 1000 8 5000 "CPU A" 9000
out=$(check a,b 1)
is "the wall clock on hosts alike: one boot at a time on each" "$(tail -n 1 <<<"$out")" "jobs 1 1"
probe r 0 4 20000 "CPU A" 9000
out=$(check r 0)
case "$out" in *"host r logs in as root"*) r=0 ;; *) r=1 ;; esac
ok "$r" "a root login is refused"
probe f 1000 4 20000 "CPU A" 100
out=$(check f 0)
case "$out" in *"host f: only 100 MB free in its cache /c/f"*) r=0 ;; *) r=1 ;; esac
ok "$r" "a full disk is named"
probe q 1000 4 20000 "CPU A" 9000
printf 'missing\tqemu-img\tqemu-utils\nmissing\tjq\tjq\n' >>"$tmp/probe.q"
out=$(check q 0)
case "$out" in *"host q lacks qemu-img jq"*"apt-get install -y --no-install-recommends qemu-utils jq"*) r=0 ;; *) r=1 ;; esac
ok "$r" "missing commands are named with the packages to install"
exit "$fail"
