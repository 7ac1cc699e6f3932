/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbstat table (table.c): the data of the report's charts and tables, as
 * TSV that gnuplot reads directly and report.sh only wraps in markup.
 */
#ifndef KBSTAT_TABLE_H
#define KBSTAT_TABLE_H

int cmd_table(int argc, char **argv);

#endif
