# SPDX-License-Identifier: GPL-2.0
# analysis/: kbstat (statistics and verdicts) and the report writer.
# Included by the top Makefile, which defines TOP, RUN, FORCE and V.

KBSTAT := $(TOP)/build/analysis/kbstat
KBSTAT_SRC := $(wildcard $(TOP)/analysis/*.c)
KBSTAT_HDR := $(wildcard $(TOP)/analysis/*.h)
KBSTAT_CC ?= cc
KBSTAT_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror

.PHONY: analysis-tools report analysis-check

analysis-tools: $(KBSTAT)

$(KBSTAT): $(KBSTAT_SRC) $(KBSTAT_HDR)
	@mkdir -p $(@D)
	$(if $(filter 1,$(V)),,@echo "  CC      $@";) \
		$(KBSTAT_CC) $(KBSTAT_CFLAGS) -o $@.tmp $(KBSTAT_SRC) -lm && mv $@.tmp $@

# make report RUN=reports/<id>: regenerate the report from raw data alone.
report: $(KBSTAT)
	@if [ -z "$(RUN)" ]; then \
		echo "kbench: error: make report needs RUN=reports/<id>" >&2; exit 1; fi
	@KBSTAT=$(KBSTAT) $(TOP)/analysis/report.sh $(RUN)

# shellcheck of the analysis scripts and the analysis unit tests.
analysis-check: $(KBSTAT)
	shellcheck $(TOP)/analysis/*.sh
	prove $(TOP)/tests/unit/analysis-*.t
