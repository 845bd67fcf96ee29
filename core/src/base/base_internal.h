/* SPDX-License-Identifier: MIT */
/* base: what every other subsystem of the library shares, and nothing more:
 * error reporting and logging, growable arrays, an arena for strings and
 * hashing (util.c), string interning and an integer-keyed map (strtab.c),
 * half-open time intervals (intervals.c), reading a file, plain or gzip,
 * into memory (file_read.c), small inputs whole within a limit
 * (input_file.c), and mean, std and median (stats.c). It depends
 * on no other subsystem and is the only header the others take from it.
 * Nothing here is exported. */
#ifndef TL_BASE_INTERNAL_H
#define TL_BASE_INTERNAL_H

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/common.h>

/* ================================================================== util.c */

/* Small internal helpers shared by the library: error reporting, growable
 * arrays, an arena for strings, hashing. Nothing here is exported. */

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
 * elements. Returns 0 or -ENOMEM (the old buffer stays valid then). An
 * array of TL_HUGE_MIN bytes or more is hinted as tl_hint_huge says. */
int tl_grow(void **ptr, size_t *cap, size_t need, size_t esz);

/* Ask for transparent huge pages over the whole of block @p (malloc'ed, of
 * @n bytes) when n >= TL_HUGE_MIN, before its pages are touched. On a VM a
 * page fault costs microseconds, and a report of a GB trace takes some 70 000 of
 * them filling its event table, call tree and hash tables: huge pages take
 * a report of the x8 OWLv2 trace from 1.6 to 1.3 s. Only a hint: it does
 * nothing where THP is off ("never"), and its cost is at most the rounding
 * of each array up to 2 MiB of resident memory. */
#define TL_HUGE_MIN (4u << 20)
void tl_hint_huge(void *p, size_t n);
/* malloc/calloc of @n bytes, hinted (tl_hint_huge). */
void *tl_malloc_big(size_t n);
void *tl_calloc_big(size_t nmemb, size_t size);
/* The pages wholly inside [p, p+n) of an allocation will not be read
 * again before it is freed: give them back now (they read as zeros after).
 * For copying a big array into another without holding both whole. */
void tl_forget(void *p, size_t n);

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

/* util.c: append @n bytes of @s to the malloc'ed text *buf (length *len,
 * capacity *cap), keeping it NUL-terminated. 0 or -ENOMEM. */
int tl_text_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n);

/* json_compact.c: @v as cJSON_PrintUnformatted() writes it, appended to the
 * malloc'ed, NUL-terminated *buf (length *len, capacity *cap); nothing for
 * NULL. 0 or -ENOMEM. */
struct cJSON;
int tl_json_compact(const struct cJSON *v, char **buf, size_t *len, size_t *cap);

/* json_num.c: @d as an integer of [@lo, @hi] in *out when it is integral and
 * in that range (false for NaN, infinities, 1.5, 1e300); the range is tested
 * before any cast. tl_json_i64 does the same for a cJSON item, false when it
 * is not a number. */
bool tl_dbl_to_i64(double d, int64_t lo, int64_t hi, int64_t *out);
bool tl_json_i64(const struct cJSON *v, int64_t lo, int64_t hi, int64_t *out);

/* Times (ts, dur, in µs) are doubles, within what the profilers' and
 * Perfetto's int64 nanosecond clocks hold (±2^63 ns, about ±292 years):
 * beyond it a time is no clock's (1e400 reads as inf, 1e308 + 1e308 is inf),
 * and its sums are infinities that no summary can write. The loader refuses
 * such times, so every time the library holds passes tl_time_ok. */
#define TL_TIME_MAX_US 9223372036854775.807
static inline bool tl_time_ok(double us)
{
	return us >= -TL_TIME_MAX_US && us <= TL_TIME_MAX_US;	/* false for NaN */
}

/* Hash of a byte string: 8 bytes per step, good enough for interning. */
uint64_t tl_hash_bytes(const void *p, size_t n);

/* ------------------------------------------------------------------- misc */

/* Monotonic clock in seconds. */
double tl_now(void);

/* qsort that takes an empty (possibly NULL) array: qsort's pointer must not
 * be NULL even for no elements. */
static inline void tl_qsort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

/* qsort_r, likewise for an empty (possibly NULL) array. */
static inline void tl_qsort_r(void *v, size_t n, size_t size,
			      int (*cmp)(const void *, const void *, void *), void *ctx)
{
	if (n > 1)
		qsort_r(v, n, size, cmp, ctx);
}

