#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Kconfig fragment: every line is a Kconfig assignment, a comment or
# blank; no option is given twice; it keeps what the features, perf and
# the guest need, and turns modules and the initramfs off. build.sh then
# checks that every line survived olddefconfig, so these are also the
# options of the built kernels.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
frag=${KCONFIG_FRAGMENT:-$top/kernel/config/bench.config}
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

required=(BPF BPF_SYSCALL BPF_JIT BPF_JIT_ALWAYS_ON DEBUG_INFO DEBUG_INFO_BTF
	FUNCTION_TRACER DYNAMIC_FTRACE DYNAMIC_FTRACE_WITH_DIRECT_CALLS FPROBE
	KPROBES BPF_EVENTS PERF_EVENTS
	VIRTIO VIRTIO_PCI VIRTIO_BLK VIRTIO_CONSOLE EXT4_FS ISO9660_FS
	CGROUPS NAMESPACES INOTIFY_USER FHANDLE UNIX DEVTMPFS
	IKCONFIG IKCONFIG_PROC)
unset_required=(MODULES BLK_DEV_INITRD DEBUG_INFO_REDUCED)

echo "1..$((3 + ${#required[@]} + ${#unset_required[@]}))"

if [ ! -r "$frag" ]; then
	ok 1 "fragment $frag is readable"
	echo "Bail out! no fragment at $frag"
	exit 1
fi
ok 0 "fragment $frag is readable"

# Well-formed lines; the bad ones are named by file:line.
bad=$(awk '
	/^[[:space:]]*$/ { next }
	/^# CONFIG_[A-Z0-9_]+ is not set$/ { next }
	/^#/ { next }
	/^CONFIG_[A-Z0-9_]+=(y|n|m|-?[0-9]+|0x[0-9a-fA-F]+|".*")$/ { next }
	{ printf "%s:%d: %s\n", FILENAME, FNR, $0 }' "$frag")
t "every line is an assignment, '# CONFIG_X is not set', a comment or blank" test -z "$bad"
[ -z "$bad" ] || diag "$bad"

# One line per option: a second one would silently win or conflict.
dups=$(sed -n -e 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' \
	-e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "$frag" | sort | uniq -d)
t "no option is given twice" test -z "$dups"
[ -z "$dups" ] || diag "given twice: $dups"

for opt in "${required[@]}"; do
	t "CONFIG_$opt=y" grep -qx "CONFIG_$opt=y" "$frag"
done
for opt in "${unset_required[@]}"; do
	t "CONFIG_$opt is not set" grep -qx "# CONFIG_$opt is not set" "$frag"
done
exit "$fail"
