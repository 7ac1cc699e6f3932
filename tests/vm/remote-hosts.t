#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boots on other hosts (HOSTS=): "hosts" on this machine, sshd instances
# this test starts on 127.0.0.1 (tests/lib/sshd.sh: throwaway host and
# user keys in its temporary directory, run as an unprivileged user, each
# with its own KBENCH_CACHE), and stops, by pid.
#  1. named errors before any boot, nothing left behind: a host that
#     refuses the key, a host key not in HOSTS_KNOWN_HOSTS, a host
#     without QEMU (a PATH without it), a full disk (a df that says so);
#  2. make bench-compare QUICK=1 BOOTS=2 BENCH_VCPUS=1
#     WORKLOADS=procirq-read (4 boots, icount) with HOSTS=h1,h2, one boot
#     at a time on each; SIGTERM to make while both hosts boot: no QEMU
#     left on either, nothing of those boots kept, the resume command
#     keeps HOSTS and its ssh settings; that command then, with h2
#     killed (its sshd and everything under it) while its second boot
#     runs: the run still ends with every boot
#     done once, the lost boot rerun on h1; the hosts' caches keyed like
#     the local one, nothing of the run left there, no QEMU left, no key
#     in the run directory or the log, the report's Hosts table;
#  3. the same raw rows (all but the value) and the same results.json
#     rows, sample and boot counts as a run of the same plan on this
#     machine (one in reports/, as parallel-boots.t leaves; else made here).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-rh.XXXXXX")
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=tests/lib/sshd.sh
. "$top/tests/lib/sshd.sh"
# shellcheck source=tests/lib/vmrun.sh
. "$top/tests/lib/vmrun.sh"
trap 'sshd_stop_all' EXIT

if ! sshd_user; then
	echo "1..1"
	echo "not ok 1 - cannot make loopback ssh hosts: $sshd_why"
	exit 1
fi
echo "1..24"

# five hosts on free loopback ports: h1 and h2 good, h3 without our
# key, h4 without QEMU, h5 with a full disk
base=$((42000 + $$ % 2000))
while ss -ltn | grep -qE "127\.0\.0\.1:($base|$((base + 1))|$((base + 2))|$((base + 3))|$((base + 4))) "; do
	base=$((base + 10))
done
mkdir -p "$tmp/noqemu" "$tmp/fulldisk"
for f in /usr/bin/* /usr/sbin/*; do
	case ${f##*/} in qemu-system-*) ;; *) ln -sf "$f" "$tmp/noqemu/" ;; esac
done
printf '#!/bin/sh\necho "Filesystem 1024-blocks Used Available Capacity Mounted on"\necho "/dev/vdz 1000000 1000000 0 100%% /"\n' >"$tmp/fulldisk/df"
chmod 755 "$tmp/fulldisk/df" "$tmp/noqemu" "$tmp/fulldisk"
started=0
sshd_start h1 "$base" "KBENCH_CACHE=$tmp/h1/cache" &&
	sshd_start h2 $((base + 1)) "KBENCH_CACHE=$tmp/h2/cache" &&
	sshd_start h3 $((base + 2)) "KBENCH_CACHE=$tmp/h3/cache" &&
	sshd_start h4 $((base + 3)) "KBENCH_CACHE=$tmp/h4/cache" "PATH=$tmp/noqemu" &&
	sshd_start h5 $((base + 4)) "KBENCH_CACHE=$tmp/h5/cache" "PATH=$tmp/fulldisk:/usr/bin:/bin" && started=1
: >"$tmp/h3/authorized_keys"
ok "$([ "$started" = 1 ]; echo $?)" "five sshd on 127.0.0.1:$base-$((base + 4)) as $suser"
[ "$started" = 1 ] || exit 1
cp "$tmp/known_hosts" "$tmp/known_hosts.h1less"
sed -i "/^\[127.0.0.1\]:$base /d" "$tmp/known_hosts.h1less"

