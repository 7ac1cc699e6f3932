/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The method's constants: the only place they are written. kbstat
 * compare decides with them and records them in results.json; the
 * views word them from there (model.c), never from a copy of their own.
 */
#ifndef KBSTAT_METHOD_H
#define KBSTAT_METHOD_H

#define DEFAULT_SEED 20241212ULL
#define DEFAULT_REPS 2000	/* bootstrap resamples */
#define MIN_SAMPLES 5		/* a side, for a verdict */
#define MIN_BOOTS 3		/* a side, for a verdict */
#define ALPHA 0.05		/* BH-adjusted, on top of the interval rule */
#define MIN_EFFECT 0.01		/* the floor is never below this */
/* The interval shown with every estimate. */
#define CI_LEVEL 0.95
/*
 * The interval a verdict is decided on: its ends are one-sided 95 %
 * bounds, so "worse than the floor" and "inside the floor" are each a
 * one-sided test at 5 % (as in an equivalence test, TOST).
 */
#define DECISION_LEVEL 0.90
/*
 * Boots are the unit when Kruskal-Wallis across a side's boots gives
 * p below this. Deliberately lax: a pre-test that misses a real boot
 * effect would pool dependent samples, one that fires by chance only
 * costs the power of the sample-level interval.
 */
#define BOOT_EFFECT_P 0.20
/*
 * The boot-effect warning: between-boot spread above BOOT_WARN_SPREAD
 * times the within-boot spread, with Kruskal-Wallis p below BOOT_WARN_P.
 */
#define BOOT_WARN_P 0.01
#define BOOT_WARN_SPREAD 2.0

#endif
