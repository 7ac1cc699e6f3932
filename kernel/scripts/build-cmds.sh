# SPDX-License-Identifier: GPL-2.0
# The commands and flags that turn the source tree, the series and the
# Kconfig fragment into a kernel. Source it: apply.sh and build.sh run
# these, and key.sh hashes this file's text (comment lines and blank lines
# aside) into every kernel's key, so an edit here rebuilds every kernel.
# Progress and error messages belong in the callers, never here: rewording
# them must rebuild nothing.
# shellcheck shell=bash

# Fixed identity and dates: the same series gives the same commits.
kbc_git_identity() {
	export GIT_AUTHOR_NAME=kbench GIT_AUTHOR_EMAIL=kbench@localhost
	export GIT_COMMITTER_NAME=kbench GIT_COMMITTER_EMAIL=kbench@localhost
	export GIT_AUTHOR_DATE="1970-01-01T00:00:00Z" GIT_COMMITTER_DATE="1970-01-01T00:00:00Z"
}

# kbc_am WORKTREE PATCH: apply one patch as one commit.
kbc_am() {
	git -C "$1" am --keep-cr "$2"
}

# kbc_setup WORKTREE OUTDIR TAG: the make command line for WORKTREE built
# in OUTDIR, with release string <version>-kbTAG. TAG comes from the
# kernel's content (build.sh: the key's first 8 hex digits, -debug
# after them for DEBUG=1), never from its label, so that one content is
# one kernel whatever it is called. Sets kmake_args, kbc_build_cmd (the
# build itself) and kbc_image (the result, in OUTDIR).
kbc_setup() {
	kbc_wt=$1
	kbc_out=$2
	# -fno-var-tracking: BTF needs DWARF types, not variable locations, and
	# location tracking is about 15 % of the compile time. The machine code
	# is the same with and without it (objdump -d compared on kernel/fork.o
	# and net/ipv4/tcp.o).
	kmake_args=(-C "$kbc_wt" O="$kbc_out" -j"$JOBS"
		CC="ccache $KCC" HOSTCC="ccache gcc"
		KCFLAGS="-fno-var-tracking"
		LOCALVERSION="-kb$3"
		KBUILD_BUILD_TIMESTAMP="1970-01-01"
		KBUILD_BUILD_USER=kbench KBUILD_BUILD_HOST=kbench)
	# shellcheck disable=SC2034 # build.sh runs it and copies the image
	{
		kbc_build_cmd=(make "${kmake_args[@]}" bzImage)
		kbc_image=arch/x86/boot/bzImage
	}
	export CCACHE_DIR=$KBENCH_CACHE/ccache
	export CCACHE_BASEDIR=$kbc_wt CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=10G
	# Depend mode hashes the headers listed by the compiler's own -MMD
	# output instead of running the preprocessor a second time on every
	# miss: a cold cache costs about 4 % over no ccache instead of about 13 %.
	export CCACHE_DEPEND=1
}

kbc_make() {
	make "${kmake_args[@]}" "$@"
}

# The config: x86_64_defconfig + kvm_guest.config + FRAGMENT.
kbc_defconfig() {
	kbc_make -s x86_64_defconfig
}

kbc_merge_fragment() {
	(cd "$kbc_wt" && scripts/kconfig/merge_config.sh -m -O "$kbc_out" \
		"$kbc_out/.config" kernel/configs/kvm_guest.config "$1")
}

kbc_olddefconfig() {
	kbc_make -s olddefconfig
}
