/* SPDX-License-Identifier: MIT */
/* Interning table and integer-key map (open addressing, linear probing). */
#include "base/base_internal.h"

int tl_strtab_init(struct tl_strtab *t)
{
	memset(t, 0, sizeof(*t));
	tl_arena_init(&t->arena, 256 * 1024);
	t->nslots = 1024;
	t->slots = tl_calloc_big(t->nslots, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	/* id 0 = "" */
	if (tl_strtab_intern(t, "", 0) != 0) {
		tl_strtab_free(t);
		return -ENOMEM;
	}
	return 0;
}

void tl_strtab_free(struct tl_strtab *t)
{
	tl_arena_free(&t->arena);
	free(t->slots);
	free(t->strs);
	memset(t, 0, sizeof(*t));
}

static int rehash(struct tl_strtab *t)
{
	size_t ns = t->nslots * 2, i;
	uint32_t *slots = tl_calloc_big(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t j = t->strs[i].hash & (ns - 1);

		while (slots[j])
			j = (j + 1) & (ns - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
	return 0;
}

uint32_t tl_strtab_find(const struct tl_strtab *t, const char *s, size_t len)
{
	uint32_t h = (uint32_t)tl_hash_bytes(s, len);
	size_t j = h & (t->nslots - 1);

	for (;;) {
		uint32_t id = t->slots[j];
		const struct tl_str *e;

		if (!id)
			return UINT32_MAX;
		e = &t->strs[id - 1];
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return id - 1;
		j = (j + 1) & (t->nslots - 1);
	}
}

uint32_t tl_strtab_intern(struct tl_strtab *t, const char *s, size_t len)
{
	uint32_t h = (uint32_t)tl_hash_bytes(s, len);
	size_t j = h & (t->nslots - 1);
	struct tl_str *e;

	for (;;) {
		uint32_t id = t->slots[j];

		if (!id)
			break;
		e = &t->strs[id - 1];
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return id - 1;
		j = (j + 1) & (t->nslots - 1);
	}
	if (len > UINT32_MAX || t->n >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (tl_grow((void **)&t->strs, &t->cap, t->n + 1, sizeof(*t->strs)))
		return UINT32_MAX;
	e = &t->strs[t->n];
	e->s = tl_arena_strndup(&t->arena, s, len);
	if (!e->s)
		return UINT32_MAX;
	e->len = (uint32_t)len;
	e->hash = h;
	t->slots[j] = (uint32_t)t->n + 1;
	t->n++;
	if (t->n * 2 > t->nslots && rehash(t))
		return UINT32_MAX;
	return (uint32_t)t->n - 1;
}

/* ------------------------------------------------------------------ key map */

static inline size_t kmap_hash(uint64_t k1, int64_t k2)
{
	return (size_t)tl_mix64(k1 * 0x9e3779b97f4a7c15ULL ^ (uint64_t)k2);
}

int tl_kmap_init(struct tl_kmap *m, size_t expected)
{
	size_t ns = 64;

	while (ns < expected * 2)
		ns *= 2;
	m->slots = tl_calloc_big(ns, sizeof(*m->slots));
	m->nslots = m->slots ? ns : 0;
	m->n = 0;
	return m->slots ? 0 : -ENOMEM;
}

void tl_kmap_free(struct tl_kmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static int kmap_rehash(struct tl_kmap *m)
{
	struct tl_kmap nm;
	size_t i;

	if (tl_kmap_init(&nm, m->nslots))
		return -ENOMEM;
	for (i = 0; i < m->nslots; i++)
		if (m->slots[i].used)
			tl_kmap_put(&nm, m->slots[i].k1, m->slots[i].k2, m->slots[i].val);
	free(m->slots);
	*m = nm;
	return 0;
}

int tl_kmap_put(struct tl_kmap *m, uint64_t k1, int64_t k2, uint32_t val)
{
	size_t j = kmap_hash(k1, k2) & (m->nslots - 1);

	for (;;) {
		struct tl_kmap_slot *s = &m->slots[j];

		if (!s->used) {
			s->used = 1;
			s->k1 = k1;
			s->k2 = k2;
			s->val = val;
			m->n++;
			if (m->n * 2 > m->nslots)
				return kmap_rehash(m);
			return 0;
		}
		if (s->k1 == k1 && s->k2 == k2) {
			s->val = val;
			return 0;
		}
		j = (j + 1) & (m->nslots - 1);
	}
}

bool tl_kmap_get(const struct tl_kmap *m, uint64_t k1, int64_t k2, uint32_t *val)
{
	size_t j;

	if (!m->nslots)
		return false;
	j = kmap_hash(k1, k2) & (m->nslots - 1);
	for (;;) {
		const struct tl_kmap_slot *s = &m->slots[j];

		if (!s->used)
			return false;
		if (s->k1 == k1 && s->k2 == k2) {
			*val = s->val;
			return true;
		}
		j = (j + 1) & (m->nslots - 1);
	}
}
