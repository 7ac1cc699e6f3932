/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzzing a shell parser (sh.c): the harness writes the input to a file
 * and runs the script on it with bash. The property: the script exits 0,
 * or exits 1 after "kbench: error: ..." on stderr; anything else (a bash
 * error such as "unbound variable" or "syntax error", another exit
 * status, a signal, a stderr line that is not kbench's own, a hang) is
 * printed and abort()ed, so libFuzzer keeps the input as a crash.
 *
 * Coverage: libFuzzer sees only the harness's C code, so bash traces the
 * script (BASH_ENV=fuzz/trace.bash, set -x to a pipe) and every script
 * line that runs bumps an extra counter, which libFuzzer uses as
 * coverage of the script.
 */
#ifndef KB_FUZZ_SH_H
#define KB_FUZZ_SH_H

#include <stddef.h>
#include <stdint.h>

/* A run that takes longer than this (ms) is a hang. */
#define SH_HANG_MS	20000

/*
 * Once, from LLVMFuzzerInitialize: a scratch directory for the harness
 * (returned; removed at exit) and the environment of the runs.
 */
const char *sh_init(const char *harness);
/* Writes data[0..size) to path, or aborts naming it. */
void sh_write(const char *path, const uint8_t *data, size_t size);
/* Runs argv (argv[0] a path, NULL-terminated) and checks the property. */
void sh_check(char *const argv[]);

#endif
