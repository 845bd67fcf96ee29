/* SPDX-License-Identifier: MIT */
/* Internal helpers: logging, last-error, growable arrays, arena, hashing. */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <time.h>

#include "base/base_internal.h"

/* ------------------------------------------------------------------ logging */

static void default_print(enum tl_log_level lvl, const char *msg, void *ctx);

/* Set by tl_set_print(), which common.h asks to call before other threads use the
 * library; read by every thread after. */
static tl_print_fn print_fn = default_print;
static void *print_ctx;
static _Thread_local char last_error[1024];

/* $TLREPLAY_LOG_LEVEL, read once: threads logging at once raced on a lazily set cache. */
static pthread_once_t env_level_once = PTHREAD_ONCE_INIT;
static enum tl_log_level env_level_value = TL_LOG_WARN;

static void env_level_read(void)
{
	const char *s = getenv("TLREPLAY_LOG_LEVEL");

	if (!s)
		return;
	if (!strcmp(s, "error"))
		env_level_value = TL_LOG_ERROR;
	else if (!strcmp(s, "info"))
		env_level_value = TL_LOG_INFO;
	else if (!strcmp(s, "debug"))
		env_level_value = TL_LOG_DEBUG;
}

static enum tl_log_level env_level(void)
{
	pthread_once(&env_level_once, env_level_read);
	return env_level_value;
}

static void default_print(enum tl_log_level lvl, const char *msg, void *ctx)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };

	TL_UNUSED(ctx);
	if (lvl > env_level())
		return;
	fprintf(stderr, "libtlreplay: %s: %s\n", names[lvl], msg);
}

tl_print_fn tl_set_print(tl_print_fn fn, void *ctx)
{
	tl_print_fn old = print_fn;

	print_fn = fn ? fn : default_print;
	print_ctx = fn ? ctx : NULL;
	return old;
}

void tl_log(enum tl_log_level lvl, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tl_one_line(buf, sizeof(buf));
	print_fn(lvl, buf, print_ctx);
}

void tl_one_line(char *buf, size_t size)
{
	size_t n, i, k = 0, extra = 0;
	char *src;

	if (!buf || !size)
		return;
	n = strnlen(buf, size - 1);
	buf[n] = 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			extra += strchr("\n\r\t", buf[i]) ? 1 : 3;
	if (!extra)
		return;
	src = strndup(buf, n);	/* rare: a message quoting a control character */
	if (!src) {
		for (i = 0; i < n; i++)
			if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
				buf[i] = '?';
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		char esc[5];

		if (c >= 0x20 && c != 0x7f)
			esc[0] = (char)c, esc[1] = 0;
		else if (c == '\n' || c == '\r' || c == '\t')
			snprintf(esc, sizeof(esc), "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		else
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		if (k + strlen(esc) >= size)
			break;
		memcpy(buf + k, esc, strlen(esc));
		k += strlen(esc);
	}
	buf[k] = 0;
	free(src);
}

int tl_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	tl_one_line(last_error, sizeof(last_error));
	tl_log(TL_LOG_DEBUG, "%s", last_error);
	return err;
}

const char *tl_last_error(void)
{
	return last_error;
}

const char *tl_version(void)
{
#define TL_STR2(x) #x
#define TL_STR(x) TL_STR2(x)
	return TL_STR(TL_VERSION_MAJOR) "." TL_STR(TL_VERSION_MINOR) "." TL_STR(TL_VERSION_PATCH);
}

/* ------------------------------------------------------------------ vectors */

int tl_grow(void **ptr, size_t *cap, size_t need, size_t esz)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / esz)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*ptr, ncap * esz);
	if (!p)
		return -ENOMEM;
	/* the whole block: a hint of the new part only would split its
	 * mapping (see tl_hint_huge) */
	tl_hint_huge(p, ncap * esz);
	*ptr = p;
	*cap = ncap;
	return 0;
}

