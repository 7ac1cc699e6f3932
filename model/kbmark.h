/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The window markers kbbench puts around each sample and the kbcache
 * plugin recognises at translation time. Each is an 8-byte x86 NOP,
 * "nopl DISP32(%rax,%rax,1)" (0f 1f 84 00 + a little-endian disp32),
 * whose displacement is the magic: a NOP reads no memory, so without
 * the plugin a marker costs one instruction and changes nothing.
 */
#ifndef KBMARK_H
#define KBMARK_H

/* "KBS" + kind: a window around a measured sample, a warm-up one, the end */
#define KBMARK_SAMPLE	0x4b425301u
#define KBMARK_WARMUP	0x4b425302u
#define KBMARK_END	0x4b425345u

/* The four opcode bytes before the displacement. */
#define KBMARK_OPCODE	"\x0f\x1f\x84\x00"
#define KBMARK_LEN	8

#if defined(__x86_64__) || defined(__i386__)
/*
 * Emit the marker as raw bytes (no assembler choice of encoding); the
 * displacement goes in as an immediate operand (%c0: the bare number),
 * which both gcc's and clang's assemblers take. The "memory" clobber
 * keeps the compiler from moving the sample's memory accesses across
 * the marker.
 */
#define KBMARK(magic)							\
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x84, 0x00\n\t"	\
			     ".long %c0" : : "i" (magic) : "memory")
#else
#define KBMARK(magic)	do { } while (0)
#endif

#endif /* KBMARK_H */
