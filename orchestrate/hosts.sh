# SPDX-License-Identifier: GPL-2.0
# Boots on other hosts (HOSTS=): sourced by orchestrate/run.sh.
#
# GNU parallel runs the units there (--sshlogin), each through
# orchestrate/host-unit.sh, and brings each boot back by rsync (--return);
# kbench only checks the hosts, copies what the boots need, and files
# what came back. ssh runs with keys only (BatchMode) and checks every
# host key against HOSTS_KNOWN_HOSTS (StrictHostKeyChecking=yes); a host
# whose login is root is refused. No password or key is ever written
# anywhere: only the paths of the files ssh reads are in its command line.
# shellcheck shell=bash
# here, top and tmpd are run.sh's; host_jobs and the like are read there
# shellcheck disable=SC2154,SC2034

# hosts_init: HOSTS into host_login[] (ssh logins) and host_want[] (N of
# an N/login entry, else empty); ssh_cmd[] and ssh_str, the ssh command
# (array, and as one shell-quoted string for parallel --ssh and rsync -e).
hosts_init() {
	local list=() e i=0
	host_login=() host_want=()
	if [ -f "$HOSTS" ]; then
		while IFS= read -r e || [ -n "$e" ]; do
			e=${e%%#*}
			e=$(printf '%s' "$e" | tr -d '[:space:]')
			[ -z "$e" ] || list+=("$e")
		done <"$HOSTS"
		[ "${#list[@]}" -gt 0 ] || kb_die "HOSTS=$HOSTS: the file names no host (one ssh login a line, # comments)"
	else
		IFS=, read -r -a list <<<"$HOSTS"
	fi
	for e in "${list[@]}"; do
		i=$((i + 1))
		case "$e" in
		'' | : | */:) kb_die "HOSTS entry $i is '$e': list ssh logins only (user@host); for this machine too, leave HOSTS empty or give it as user@localhost" ;;
		esac
		if [[ $e =~ ^([0-9]+)/(.*)$ ]]; then
			[ "${BASH_REMATCH[1]}" -ge 1 ] || kb_die "HOSTS entry '$e': N/login wants N >= 1"
			host_want+=("${BASH_REMATCH[1]}")
			e=${BASH_REMATCH[2]}
		else
			host_want+=('')
		fi
		# a login, never an ssh option or a command
		[[ $e =~ ^([A-Za-z0-9._][A-Za-z0-9._-]*@)?[A-Za-z0-9._][A-Za-z0-9._-]*$ ]] ||
			kb_die "HOSTS entry '$e' is not an ssh login (user@host, a host name or an alias of HOSTS_SSH_CONFIG)"
		for l in ${host_login[@]+"${host_login[@]}"}; do
			[ "$l" != "$e" ] || kb_die "HOSTS names $e twice: give N/$e for N boots at a time there"
		done
		host_login+=("$e")
	done
	[ -f "$HOSTS_KNOWN_HOSTS" ] ||
		kb_die "HOSTS_KNOWN_HOSTS=$HOSTS_KNOWN_HOSTS: no such file. kbench checks every host's key against it (never StrictHostKeyChecking=no): add the hosts' keys to it (ssh-keyscan HOST, and compare the fingerprints with the hosts' own), or point HOSTS_KNOWN_HOSTS at your file"
	if [ -n "$HOSTS_SSH_CONFIG" ] && [ ! -f "$HOSTS_SSH_CONFIG" ]; then
		kb_die "HOSTS_SSH_CONFIG=$HOSTS_SSH_CONFIG: no such file (an ssh config for the hosts; leave it empty for ~/.ssh/config)"
	fi
	ssh_cmd=(ssh -o BatchMode=yes -o StrictHostKeyChecking=yes
		-o "UserKnownHostsFile=$(readlink -f "$HOSTS_KNOWN_HOSTS")" -o GlobalKnownHostsFile=/dev/null
		-o ConnectTimeout=15 -o ServerAliveInterval=5 -o ServerAliveCountMax=4)
	[ -z "$HOSTS_SSH_CONFIG" ] || ssh_cmd+=(-F "$(readlink -f "$HOSTS_SSH_CONFIG")")
	ssh_str=$(printf '%q ' "${ssh_cmd[@]}")
	ssh_str=${ssh_str% }
	command -v rsync >/dev/null || kb_die "rsync copies the boots' files to the hosts and is not installed: run make deps"
}

# host_fp I: host I's fingerprint, the conditions a wall-clock result
# depends on: CPU model, QEMU version, host kernel, accelerator
host_fp() {
	local i=$1 acc
	acc=tcg
	[ "${ACCEL:-auto}" = tcg ] || [ "${host_kvm[$i]}" != yes ] || acc=kvm
	printf 'cpu=%s; qemu=%s; kernel=%s; accel=%s' "${host_cpu[$i]}" "${host_qemu[$i]}" "${host_kernel[$i]}" "$acc"
}

