# SPDX-License-Identifier: GPL-2.0
# images/: the guest image, the per-boot NoCloud seed and the QEMU launcher.
#   make image       build the Debian 12 cloud image (cached by content);
#                    with IMAGE=<qcow2> only checks the user's image
#   make boot-test   boot the baseline and patched kernels and check them

.PHONY: image boot-test

image: deps
	@img=$$(images/build-image.sh) && echo "kbench: guest image: $$img"

boot-test: kernels image check-tools
	@prove -v tests/vm/boot-kernels.t
