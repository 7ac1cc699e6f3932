# SPDX-License-Identifier: GPL-2.0
# workloads/: running the benchmarks and the user-facing comparisons.
#   make bench              run the workloads on baseline and patched
#   make bench-compare      kernels, image, bench, report: the main job
#   make calibrate          A/A run, baseline against baseline: noise floor
#   make regression-check NEW=<series|dir|mbox> [OLD=kernel/series] [REF=reports/<id>]

.PHONY: bench bench-compare calibrate regression-check kernel-new kernel-old

BENCH_DEPS := deps check-conf kernels image bench-tools analysis-tools

bench: $(BENCH_DEPS)
	@workloads/compare.sh --no-report

bench-compare: $(BENCH_DEPS)
	@workloads/compare.sh

calibrate: $(BENCH_DEPS)
	@workloads/compare.sh --calibrate

regression-check: $(BENCH_DEPS)
	@workloads/regress.sh
