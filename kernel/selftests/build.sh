#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build 6.12's own BPF selftests (tools/testing/selftests/bpf: test_progs
# and test_maps) for one kernel, cached by content.
#
#   build.sh LABEL      prints the build's directory
#
# LABEL is a kernel under $KBENCH_CACHE/labels. The sources are that
# kernel's own commit (build-info.json "commit": its worktree's HEAD, so
# the patched tree's libbpf and uapi carry the series), taken with git
# archive into a scratch directory: nothing is written into the
# worktree. The BPF programs are compiled against the kernel's own BTF
# (VMLINUX_BTF=<label>/vmlinux) with Debian's clang-19; user space with
# gcc, libbpf statically.
#
# The result is $KBENCH_CACHE/upstream-selftests/<key>/ with payload/
# (test_progs, test_maps and what they read at run time), build.log,
# not-built.tsv, tests.h (the test_progs tests built), build-info.json.
# The key is the sha256 of the commit, the vmlinux sha256, the compiler
# versions and this script's text.
#
# bpf_testmod.ko and the other test modules are not built: the kbench
# kernels have CONFIG_MODULES off. test_progs runs without them (its
# tests that need bpf_testmod fail or skip, and make upstream-selftests
# says so). Whatever of test_progs does not compile with Debian's
# toolchain is left out, one BPF program or test file at a time, and
# listed in not-built.tsv with the compiler's error line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

