#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cache key of the upstream BPF selftests (kernel/selftests/build.sh
# --key LABEL) covers what builds them and nothing else. On a scratch
# copy of kernel/selftests, scripts/lib.sh and bench.conf, with a
# stand-in kernel (a vmlinux file and a build-info.json): rewording a
# message of build.sh or a comment of build-cmds.sh leaves the key as it
# is; a command or flag in build-cmds.sh, the kernel's commit and its
# vmlinux change it. --key builds nothing: make and git are replaced by
# ones that record a call. No selftest is built.
# shellcheck disable=SC2016 # the sed expressions name $ literally
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

echo "1..14"
for c in clang-19 llc-19 llvm-strip-19 gcc rsync jq; do
	command -v "$c" >/dev/null || { echo "Bail out! $c not installed (make deps): build.sh --key checks for it"; exit 1; }
done

# The copy keeps the repository's layout, which build.sh relies on.
k=$tmp/k
mkdir -p "$k/kernel/selftests" "$k/scripts"
cp "$top/kernel/selftests/"*.sh "$k/kernel/selftests/"
cp "$top/scripts/lib.sh" "$k/scripts/"
cp "$top/bench.conf" "$k/"
cp -r "$k" "$tmp/pristine"
bs=$k/kernel/selftests/build.sh
bc=$k/kernel/selftests/build-cmds.sh

# the stand-in kernel
export KBENCH_CACHE=$tmp/cache JOBS=2
unset V
kd=$KBENCH_CACHE/labels/fake
mkdir -p "$kd"
printf 'not a vmlinux\n' >"$kd/vmlinux"
c1=0123456789abcdef0123456789abcdef01234567
printf '{"commit": "%s"}\n' "$c1" >"$kd/build-info.json"

# make and git leave a mark and fail: nothing may build
mkdir -p "$tmp/bin" "$tmp/marks"
for c in make git; do
	printf '#!/bin/sh\n: >"%s/%s"\nexit 1\n' "$tmp/marks" "$c" >"$tmp/bin/$c"
	chmod +x "$tmp/bin/$c"
done

key() {
	PATH="$tmp/bin:$PATH" "$bs" --key fake
}

k0=$(key) || { echo "Bail out! build.sh --key failed on the scratch copy"; exit 1; }

# 1-3: sanity, and nothing built
t "the key is a sha256" bash -c "[[ '$k0' =~ ^[0-9a-f]{64}$ ]]"
is "the key is stable" "$(key)" "$k0"
t "--key runs no make and no git, and makes no cache directory" \
	bash -c "[ -z \"\$(ls -A '$tmp/marks')\" ] && [ ! -e '$KBENCH_CACHE/upstream-selftests' ] &&
		[ ! -e '$KBENCH_CACHE/kernel.lock' ]"

# shellcheck source=tests/lib/key-edits.sh
. "$top/tests/lib/key-edits.sh"

# 4-6: wording is not an input
same "rewording a kb_say progress message in build.sh keeps the key" \
	"$bs" 's/kb_say "selftests for \$label: building test_progs and test_maps/kb_say "selftests of $label: compiling test_progs and test_maps/'
same "rewording a kb_die message in build.sh keeps the key" \
	"$bs" 's/kb_die "selftests for \$label: test_maps-partial did not build; see \$log"/kb_die "test_maps-partial of $label failed to build (log: $log)"/'
same "rewording a comment in build-cmds.sh keeps the key" \
	"$bc" 's/^# kbs_headers TMP: .*/# kbs_headers TMP: the uapi headers the BPF programs include/'

# 7-11: the commands and flags are
differs "a changed make variable changes the key" \
	"$bc" 's/feature-llvm=0/feature-llvm=1/'
differs "a changed make target changes the key" \
	"$bc" 's/-k test_progs test_maps$/-k test_progs test_maps test_verifier/'
differs "a changed list of archived tree parts changes the key" \
	"$bc" 's/ include arch\/x86 Makefile / include arch\/x86 arch\/arm64 Makefile /'
differs "a changed stub skeleton changes the key" \
	"$bc" 's/errno = EOPNOTSUPP;/errno = ENOTSUP;/'
differs "a changed test_maps-partial part changes the key" \
	"$bc" "s/kbs_skip_call 'test_reuseport_array()' 'needs IPv6'/kbs_skip_call 'test_reuseport_array()' 'needs IPv6 and SO_REUSEPORT'/"

# 12-13: the kernel is
restore
printf '{"commit": "%s"}\n' fedcba9876543210fedcba9876543210fedcba98 >"$kd/build-info.json"
k1=$(key)
printf '{"commit": "%s"}\n' "$c1" >"$kd/build-info.json"
t "another commit changes the key" test "$k1" != "$k0"
printf ' ' >>"$kd/vmlinux"
k2=$(key)
t "another vmlinux changes the key" test "$k2" != "$k0"

# 14: build.sh runs no build command of its own (they are in
# build-cmds.sh, hashed): lines that are no comment, message or tool check
stray=$(sed -e '/^[[:space:]]*#/d' "$top/kernel/selftests/build.sh" |
	grep -v 'kb_say\|kb_verbose\|kb_die\|^for t in \|^echo "=== ' |
	grep -E '(^|[^[:alnum:]_-])(make|archive|headers_install|feature-llvm|TRUNNER_[A-Z_]+|VMLINUX_BTF|skel\.h|test_maps\.c)([^[:alnum:]_-]|$)' || true)
if [ -z "$stray" ]; then
	ok 0 "build.sh takes its build commands from build-cmds.sh"
else
	ok 1 "build.sh takes its build commands from build-cmds.sh"
	diag "$stray"
fi

exit "$fail"
