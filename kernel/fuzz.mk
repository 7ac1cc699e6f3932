# SPDX-License-Identifier: GPL-2.0
# kernel/fuzz/: kfuzz, the structured generator for the series' bpf()
# interfaces, and make fuzz-kernel (kernel/fuzz/README.md).
#
#   make kfuzz-tools    build kernel/fuzz/kfuzz.c into build/kfuzz/
#   make fuzz-kernel    the debug kernels under kfuzz and trinity,
#                       FUZZ_KERNEL_TIME minutes each (SEED=N replays)
#
# kfuzz is built as make check-tools builds kernel/checks/*/*.c (one C
# file, raw bpf(), the checks' lib/ headers, -Werror): it needs no
# kernel, so one binary runs in the guest of every kernel and its dry
# run (-n) on the host.
KFUZZ_BIN := $(TOP)/build/kfuzz/kfuzz
KFUZZ_HDRS := $(wildcard $(TOP)/kernel/checks/lib/*.h)

.PHONY: kfuzz-tools fuzz-kernel
kfuzz-tools: $(KFUZZ_BIN)

$(KFUZZ_BIN): $(TOP)/kernel/fuzz/kfuzz.c $(KFUZZ_HDRS)
	@mkdir -p $(@D)
	$(if $(filter 1,$(V)),,@echo "  CC      kernel/fuzz/kfuzz.c";) \
		cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o $@.tmp $< && mv $@.tmp $@

# A long target, not in make test: both debug kernels are built (a cache
# hit when make test-debug or make kernels DEBUG=1 built them) and each
# boots once for FUZZ_KERNEL_TIME minutes (kernel/fuzz/run.sh).
# FUZZ_KERNEL_TIME: bench.conf (20 minutes)
fuzz-kernel: deps check-conf kfuzz-tools
	@set -e; for k in $(DEBUG_KERNELS); do \
		case $$k in \
		baseline) DEBUG=1 kernel/scripts/build.sh baseline none ;; \
		patched) DEBUG=1 kernel/scripts/build.sh patched "$(SERIES)" ;; \
		*) echo "DEBUG_KERNELS: '$$k' is not a debug kernel (baseline, patched)" >&2; exit 2 ;; \
		esac; \
	done
	@DEBUG_KERNELS="$(DEBUG_KERNELS)" FUZZ_KERNEL_TIME="$(FUZZ_KERNEL_TIME)" \
		SEED="$(SEED)" kernel/fuzz/run.sh
