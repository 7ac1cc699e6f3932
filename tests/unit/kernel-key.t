#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel cache key covers what changes the built kernel and nothing
# else. On a scratch copy of kernel/scripts, scripts/lib.sh and
# kernel/config: rewording a progress, detail or error message (or a
# comment) leaves the key as it is; a build flag, a config step, the
# fragment, a patch, the patch order, the source, compiler or pahole
# version changes it; the label does not: build.sh, driven to the
# cache, points two labels of one series at one directory, and the
# release string comes from the key. No package is queried (KB_*
# overrides) and nothing is compiled.
# shellcheck disable=SC2016 # the sed expressions name $ literally
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/kernel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..30"

# The copy keeps the repository's layout, which key.sh relies on.
k=$tmp/k
mkdir -p "$k/kernel" "$k/scripts"
cp -r "$top/kernel/scripts" "$top/kernel/config" "$k/kernel/"
cp "$top/scripts/lib.sh" "$k/scripts/"
cp "$top/bench.conf" "$k/"
cp -r "$k" "$tmp/pristine"
ks=$k/kernel/scripts
mkdir -p "$tmp/p"
cp "$fx/patches/demo/"*.patch "$tmp/p/"
ls "$tmp"/p/*.patch >"$tmp/list"
[ "$(wc -l <"$tmp/list")" = 2 ] || { echo "Bail out! the demo fixture patches are missing"; exit 1; }

export KB_SRCVER=6.12.118-1 KB_CCVER="gcc (Debian 12.2.0-14) 12.2.0" KB_PAHOLEVER=v1.24
unset KCONFIG_FRAGMENT KERNEL_SRC_PKG KCC V KCONFIG_DEBUG_FRAGMENT
export DEBUG=0

key() {
	"$ks/key.sh" "$tmp/list"
}

k0=$(key) || { echo "Bail out! key.sh failed on the scratch copy"; exit 1; }

# 1-2: sanity
t "the key is a sha256" bash -c "[[ '$k0' =~ ^[0-9a-f]{64}$ ]]"
t "the key is stable" test "$(key)" = "$k0"

# shellcheck source=tests/lib/key-edits.sh
. "$top/tests/lib/key-edits.sh"
# the pristine patches too
key_restore_more() {
	cp "$fx/patches/demo/"*.patch "$tmp/p/"
	ls "$tmp"/p/*.patch >"$tmp/list"
}
key_diag() {
	diag "$(diff <("$tmp/pristine/kernel/scripts/key.sh" -v "$tmp/list") \
		<("$ks/key.sh" -v "$tmp/list") || true)"
}

# 3-8: wording is not an input
same "rewording a kb_say progress message (build.sh) keeps the key" \
	"$ks/build.sh" 's/kb_say "configure \$label"/kb_say "configuring kernel \$label now"/'
same "rewording a kb_say message (apply.sh) keeps the key" \
	"$ks/apply.sh" 's/kb_say "apply \$n\/\$total: /kb_say "applying patch \$n of \$total: /'
same "rewording a kb_verbose message (series.sh) keeps the key" \
	"$ks/series.sh" 's/kb_verbose "skipping message without a diff: /kb_verbose "no diff, skipped: /'
same "rewording a kb_die message (build.sh) keeps the key" \
	"$ks/build.sh" 's/kb_die "olddefconfig failed for \$label, see \$log"/kb_die "make olddefconfig failed ($label); read $log"/'
same "changing how lib.sh prints progress keeps the key" \
	"$k/scripts/lib.sh" "s/printf 'kbench: \\[%s\\] %s\\\\n'/printf 'kbench %s: %s\\\\n'/"
same "rewording a comment in build-cmds.sh keeps the key" \
	"$ks/build-cmds.sh" 's/^# Fixed identity and dates: .*/# Same identity, same dates, same commits./'

# 9-14: the commands and flags are
differs "a changed KCFLAGS changes the key" \
	"$ks/build-cmds.sh" 's/KCFLAGS="-fno-var-tracking"/KCFLAGS="-fno-var-tracking -fno-ipa-icf"/'
differs "a changed make variable (KBUILD_BUILD_TIMESTAMP) changes the key" \
	"$ks/build-cmds.sh" 's/KBUILD_BUILD_TIMESTAMP="1970-01-01"/KBUILD_BUILD_TIMESTAMP="2000-01-01"/'
