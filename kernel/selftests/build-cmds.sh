# SPDX-License-Identifier: GPL-2.0
# The commands and flags that turn a kernel's commit and vmlinux into its
# BPF selftests (test_progs, test_maps, test_maps-partial). Source it:
# build.sh runs these, and hashes this file's text (comment lines and
# blank lines aside) into the selftests' key, so an edit here rebuilds
# them. Progress and error messages belong in build.sh, never here:
# rewording them must rebuild nothing.
# shellcheck shell=bash

CLANG=clang-19
LLC=llc-19
LLVM_STRIP=llvm-strip-19

# kbs_sources REPO COMMIT TMP: COMMIT's tree parts in TMP/src: what the
# selftests' Makefile reaches outside tools/: kernel/bpf/disasm.c (a
# symlink), scripts/sign-file.c, and for headers_install the rest.
kbs_sources() {
	git -C "$1" archive "$2" tools kernel/bpf scripts include arch/x86 Makefile |
		tar -x -C "$3/src"
}

# kbs_headers TMP: the kernel's uapi headers, where the BPF programs look
# for them ($(OUTPUT)/../usr/include)
kbs_headers() {
	make -C "$1/src" O="$1/hdr" headers_install INSTALL_HDR_PATH="$1/usr"
}

# kbs_setup TMP VMLINUX: sets sdir (the selftests' sources), out (their
# build directory) and mk (the make command line).
kbs_setup() {
	local extras
	sdir=$1/src/tools/testing/selftests/bpf
	out=$1/bpf
	# test_progs' extra files without the test modules (CONFIG_MODULES is
	# off): the Makefile's own list (TRUNNER_EXTRA_FILES) minus the four .ko
	extras="$out/urandom_read $out/liburandom_read.so $out/xdp_synproxy $out/sign-file $out/uprobe_multi"
	extras="$extras ima_setup.sh verify_sig_setup.sh $(cd "$sdir" && echo progs/btf_dump_test_case_*.c)"
	mk=(make -C "$sdir" -j"$JOBS" OUTPUT="$out" VMLINUX_BTF="$2"
		CLANG="$CLANG" LLC="$LLC" LLVM_STRIP="$LLVM_STRIP"
		feature-llvm=0 PCAP_CFLAGS= PCAP_LIBS=
		TRUNNER_EXTRA_FILES="$extras")
}

# kbs_pass: one pass of test_progs and test_maps, on past errors (-k).
# The compiler's dependency files name skeletons by their base name
# (atomics.lskel.h), which make finds only when OUTPUT is the source
# directory: without them a later pass sees "No rule to make target".
# The objects are kept; only their header dependencies are dropped.
# tests.h lists the tests of prog_tests/*.c: it is made again.
kbs_pass() {
	rm -f "$out"/*.test.d "$sdir/prog_tests/tests.h"
	"${mk[@]}" -k test_progs test_maps
}

# kbs_failed LOG: the targets whose recipe failed in a pass's LOG, one a
# line, e.g. make[1]: *** [Makefile:NNN: /x/bpf/foo.bpf.o] Error 1
kbs_failed() {
	sed -nE 's/^make(\[[0-9]+\])?: \*\*\* \[[^]]*: ([^]]+)\] Error [0-9]+$/\2/p' "$1" | sort -u
}

# kbs_leaves_out TARGET: whether a failed TARGET is what the build can
# leave out (a test file or a BPF program); anything else fails it.
kbs_leaves_out() {
	case "$(basename "$1")" in
	*.test.o | *.bpf.o | *.skel.h | *.lskel.h | *.subskel.h) return 0 ;;
	esac
	return 1
}

# kbs_leave_out TARGET LOG NB: leave out the source of a failed TARGET
# (kbs_leaves_out), with the compiler's error line from the pass's LOG
# in NB (not-built.tsv): a test file is taken out, a BPF program gets a
# stub skeleton.
kbs_leave_out() {
	local f=$1 log=$2 nb=$3 b stem why
	b=$(basename "$f")
	case "$b" in
	*.test.o)
		stem=${b%.test.o}
		why=$(grep -m 1 -E "prog_tests/$stem\\.c:[0-9]+:[0-9]+: (fatal )?error:" "$log" | sed "s|^.*/\\(prog_tests/\\)|\\1|" || true)
		rm -f "$sdir/prog_tests/$stem.c"
		printf 'test-file\tprog_tests/%s.c\t%s\n' "$stem" "${why:-gcc failed: see build.log}" >>"$nb"
		;;
	*)
		stem=${b%%.*}
		why=$(grep -m 1 -E "progs/$stem\\.c:[0-9]+:[0-9]+: (fatal )?error:" "$log" | sed "s|^.*/\\(progs/\\)|\\1|" || true)
		if [ -z "$why" ] && [ "${b%.bpf.o}" != "$b" ]; then
			# the error is in a header it includes: compile it alone to see it
			why=$("${mk[@]}" -j1 "$f" 2>&1 | grep -m 1 -E ':[0-9]+:[0-9]+: (fatal )?error:' |
				sed "s|^.*/\\(progs/\\)|\\1|; s|^$sdir/||" || true)
			[ -z "$why" ] || why="progs/$stem.c: $why"
		fi
		if [ -z "$why" ] && [ "${b%.bpf.o}" = "$b" ]; then
			why="bpftool could not generate $b: see build.log"
		fi
		kbs_stub_skel "$stem" "${why:-clang-19 failed: see build.log}" "$nb"
		;;
	esac
}

