/* SPDX-License-Identifier: MIT */
/* The big arrays' memory helpers (base/util.c): a huge-page hint leaves a
 * block one mapping, so that realloc moves it with mremap instead of copying
 * it (a 10 M-event table was held twice while it grew); tl_forget gives a
 * block's pages back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/base_internal.h"
#include "tap.h"

/* How many mappings of /proc/self/maps overlap [p, p+n); -1 if unreadable. */
static int mappings(const void *p, size_t n)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + n, a, b;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int k = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a < hi && b > lo)
			k++;
	fclose(f);
	return k;
}

/* Resident pages of [p, p+n) (mincore); -1 on error. */
static long resident(const void *p, size_t n)
{
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095, hi = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;
	size_t np = (hi - lo) / 4096, i;
	unsigned char *v = malloc(np);
	long r = 0;

	if (!v || mincore((void *)lo, hi - lo, v)) {
		free(v);
		return -1;
	}
	for (i = 0; i < np; i++)
		r += v[i] & 1;
	free(v);
	return r;
}

int main(void)
{
	char *a = NULL, *b;
	size_t cap = 0, i;
	int m;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	skip_all("the sanitizer's allocator maps big blocks its own way");
#endif
	plan(6);
	/* probe: without THP in the kernel a hint is refused and splits nothing */
	b = mmap(NULL, 8u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED || madvise(b + 4096, 4u << 20, MADV_HUGEPAGE))
		skip_all("no madvise(MADV_HUGEPAGE) here");
	m = mappings(b, 8u << 20);
	munmap(b, 8u << 20);
	if (m != 3)
		skip_all("a hint does not split a mapping here");

	m = tl_grow((void **)&a, &cap, 24u << 20, 1) ? -1 : mappings(a, cap);
	ok(m == 1, "a hinted 32 MiB array is one mapping (%d)", m);
	memset(a, 1, cap);
	b = a;
	m = tl_grow((void **)&a, &cap, cap + 1, 1) ? -1 : mappings(a, cap);
	ok(m == 1, "grown to 64 MiB: still one mapping (%d)", m);
	for (i = 0; i < cap / 2 && a[i] == 1; i++)
		;
	ok(i == cap / 2, "its content moved along");
	diag("moved from %p to %p", (void *)b, (void *)a);
	b = tl_malloc_big(40u << 20);
	ok(b && mappings(b, 40u << 20) == 1, "tl_malloc_big: one mapping");
	memset(b, 2, 40u << 20);
	tl_forget(b + 100, (16u << 20) - 100);
	ok(resident(b, 40u << 20) <= (long)((24u << 20) / 4096) + 2,
	   "tl_forget gives back the pages wholly inside its range (%ld of %u resident)",
	   resident(b, 40u << 20), (40u << 20) / 4096);
	ok(b[99] == 2 && b[(16u << 20) + 1] == 2 && b[4096] == 0, "the pages around it keep their content");
	free(b);
	free(a);
	return done_testing();
}
