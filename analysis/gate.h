/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The regression check's verdict as its report's first lines (gate.c).
 */
#ifndef KBSTAT_GATE_H
#define KBSTAT_GATE_H

/*
 * kbstat gate NEW-VS-OLD.json [--baseline NEW-VS-BASELINE.json]
 * [--series SERIES.tsv] [--format txt|md]: exit 0 PASS, 1 REGRESSION,
 * 2 on an error.
 */
int cmd_gate(int argc, char **argv);

#endif