differs "a changed config step changes the key" \
	"$ks/build-cmds.sh" 's/kernel\/configs\/kvm_guest.config/kernel\/configs\/xen.config/'
differs "a changed build target changes the key" \
	"$ks/build-cmds.sh" 's/"\${kmake_args\[@\]}" bzImage)/"${kmake_args[@]}" bzImage modules)/'
differs "a changed git am option changes the key" \
	"$ks/build-cmds.sh" 's/am --keep-cr/am --keep-cr --3way/'
differs "a changed Kconfig fragment changes the key" \
	"$k/kernel/config/bench.config" '$a CONFIG_HZ_1000=y'

# 15-19: patches, label, versions
restore
printf ' ' >>"$tmp/p/0002-demo-add-d.patch"
t "one changed patch byte changes the key" test "$(key)" != "$k0"
restore
tac "$tmp/list" >"$tmp/list.rev"
t "the patch order changes the key" \
	test "$("$ks/key.sh" "$tmp/list.rev")" != "$k0"
r=0
"$ks/key.sh" patched "$tmp/list" >/dev/null 2>&1 || r=1
"$ks/key.sh" -v "$tmp/list" | grep -q '^label' && r=0
ok "$((1 - r))" "a label is not an input of the key: key.sh takes none, and -v lists none"
t "the source package version changes the key" \
	test "$(KB_SRCVER=6.12.119-1 "$ks/key.sh" "$tmp/list")" != "$k0"
ck=$(KB_CCVER="gcc (Debian 13.1.0-1) 13.1.0" "$ks/key.sh" "$tmp/list")
pk=$(KB_PAHOLEVER=v1.25 "$ks/key.sh" "$tmp/list")
t "the compiler and the pahole versions change the key" \
	bash -c "[ '$ck' != '$k0' ] && [ '$pk' != '$k0' ] && [ '$ck' != '$pk' ]"

# 20-21: key.sh -v prints the inputs it hashes
restore
"$ks/key.sh" -v "$tmp/list" >"$tmp/inputs"
t "key.sh -v lists source, fragment, compiler, pahole, build commands, patches" \
	bash -c "grep -qx 'source linux-source-6.12 $KB_SRCVER' '$tmp/inputs' &&
		grep -q '^fragment [0-9a-f]\{64\}$' '$tmp/inputs' &&
		grep -qx 'compiler $KB_CCVER' '$tmp/inputs' &&
		grep -qx 'pahole $KB_PAHOLEVER' '$tmp/inputs' &&
		grep -q '^build-cmds | .*KCFLAGS=' '$tmp/inputs' &&
		[ \$(grep -c '^patch [0-9a-f]\{64\}$' '$tmp/inputs') = 2 ]"
t "the key is the sha256 of what key.sh -v prints" \
	test "$(sha256sum <"$tmp/inputs" | cut -d' ' -f1)" = "$k0"

# 22: the build's commands live only in build-cmds.sh, so that they are
# hashed: build.sh and apply.sh (messages and comments aside) run no make,
# config step or git am of their own.
stray=$(for f in "$top/kernel/scripts/build.sh" "$top/kernel/scripts/apply.sh"; do
	sed -e '/^[[:space:]]*#/d' "$f" | grep -v 'kb_say\|kb_verbose\|kb_die\|am --abort' |
		grep -E '(^|[^[:alnum:]_-])(make|KCFLAGS|merge_config|[a-z0-9_]*defconfig|am|CCACHE_[A-Z]+|LOCALVERSION|KBUILD_[A-Z_]+)([^[:alnum:]_-]|$)' |
		sed "s|^|$(basename "$f"): |"
done || true)
if [ -z "$stray" ]; then
	ok 0 "build.sh and apply.sh take their build commands from build-cmds.sh"
else
	ok 1 "build.sh and apply.sh take their build commands from build-cmds.sh"
	diag "$stray"
fi

# 23-25: DEBUG=1 kernels (KASAN, lockdep) have keys of their own, which
# the debug fragment is part of; the benchmark kernels' keys ignore it
restore
dk0=$(DEBUG=1 "$ks/key.sh" "$tmp/list")
t "DEBUG=1 changes the key" test "$dk0" != "$k0"
edit "$k/kernel/config/debug.config" '$a CONFIG_UBSAN=y'
dk1=$(DEBUG=1 "$ks/key.sh" "$tmp/list")
t "a changed debug fragment changes the DEBUG=1 key and leaves the DEBUG=0 key alone" \
	bash -c "[ '$dk1' != '$dk0' ] && [ '$(key)' = '$k0' ]"