/* strcmp-style comparison of two doubles for qsort. */
static inline int tl_cmp_double(double a, double b)
{
	return (a > b) - (a < b);
}

/* A column of numbers summarised (stats.c). */
struct tl_agg {
	double sum, mean, std, min, median, max;	/* std: sample, NaN for one value */
};

/* Summarise @v[0..n) (n >= 1) into @a, summing in the order given, then
 * sort it in place (for the median). Floating-point sums depend on the
 * order: a caller that has always summed in ascending order sorts first. */
void tl_aggregate(double *v, size_t n, struct tl_agg *a);
/* Sort doubles in ascending order. */
void tl_sort_doubles(double *v, size_t n);
/* The order pandas' sort_values(ascending=False) gives @v's n values (its
 * default kind, "quicksort": numpy's introsort, which does not keep equal
 * values in their order): order[k] is the index of the k-th row. pandas'
 * nargsort reverses the numbers, argsorts them ascending and reverses the
 * result, then puts the NaNs last in their order; equal values come out as
 * numpy's partitioning leaves them, which TraceLens's sheets print. */
void tl_pandas_argsort_desc(const double *v, size_t n, size_t *order);
/* Reorder @n rows of @size bytes by the double at @key_off of each, as
 * tl_pandas_argsort_desc() orders them (rows of equal keys as pandas leaves
 * them: sort the rows by their group key first). 0 or -ENOMEM (unchanged). */
int tl_pandas_sort_desc(void *rows, size_t n, size_t size, size_t key_off);

/* POSIX's way to turn dlsym()'s void * into a function pointer: stores the
 * symbol @name of @dl through @fnp; false if it is missing. */
static inline bool tl_dlsym(void *dl, const char *name, void *fnp)
{
	void *p = dlsym(dl, name);

	memcpy(fnp, &p, sizeof(p));
	return p != NULL;
}

/* ================================================================ strtab.c */

/* String interning (event names, categories, pids, tids) and a small
 * open-addressing map from a 128-bit integer key to a 32-bit value. */

struct tl_str {
	const char *s;	/* NUL-terminated, in the arena */
	uint32_t len;
	uint32_t hash;
};

/* Id 0 is always the empty string. Ids are dense: 0..n-1. */
struct tl_strtab {
	struct tl_arena arena;
	uint32_t *slots;	/* id+1, 0 = empty */
	size_t nslots;
	struct tl_str *strs;
	size_t n, cap;
};

int tl_strtab_init(struct tl_strtab *t);
void tl_strtab_free(struct tl_strtab *t);
/* Returns the id of (s, len), adding it if new; UINT32_MAX on ENOMEM. */
uint32_t tl_strtab_intern(struct tl_strtab *t, const char *s, size_t len);
/* Returns the id of (s, len) or UINT32_MAX if it was never interned. */
uint32_t tl_strtab_find(const struct tl_strtab *t, const char *s, size_t len);

static inline const char *tl_strtab_get(const struct tl_strtab *t, uint32_t id)
{
	return t->strs[id].s;
}

static inline uint32_t tl_strtab_len(const struct tl_strtab *t, uint32_t id)
{
	return t->strs[id].len;
}

/* ------------------------------------------------------------------ key map */

struct tl_kmap_slot {
	uint64_t k1;
	int64_t k2;
	uint32_t val;
	uint32_t used;
};

/* Map (k1, k2) -> uint32. Insert overwrites (last one wins, like a Python dict). */
struct tl_kmap {
	struct tl_kmap_slot *slots;
	size_t nslots, n;
};

int tl_kmap_init(struct tl_kmap *m, size_t expected);
void tl_kmap_free(struct tl_kmap *m);
int tl_kmap_put(struct tl_kmap *m, uint64_t k1, int64_t k2, uint32_t val);
/* Returns true and stores the value in *val if found. */
bool tl_kmap_get(const struct tl_kmap *m, uint64_t k1, int64_t k2, uint32_t *val);

/* ============================================================= intervals.c */

/* Half-open time intervals [s, e) in microseconds. */

struct tl_iv {
	double s, e;
};

/* Sort by start and merge in place (touching intervals merge); returns the count. */
size_t tl_iv_merge(struct tl_iv *iv, size_t n);
/* Sum of lengths, in order. */
double tl_iv_sum(const struct tl_iv *iv, size_t n);
/* out = b - a, both merged and sorted; @out needs room for na + nb intervals. */
size_t tl_iv_subtract(const struct tl_iv *a, size_t na, const struct tl_iv *b, size_t nb,
		      struct tl_iv *out);