void tl_hint_huge(void *p, size_t n)
{
	const uintptr_t pg = 4096;
	uintptr_t lo = (uintptr_t)p & ~(pg - 1), hi;

	if (n < TL_HUGE_MIN)
		return;
	/* A block this big is a mapping of its own, from the page @p is on to
	 * the end of its usable size: hint all of it. A hint of only its
	 * 2 MiB-aligned middle split it into mappings of different flags,
	 * which mremap cannot move as one, and glibc's realloc then copied
	 * the block (a 10 M-event table growing from 671 MB to 1.3 GB was
	 * held twice) wherever glibc had not hinted the whole mapping itself
	 * (THP "always", TLREPLAY_HUGEPAGES=never, programs embedding us). */
	hi = ((uintptr_t)p + malloc_usable_size(p) + pg - 1) & ~(pg - 1);
	(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

void tl_forget(void *p, size_t n)
{
	const uintptr_t pg = 4096;
	uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(pg - 1), hi = ((uintptr_t)p + n) & ~(pg - 1);

	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void *tl_malloc_big(size_t n)
{
	void *p = malloc(n);

	if (p)
		tl_hint_huge(p, n);
	return p;
}

void *tl_calloc_big(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb, size);

	/* a large calloc is fresh zero pages from mmap: not touched yet */
	if (p && nmemb && size <= SIZE_MAX / nmemb)
		tl_hint_huge(p, nmemb * size);
	return p;
}

int tl_text_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (tl_grow((void **)buf, cap, *len + n + 1, 1))
		return -ENOMEM;
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* ------------------------------------------------------------------ arena */

struct tl_arena_blk {
	struct tl_arena_blk *next;
	size_t used, size;
	max_align_t data[];
};

void tl_arena_init(struct tl_arena *a, size_t blk_size)
{
	a->head = NULL;
	a->blk_size = blk_size ? blk_size : 64 * 1024;
}

void *tl_arena_alloc(struct tl_arena *a, size_t size, size_t align)
{
	struct tl_arena_blk *b = a->head;
	size_t off;

	if (b) {
		off = (b->used + align - 1) & ~(align - 1);
		if (off + size <= b->size) {
			b->used = off + size;
			return (char *)b->data + off;
		}
	}
	{
		size_t bs = size + align > a->blk_size ? size + align : a->blk_size;
		struct tl_arena_blk *nb = malloc(sizeof(*nb) + bs);

		if (!nb)
			return NULL;
		nb->size = bs;
		nb->used = size;
		/* Keep the fuller block first only if the new one is a one-off. */
		if (bs > a->blk_size && b) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			a->head = nb;
		}
		return nb->data;
	}
}

char *tl_arena_strndup(struct tl_arena *a, const char *s, size_t n)
{
	char *d = tl_arena_alloc(a, n + 1, 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

void tl_arena_free(struct tl_arena *a)
{
	struct tl_arena_blk *b = a->head;

	while (b) {
		struct tl_arena_blk *n = b->next;

		free(b);
		b = n;
	}
	a->head = NULL;
}

/* ------------------------------------------------------------------ hashing */

/* One multiply per 8 bytes over two independent lanes: interning hashes
 * every event name (kernel names run to hundreds of bytes), so this is hot. */
uint64_t tl_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = 0xc2b2ae3d27d4eb4fULL;

	while (n >= 16) {
		uint64_t w1, w2;

		memcpy(&w1, s, 8);
		memcpy(&w2, s + 8, 8);
		a = (a ^ w1) * 0x9fb21c651e98df25ULL;
		b = (b ^ w2) * 0xff51afd7ed558ccdULL;
		a ^= a >> 29;
		b ^= b >> 31;
		s += 16;
		n -= 16;
	}
	if (n >= 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		a = (a ^ w) * 0x9fb21c651e98df25ULL;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;

		memcpy(&w, s, n);
		b = (b ^ w ^ ((uint64_t)n << 59)) * 0xff51afd7ed558ccdULL;
	}
	return tl_mix64(a ^ (b * 0xc4ceb9fe1a85ec53ULL));
}

double tl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