# hosts_check MAXMEM WALL: each host checked before the first unit (an
# error names the host, what failed and what to do); host_jobs[] its
# boots at a time (N of N/login, else BOOT_JOBS, else under icount one per
# core as memory allows for guests of MAXMEM MB, under the wall clock 1);
# host_cache[] its cache; host_fp_s[] its fingerprint. WALL=1: every host
# must have the same fingerprint.
hosts_check() {
	local maxmem=$1 wall=$2 i out err k v miss pk bymem j
	host_cache=() host_jobs=() host_cpu=() host_qemu=() host_kernel=() host_kvm=() host_fp_s=()
	for i in "${!host_login[@]}"; do
		local h=${host_login[$i]}
		if ! out=$("${ssh_cmd[@]}" "$h" 'bash -s' <"$here/host-probe.sh" 2>"$tmpd/ssh.err"); then
			err=$(grep -v '^\*\*' "$tmpd/ssh.err" | tail -n 2 | tr '\n' ' ')
			case "$err" in
			*"Permission denied"*)
				kb_die "host $h refused the login (ssh with keys only, BatchMode: $err): put your public key in its ~/.ssh/authorized_keys (ssh-copy-id $h), or name the key in HOSTS_SSH_CONFIG (IdentityFile)" ;;
			*"Host key verification failed"* | *"No "*"host key is known"* | *"REMOTE HOST IDENTIFICATION HAS CHANGED"*)
				kb_die "host $h: its host key is not the one in HOSTS_KNOWN_HOSTS=$HOSTS_KNOWN_HOSTS ($err): add it (ssh-keyscan $h, after checking its fingerprint on the host), or fix the file" ;;
			*)
				kb_die "host $h: ssh failed ($err): check that it is up and that ssh $h works without a password prompt" ;;
			esac
		fi
		declare -A p=()
		miss=() pk=()
		while IFS=$'\t' read -r k v rest; do
			case "$k" in
			missing) miss+=("$v"); pk+=("$rest") ;;
			'') ;;
			*) p[$k]=$v ;;
			esac
		done <<<"$out"
		[ "${p[uid]:-0}" != 0 ] ||
			kb_die "host $h logs in as root: kbench runs nothing as root on a host; give an unprivileged login (user@host) that can run QEMU"
		[ -z "${p[nocache]:-}" ] ||
			kb_die "host $h: cannot create its cache ${p[nocache]} (its KBENCH_CACHE, else ~/.cache/kbench): fix its permissions or set KBENCH_CACHE there"
		[ "${#miss[@]}" = 0 ] ||
			kb_die "host $h lacks ${miss[*]}, which the boots need: install there (as root) apt-get install -y --no-install-recommends ${pk[*]}, or run make deps in a kbench checkout on it"
		[ "${p[free_mb]:-0}" -ge "$HOSTS_MIN_FREE_MB" ] ||
			kb_die "host $h: only ${p[free_mb]:-0} MB free in its cache ${p[cache]} (its disk is full or nearly; HOSTS_MIN_FREE_MB=$HOSTS_MIN_FREE_MB): free space there, or leave it out of HOSTS"
		host_cache[i]=${p[cache]}
		host_cpu[i]=${p[cpu]:-} host_qemu[i]=${p[qemu]:-} host_kernel[i]=${p[kernel]:-} host_kvm[i]=${p[kvm]:-no}
		host_fp_s[i]=$(host_fp "$i")
		if [ -n "${host_want[$i]}" ]; then
			j=${host_want[$i]}
		elif [ "$BOOT_JOBS" != auto ]; then
			j=$BOOT_JOBS
		elif [ "$wall" = 1 ]; then
			j=1
		else
			bymem=$((${p[mem_mb]:-0} / (maxmem + 512)))
			[ "$bymem" -ge 1 ] || bymem=1
			j=$((p[ncpu] < bymem ? p[ncpu] : bymem))
		fi
		host_jobs[i]=$j
		unset p
		kb_say "host $h: ok (${host_cpu[$i]}, ${host_qemu[$i]#QEMU emulator }, kernel ${host_kernel[$i]}, $j boot(s) at a time, cache ${host_cache[$i]})"
	done
	if [ "$wall" = 1 ]; then
		local fps
		fps=$(printf '%s\n' "${host_fp_s[@]}" | sort -u)
		[ "$(grep -c . <<<"$fps")" = 1 ] ||
			kb_die "the wall clock needs every boot of a comparison on one host or on hosts with identical fingerprints, and these differ:
$(for i in "${!host_login[@]}"; do printf '  %s: %s\n' "${host_login[$i]}" "${host_fp_s[$i]}"; done)
give HOSTS= one host (or hosts alike), or run under icount (CLOCK=icount), whose counts do not depend on the host"
	fi
}

# rsync_to I SRC... DEST: SRC (local) into DEST on host I; an error names
# the host and says what to do
rsync_to() {
	local i=$1 h=${host_login[$1]} dest err
	shift
	dest=${*: -1}
	if ! err=$(rsync -a --protect-args -e "$ssh_str" "${@:1:$#-1}" "$h:$dest" 2>&1); then
		kb_die "copying to host $h ($dest) failed: $(tail -n 2 <<<"$err" | tr '\n' ' ')(disk full there? $(
			"${ssh_cmd[@]}" "$h" df -Ph "$dest" 2>/dev/null | tail -n 1)); free space there or leave it out of HOSTS"
	fi
}