settings=(QUICK=1 BOOTS=2 BENCH_VCPUS=1 WORKLOADS=procirq-read)
hosts=(HOSTS_SSH_CONFIG="$tmp/ssh_config" HOSTS_KNOWN_HOSTS="$tmp/known_hosts")
runs_before=$(ls "$top/reports")

# 1. named errors before the first boot, the four runs side by side
# (each stops before its first boot)
err_start() {
	make -C "$top" -s bench-compare "${settings[@]}" "${hosts[@]}" "${@:2}" >"$tmp/err.$1.log" 2>&1 &
	err_pid[$1]=$!
}
err_check() {
	local rc=0
	wait "${err_pid[$1]}" || rc=$?
	if [ "$rc" != 0 ] && grep -q "kbench: error: $3" "$tmp/err.$1.log" && ! grep -q 'boot 1/4' "$tmp/err.$1.log"; then
		ok 0 "$2: named error, no boot (exit $rc)"
	else
		ok 1 "$2 (exit $rc; wanted an error with '$3')"
		grep -v '^  [A-Z]' "$tmp/err.$1.log" | tail -n 5 | sed 's/^/# /'
	fi
}
declare -A err_pid=()
err_start key HOSTS=h1,h3
err_start known HOSTS=h1,h2 HOSTS_KNOWN_HOSTS="$tmp/known_hosts.h1less"
err_start qemu HOSTS=h1,h4
err_start disk HOSTS=h2,h5
err_check key "a host that refuses the key" "host h3 refused the login"
err_check known "a host key not in HOSTS_KNOWN_HOSTS" "host h1: its host key is not the one in HOSTS_KNOWN_HOSTS"
err_check qemu "a host without QEMU" "host h4 lacks qemu-system-x86_64, which the boots need: install there"
err_check disk "a host with a full disk" "host h5: only 0 MB free in its cache"
is "nothing left in reports/ by them" "$(ls "$top/reports")" "$runs_before"

# 2. a run over h1 and h2, h2 killed while its second boot runs
start() {
	local log=$1
	shift
	setsid "$@" >"$log" 2>&1 &
	pid=$!
}
# our QEMUs on the hosts
host_qemus() { pgrep -f "qemu-system-x86_64 .*$tmp/h[12]/cache" || true; }
start "$tmp/int.log" make -C "$top" -s bench-compare "${settings[@]}" "${hosts[@]}" HOSTS=h1,h2 BOOT_JOBS=1
if wait_line "$tmp/int.log" 'boot 1/4: .* on h' && wait_line "$tmp/int.log" 'boot 2/4: .* on h'; then
	term_when_up 2 host_qemus
fi
rc=0
wait "$pid" || rc=$?
for _ in $(seq 1 20); do
	[ -n "$(host_qemus)" ] || break
	sleep 0.5
done
run=$(run_of "$tmp/int.log")
[ -n "$run" ] || run=$tmp/none
ok "$([ "$rc" != 0 ] && grep -q 'interrupted' "$tmp/int.log"; echo $?)" "SIGTERM to make while both hosts boot stops the run (make exit $rc)"
is "no QEMU left on either host" "$(host_qemus)" ""
t "nothing of those boots kept" test -z "$(ls -A "$run/raw" 2>/dev/null)" -a -z "$(ls -A "$run/ret" 2>/dev/null)"
cmd=$(resume_of "$tmp/int.log")
case "$cmd" in
"make bench-compare RESUME="*"HOSTS=h1\,h2"*"HOSTS_KNOWN_HOSTS=$tmp/known_hosts HOSTS_SSH_CONFIG=$tmp/ssh_config"*) r=0 ;;
*) r=1 ;;
esac
ok "$r" "the resume command keeps HOSTS and its ssh settings ($cmd)"
[ -n "$cmd" ] || cmd="make bench-compare ${settings[*]} HOSTS=h1,h2 BOOT_JOBS=1 ${hosts[*]}"
# the printed command as a user pastes it (its values are shell-quoted)
start "$tmp/run.log" bash -c "cd $(printf '%q' "$top") && $cmd -s"
killed=0
if wait_line "$tmp/run.log" 'boot [34]/4: .* on h2'; then
	for _ in $(seq 1 240); do
		[ -z "$(pgrep -f "qemu-system-x86_64 .*$tmp/h2/cache" || true)" ] || break
		sleep 0.5
	done
	sleep 3
	sshd_kill h2
	killed=1
