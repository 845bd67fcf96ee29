/* SPDX-License-Identifier: MIT */
/* Small internal helpers shared by the library: error reporting, growable
 * arrays, an arena for strings, hashing. Nothing here is exported. */
#ifndef TL_UTIL_H
#define TL_UTIL_H

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/common.h>

#define TL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TL_UNUSED(x) ((void)(x))

#if defined(__GNUC__)
#define tl_likely(x) __builtin_expect(!!(x), 1)
#define tl_unlikely(x) __builtin_expect(!!(x), 0)
#define TL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define tl_likely(x) (x)
#define tl_unlikely(x) (x)
#define TL_PRINTF(a, b)
#endif

/* Record the thread's last error message and return @err (a -errno value). */
int tl_err(int err, const char *fmt, ...) TL_PRINTF(2, 3);
/* Emit a diagnostic through the print callback. */
void tl_log(enum tl_log_level lvl, const char *fmt, ...) TL_PRINTF(2, 3);

/* ------------------------------------------------------------ growable array */

/* Grow *ptr (of *cap elements of size esz) so that it holds at least need
 * elements. Returns 0 or -ENOMEM (the old buffer stays valid then). */
int tl_grow(void **ptr, size_t *cap, size_t need, size_t esz);

#define TL_VEC(T)                                                              \
	struct {                                                               \
		T *v;                                                          \
		size_t n, cap;                                                 \
	}

#define tl_vec_push(vec, x)                                                    \
	(((vec)->n < (vec)->cap ||                                             \
	  tl_grow((void **)&(vec)->v, &(vec)->cap, (vec)->n + 1,               \
		  sizeof(*(vec)->v)) == 0)                                     \
		 ? ((vec)->v[(vec)->n++] = (x), 0)                             \
		 : -ENOMEM)

#define tl_vec_free(vec)                                                       \
	do {                                                                   \
		free((vec)->v);                                                \
		(vec)->v = NULL;                                               \
		(vec)->n = (vec)->cap = 0;                                     \
	} while (0)

/* ------------------------------------------------------------------- arena */

/* A bump allocator for data that lives as long as its owner (interned strings). */
struct tl_arena {
	struct tl_arena_blk *head;
	size_t blk_size;
};

void tl_arena_init(struct tl_arena *a, size_t blk_size);
void *tl_arena_alloc(struct tl_arena *a, size_t size, size_t align);
char *tl_arena_strndup(struct tl_arena *a, const char *s, size_t n);
void tl_arena_free(struct tl_arena *a);

/* ------------------------------------------------------------------- hashing */

static inline uint64_t tl_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Hash of a byte string: 8 bytes per step, good enough for interning. */
uint64_t tl_hash_bytes(const void *p, size_t n);

/* ------------------------------------------------------------------- misc */

/* Monotonic clock in seconds. */
double tl_now(void);

/* strcmp-style comparison of two doubles for qsort. */
static inline int tl_cmp_double(double a, double b)
{
	return (a > b) - (a < b);
}

/* POSIX's way to turn dlsym()'s void * into a function pointer: stores the
 * symbol @name of @dl through @fnp; false if it is missing. */
static inline bool tl_dlsym(void *dl, const char *name, void *fnp)
{
	void *p = dlsym(dl, name);

	memcpy(fnp, &p, sizeof(p));
	return p != NULL;
}

#endif
