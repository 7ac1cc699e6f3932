/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plain-text summary for a mailing-list reply (mail.c): 80 columns,
 * the answer first.
 */
#ifndef KBSTAT_MAIL_H
#define KBSTAT_MAIL_H

#include <stddef.h>

#include "results.h"

/*
 * rs's rows as kbstat summary --format txt prints them, each workload's
 * primary rows followed by its cover table in covers (variant
 * comparisons, ncover of them; pt: the run's workload files). The notes
 * on the method are the caller's.
 */
void summary_mail(const struct results *rs, const struct results *covers,
		  size_t ncover, const struct primary_tab *pt);

#endif
