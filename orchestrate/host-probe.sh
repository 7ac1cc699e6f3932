#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a host offers for boots: run there (orchestrate/hosts.sh sends it
# over ssh as `bash -s`; for this machine it runs as is). Prints one
# "KEY<TAB>VALUE" line each: uid, cache (the host's KBENCH_CACHE, else
# ~/.cache/kbench, created), ncpu, mem_mb (available), cpu, kernel,
# hostname, qemu (version line), kvm (yes if /dev/kvm is usable), free_mb
# (in the cache), and one "missing<TAB>COMMAND<TAB>PACKAGE" line per
# command the boots need that is not there. Reads and writes nothing but
# the cache directory.
set -u
c=${KBENCH_CACHE:-$HOME/.cache/kbench}
mkdir -p "$c" 2>/dev/null || printf 'nocache\t%s\n' "$c"
c=$(cd "$c" 2>/dev/null && pwd) || c=${KBENCH_CACHE:-$HOME/.cache/kbench}
printf 'uid\t%s\n' "$(id -u)"
printf 'cache\t%s\n' "$c"
printf 'ncpu\t%s\n' "$(nproc)"
printf 'mem_mb\t%s\n' "$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)"
printf 'cpu\t%s\n' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
printf 'kernel\t%s\n' "$(uname -r)"
printf 'hostname\t%s\n' "$(hostname)"
printf 'qemu\t%s\n' "$(qemu-system-x86_64 --version 2>/dev/null | head -n 1)"
printf 'kvm\t%s\n' "$([ -r /dev/kvm ] && [ -w /dev/kvm ] && echo yes || echo no)"
printf 'free_mb\t%s\n' "$(df -Pk "$c" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')"
# the boots' commands (images/launch.sh, seed.sh, orchestrate/boot-unit.sh)
# and GNU parallel's remote side (perl) and transfers (rsync)
for cp in qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils cloud-localds:cloud-image-utils \
	jq:jq rsync:rsync perl:perl flock:util-linux tar:tar awk:mawk sha256sum:coreutils; do
	command -v "${cp%%:*}" >/dev/null 2>&1 || printf 'missing\t%s\t%s\n' "${cp%%:*}" "${cp#*:}"
done
exit 0
