#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the BPF benchmarks build against, for the patched kernel
# ($KBENCH_CACHE/labels/patched):
#   vmlinux.h           its BTF as C (bpftool btf dump), for bench/*.bpf.c
#   lib/libbpf.a, include/bpf/*.h, include/linux/{bpf,bpf_common,btf}.h
#                       the tree's own libbpf at that kernel's commit,
#                       static, so one kbbench runs on both kernels and
#                       uses the series' libbpf (Debian 12's libbpf 1.1
#                       does not know the new map types)
#
#   bpf-deps.sh OUTDIR
#
# Built once per kernel, in $KBENCH_CACHE/bpf/<kernel key>/; OUTDIR
# becomes a link to it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../scripts/lib.sh"
kb_conf KBENCH_CACHE JOBS

[ $# -eq 1 ] || kb_die "usage: bpf-deps.sh OUTDIR"
outlink=$1
kd=$KBENCH_CACHE/labels/patched
if [ ! -f "$kd/vmlinux" ] || [ ! -f "$kd/build-info.json" ]; then
	kb_die "the BPF benchmarks build against the patched kernel, which is not built ($kd/vmlinux missing): run make kernels"
fi
key=$(basename "$(readlink -f "$kd")")
dir=$KBENCH_CACHE/bpf/$key
if [ ! -f "$dir/lib/libbpf.a" ] || [ ! -f "$dir/vmlinux.h" ]; then
	command -v bpftool >/dev/null || kb_die "bpftool not found: run make deps"
	commit=$(jq -r .commit "$kd/build-info.json")
	srcver=$(jq -r .base_version "$kd/build-info.json" | awk '{ print $2 }')
	repo=$KBENCH_CACHE/linux/$srcver/git
	git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null ||
		kb_die "the patched kernel's commit $commit is not in $repo: rebuild it (make kernels FORCE=1)"
	tmp=$KBENCH_CACHE/bpf/.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp/src"
	trap 'rm -rf "$tmp"' EXIT
	kb_say "libbpf from the patched tree ($commit), vmlinux.h from its BTF -> $dir"
	git -C "$repo" archive "$commit" tools/ include/uapi/ scripts/ | tar -x -C "$tmp/src"
	mkdir -p "$tmp/obj"
	log=$tmp/build.log
	if ! make -C "$tmp/src/tools/lib/bpf" -j"$JOBS" BUILD_STATIC_ONLY=1 \
		OUTPUT="$tmp/obj/" DESTDIR="$tmp/out" prefix= LIBDIR=/lib \
		install_headers "$tmp/obj/libbpf.a" >"$log" 2>&1; then
		mkdir -p "$KBENCH_CACHE/logs"
		cp "$log" "$KBENCH_CACHE/logs/libbpf-$key.log"
		kb_die "building the tree's libbpf failed: $(tail -n 3 "$log" | tr '\n' ' '); log: $KBENCH_CACHE/logs/libbpf-$key.log"
	fi
	mkdir -p "$tmp/out/lib"
	cp "$tmp/obj/libbpf.a" "$tmp/out/lib/"
	# the tree's uapi headers (linux/bpf.h, ...), which its libbpf's
	# headers expect; the host's are Debian 12's, from 6.1
	mkdir -p "$tmp/out/include/linux"
	for h in bpf.h bpf_common.h btf.h; do
		cp "$tmp/src/tools/include/uapi/linux/$h" "$tmp/out/include/linux/"
	done
	bpftool btf dump file "$kd/vmlinux" format c >"$tmp/out/vmlinux.h" ||
		kb_die "bpftool cannot dump the BTF of $kd/vmlinux"
	rm -rf "$dir"
	mv "$tmp/out" "$dir"
fi
mkdir -p "$(dirname "$outlink")"
ln -sfn "$dir" "$outlink"
