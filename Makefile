# SPDX-License-Identifier: GPL-2.0
# kbench: what does this kernel patch series do to performance?
# Run `make help` for the targets.

-include bench.local.conf
include bench.conf

SHELL := /bin/bash
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

TOP := $(CURDIR)
export KBENCH_CACHE KERNEL_SRC_PKG KERNEL_SRC_TAR KCONFIG_FRAGMENT KCC JOBS DEBUG KCONFIG_DEBUG_FRAGMENT
export IMAGE ROOT ACCEL CLOCK VCPUS MEM BOOT_TIMEOUT BOOTS BOOTS_MAX WORKLOADS QUICK
export PROFILE FORCE V TOP RESUME BENCH_VCPUS NEW OLD REF RUN SERIES RETRIES
export FUZZ_TIME MODEL BOOT_JOBS MATRIX HOSTS HOSTS_KNOWN_HOSTS HOSTS_SSH_CONFIG HOSTS_MIN_FREE_MB
export BISECT GOOD WORKLOAD POINT METRIC VARIANT BISECT_BOOTS BISECT_GOOD BISECT_REF

.PHONY: help deps check-conf kernels kernel-baseline kernel-patched test \
	test-unit test-vm test-bisect clean

help:
	@echo "kbench targets:"
	@echo "  make bench-compare     build both kernels and the image, run the workloads, write a report"
	@echo "  make report RUN=reports/<id>    regenerate a report from its raw data"
	@echo "  make regression-check NEW=<series|dir|mbox|git:repo:base..head> [OLD=kernel/series] [REF=reports/<id>]"
	@echo "  make bisect-perf NEW=<series> WORKLOAD=w [GOOD=baseline|<series>] [POINT=] [METRIC=]"
	@echo "                         which patch of NEW made it slower: bisects the series' prefixes"
	@echo "                         (regression-check BISECT=1 starts it from a failed gate)"
	@echo "  make calibrate         A/A run (baseline vs baseline): measures the noise floor"
	@echo "  make history [WORKLOAD=] [METRIC=] [SERIES=]   each metric across the series' revisions,"
	@echo "                         with change points (reports/history/index.html)"
	@echo "  make history-import [RUN=...]   (re)fill \$$KBENCH_CACHE/history.sqlite from reports/"
	@echo "  make kernels           build the baseline and patched kernels (cached by content);"
	@echo "                         DEBUG=1: their KASAN + lockdep variants (baseline-debug, patched-debug)"
	@echo "  make test-debug        boot the debug kernels: the series' checks and every workload once,"
	@echo "                         then a scan of their kernel logs for splats (KASAN, lockdep, WARNING)"
	@echo "  make image             build the Debian 12 cloud image (cached)"
	@echo "  make boot-test         boot both kernels and check them, with the checks the series brings (kernel/checks/)"
	@echo "  make bisect-check      build and boot every prefix of the series, running its checks"
	@echo "  make bench             run the workloads on both kernels, no report"
	@echo "  make test              unit tests and VM tests (TAP, prove)"
	@echo "  make test-bisect       make bisect-perf on the fixture series (tests/long, ~12 min warm)"
	@echo "  make fuzz              run every parser's fuzz harness FUZZ_TIME s (fuzz/README.md)"
	@echo "  make fuzz-kernel       the debug kernels under kfuzz and trinity, FUZZ_KERNEL_TIME min each;"
	@echo "                         SEED=N replays a run (kernel/fuzz/README.md)"
	@echo "  make deps              check/install the Debian packages needed"
	@echo "  make deps-proof        on a systemd guest: make deps' install opens no port"
	@echo "  make clean             remove build outputs in the repo (not the cache)"
	@echo "Rooms: orchestrate/ is what bench-compare runs on the host, guest/ what runs in the guest,"
	@echo "workloads/ the .wl files, bench/ the benchmarks, analysis/ the statistics (README: Layout)."
	@echo "Settings: see bench.conf; override in bench.local.conf or with KEY=value. V=1 is verbose."

deps:
	@scripts/deps.sh

# make deps-proof: on a systemd guest, make deps' install of
# openssh-server opens no port (scripts/deps-proof.sh); one boot
.PHONY: deps-proof
deps-proof: deps kernel-baseline image
	@scripts/deps-proof.sh

check-conf:
	@scripts/check-conf.sh bench.conf $(wildcard bench.local.conf)

kernels: kernel-baseline kernel-patched

# Baseline first, then patched: never two kernel builds at once.
kernel-baseline: deps check-conf
	@kernel/scripts/build.sh baseline none

kernel-patched: deps check-conf | kernel-baseline
	@kernel/scripts/build.sh patched "$(SERIES)"

# Area makefiles (kernel, images, bench, orchestrate, analysis, fuzz, model) add their targets.
include $(sort $(wildcard kernel/*.mk images/*.mk bench/*.mk orchestrate/*.mk analysis/*.mk \
	fuzz/*.mk model/*.mk))

# make test runs the two suites side by side, each one file at a time: a
# TCG guest keeps one host core busy and the unit tests use the other.
TEST_PREREQS := deps kernels image bench-tools check-tools analysis-tools fuzz-tools sanitize-tools \
	model-tools kfuzz-tools
test: $(TEST_PREREQS)
	prove --timer -j2 --rules='seq=tests/vm/*.t' --rules='seq=tests/unit/*.t' -r tests/vm tests/unit

test-unit: deps bench-tools check-tools analysis-tools fuzz-tools sanitize-tools model-tools
	prove -r tests/unit

# The VM tests need both kernels and the image; they boot guests.
test-vm: deps kernels image bench-tools check-tools analysis-tools kfuzz-tools
	prove -r tests/vm

# Too long for make test's budget (tests/long/): make bisect-perf on the
# fixture series, 6 prefix kernels and 21 boots, about 12 min warm.
test-bisect: deps kernels image bench-tools check-tools analysis-tools
	prove --timer tests/long/bisect-perf.t

clean:
	rm -rf build
