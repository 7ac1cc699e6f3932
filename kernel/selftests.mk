# SPDX-License-Identifier: GPL-2.0
# kernel/: make upstream-selftests runs 6.12's own BPF selftests
# (test_progs, test_maps), built from each kernel's tree against its BTF,
# in a guest on two kernels, and compares them (kernel/selftests/run.sh).
# KERNELS="A B": the reference first; default baseline and patched, with
# DEBUG=1 their -debug variants.
.PHONY: upstream-selftests
KERNELS ?= $(if $(filter 1,$(DEBUG)),baseline-debug patched-debug,baseline patched)
# DEBUG=1 leaves test_maps-partial out: under KASAN and lockdep, in TCG,
# it ran for over 70 minutes without finishing (211 s on the plain
# kernels). test_maps, which stops at its sockmap part, still runs.
ST_SKIP ?= $(if $(filter 1,$(DEBUG)),test_maps-partial)
upstream-selftests: deps kernels image
	@ST_SKIP="$(ST_SKIP)" kernel/selftests/run.sh $(KERNELS)
