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
CHECK_SRCS := $(wildcard $(TOP)/kernel/checks/*/*.c)
CHECK_HDRS := $(wildcard $(TOP)/kernel/checks/*/*.h)
CHECK_BINS := $(CHECK_SRCS:$(TOP)/kernel/checks/%.c=$(TOP)/build/checks/%)

check-tools: $(CHECK_BINS)

$(TOP)/build/checks/%: $(TOP)/kernel/checks/%.c $(CHECK_HDRS)
	@mkdir -p $(@D)
	$(if $(filter 1,$(V)),,@echo "  CC      kernel/checks/$*.c";) \
		cc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@.tmp $< && mv $@.tmp $@

# make test-debug: the KASAN + lockdep kernels (make kernels DEBUG=1)
# under the series' checks and every workload, then a splat scan of
# their kernel logs (kernel/test-debug.sh). Not part of make test: the
# debug builds and boots do not fit its time budget.
.PHONY: test-debug
test-debug: deps check-conf image check-tools bench-tools analysis-tools
	@$(MAKE) --no-print-directory kernels DEBUG=1
	@kernel/test-debug.sh