[ $# -eq 1 ] || kb_die "usage: kernel/selftests/build.sh LABEL"
label=$1
kb_conf KBENCH_CACHE JOBS

CLANG=clang-19
LLC=llc-19
LLVM_STRIP=llvm-strip-19
for t in "$CLANG" "$LLC" "$LLVM_STRIP" gcc make rsync jq; do
	command -v "$t" >/dev/null || kb_die "$t is not installed: run make deps"
done

kd=$KBENCH_CACHE/labels/$label
if [ ! -r "$kd/vmlinux" ] || [ ! -r "$kd/build-info.json" ]; then
	kb_die "no kernel '$label' ($kd has no vmlinux or build-info.json): build it first (make kernels, or make kernels DEBUG=1 for the -debug labels)"
fi
kd=$(readlink -f "$kd")
commit=$(jq -r '.commit // empty' "$kd/build-info.json")
[ -n "$commit" ] || kb_die "$kd/build-info.json has no commit: rebuild the kernel with make kernels"

# the kernel's git tree: the one that has its commit
repo=
for g in "$KBENCH_CACHE"/linux/*/git; do
	if [ -d "$g" ] && git -C "$g" cat-file -e "$commit^{commit}" 2>/dev/null; then
		repo=$g
		break
	fi
done
[ -n "$repo" ] || kb_die "commit $commit of kernel '$label' is in no tree under $KBENCH_CACHE/linux: rebuild it with make kernels"
wt=$(dirname "$repo")/wt/$label
if [ -d "$wt" ]; then
	head=$(git -C "$wt" rev-parse HEAD 2>/dev/null || echo unknown)
	[ "$head" = "$commit" ] ||
		kb_say "note: worktree $wt is at $head now; building the selftests of $label's own commit $commit"
fi

vmsha=$(kb_sha256_file "$kd/vmlinux")
clangv=$("$CLANG" --version | head -n 1)
gccv=$(gcc --version | head -n 1)
self=$(kb_sha256_file "$0")
inputs=$(printf 'commit %s\nvmlinux %s\nclang %s\ngcc %s\nbuild.sh %s\n' \
	"$commit" "$vmsha" "$clangv" "$gccv" "$self")
key=$(kb_sha256_str "$inputs")
cache=$KBENCH_CACHE/upstream-selftests
dir=$cache/$key
if [ -f "$dir/build-info.json" ]; then
	kb_verbose "selftests for $label: cached ($dir)"
	printf '%s\n' "$dir"
	exit 0
fi
mkdir -p "$cache"

# One heavy compile at a time on this machine: the kernel builds' lock.
lock=$KBENCH_CACHE/kernel.lock
exec 9>"$lock"
if ! flock -n 9; then
	kb_say "selftests for $label: waiting for the build lock $lock (another build runs)"
	flock 9
fi
if [ -f "$dir/build-info.json" ]; then
	printf '%s\n' "$dir"
	exit 0
fi

# a failed build's scratch directory is kept until the next build (we
# hold the lock: no other build is using one)
rm -rf "$cache"/.tmp-*
tmp=$cache/.tmp-$key-$$
mkdir -p "$tmp/src" "$tmp/bpf" "$tmp/payload"
log=$tmp/build.log
printf '%s\n' "$inputs" >"$tmp/key-inputs.txt"
t0=$(date +%s)
kb_say "selftests for $label: building test_progs and test_maps (key ${key:0:12}; log $log)"

# What the selftests' Makefile reaches outside tools/: kernel/bpf/disasm.c
# (a symlink), scripts/sign-file.c, and for headers_install the rest.
git -C "$repo" archive "$commit" tools kernel/bpf scripts include arch/x86 Makefile |
	tar -x -C "$tmp/src" || kb_die "git archive of $commit from $repo failed"
# the kernel's uapi headers, where the BPF programs look for them
# ($(OUTPUT)/../usr/include)
kb_run_logged "$log" make -C "$tmp/src" O="$tmp/hdr" headers_install INSTALL_HDR_PATH="$tmp/usr" ||
	kb_die "selftests for $label: make headers_install failed; see $log (kept in $tmp)"

sdir=$tmp/src/tools/testing/selftests/bpf
out=$tmp/bpf
# test_progs' extra files without the test modules (CONFIG_MODULES is
# off): the Makefile's own list (TRUNNER_EXTRA_FILES) minus the four .ko
extras="$out/urandom_read $out/liburandom_read.so $out/xdp_synproxy $out/sign-file $out/uprobe_multi"
extras="$extras ima_setup.sh verify_sig_setup.sh $(cd "$sdir" && echo progs/btf_dump_test_case_*.c)"
mk=(make -C "$sdir" -j"$JOBS" OUTPUT="$out" VMLINUX_BTF="$kd/vmlinux"
	CLANG="$CLANG" LLC="$LLC" LLVM_STRIP="$LLVM_STRIP"
	feature-llvm=0 PCAP_CFLAGS= PCAP_LIBS=
	TRUNNER_EXTRA_FILES="$extras")

nb=$tmp/not-built.tsv
: >"$nb"
# stub_skel STEM: progs/STEM.c does not build, so its skeleton
# $out/STEM.skel.h is a stub: the same struct with the program, map and
# link pointers (names read from the source), whose open functions print
# a ":FAIL:" line that says why and return NULL. A test file that uses
# the skeleton still builds, unless it needs more of it (its globals:
# then it fails to compile and is left out itself), and only the
# subtests that load the program fail, saying why. The other subtests
# of the file run.
stub_skel() {
	local stem=$1 why=$2 f progs maps
	f=$sdir/progs/$stem.c
	progs=$(awk '
	function take(l,   m) {
		if (match(l, /BPF_[A-Z0-9_]+\([A-Za-z_][A-Za-z0-9_]*/)) {
			m = substr(l, RSTART, RLENGTH); sub(/^[^(]*\(/, "", m); return m
		}
		if (match(l, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			m = substr(l, RSTART, RLENGTH); sub(/[ \t]*\($/, "", m); return m
		}
		return ""
	}
	/SEC\("/ && !/SEC\("\.(maps|data|bss|rodata)/ && !/SEC\("license"\)/ {
		r = $0; sub(/^.*SEC\("[^"]*"\)/, "", r)
		n = take(r); if (n != "") { print n; next }
		want = 1; next
	}
	want && NF { want = 0; n = take($0); if (n != "") print n }
	' "$f" | sort -u)
	maps=$(sed -nE 's/^\}[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]+SEC\("\.maps"\).*/\1/p' "$f" | sort -u)
	{
		echo "/* kbench stub: progs/$stem.c did not compile against this kernel's BTF; see not-built.tsv */"
		echo "#ifndef __KBENCH_STUB_${stem}_SKEL_H__"
		echo "#define __KBENCH_STUB_${stem}_SKEL_H__"
		echo "#include <errno.h>"
		echo "#include <stdio.h>"
		echo "#include <stdlib.h>"
		echo "#include <bpf/libbpf.h>"
		echo "struct $stem {"
		echo "	struct bpf_object_skeleton *skeleton;"
		echo "	struct bpf_object *obj;"
		echo "	struct {"
		for m in $maps; do echo "		struct bpf_map *$m;"; done
		echo "	} maps;"
		echo "	struct {"
		for p in $progs; do echo "		struct bpf_program *$p;"; done
		echo "	} progs;"
		echo "	struct {"
		for p in $progs; do echo "		struct bpf_link *$p;"; done
		echo "	} links;"
		echo "};"
		echo "static inline struct $stem *${stem}__open_opts(const struct bpf_object_open_opts *opts)"
		echo "{"
		echo "	(void)opts;"
		printf '\tprintf("%s__open:FAIL:not built (kbench): progs/%s.c does not compile against this kernel%sBTF\\n");\n' \
			"$stem" "$stem" "'s "
		echo "	errno = EOPNOTSUPP;"
		echo "	return NULL;"
		echo "}"
		echo "static inline struct $stem *${stem}__open(void) { return ${stem}__open_opts(NULL); }"
		echo "static inline struct $stem *${stem}__open_and_load(void) { return ${stem}__open_opts(NULL); }"
		echo "static inline int ${stem}__load(struct $stem *s) { (void)s; return -EOPNOTSUPP; }"
		echo "static inline int ${stem}__attach(struct $stem *s) { (void)s; return -EOPNOTSUPP; }"
		echo "static inline void ${stem}__detach(struct $stem *s) { (void)s; }"
		echo "static inline void ${stem}__destroy(struct $stem *s) { free(s); }"
		echo "#endif"
	} >"$out/$stem.skel.h"
	rm -f "$f"
	printf 'bpf-prog\tprogs/%s.c\t%s (its skeleton is a stub that fails to open: the subtests that load it fail, saying so)\n' \
		"$stem" "$why" >>"$nb"
}

pass=0
while :; do
	pass=$((pass + 1))
	# The compiler's dependency files name skeletons by their base name
	# (atomics.lskel.h), which make finds only when OUTPUT is the source
	# directory: without them a later pass sees "No rule to make target".
	# The objects are kept; only their header dependencies are dropped.
	rm -f "$out"/*.test.d
	echo "=== pass $pass: ${mk[*]} -k test_progs test_maps" >>"$log"
	rc=0
	kb_run_logged "$log.pass" "${mk[@]}" -k test_progs test_maps || rc=$?
	cat "$log.pass" >>"$log"
	if [ "$rc" = 0 ]; then
		rm -f "$log.pass"
		break
	fi
	[ "$pass" -lt 5 ] || kb_die "selftests for $label: still failing after $pass passes; see $log (kept in $tmp)"
	# the targets whose recipe failed, e.g. make[1]: *** [Makefile:NNN: /x/bpf/foo.bpf.o] Error 1
	mapfile -t failed < <(sed -nE 's/^make(\[[0-9]+\])?: \*\*\* \[[^]]*: ([^]]+)\] Error [0-9]+$/\2/p' "$log.pass" | sort -u)
	[ "${#failed[@]}" -gt 0 ] || kb_die "selftests for $label: make failed (exit $rc) with no failed target named; see $log"
	for f in "${failed[@]}"; do
		b=$(basename "$f")
		case "$b" in
		*.test.o)
			stem=${b%.test.o}
			why=$(grep -m 1 -E "prog_tests/$stem\\.c:[0-9]+:[0-9]+: (fatal )?error:" "$log.pass" | sed "s|^.*/\\(prog_tests/\\)|\\1|" || true)
			rm -f "$sdir/prog_tests/$stem.c"
			printf 'test-file\tprog_tests/%s.c\t%s\n' "$stem" "${why:-gcc failed: see build.log}" >>"$nb"
			;;
		*.bpf.o | *.skel.h | *.lskel.h | *.subskel.h)
			stem=${b%%.*}
			why=$(grep -m 1 -E "progs/$stem\\.c:[0-9]+:[0-9]+: (fatal )?error:" "$log.pass" | sed "s|^.*/\\(progs/\\)|\\1|" || true)
			if [ -z "$why" ] && [ "${b%.bpf.o}" != "$b" ]; then
				# the error is in a header it includes: compile it alone to see it
				why=$("${mk[@]}" -j1 "$f" 2>&1 | grep -m 1 -E ':[0-9]+:[0-9]+: (fatal )?error:' |
					sed "s|^.*/\\(progs/\\)|\\1|; s|^$sdir/||" || true)
				[ -z "$why" ] || why="progs/$stem.c: $why"
			fi
			if [ -z "$why" ] && [ "${b%.bpf.o}" = "$b" ]; then
				why="bpftool could not generate $b: see build.log"
			fi
			stub_skel "$stem" "${why:-clang-19 failed: see build.log}"
			;;
		*)
			kb_die "selftests for $label: $f failed to build (not a BPF program or a test file, so nothing to leave out); see $log (kept in $tmp)"
			;;
		esac
	done
	# tests.h lists the tests of prog_tests/*.c: regenerate it
	rm -f "$sdir/prog_tests/tests.h"
	rm -f "$log.pass"
	kb_say "selftests for $label: pass $pass: $(grep -c . "$nb") files do not build so far, left out; building the rest"
done

# The payload: the binaries and what they open at run time (the BPF
# objects by name, urandom_read and its library, uprobe_multi, ...).
find "$out" -maxdepth 1 -type f ! -name '*.d' ! -name '*.skel.h' ! -name '*.lskel.h' \
	! -name '*.subskel.h' ! -name 'FEATURE-DUMP*' \( -name '*.bpf.o' -o ! -name '*.o' \) \
	-exec cp -p -t "$tmp/payload" {} +
if [ ! -x "$tmp/payload/test_progs" ] || [ ! -x "$tmp/payload/test_maps" ]; then
	kb_die "selftests for $label: test_progs or test_maps missing after the build; see $log"
fi
cp -pL "$out/tools/sbin/bpftool" "$tmp/payload/bpftool"

# test_maps runs all its parts in one process and exits at the first
# failure, and three of its parts need what the kbench kernels lack:
# test_sockmap needs CONFIG_BPF_STREAM_PARSER, test_reuseport_array and
# map_tests/sk_storage_map.c need IPv6. On our kernels test_maps stops at
# test_sockmap, and nothing after it runs (map_large, map_parallel,
# map_stress, the second round with BPF_F_NO_PREALLOC, map_tests/*).
# test_maps-partial is the same test_maps without those three parts
# (each call replaced by a SKIP line; sk_storage_map.c left out of
# map_tests); both run.
partial() {
	local fn=$1 why=$2 call skip
	call="	$fn;"
	[ "$(grep -cxF "$call" "$sdir/test_maps.c")" = 1 ] ||
		kb_die "selftests for $label: test_maps.c does not call $fn once as 6.12 does: update kernel/selftests/build.sh"
	skip="	printf(\"${fn%%(*} SKIP (kbench: not in test_maps-partial: $why)\\\\n\"); skips++; if (0) $fn;"
	awk -v call="$call" -v skip="$skip" '$0 == call { print skip; next } { print }' "$sdir/test_maps.c" >"$sdir/test_maps.c.new"
	mv "$sdir/test_maps.c.new" "$sdir/test_maps.c"
	printf 'test_maps-partial\t%s\tnot run in test_maps-partial: %s\n' "${fn%%(*}" "$why" >>"$nb"
}
partial 'test_sockmap(0, NULL)' 'needs CONFIG_BPF_STREAM_PARSER'
partial 'test_reuseport_array()' 'needs IPv6'
rm -f "$sdir/map_tests/sk_storage_map.c" "$sdir/map_tests/tests.h"
printf 'test_maps-partial\tmap_tests/sk_storage_map.c\tleft out of test_maps-partial: needs IPv6\n' >>"$nb"
echo "=== test_maps-partial: ${mk[*]} test_maps" >>"$log"
kb_run_logged "$log" "${mk[@]}" test_maps ||
	kb_die "selftests for $label: test_maps-partial did not build; see $log"
cp -p "$out/test_maps" "$tmp/payload/test_maps-partial"
cp -p "$sdir/prog_tests/tests.h" "$tmp/tests.h"
needed=$(objdump -p "$tmp/payload/test_progs" "$tmp/payload/test_maps" | awk '/NEEDED/ { print $2 }' | sort -u | paste -sd' ')
took=$(($(date +%s) - t0))
nbad=$(grep -c . "$nb" || true)
ntests=$(grep -c '^DEFINE_TEST' "$tmp/tests.h" || true)
{
	echo "{"
	echo "  \"label\": \"$(kb_json_str "$label")\","
	echo "  \"key\": \"$key\","
	echo "  \"commit\": \"$commit\","
	echo "  \"vmlinux_sha256\": \"$vmsha\","
	echo "  \"clang\": \"$(kb_json_str "$clangv")\","
	echo "  \"gcc\": \"$(kb_json_str "$gccv")\","
	echo "  \"needed_libs\": \"$needed\","
	echo "  \"test_progs_tests\": $ntests,"
	echo "  \"not_built\": $nbad,"
	echo "  \"passes\": $pass,"
	echo "  \"build_seconds\": $took,"
	echo "  \"built_at\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""
	echo "}"
} >"$tmp/build-info.json"
rm -rf "${tmp:?}/src" "${tmp:?}/hdr" "${tmp:?}/usr" "${tmp:?}/bpf"
rm -rf "$dir"
mv "$tmp" "$dir"
kb_say "selftests for $label: built in $((took / 60))m$(printf '%02d' $((took % 60)))s ($ntests test_progs tests; $nbad entries in $dir/not-built.tsv) -> $dir"
printf '%s\n' "$dir"
