# SPDX-License-Identifier: GPL-2.0
# model/: kbcache, the QEMU TCG plugin that models L1D, LLC and DTLB for
# deterministic memory-aware sample costs (model/README.md), built with
# the host compiler; and the host driver its unit test runs.
# Included by the top Makefile, which defines TOP and V.

KBC_OUT := $(TOP)/build/model
KBC_CC ?= cc
KBC_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror
KBC_Q := $(if $(filter 1,$(V)),,@)
KBC_CORE := $(TOP)/model/cache.c
KBC_HDRS := $(wildcard $(TOP)/model/*.h)

.PHONY: model-tools
model-tools: $(KBC_OUT)/libkbcache.so $(KBC_OUT)/test-cache

$(KBC_OUT)/libkbcache.so: $(TOP)/model/kbcache.c $(KBC_CORE) $(KBC_HDRS)
	@mkdir -p $(@D)
	@$(if $(KBC_Q),echo "  CC      build/model/libkbcache.so")
	$(KBC_Q)$(KBC_CC) $(KBC_CFLAGS) -shared -fPIC -fvisibility=hidden \
		-o $@.tmp $(TOP)/model/kbcache.c $(KBC_CORE) -lpthread && mv $@.tmp $@

$(KBC_OUT)/test-cache: $(TOP)/model/test-cache.c $(KBC_CORE) $(KBC_HDRS)
	@mkdir -p $(@D)
	@$(if $(KBC_Q),echo "  CC      build/model/test-cache")
	$(KBC_Q)$(KBC_CC) $(KBC_CFLAGS) -o $@.tmp $(TOP)/model/test-cache.c \
		$(KBC_CORE) && mv $@.tmp $@
