/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbstat answer (answer.c): the report's first lines, what the series
 * does, one line per claim the run's workload files make.
 */
#ifndef KBSTAT_ANSWER_H
#define KBSTAT_ANSWER_H

/*
 * kbstat answer RESULTS.json --run RUN [--variants VARIANTS.json]...
 * [--width N]: the answer block as text, N columns (default 80).
 */
int cmd_answer(int argc, char **argv);

#endif
