# SPDX-License-Identifier: GPL-2.0
# analysis/: kbstat (statistics and verdicts) and the report writer.
# Included by the top Makefile, which defines TOP, RUN, FORCE and V.

KBSTAT := $(TOP)/build/analysis/kbstat
KBSTAT_SRC := $(wildcard $(TOP)/analysis/*.c)
KBSTAT_HDR := $(wildcard $(TOP)/analysis/*.h)
KBSTAT_CC ?= cc
KBSTAT_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror
# libjansson reads JSON (json.c), libgsl has the distributions (stats.c):
# make deps installs both
KBSTAT_LIBS := -ljansson -lgsl -lgslcblas -lm

.PHONY: analysis-tools report analysis-check history-import history

analysis-tools: $(KBSTAT)

$(KBSTAT): $(KBSTAT_SRC) $(KBSTAT_HDR)
	@mkdir -p $(@D)
	$(if $(filter 1,$(V)),,@echo "  CC      $@";) \
		$(KBSTAT_CC) $(KBSTAT_CFLAGS) -o $@.tmp $(KBSTAT_SRC) $(KBSTAT_LIBS) || { \
		echo "kbench: error: kbstat does not build (no jansson.h or gsl/? make deps)" >&2; \
		exit 1; }
	@mv $@.tmp $@

# make report RUN=reports/<id>: regenerate the report from raw data alone.
report: $(KBSTAT)
	@if [ -z "$(RUN)" ]; then \
		echo "kbench: error: make report needs RUN=reports/<id>" >&2; exit 1; fi
	@KBSTAT=$(KBSTAT) $(TOP)/analysis/report.sh $(RUN)

# The series' history (analysis/history.sh, README.md): record the runs
# under reports/ (or RUN=reports/<id>) in $(HISTORY_DB), idempotently;
# print each metric across the series' revisions, with its change points,
# and write $(HISTORY_OUT)/index.html. SERIES= (bench.conf's default
# kernel/series is not a filter) is a series spec, or part of a title.
HISTORY_DB ?= $(KBENCH_CACHE)/history.sqlite
HISTORY_OUT ?= $(TOP)/reports/history
history-import: deps $(KBSTAT)
	@HISTORY_DB=$(HISTORY_DB) KBSTAT=$(KBSTAT) $(TOP)/analysis/history.sh import $(RUN)

history: deps $(KBSTAT)
	@HISTORY_DB=$(HISTORY_DB) KBSTAT=$(KBSTAT) $(TOP)/analysis/history.sh show \
		$(if $(WORKLOAD),--workload '$(WORKLOAD)') $(if $(METRIC),--metric '$(METRIC)') \
		$(if $(filter command line environment,$(origin SERIES)),--series '$(SERIES)') \
		--out $(HISTORY_OUT)

# shellcheck of the analysis scripts and the analysis unit tests.
analysis-check: $(KBSTAT)
	shellcheck $(TOP)/analysis/*.sh
	prove $(TOP)/tests/unit/analysis-*.t
