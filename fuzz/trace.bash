# SPDX-License-Identifier: GPL-2.0
# BASH_ENV of the shell fuzz harnesses (fuzz/sh.c): every command bash
# runs is traced as "+FILE:LINE ..." to fd 9, where the harness turns
# the lines run into coverage for libFuzzer. Not for anything else.
# shellcheck shell=bash
PS4='+${BASH_SOURCE[0]##*/}:${LINENO} '
BASH_XTRACEFD=9
set -x
