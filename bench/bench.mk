# SPDX-License-Identifier: GPL-2.0
# bench/: benchmark programs that run in the guest, built on the host
# (the guest is Debian 12 with the host's glibc).
#
# Every bench/*.c is a benchmark module linked into kbbench, except the
# *.bpf.c programs, which become skeletons their module includes. A module registers itself (KB_BENCH in kbbench.h), so
# a new benchmark is one new file and no edit here. (A series' own check
# programs live with the series: kernel/checks/, make check-tools.)

KB_OUT := $(TOP)/build/bench
KB_CC := cc
KB_Q := $(if $(filter 1,$(V)),,@)

# BPF benchmarks: bench/NAME.bpf.c is compiled with clang -target bpf
# against vmlinux.h (the patched kernel's BTF) into NAME.bpf.o, and
# bpftool turns that into NAME.skel.h, which bench/NAME.c includes. kbbench
# links the patched tree's own libbpf, static. bench/bpf-deps.sh makes
# $(KB_BPF) (vmlinux.h, libbpf) for the current patched kernel.
KB_BPF := $(KB_OUT)/bpf
KB_SKEL := $(KB_OUT)/skel
KB_BPF_SRCS := $(wildcard $(TOP)/bench/*.bpf.c)
KB_SKELS := $(KB_BPF_SRCS:$(TOP)/bench/%.bpf.c=$(KB_SKEL)/%.skel.h)
# What a bench module needs to compile and kbbench to link (fuzz.mk's
# sanitizer build of kbbench uses them too).
KB_BENCH_INC := -I$(TOP)/bench -I$(KB_SKEL) -I$(KB_BPF)/include
KB_BENCH_LIBS := $(KB_BPF)/lib/libbpf.a -lelf -lz
KB_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror
KB_BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(KB_BPF) -I$(KB_BPF)/include

KB_MOD_SRCS := $(filter-out %.bpf.c,$(wildcard $(TOP)/bench/*.c))
KB_MOD_OBJS := $(KB_MOD_SRCS:$(TOP)/bench/%.c=$(KB_OUT)/obj/%.o)

.PHONY: bench-tools bpf-deps
bench-tools: $(KB_OUT)/kbbench

# Always run (cheap when cached): it points $(KB_BPF) at the current
# patched kernel's files, whose times then decide what is rebuilt.
bpf-deps: kernel-patched
	@$(TOP)/bench/bpf-deps.sh $(KB_BPF)

$(KB_BPF)/vmlinux.h $(KB_BPF)/lib/libbpf.a: | bpf-deps ;

# kept: the modules' objects depend on them
.SECONDARY: $(KB_SKELS) $(KB_SKELS:.skel.h=.bpf.o)

$(KB_OUT)/obj $(KB_SKEL):
	$(KB_Q)mkdir -p $@

$(KB_SKEL)/%.bpf.o: $(TOP)/bench/%.bpf.c $(KB_BPF)/vmlinux.h | $(KB_SKEL)
	@$(if $(KB_Q),echo "  BPF     bench/$*.bpf.c")
	$(KB_Q)clang $(KB_BPF_CFLAGS) -c -o $@ $<

$(KB_SKEL)/%.skel.h: $(KB_SKEL)/%.bpf.o
	@$(if $(KB_Q),echo "  SKEL    build/bench/skel/$*.skel.h")
	$(KB_Q)bpftool gen skeleton $< name $*_bpf >$@.tmp && mv $@.tmp $@

$(KB_OUT)/obj/%.o: $(TOP)/bench/%.c $(KB_SKELS) | $(KB_OUT)/obj
	@$(if $(KB_Q),echo "  CC      bench/$*.c")
	$(KB_Q)$(KB_CC) $(KB_CFLAGS) $(KB_BENCH_INC) -MMD -MP -c -o $@ $<

$(KB_OUT)/kbbench: $(KB_MOD_OBJS) $(KB_BPF)/lib/libbpf.a
	@$(if $(KB_Q),echo "  LD      build/bench/kbbench")
	$(KB_Q)$(KB_CC) $(KB_CFLAGS) -o $@ $(KB_MOD_OBJS) $(KB_BENCH_LIBS)

-include $(wildcard $(KB_OUT)/obj/*.d)
