# SPDX-License-Identifier: GPL-2.0
# kernel/: make bisect-check builds and boots every prefix of the series.
.PHONY: bisect-check
bisect-check: deps check-conf image bench-tools
	@kernel/bisect-check.sh "$(SERIES)"