# hosts_sync RUN IMAGE KDIR...: what the boots need, into each host's
# cache, keyed like this one: the scripts (tree/<sha>), the kernels
# (kernels/<key>: bzImage, build-info.json), the image (images/<key>/),
# the run's payloads and units (runs/<run id>/). rsync sends only what a
# host lacks. Sets tree_key, image_rel.
hosts_sync() {
	local run=$1 img=$2 i h c id k kd files
	shift 2
	files=$(cd "$top" && { echo bench.conf; find orchestrate scripts images -name '*.sh'; } | LC_ALL=C sort)
	tree_key=$(cd "$top" && xargs sha256sum <<<"$files" | sha256sum | cut -c1-16)
	case "$img" in
	"$KBENCH_CACHE"/images/*/*) image_rel=${img#"$KBENCH_CACHE"/} ;;
	*) image_rel=images/user-$(stat -L -c '%s %Y' "$img" | kb_sha256_str "$(readlink -f "$img") $(cat)" | cut -c1-16)/$(basename "$img") ;;
	esac
	id=$(basename "$run")
	for i in "${!host_login[@]}"; do
		h=${host_login[$i]} c=${host_cache[$i]}
		kb_say "host $h: copying what the boots need into $c (rsync: only what it lacks)"
		local dirs=("$c/tree/$tree_key" "$c/$(dirname "$image_rel")" "$c/runs/$id")
		for kd in "$@"; do dirs+=("$c/kernels/$(basename "$kd")"); done
		"${ssh_cmd[@]}" "$h" "mkdir -p $(printf '%q ' "${dirs[@]}")" ||
			kb_die "host $h: cannot create its cache directories under $c"
		(cd "$top" && rsync_to "$i" --files-from=<(printf '%s\n' "$files") . "$c/tree/$tree_key/")
		for kd in "$@"; do
			k=$(basename "$kd")
			rsync_to "$i" "$kd/bzImage" "$kd/build-info.json" "$c/kernels/$k/"
		done
		rsync_to "$i" --copy-links "$img" "$c/$image_rel"
		rsync_to "$i" --delete "$run/payload" "$run/units.tsv" "$c/runs/$id/"
	done
}

# hosts_merge RUN: file the boots the hosts sent back (RUN/ret/NAME/BOOT:
# raw/, boot/, attempts/ from orchestrate/host-unit.sh) into RUN like a
# local boot's: a failed attempt gets the next free attempt number here
# (attempts on several hosts do not collide) and its row in
# failed-boots.tsv; the boot's directory goes in before its raw/ (.done).
hosts_merge() {
	local run=$1 r name boot a n row
	[ -d "$run/ret" ] || return 0
	for r in "$run"/ret/*/*/; do
		[ -d "$r" ] || continue
		r=${r%/}
		boot=$(basename "$r")
		name=$(basename "$(dirname "$r")")
		mkdir -p "$run/boots/$name" "$run/raw/$name"
		for a in "$r"/attempts/*/; do
			[ -d "$a" ] || continue
			a=${a%/}
			n=0
			while [ -e "$run/boots/$name/$boot.attempt$n" ]; do n=$((n + 1)); done
			mv "$a" "$run/boots/$name/$boot.attempt$n"
			if [ -f "$run/boots/$name/$boot.attempt$n/failed-row.tsv" ]; then
				row=$(awk -F '\t' -v OFS='\t' -v n="$n" -v s="$run/boots/$name/$boot.attempt$n/serial.log" \
					'{ $4 = n; $7 = s; print }' "$run/boots/$name/$boot.attempt$n/failed-row.tsv")
				rm -f "$run/boots/$name/$boot.attempt$n/failed-row.tsv"
				{
					flock 9
					printf '%s\n' "$row" >&9
				} 9>>"$run/failed-boots.tsv"
			fi
		done
		if [ -d "$r/boot" ]; then
			rm -rf "${run:?}/boots/$name/$boot"
			mv "$r/boot" "$run/boots/$name/$boot"
		fi
		if [ -d "$r/raw" ]; then
			rm -rf "${run:?}/raw/$name/$boot"
			mv "$r/raw" "$run/raw/$name/$boot"
		fi
		rm -rf "$r"
	done
	rm -rf "${run:?}/ret"
}

# hosts_clean RUN: the run's payloads and empty boot directories off
# every host that still answers (the kernels and image stay cached)
hosts_clean() {
	local i
	for i in "${!host_login[@]}"; do
		"${ssh_cmd[@]}" "${host_login[$i]}" "rm -rf $(printf '%q' "${host_cache[$i]}/runs/$(basename "$1")")" \
			</dev/null >/dev/null 2>&1 || true
	done
}
