# SPDX-License-Identifier: GPL-2.0
# bench/: benchmark programs that run in the guest, built on the host
# (the guest is Debian 12 with the host's glibc).
#
# Every bench/*.c is a benchmark module linked into kbbench, except the
# *.bpf.c programs. A module registers itself (KB_BENCH in kbbench.h), so
# a new benchmark is one new file and no edit here. (A series' own check
# programs live with the series: kernel/checks/, make check-tools.)

KB_OUT := $(TOP)/build/bench
KB_CC := cc
KB_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror
KB_Q := $(if $(filter 1,$(V)),,@)

KB_MOD_SRCS := $(filter-out %.bpf.c,$(wildcard $(TOP)/bench/*.c))
KB_MOD_OBJS := $(KB_MOD_SRCS:$(TOP)/bench/%.c=$(KB_OUT)/obj/%.o)

.PHONY: bench-tools
bench-tools: $(KB_OUT)/kbbench

$(KB_OUT)/obj:
	$(KB_Q)mkdir -p $@

$(KB_OUT)/obj/%.o: $(TOP)/bench/%.c | $(KB_OUT)/obj
	@$(if $(KB_Q),echo "  CC      bench/$*.c")
	$(KB_Q)$(KB_CC) $(KB_CFLAGS) -MMD -MP -c -o $@ $<

$(KB_OUT)/kbbench: $(KB_MOD_OBJS)
	@$(if $(KB_Q),echo "  LD      build/bench/kbbench")
	$(KB_Q)$(KB_CC) $(KB_CFLAGS) -o $@ $^

-include $(wildcard $(KB_OUT)/obj/*.d)
