// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: irqcompat's /proc/interrupts parser
 * (kernel/checks/proc-interrupts/irqcompat.c, included whole, its main
 * renamed). The input is one read, or two joined by a NUL byte. One:
 * parse and print it, and compare it with itself. Two: parse both, then
 * compare (6.12 against 7.2) and grow (first read, second read), and
 * check the first against the second as a /proc/stat read (statsum)
 * and as a per_cpu_count snapshot (percpu).
 */
#define main irqcompat_main
#include "../kernel/checks/proc-interrupts/irqcompat.c"
#undef main

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data[0..n) as a NUL-terminated copy of exactly that size (+1). */
static char *copy(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t n1 = nul ? (size_t)(nul - data) : size;
	char *a = copy(data, n1), *b = NULL;
	struct percpu_snap *snap;
	struct table ta, tb;
	size_t nsnap;

	if (parse_buf(&ta, "a", a, n1))
		goto out;
	if (!nul) {
		print_table(&ta);
		compare_tables(&ta, &ta);
		grow_tables(&ta, &ta);
		free_table(&ta);
		goto out;
	}
	b = copy(nul + 1, size - n1 - 1);
	statsum(&ta, b, "b");
	/* b as a per_cpu_count snapshot, before and after alike */
	if (!parse_percpu_buf(b, "b", &snap, &nsnap)) {
		percpu_check(&ta, snap, nsnap, snap, nsnap);
		free_percpu(snap, nsnap);
	}
	if (!parse_buf(&tb, "b", b, size - n1 - 1)) {
		compare_tables(&ta, &tb);
		grow_tables(&ta, &tb);
		free_table(&tb);
	}
	free_table(&ta);
out:
	free(a);
	free(b);
	nr_violations = 0;
	return 0;
}