# kbs_stub_skel STEM WHY NB: progs/STEM.c does not build, so its skeleton
# $out/STEM.skel.h is a stub: the same struct with the program, map and
# link pointers (names read from the source), whose open functions print
# a ":FAIL:" line that says why and return NULL. A test file that uses
# the skeleton still builds, unless it needs more of it (its globals:
# then it fails to compile and is left out itself), and only the
# subtests that load the program fail, saying why. The other subtests
# of the file run.
kbs_stub_skel() {
	local stem=$1 why=$2 nb=$3 f progs maps m p
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

# kbs_payload TMP: TMP/payload: the binaries and what they open at run
# time (the BPF objects by name, urandom_read and its library,
# uprobe_multi, ...), and bpftool.
kbs_payload() {
	find "$out" -maxdepth 1 -type f ! -name '*.d' ! -name '*.skel.h' ! -name '*.lskel.h' \
		! -name '*.subskel.h' ! -name 'FEATURE-DUMP*' \( -name '*.bpf.o' -o ! -name '*.o' \) \
		-exec cp -p -t "$1/payload" {} +
	cp -pL "$out/tools/sbin/bpftool" "$1/payload/bpftool"
}

# test_maps runs all its parts in one process and exits at the first
# failure, and three of its parts need what the kbench kernels lack:
# test_sockmap needs CONFIG_BPF_STREAM_PARSER, test_reuseport_array and
# map_tests/sk_storage_map.c need IPv6. On our kernels test_maps stops at
# test_sockmap, and nothing after it runs (map_large, map_parallel,
# map_stress, the second round with BPF_F_NO_PREALLOC, map_tests/*).
# test_maps-partial is the same test_maps without those three parts
# (each call replaced by a SKIP line; sk_storage_map.c left out of
# map_tests); both run.

# kbs_maps_partial NB: test_maps.c and map_tests/ made into
# test_maps-partial's, each part left out listed in NB. When test_maps.c
# does not call a part once (as 6.12 does), kbs_missing names it and the
# status is 1.
kbs_maps_partial() {
	kbs_skip_call 'test_sockmap(0, NULL)' 'needs CONFIG_BPF_STREAM_PARSER' "$1" &&
		kbs_skip_call 'test_reuseport_array()' 'needs IPv6' "$1" &&
		rm -f "$sdir/map_tests/sk_storage_map.c" "$sdir/map_tests/tests.h" &&
		printf 'test_maps-partial\tmap_tests/sk_storage_map.c\tleft out of test_maps-partial: needs IPv6\n' >>"$1"
}

# kbs_skip_call CALL WHY NB: test_maps.c's one line "CALL;" becomes a SKIP line
kbs_skip_call() {
	local fn=$1 why=$2 call skip
	call="	$fn;"
	if [ "$(grep -cxF "$call" "$sdir/test_maps.c")" != 1 ]; then
		# shellcheck disable=SC2034 # build.sh names it in its error
		kbs_missing=$fn
		return 1
	fi
	skip="	printf(\"${fn%%(*} SKIP (kbench: not in test_maps-partial: $why)\\\\n\"); skips++; if (0) $fn;"
	awk -v call="$call" -v skip="$skip" '$0 == call { print skip; next } { print }' "$sdir/test_maps.c" >"$sdir/test_maps.c.new" &&
		mv "$sdir/test_maps.c.new" "$sdir/test_maps.c" &&
		printf 'test_maps-partial\t%s\tnot run in test_maps-partial: %s\n' "${fn%%(*}" "$why" >>"$3"
}

# kbs_maps_partial_make TMP: TMP/payload/test_maps-partial, from the
# sources kbs_maps_partial changed.
kbs_maps_partial_make() {
	"${mk[@]}" test_maps &&
		cp -p "$out/test_maps" "$1/payload/test_maps-partial"
}
