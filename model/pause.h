/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Excluding asynchronous interrupts from a window (model/README.md).
 * Per vCPU, a span starts when an external-interrupt or system-vector
 * entry stub runs in the window's context, and ends at the iretq that
 * returns from it: nothing in the span counts or touches the model, so
 * the window is as if the interrupt never came. Kernel entries inside
 * the span (an exception, a nested interrupt) nest; each iretq unnests.
 *
 * If the interrupt switches tasks (__switch_to_asm stores the old
 * task's stack pointer, then loads the new one's), the span's owner is
 * the task switched out, named by the address of its thread.sp: entries
 * and returns of other tasks leave the span alone until the owner is
 * switched back in. Syscalls never nest (a task that slept in one
 * returns with sysretq, whose entry came before the span).
 *
 * Pure functions of the state, shared by the plugin and test-cache.
 */
#ifndef KBC_PAUSE_H
#define KBC_PAUSE_H

#include <stdint.h>

struct kbc_pause {
	unsigned int depth;	/* kernel entries open in the span; 0: none */
	uint64_t owner;		/* the span's task while it is switched out */
	uint64_t start;		/* the instruction count where the span began */
};

/* An interrupt entry at instruction count at (the entry not yet run). */
static inline void kbc_pause_irq(struct kbc_pause *p, uint64_t at)
{
	if (p->owner)
		return;
	if (p->depth++ == 0)
		p->start = at;
}

/* An exception entry: it nests only inside a span (else it is the work's). */
static inline void kbc_pause_exc(struct kbc_pause *p)
{
	if (p->depth && !p->owner)
		p->depth++;
}

/*
 * An iretq, at count at (the iretq run). Returns 1 when it ends the
 * span, with the span's instructions in *span.
 */
static inline int kbc_pause_iret(struct kbc_pause *p, uint64_t at,
				 uint64_t *span)
{
	if (!p->depth || p->owner || --p->depth)
		return 0;
	*span = at - p->start;
	return 1;
}

/* __switch_to_asm saves the stack pointer of the task at id (prev). */
static inline void kbc_pause_switch_out(struct kbc_pause *p, uint64_t id)
{
	if (p->depth && !p->owner)
		p->owner = id;
}

/* __switch_to_asm loads the stack pointer of the task at id (next). */
static inline void kbc_pause_switch_in(struct kbc_pause *p, uint64_t id)
{
	if (p->owner == id)
		p->owner = 0;
}

#endif /* KBC_PAUSE_H */
