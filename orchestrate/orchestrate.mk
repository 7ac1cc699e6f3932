# SPDX-License-Identifier: GPL-2.0
# orchestrate/: what make bench-compare runs on the host: the plan, the
# interleaved boots, the fingerprint, the floor and the regression gate.
#   make bench              run the workloads on baseline and patched
#   make bench-compare      kernels, image, bench, report: the main job
#   make calibrate          A/A run, baseline against baseline: noise floor
#   make regression-check NEW=<series|dir|mbox> [OLD=kernel/series] [REF=reports/<id>] [BISECT=1]
#   make bisect-perf NEW=<series> WORKLOAD=W [GOOD=baseline|<series>] [POINT=] [METRIC=]

.PHONY: bench bench-compare calibrate regression-check bisect-perf

BENCH_DEPS := deps check-conf kernels image bench-tools analysis-tools
# MODEL=cache: the boots load the kbcache plugin (model/README.md). A
# workload file's own `model = cache` needs it too: run.sh says so.
ifeq ($(MODEL),cache)
BENCH_DEPS += model-tools
endif

bench: $(BENCH_DEPS)
	@orchestrate/compare.sh --no-report

bench-compare: $(BENCH_DEPS)
	@orchestrate/compare.sh

calibrate: $(BENCH_DEPS)
	@orchestrate/compare.sh --calibrate

regression-check: $(BENCH_DEPS)
	@orchestrate/regress.sh

bisect-perf: $(BENCH_DEPS)
	@orchestrate/bisect.sh
