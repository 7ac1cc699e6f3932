#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one kernel: the base source plus a series, keyed by content.
#
#   build.sh LABEL SPEC
#
# LABEL names the kernel (baseline, patched, new, ...); SPEC is a series
# spec for series.sh ("none" for the baseline). With DEBUG=1 the kernel
# is LABEL-debug: the same series with $KCONFIG_DEBUG_FRAGMENT merged
# after the Kconfig fragment (KASAN, lockdep; make test-debug boots
# them). The result is $KBENCH_CACHE/kernels/<key>/ with bzImage,
# vmlinux, config and build-info.json, and the link
# $KBENCH_CACHE/labels/LABEL pointing at it. The key is the content's
# (key.sh), not the label's: the release string is <version>-kb<the
# key's first 8 hex digits>[-debug], so a second label of the same
# series, config and toolchain points at the same directory and nothing
# is built. Unchanged inputs: nothing is rebuilt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=kernel/scripts/build-cmds.sh
. "$here/build-cmds.sh"
# shellcheck source=kernel/scripts/progress.sh
. "$here/progress.sh"

[ $# -eq 2 ] || kb_die "usage: build.sh LABEL SPEC"
label=$1
spec=$2
case "$label" in
*[!a-z0-9_-]* | "") kb_die "kernel label '$label': use only a-z, 0-9, _ and -" ;;
esac

kb_conf KBENCH_CACHE KERNEL_SRC_PKG KERNEL_SRC_TAR KCONFIG_FRAGMENT KCC JOBS DEBUG \
	KCONFIG_DEBUG_FRAGMENT
case "$KCONFIG_FRAGMENT" in /*) ;; *) KCONFIG_FRAGMENT=$top/$KCONFIG_FRAGMENT ;; esac
case "$KCONFIG_DEBUG_FRAGMENT" in /*) ;; *) KCONFIG_DEBUG_FRAGMENT=$top/$KCONFIG_DEBUG_FRAGMENT ;; esac
# the fragments merged over defconfig, in order
fragments=("$KCONFIG_FRAGMENT")
case "$DEBUG" in
0 | "") sfx='' ;;
1)
	sfx=-debug
	label=$label$sfx
	[ -f "$KCONFIG_DEBUG_FRAGMENT" ] || kb_die "DEBUG=1: debug fragment $KCONFIG_DEBUG_FRAGMENT not found"
	fragments+=("$KCONFIG_DEBUG_FRAGMENT") ;;
*) kb_die "DEBUG must be 0 or 1, not '$DEBUG'" ;;
esac
case "$spec" in none | /* | git:*) ;; *) spec=$top/$spec ;; esac
export KERNEL_SRC_PKG KCONFIG_FRAGMENT KCC DEBUG KCONFIG_DEBUG_FRAGMENT

mkdir -p "$KBENCH_CACHE"/{work,logs,kernels,labels}
work=$KBENCH_CACHE/work/$label
mkdir -p "$work"
# This run's own list, used to the end: two makes may build or check
# the same label at once (make boot-test beside make bench-compare, or
# two checkouts with different series), and a shared file could change
# under this build between its key and its git am. series.list is only
# a copy for people to read.
list=$(mktemp "$work/series.list.XXXXXX")
# a git: series: where it came from, for build-info.json (empty otherwise)
desc=$(mktemp "$work/series.desc.XXXXXX")
trap 'rm -f "$list" "$desc"' EXIT
"$here/series.sh" "$spec" "$work" >"$list"
"$here/series.sh" --describe "$spec" >"$desc"
cp -f "$list" "$work/series.list.tmp.$$"
mv -f "$work/series.list.tmp.$$" "$work/series.list"
npatches=$(grep -c . "$list" || true)

key=$("$here/key.sh" "$list")
kdir=$KBENCH_CACHE/kernels/$key
link=$KBENCH_CACHE/labels/$label

# cached: LABEL is one more name of the kernel of this content
cached() {
	[ -f "$kdir/build-info.json" ] && [ -f "$kdir/bzImage" ] || return 1
	ln -sfn "$kdir" "$link"
	kb_say "kernel $label: cached ($npatches patches, key ${key:0:12}) -> $kdir"
}
! cached || exit 0

log=$KBENCH_CACHE/logs/$label-${key:0:12}.log
: >"$log"
kb_say "kernel $label: building ($npatches patches, key ${key:0:12}); log: $log"

# One kernel build at a time on this machine, and one tree user.
exec 9>"$KBENCH_CACHE/kernel.lock"
flock 9
# the same content under another label may have been built meanwhile
! cached || exit 0

srcver=$(dpkg-query -W -f='${Version}' "$KERNEL_SRC_PKG" 2>/dev/null) ||
	kb_die "source package $KERNEL_SRC_PKG is not installed: run make deps (as root) or apt-get install $KERNEL_SRC_PKG"
[ -f "$KERNEL_SRC_TAR" ] ||
	kb_die "$KERNEL_SRC_TAR not found, though $KERNEL_SRC_PKG $srcver is installed: reinstall it (apt-get install --reinstall $KERNEL_SRC_PKG)"

linux=$KBENCH_CACHE/linux/$srcver
repo=$linux/git
kbc_git_identity

# The base commit: the tarball exactly as Debian ships it.
if ! git -C "$repo" rev-parse -q --verify kbench-base >/dev/null 2>&1; then
	kb_say "extract $KERNEL_SRC_TAR ($srcver)"
	rm -rf "$linux"
	mkdir -p "$linux/tmp"
	tar -C "$linux/tmp" -xf "$KERNEL_SRC_TAR"
	top_dir=$(find "$linux/tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	mv "$top_dir" "$repo"
	rmdir "$linux/tmp"
	kb_say "commit the base tree"
	git -C "$repo" init -q
	git -C "$repo" config gc.auto 0
	git -C "$repo" add -A -f .  # Debian's .gitignore hides the whole top level
	git -C "$repo" commit -q -m "$KERNEL_SRC_PKG $srcver (Debian source, unmodified)"
	git -C "$repo" tag kbench-base
	printf '_build/\n' >>"$repo/.git/info/exclude"
fi

wt=$linux/wt/$label
if [ ! -d "$wt" ]; then
	kb_say "worktree for $label"
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$wt" kbench-base
fi

"$here/apply.sh" "$wt" kbench-base "$list" "$log" >/dev/null

# Configure: defconfig + kvm_guest.config + our fragment (+ the debug one).
out=$wt/_build
mkdir -p "$out"
kb_say "configure $label"
# The make command line, the config steps and the build command live in
# build-cmds.sh, whose text is part of the key.
kbc_setup "$wt" "$out" "${key:0:8}$sfx"
# One merge of all fragments, later ones winning: a second merge would
# bring kvm_guest.config's options back over bench.config's.
merged=$KCONFIG_FRAGMENT
if [ "${#fragments[@]}" -gt 1 ]; then
	merged=$work/fragments.config
	cat "${fragments[@]}" >"$merged"
fi
configure() {
	kbc_defconfig </dev/null >>"$log" 2>&1 || kb_die "defconfig failed for $label, see $log"
	kbc_merge_fragment "$merged" </dev/null >>"$log" 2>&1 ||
		kb_die "merge_config.sh of ${fragments[*]} failed for $label, see $log"
	kbc_olddefconfig </dev/null >>"$log" 2>&1 || kb_die "olddefconfig failed for $label, see $log"
}
config_syms() {
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1=\2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1=n/p' "$1" | sort
}
# symbols whose values differ between two configs, one per line
config_differ() {
	comm -3 <(config_syms "$1") <(config_syms "$2") | sed 's/^[[:space:]]*//; s/=.*//' | sort -u
}