fi
rc=0
wait "$pid" || rc=$?
run=$(run_of "$tmp/run.log")
[ -n "$run" ] || run=$tmp/none
ok "$([ "$killed" = 1 ]; echo $?)" "h2 killed during its second boot"
ok "$rc" "the run ends (make exit $rc)"
[ "$rc" = 0 ] || grep -v '^  [A-Z]' "$tmp/run.log" | tail -n 20 | sed 's/^/# /'
t "every boot complete, once: 4 .done, no failed boot" \
	test "$(find "$run/raw" -name .done | wc -l)" = 4 -a "$(grep -c . "$run/failed-boots.tsv")" = 1 \
	-a -z "$(find "$run/boots" -maxdepth 2 -name '*.attempt*')"
# the boot h2 was running when it died (its last start there) started
# again on h1, which ran it to the end (hosts.tsv)
lost=$(sed -n 's/.*boot \([0-9]\)\/4: \([a-z]*\) .* boot \([0-9]\)\/2 .* on h2,.*/\1 \2 v1-b0\3/p' "$tmp/run.log" | tail -n 1)
read -r ln lk lb <<<"${lost:-x x x}"
again=$(grep -c "boot $ln/4: .* on h1," "$tmp/run.log" || true)
is "the boot lost with h2 ($lost) ran again on h1" \
	"$again $(awk -F '\t' -v k="$lk" -v b="$lb" '$1 == k && $2 == b { print $3 }' "$run/hosts.tsv" 2>/dev/null)" "1 h1"
is "hosts.tsv: both hosts ran boots" "$(tail -n +2 "$run/hosts.tsv" 2>/dev/null | cut -f3 | sort -u | tr '\n' ' ')" "h1 h2 "
t "the report lists the host of each boot" grep -q '<h2 id="hosts">Hosts</h2>' "$run/index.html"
is "no QEMU of the run is left on either host" "$(host_qemus)" ""
key=$(sed -n 2p "$tmp/userkey")
t "no key in the run directory or the log" \
	test -z "$(grep -rlF -e "$key" -e 'PRIVATE KEY' "$run" "$tmp/run.log" 2>/dev/null)"
k=$(basename "$(readlink -f "${KBENCH_CACHE:-$HOME/.cache/kbench}/labels/baseline")")
t "the hosts' caches are keyed like this one's (kernels/$k, images/<key>/)" \
	test -f "$tmp/h1/cache/kernels/$k/bzImage" -a -n "$(find "$tmp/h1/cache/images" -name '*.qcow2')"
is "what the boots wrote on h1 is $suser's, not root's" \
	"$(find "$tmp/h1/cache" ! -user "$suser" | head -n 3)" ""
is "nothing of the run left on h1" "$(ls -A "$tmp/h1/cache/runs" 2>/dev/null)" ""

# 3. against a run of the same plan on this machine (every boot local)
# shellcheck disable=SC2317 # called by same_plan_run
on_this_machine() { ! cut -f3 "$1/hosts.tsv" 2>/dev/null | grep -qvx -e host -e local; }
ref=$(same_plan_ref "$run" "run on this machine" on_this_machine -- "${settings[@]}" BOOT_JOBS=1)
same_results "$run" "$ref"

sshd_stop_all
# the working directories (empty) parallel leaves in the login's home
# on a host for the boots SIGTERM and the kill cut short
find "$(getent passwd "$suser" | cut -d: -f6)/.parallel/tmp" -mindepth 1 -maxdepth 1 -type d -empty \
	-newer "$tmp/userkey" -delete 2>/dev/null || true
t "every sshd of the test stopped" test -z "$(pgrep -u "$suser" -f "sshd: .*$tmp/" || true)"
if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "# logs kept in $tmp"; fi
exit "$fail"
