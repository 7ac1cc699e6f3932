# SPDX-License-Identifier: GPL-2.0
# kernel/: make bisect-check builds and boots every prefix of the series.
.PHONY: bisect-check check-tools
bisect-check: deps check-conf image check-tools
	@kernel/bisect-check.sh "$(SERIES)"

# A series brings its own checks: kernel/checks/<topic>/ holds a
# boot-check script (run in the guest by make boot-test and make
# bisect-check) and C programs, one file each, built here; a header
# next to them (#include "x.h") is shared by the topic's programs, and
# every program is rebuilt when any header changes.
# A program X.c with an X.bpf.c beside it is a libbpf user: X.bpf.c
# becomes a skeleton (X.skel.h) against the patched kernel's vmlinux.h,
# and X links the patched tree's libbpf, as the bench programs do.
CHECK_BPF_SRCS := $(wildcard $(TOP)/kernel/checks/*/*.bpf.c)
CHECK_SRCS := $(filter-out %.bpf.c,$(wildcard $(TOP)/kernel/checks/*/*.c))
CHECK_HDRS := $(wildcard $(TOP)/kernel/checks/*/*.h $(TOP)/kernel/checks/lib/*.h)
CHECK_BINS := $(CHECK_SRCS:$(TOP)/kernel/checks/%.c=$(TOP)/build/checks/%)
CHECK_LIBBPF_BINS := $(CHECK_BPF_SRCS:$(TOP)/kernel/checks/%.bpf.c=$(TOP)/build/checks/%)

check-tools: $(CHECK_BINS)

$(TOP)/build/checks/%: $(TOP)/kernel/checks/%.c $(CHECK_HDRS)
	@mkdir -p $(@D)
	$(if $(filter 1,$(V)),,@echo "  CC      kernel/checks/$*.c";) \
		cc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@.tmp $< && mv $@.tmp $@

$(TOP)/build/checks/%.bpf.o: $(TOP)/kernel/checks/%.bpf.c $(KB_BPF)/vmlinux.h
	@mkdir -p $(@D)
	$(if $(filter 1,$(V)),,@echo "  BPF     kernel/checks/$*.bpf.c";) \
		clang $(KB_BPF_CFLAGS) -c -o $@ $<

$(TOP)/build/checks/%.skel.h: $(TOP)/build/checks/%.bpf.o
	$(if $(filter 1,$(V)),,@echo "  SKEL    build/checks/$*.skel.h";) \
		bpftool gen skeleton $< name $(notdir $*)_bpf >$@.tmp && mv $@.tmp $@

$(CHECK_LIBBPF_BINS): $(TOP)/build/checks/%: $(TOP)/kernel/checks/%.c \
		$(TOP)/build/checks/%.skel.h $(CHECK_HDRS) $(KB_BPF)/lib/libbpf.a
	$(if $(filter 1,$(V)),,@echo "  CC      kernel/checks/$*.c (libbpf)";) \
		cc -std=gnu11 -O2 -Wall -Wextra -Werror -I$(@D) -I$(KB_BPF)/include \
		-o $@.tmp $< $(KB_BPF)/lib/libbpf.a -lelf -lz && mv $@.tmp $@

.SECONDARY: $(CHECK_BPF_SRCS:$(TOP)/kernel/checks/%.bpf.c=$(TOP)/build/checks/%.bpf.o) \
	$(CHECK_BPF_SRCS:$(TOP)/kernel/checks/%.bpf.c=$(TOP)/build/checks/%.skel.h)

# make test-debug: the KASAN + lockdep kernels (make kernels DEBUG=1)
# under the series' checks and every workload, then a splat scan of
# their kernel logs (kernel/test-debug.sh). Not part of make test: the
# debug builds and boots do not fit its time budget.
.PHONY: test-debug
# DEBUG_KERNELS=patched builds and boots patched-debug alone (a change
# only the patched kernel has; baseline-debug must match the debug
# fragment already, as build.sh compares their configs); the default is
# both.
DEBUG_KERNELS ?= baseline patched
test-debug: deps check-conf image check-tools bench-tools analysis-tools
	@set -e; for k in $(DEBUG_KERNELS); do \
		case $$k in \
		baseline) DEBUG=1 kernel/scripts/build.sh baseline none ;; \
		patched) DEBUG=1 kernel/scripts/build.sh patched "$(SERIES)" ;; \
		*) echo "DEBUG_KERNELS: '$$k' is not a debug kernel (baseline, patched)" >&2; exit 2 ;; \
		esac; \
	done
	@DEBUG_KERNELS="$(DEBUG_KERNELS)" kernel/test-debug.sh