# The config re-runs compiler and tool probes (cc-option and the like),
# and a probe can answer differently from one run to the next: seen here
# under heavy host load, CC_HAS_RETURN_THUNK (and with it the call-depth
# mitigations) missing from one kernel and CC_HAS_KASAN_GENERIC from the
# other. Configure until two runs agree, so a kernel's config is what the
# toolchain really supports.
configure
for try in 1 2 3 4; do
	cp "$out/.config" "$out/.config.prev"
	configure
	differ=$(config_differ "$out/.config.prev" "$out/.config")
	[ -n "$differ" ] || break
	[ "$try" != 4 ] ||
		kb_die "the config of $label does not settle: two configure runs differ in $(echo "$differ" | tr '\n' ' ')(a compiler or tool probe answers differently each time); see $log"
	kb_say "warning: configure of $label gave different configs ($(echo "$differ" | tr '\n' ' ')); configuring again"
done
rm -f "$out/.config.prev"

# The same config but the patches: every symbol must match the
# baseline's, except those the series' own Kconfig changes name.
base_cfg=$KBENCH_CACHE/labels/baseline$sfx/config
if [ "$label" != "baseline$sfx" ] && [ -f "$base_cfg" ]; then
	series_syms=$(git -C "$wt" diff kbench-base..HEAD -- '*Kconfig*' |
		sed -n 's/^[-+][[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' | sort -u)
	differ=$(config_differ "$base_cfg" "$out/.config" | comm -23 - <(printf '%s\n' "$series_syms"))
	[ -z "$differ" ] ||
		kb_die "the config of $label differs from the baseline's in $(echo "$differ" | tr '\n' ' ')(not symbols the series' Kconfig names); compare $out/.config with $base_cfg, and rebuild the baseline if its config is the odd one (rm -r $(readlink -f "$KBENCH_CACHE/labels/baseline$sfx"); make kernels${sfx:+ DEBUG=1})"
fi

