# SPDX-License-Identifier: GPL-2.0
# kernel/: make upstream-selftests runs 6.12's own BPF selftests
# (test_progs, test_maps), built from each kernel's tree against its BTF,
# in a guest on two kernels, and compares them (kernel/selftests/run.sh).
# KERNELS="A B": the reference first; default baseline and patched, with
# DEBUG=1 their -debug variants.
.PHONY: upstream-selftests
KERNELS ?= $(if $(filter 1,$(DEBUG)),baseline-debug patched-debug,baseline patched)
upstream-selftests: deps kernels image
	@kernel/selftests/run.sh $(KERNELS)
