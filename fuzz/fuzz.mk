# SPDX-License-Identifier: GPL-2.0
# fuzz/: a libFuzzer harness for every parser, and the host tools built
# with ASan and UBSan for the unit tests (fuzz/README.md). Included by
# the top Makefile, which defines TOP, V and FUZZ_TIME.
#
#   make fuzz            run each harness FUZZ_TIME seconds (bench.conf)
#   make fuzz-tools      build the harnesses into build/fuzz/
#   make sanitize-tools  kbstat, kbbench, irqcompat into build/asan/

FUZZ_OUT := $(TOP)/build/fuzz
ASAN_OUT := $(TOP)/build/asan
FUZZ_CC := clang
FUZZ_Q := $(if $(filter 1,$(V)),,@)
# -O1 -g: readable reports; no recovery, so UBSan's first report is fatal.
# Warnings are not errors here: the rooms' own builds (cc -Werror) are
# the bar, and clang warns of other things than gcc.
SAN_FLAGS := -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -Wall -Wextra $(SAN_FLAGS) \
	-fsanitize=fuzzer,address,undefined -DKB_TOP='"$(TOP)"'
ASAN_CFLAGS := -Wall -Wextra $(SAN_FLAGS) -fsanitize=address,undefined

# One harness a program workload parser (workloads/parsers/NAME.awk):
# parse_NAME, '-' as '_'; a new parser gets its own with no edit here.
FUZZ_PARSERS := $(sort $(basename $(notdir $(wildcard $(TOP)/workloads/parsers/*.awk))))
FUZZ_HARNESSES := raw_csv json irqcompat kbbench_args check_conf wl series changepoint \
	$(addprefix parse_,$(subst -,_,$(FUZZ_PARSERS)))
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/,$(FUZZ_HARNESSES))

# The sources of each tool.
FUZZ_KBSTAT_SRC := $(filter-out %/kbstat.c,$(wildcard $(TOP)/analysis/*.c))
FUZZ_KBSTAT_HDR := $(wildcard $(TOP)/analysis/*.h)
# kbbench check's parser is kbbench.c's; the harness links the modules
# that build without a kernel (not the BPF ones: they need the patched
# kernel's vmlinux.h and libbpf), the sanitizer build links them all.
FUZZ_BENCH_ALL := $(filter-out %.bpf.c,$(wildcard $(TOP)/bench/*.c))
FUZZ_BENCH_SRC := $(filter-out /dev/null,$(shell grep -L -e '<bpf/' \
	-e 'skel\.h' -e 'kbbpf\.h' $(FUZZ_BENCH_ALL) /dev/null))
FUZZ_SH_SRC := $(TOP)/fuzz/sh.c $(TOP)/fuzz/sh.h

ASAN_BINS := $(ASAN_OUT)/analysis/kbstat $(ASAN_OUT)/bench/kbbench \
	$(ASAN_OUT)/checks/proc-interrupts/irqcompat

.PHONY: fuzz fuzz-tools sanitize-tools

fuzz-tools: $(FUZZ_BINS)
sanitize-tools: $(ASAN_BINS)

# make fuzz: analysis-tools writes the JSON seeds (fuzz/seeds.sh).
fuzz: deps fuzz-tools analysis-tools
	@$(TOP)/fuzz/run.sh "$(FUZZ_TIME)" $(FUZZ_HARNESSES)

# FUZZ_LINK OUT, SOURCES...: compile and link one harness.
define FUZZ_LINK
	@mkdir -p $(@D)
	@$(if $(FUZZ_Q),echo "  FUZZ    $(patsubst $(TOP)/%,%,$@)")
	$(FUZZ_Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(1) -o $@.tmp $(2) && mv $@.tmp $@
endef

$(FUZZ_OUT)/raw_csv: $(TOP)/fuzz/raw_csv.c $(FUZZ_KBSTAT_SRC) $(FUZZ_KBSTAT_HDR)
	$(call FUZZ_LINK,,$(filter %.c,$^) $(KBSTAT_LIBS))

$(FUZZ_OUT)/json: $(TOP)/fuzz/json.c $(FUZZ_KBSTAT_SRC) $(FUZZ_KBSTAT_HDR)
	$(call FUZZ_LINK,,$(filter %.c,$^) $(KBSTAT_LIBS))

$(FUZZ_OUT)/changepoint: $(TOP)/fuzz/changepoint.c $(FUZZ_KBSTAT_SRC) $(FUZZ_KBSTAT_HDR)
	$(call FUZZ_LINK,,$(filter %.c,$^) $(KBSTAT_LIBS))

$(FUZZ_OUT)/irqcompat: $(TOP)/fuzz/irqcompat.c \
		$(TOP)/kernel/checks/proc-interrupts/irqcompat.c \
		$(TOP)/kernel/checks/proc-interrupts/irqparse.h
	$(call FUZZ_LINK,,$<)

$(FUZZ_OUT)/kbbench_args: $(TOP)/fuzz/kbbench_args.c $(FUZZ_BENCH_SRC) \
		$(TOP)/bench/kbbench.h
	$(call FUZZ_LINK,-Dmain=kbbench_main,$(filter %.c,$^))

# The shell parsers' harnesses: fuzz/NAME.c and the runner, sh.c.
$(FUZZ_OUT)/check_conf $(FUZZ_OUT)/wl $(FUZZ_OUT)/series: \
		$(FUZZ_OUT)/%: $(TOP)/fuzz/%.c $(FUZZ_SH_SRC)
	$(call FUZZ_LINK,,$(filter %.c,$^))

# The parsers' harnesses: fuzz/parser.c, built once a parser (KB_PARSER).
$(FUZZ_OUT)/parse_%: $(TOP)/fuzz/parser.c $(FUZZ_SH_SRC) \
		$(TOP)/fuzz/parser-driver.sh $(TOP)/workloads/parsers/parse.sh
	$(call FUZZ_LINK,-DKB_PARSER='"$(subst _,-,$*)"',$(filter %.c,$^))

# Host tools with ASan and UBSan: the unit tests run them once more
# (tests/unit/sanitizers.t). Same sources and flags as their rooms' own
# builds, plus the sanitizers.
define ASAN_LINK
	@mkdir -p $(@D)
	@$(if $(FUZZ_Q),echo "  ASAN    $(patsubst $(TOP)/%,%,$@)")
	$(FUZZ_Q)$(FUZZ_CC) $(1) $(ASAN_CFLAGS) -o $@.tmp $(2) && mv $@.tmp $@
endef

$(ASAN_OUT)/analysis/kbstat: $(wildcard $(TOP)/analysis/*.c) $(FUZZ_KBSTAT_HDR)
	$(call ASAN_LINK,-std=c11,$(filter %.c,$^) $(KBSTAT_LIBS))

# As bench.mk builds it: the BPF modules' skeletons, the patched tree's
# libbpf (bench.mk's KB_* variables).
$(ASAN_OUT)/bench/kbbench: $(FUZZ_BENCH_ALL) $(wildcard $(TOP)/bench/*.h) \
		$(KB_SKELS) $(KB_BPF)/lib/libbpf.a
	$(call ASAN_LINK,-std=gnu11 $(KB_BENCH_INC),$(FUZZ_BENCH_ALL) $(KB_BENCH_LIBS))

$(ASAN_OUT)/checks/proc-interrupts/irqcompat: \
		$(TOP)/kernel/checks/proc-interrupts/irqcompat.c \
		$(TOP)/kernel/checks/proc-interrupts/irqparse.h
	$(call ASAN_LINK,-std=gnu11,$<)