# Every option a fragment sets must survive olddefconfig.
for frag in "${fragments[@]}"; do
	lineno=0
	while IFS= read -r line; do
		lineno=$((lineno + 1))
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$out/.config" && continue
			# A symbol this tree's Kconfig does not define is one a
			# series brings (the debug fragment names a test the
			# patched tree adds): the baseline has nothing to set.
			sym=${line%%=*}
			if ! git -C "$wt" grep -q -E "^[[:space:]]*(menu)?config[[:space:]]+${sym#CONFIG_}\$" -- '*Kconfig*'; then
				kb_say "$frag:$lineno: $sym is not in $label's tree (a series adds it): not set"
				continue
			fi
			kb_die "$frag:$lineno: '$line' did not take effect (a dependency is missing); see $out/.config" ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			if grep -q "^$opt=" "$out/.config"; then
				kb_die "$frag:$lineno: $opt is still enabled (something selects it); see $out/.config"
			fi ;;
		esac
	done <"$frag"
done

# The progress line compares with the last full build of this config
# (progress.sh); a tree built before only recompiles what changed.
stats=$KBENCH_CACHE/build-stats.tsv
cfgsum=$(kb_sha256_file "$out/.config")
built=0
! kbp_tree_built "$out" || built=1
expected=''
[ "$built" = 1 ] || expected=$(kbp_expected "$stats" "$cfgsum")
logoff=$(stat -c %s "$log")
kb_say "build $label (make -j$JOBS bzImage)"
t0=$(date +%s)
if [ "${V:-0}" = 1 ]; then
	"${kbc_build_cmd[@]}" </dev/null 2>&1 | tee -a "$log" || kb_die "build of $label failed, see $log"
else
	# Own process group, so that an interrupted build stops all of make.
	setsid "${kbc_build_cmd[@]}" </dev/null >>"$log" 2>&1 &
	pid=$!
	trap 'kill -TERM -- -"$pid" 2>/dev/null; kb_die "build of $label interrupted; log: $log"' INT TERM
	# Poll every second (the build time is reported to the second),
	# say how far it is every 30 s.
	n=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		n=$((n + 1))
		[ $((n % 30)) = 0 ] || continue
		kill -0 "$pid" 2>/dev/null || break
		nobj=$(kbp_count "$log" "$logoff")
		kb_say "build $label: $(kbp_line "$nobj" $(($(date +%s) - t0)) "$built" "$expected")"
	done
	wait "$pid" || {
		grep -n -m 5 -E 'error:|Error [0-9]' "$log" >&2 || true
		kb_die "build of $label failed, see $log"
	}
	trap - INT TERM
fi
t1=$(date +%s)
[ "$built" = 1 ] || kbp_record "$stats" "$cfgsum" "$(kbp_count "$log" "$logoff")" $((t1 - t0)) "$label"

# The series' own lines must be W=1 and sparse clean (w1-check.sh).
if [ "$npatches" -gt 0 ]; then
	kb_say "W=1 C=1 check of the files the series changes ($label)"
	# the baseline's worktree, built: its own warnings are not the series'
	bwt=()
	[ ! -f "$linux/wt/baseline$sfx/_build/vmlinux" ] || bwt=("$linux/wt/baseline$sfx" "baseline$sfx")
	if ! "$here/w1-check.sh" "$wt" "$out" "$label" kbench-base "$work/w1-check.txt" "${bwt[@]}"; then
		grep '^SERIES' "$work/w1-check.txt" >&2 || true
		kb_die "kernel $label: the lines above, written by the series, warn under W=1 or sparse; fix the patch named on each (report: $work/w1-check.txt, make output: $work/w1-check.txt.log)"
	fi
	tail -n 1 "$work/w1-check.txt" | sed 's/^ */kbench: w1-check: /'
fi

release=$(kbc_make -s kernelrelease 2>/dev/null | tail -n 1)
version=$(kbc_make -s kernelversion 2>/dev/null | tail -n 1)
tmp=$kdir.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$out/$kbc_image" "$tmp/bzImage"
cp "$out/vmlinux" "$tmp/vmlinux"
cp "$out/.config" "$tmp/config"
cp "$list" "$tmp/series.list"
[ "$npatches" -eq 0 ] || cp "$work/w1-check.txt" "$tmp/w1-check.txt"
"$here/key.sh" -v "$list" >"$tmp/key-inputs.txt"

"$here/build-info.sh" "$label" "$key" "$KERNEL_SRC_PKG $srcver" "$version" "$release" \
	"$wt" "$out/.config" "$KCONFIG_FRAGMENT" "$list" $((t1 - t0)) "$desc" >"$tmp/build-info.json" ||
	kb_die "writing build-info.json for $label failed"

rm -rf "$kdir"
mv "$tmp" "$kdir"
ln -sfn "$kdir" "$link"
kb_say "kernel $label: $release built in $(((t1 - t0) / 60))m$(((t1 - t0) % 60))s -> $kdir"