restore
t "key.sh -v with DEBUG=1 lists the debug fragment" \
	bash -c "DEBUG=1 '$ks/key.sh' -v '$tmp/list' | grep -q '^debug-fragment [0-9a-f]\{64\}$'"

# 26-30: a label is a name. build.sh driven to its cache (the kernel of
# this series, config and toolchain already in kernels/<key>): labels
# alpha and beta both point at that directory and nothing is built.
# The source package is one that is not installed, and make only reads
# bench.conf (kb_conf's "make -f -"), so a build.sh that went on to build
# stops at once (it would extract and compile the kernel). The release
# string comes from the key, -debug after it for DEBUG=1.
restore
cache=$tmp/cache
mkdir -p "$tmp/nomake"
realmake=$(command -v make) || { echo "Bail out! make not found"; exit 1; }
printf '#!/bin/sh\ncase " $* " in *" -f - "*) exec %s "$@" ;; esac\necho "kernel-key.t: make must not run here" >&2\nexit 1\n' \
	"$realmake" >"$tmp/nomake/make"
chmod +x "$tmp/nomake/make"
bld() {
	env KBENCH_CACHE="$cache" KERNEL_SRC_PKG=kbench-test-no-such-source \
		KERNEL_SRC_TAR="$tmp/no-such-source.tar.xz" PATH="$tmp/nomake:$PATH" "$@"
}
kc=$(bld "$ks/key.sh" "$tmp/list")
mkdir -p "$cache/kernels/$kc"
: >"$cache/kernels/$kc/bzImage"
echo '{}' >"$cache/kernels/$kc/build-info.json"
ra=0 rb=0
bld "$ks/build.sh" alpha "$tmp/p" >"$tmp/alpha.out" 2>&1 || ra=$?
bld "$ks/build.sh" beta "$tmp/p" >"$tmp/beta.out" 2>&1 || rb=$?
is "build.sh: two labels of one series resolve to one cached directory, both exit 0" \
	"$ra $rb $(readlink -f "$cache/labels/alpha") $(readlink -f "$cache/labels/beta")" \
	"0 0 $cache/kernels/$kc $cache/kernels/$kc"
t "... and each says it is cached under its own name, with the one key" \
	bash -c "grep -q 'kernel alpha: cached (2 patches, key ${kc:0:12})' '$tmp/alpha.out' &&
		grep -q 'kernel beta: cached (2 patches, key ${kc:0:12})' '$tmp/beta.out'"
rd=0
DEBUG=1 bld "$ks/build.sh" alpha "$tmp/p" >"$tmp/alpha-debug.out" 2>&1 || rd=$?
t "DEBUG=1 of the same label and series is another kernel: not the cached one (it would build)" \
	bash -c "[ '$rd' != 0 ] && [ ! -e '$cache/labels/alpha-debug' ] &&
		grep -q 'kbench-test-no-such-source is not installed' '$tmp/alpha-debug.out'"
printf ' ' >>"$tmp/p/0002-demo-add-d.patch"
rp=0
bld "$ks/build.sh" gamma "$tmp/p" >"$tmp/gamma.out" 2>&1 || rp=$?
t "one changed patch byte is another kernel: not the cached one (it would build)" \
	bash -c "[ '$rp' != 0 ] && [ ! -e '$cache/labels/gamma' ] &&
		grep -q 'kbench-test-no-such-source is not installed' '$tmp/gamma.out'"
restore
# kbc_setup's release tag, and the one build.sh gives it
rel=$(JOBS=1 KCC=gcc KBENCH_CACHE=$tmp bash -c ". '$ks/build-cmds.sh'; kbc_setup /wt /out 1a2b3c4d-debug
	printf '%s\n' \"\${kmake_args[@]}\"" | sed -n 's/^LOCALVERSION=//p')
t "the release string is <version>-kb<first 8 hex of the key>[-debug], from build.sh, never the label" \
	bash -c "[ '$rel' = -kb1a2b3c4d-debug ] &&
		grep -q '^kbc_setup \"\$wt\" \"\$out\" \"\${key:0:8}\$sfx\"$' '$ks/build.sh'"

exit "$fail"
