/* SPDX-License-Identifier: GPL-2.0 */
/* kbstat sequential (seqcmd.c) */
#ifndef KBSTAT_SEQCMD_H
#define KBSTAT_SEQCMD_H

int cmd_sequential(int argc, char **argv);

#endif
