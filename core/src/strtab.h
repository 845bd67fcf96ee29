/* SPDX-License-Identifier: MIT */
/* String interning (event names, categories, pids, tids) and a small
 * open-addressing map from a 128-bit integer key to a 32-bit value. */
#ifndef TL_STRTAB_H
#define TL_STRTAB_H

#include "util.h"

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

#endif
