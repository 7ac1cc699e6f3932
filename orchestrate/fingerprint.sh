#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write RUN/fingerprint.json: everything that must be equal for two runs to
# be comparable, plus, under "kernels", what is allowed to differ.
#
#   fingerprint.sh RUN NAME... -- LABEL...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
kb_conf KBENCH_CACHE

run=$1
shift
names=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do names+=("$1"); shift; done
[ "${1:-}" = -- ] || kb_die "fingerprint.sh: usage: RUN NAME... -- LABEL..."
shift
labels=("$@")
[ "${#names[@]}" = "${#labels[@]}" ] || kb_die "fingerprint.sh: as many labels as names"

# One launch.json per kernel and vCPU count is enough: the launcher
# writes the same command line for every boot but the paths.
# (failed attempts, <boot>.attemptN, only when no boot completed)
launches=$(find "$run/boots" -name launch.json -not -path '*.attempt[0-9]*/*' | sort)
[ -n "$launches" ] || launches=$(find "$run/boots" -name launch.json | sort)
[ -n "$launches" ] || kb_die "no launch.json under $run/boots: nothing was booted"

# The benchmark binary the guests ran: the payload's copy, made when the
# run started (build/bench/kbbench may have been rebuilt since).
bench=$(find "$run/payload" -path '*/bin/kbbench' 2>/dev/null | sort | head -n 1)
[ -n "$bench" ] || bench=$top/build/bench/kbbench

kernels='{}'
for i in "${!names[@]}"; do
	bi=$KBENCH_CACHE/labels/${labels[$i]}/build-info.json
	[ -f "$bi" ] || kb_die "$bi missing: rebuild with make kernels"
	# the label is the run's name for the kernel: build-info.json, of a
	# directory keyed by content, holds none (kernel/scripts/build.sh)
	kernels=$(jq --arg n "${names[$i]}" --arg l "${labels[$i]}" --slurpfile b "$bi" \
		'. + {($n): ($b[0] + {label: $l})}' <<<"$kernels")
done

# Fields of the build that both kernels must share.
shared=$(for l in "${labels[@]}"; do cat "$KBENCH_CACHE/labels/$l/build-info.json"; done |
	jq -s '[.[] | {base_version, fragment_sha256, compiler, pahole}] | unique')
[ "$(jq length <<<"$shared")" = 1 ] ||
	kb_die "the kernels were not built from the same source, fragment and compiler: $(jq -c . <<<"$shared")"

image=$(jq -r .image <<<"$(head -n 1 <<<"$launches" | xargs cat)")
img_sha=$(kb_sha256_file "$image")
# The model (MODEL=cache): the kbcache parameter line of each windows
# file (model/README.md) and the plugin's hash. Runs with other model
# parameters then differ here; a run without the model has no "model".
model=null
mfiles=$(find "$run/boots" -name model-windows.csv -not -path '*.attempt[0-9]*/*' | sort)
[ -n "$mfiles" ] || mfiles=$(find "$run/boots" -name model-windows.csv | sort)
if [ -n "$mfiles" ]; then
	so=$top/build/model/libkbcache.so
	# shellcheck disable=SC2086 # mfiles is a list of paths
	model=$(for f in $mfiles; do head -n 1 "$f"; done | sed -n 's/^# \(kbcache v[0-9].*\)/\1/p' |
		jq -R . | jq -s --arg so "$([ ! -f "$so" ] || kb_sha256_file "$so")" \
		'{params: unique, plugin_sha256: $so}')
fi
wl_sums='{}'
for f in "$top"/workloads/*.wl; do
	wl_sums=$(jq --arg n "$(basename "$f" .wl)" --arg s "$(kb_sha256_file "$f")" '. + {($n): $s}' <<<"$wl_sums")
done

# shellcheck disable=SC2086 # launches is a list of paths
jq -s --argjson kernels "$kernels" --argjson shared "$shared" \
	--arg run "$(cd "$run" && pwd)" --arg img_sha "$img_sha" \
	--arg host_cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
	--arg host_kernel "$(uname -r)" --arg ncpu "$(nproc)" \
	--argjson wl "$wl_sums" --argjson model "$model" \
	--arg bench_sha "$(kb_sha256_file "$bench")" '
	def norm: gsub($run + "/boots/[^ ,/]*/[^ ,/]*\\.disk(?<n>[0-9]+)\\.img"; "<boot>.disk\(.n).img")
		| gsub($run + "/boots/[^ ,]*/[^ ,/]*/"; "<boot>/")
		| gsub("/[^ ,]*/kernels/[0-9a-f]+/"; "<kernel>/")
		| gsub("/[^ ,]*/labels/[^ ,/]+/"; "<kernel>/")
		| gsub("[^ ,]*/build/model/libkbcache\\.so"; "<kbcache>");
	{
		kernels: $kernels,
		build: $shared[0],
		qemu_version: (map(.qemu_version) | unique),
		accel: (map(.accel) | unique),
		clock: (map({key: (.vcpus | tostring), value: .clock}) | from_entries),
		qemu_cmdline: (map({key: (.vcpus | tostring), value: (.qemu_cmdline | norm)}) | from_entries),
		guest_cmdline: (map(.cmdline) | unique),
		image: (map(.image) | unique),
		image_sha256: $img_sha,
		host_cpu: $host_cpu,
		host_ncpu: $ncpu,
		host_kernel: $host_kernel,
		workloads_sha256: $wl,
		bench_sha256: $bench_sha
	} + (if $model == null then {} else {model: $model} end)' $launches | kb_atomic_write "$run/fingerprint.json"
kb_verbose "fingerprint: $run/fingerprint.json"