/* |union| of @iv (sorted and merged in place). */
double tl_union_len(struct tl_iv *iv, size_t n);

/* ============================================================= file_read.c */

/* Reading a trace file (plain or gzip) into memory. */

/* Which file, as it was when it was read: a mapped trace that another
 * process truncates or rewrites in place (a profiler writing to the same
 * path) no longer holds what was parsed. */
struct tl_file_id {
	bool valid;	/* a regular file was read (not a pipe, not memory) */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct tl_text {
	const char *p;
	size_t len;
	size_t map_len;	/* bytes to munmap */
	bool is_file;	/* p maps a file (pages can be dropped and refaulted) */
	bool inflated;	/* ... a file of gzip text inflated into $TMPDIR */
	struct tl_file_id id;	/* the input file read */
};

/* 0 when @path is still the file @id describes, unchanged, or has been
 * replaced by another file (what was mapped stays as it was); -ESTALE when
 * the same file changed size or modification time since (tl_last_error()
 * names it); 0 when @id is not valid. */
int tl_file_id_check(const struct tl_file_id *id, const char *path);

/* How big an input may be, and where gzip text is inflated. */
struct tl_text_limits {
	uint64_t max_text;	/* bytes of (inflated) text; 0 = no limit */
	unsigned max_ratio;	/* text bytes per gzip byte; 0 = no limit */
	uint64_t spill_min;	/* gzip text from this size on goes to a temporary file */
	const char *tmpdir;	/* for it; NULL = $TMPDIR, else /tmp */
	void (*progress)(uint64_t done, uint64_t total, void *ctx);	/* inflating: gzip bytes */
	void *pctx;
};

/* Defaults: $TLREPLAY_MAX_TEXT (else 1.5x physical memory),
 * $TLREPLAY_MAX_RATIO (else 200), $TLREPLAY_SPILL_MIN (else 64 MiB). */
void tl_text_limits_default(struct tl_text_limits *l);

/* Read @path (gzip detected from the magic bytes; a pipe is copied to a
 * temporary file first) under @lim (NULL: the defaults). Errors: -ENOENT,
 * -EACCES, -EISDIR, -ENODATA (empty), -EBADMSG (corrupt/truncated gzip),
 * -EFBIG (over a limit), -ENOSPC (no room to inflate), -ENOMEM. */
int tl_text_read_ex(const char *path, const struct tl_text_limits *lim, struct tl_text *out);
/* Same from a memory buffer (copied), under the default limits. */
int tl_text_from_mem(const void *buf, size_t len, const char *label, struct tl_text *out);
/* Release resident pages of [from, to) of a file-backed text (no-op otherwise). */
void tl_text_drop_pages(const struct tl_text *t, size_t from, size_t to);
void tl_text_free(struct tl_text *t);

/* ========================================================== gzip_inflate.c */

/* Inflate gzip data @in (one or more members) under @l: small text into
 * anonymous memory, the rest into an unlinked file in tl_tmp_dir() mapped
 * read-only (is_file set). Errors as tl_text_read_ex(). */
int tl_gzip_inflate(const char *label, const unsigned char *in, size_t in_len,
		    const struct tl_text_limits *l, struct tl_text *out);
enum tl_text_size { TL_SIZE_PLAIN, TL_SIZE_DECLARED, TL_SIZE_INFLATING };
/* -EFBIG after tl_err() if @text bytes (from @in gzip bytes; a plain file's
 * size, a gzip trailer's, or what inflating has reached) pass a limit of @l. */
int tl_text_over_limits(const char *label, const struct tl_text_limits *l, uint64_t text,
			uint64_t in, enum tl_text_size how);
/* The temporary directory of @l: its tmpdir, else $TMPDIR, else /tmp. */
const char *tl_tmp_dir(const struct tl_text_limits *l);
/* A new unlinked read-write file in @dir; the fd, or -errno after tl_err()
 * naming @label and @dir. */
int tl_tmpfile(const char *label, const char *dir);
/* write() all of it, continuing short writes (a signal, a disk filling up)
 * so that the real error is known; 0 or -errno. */
int tl_write_all(int fd, const void *p, size_t n);

/* ============================================================ input_file.c */

/* "1 GiB", "64 MiB", "4096 bytes": a limit as it was most likely given,
 * for the messages of what is held to tl_input_max() (tlreplay/input.h). */
const char *tl_size_str(char *b, size_t n, uint64_t v);

#endif
