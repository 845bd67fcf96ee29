/* SPDX-License-Identifier: MIT */
/* What the recorder knows about the program's CUDA objects: the image of
 * each module (and library), the name and module of each function (and
 * CUkernel), the live device allocations, and how often each kernel name
 * has been launched. One mutex guards them all: these calls are rare next
 * to the launches, and a launch takes the lock for a lookup only. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

/* An open-addressing map from a key (a handle, or a string's hash) to a
 * pointer, with linear probing and tombstones. */
struct map {
	uintptr_t *keys;
	void **vals;
	size_t cap, used, live;	/* used: live + tombstones */
};

#define EMPTY ((uintptr_t)0)
#define GONE ((uintptr_t)1)

static size_t slot_of(uintptr_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static void **map_find(const struct map *m, uintptr_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (m->keys[i] == EMPTY)
			return NULL;
	}
}

static int map_put(struct map *m, uintptr_t key, void *val);

static int map_grow(struct map *m)
{
	struct map n = { 0 };
	size_t i;

	/* mostly tombstones (allocations come and go): rehash in place */
	n.cap = !m->cap ? 256 : m->live * 2 < m->cap ? m->cap : m->cap * 2;
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i] > GONE)
			map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

/* Keys 0 and 1 are the map's markers; handles and hashes never take them
 * (hashes are forced odd-free below). */
static int map_put(struct map *m, uintptr_t key, void *val)
{
	void **v = map_find(m, key);
	size_t i;

	if (v) {
		*v = val;
		return 0;
	}
	if ((m->used + 1) * 4 >= m->cap * 3 && map_grow(m))
		return -1;
	for (i = slot_of(key, m->cap); m->keys[i] > GONE; i = (i + 1) & (m->cap - 1))
		;
	m->keys[i] = key;
	m->vals[i] = val;
	m->used++;
	m->live++;
	return 0;
}

static void *map_take(struct map *m, uintptr_t key)
{
	void **v = map_find(m, key);
	void *old;

	if (!v)
		return NULL;
	old = *v;
	m->keys[v - m->vals] = GONE;
	m->live--;
	return old;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct map modules;	/* handle -> struct rec_image * */
static struct map functions;	/* handle -> struct func * */
static struct map allocs;	/* base -> struct rec_alloc * */
static struct map launches;	/* name hash -> struct count * (chained by name) */

struct count {
	char *name;
	unsigned long n;
	struct count *next;
};

struct func {
	char *name;
	const void *module;
	bool is_kernel;
	signed char selected;		/* -1: not asked yet */
	struct count *launches;		/* of its name; NULL until its first launch */
};

void rec_module_add(const void *handle, const void *img, size_t len, enum rec_image_kind kind)
{
	struct rec_image *m = calloc(1, sizeof(*m));
	Dl_info info;

	if (!m)
		return;
	m->len = len;
	m->kind = kind;
	m->data = img;
	/* An image inside a loaded library (a fatbin cudart registers) stays
	 * where it is; one in the heap (Triton's, a JIT's) may be freed right
	 * after the load, so it is copied. */
	if (!dladdr(img, &info) || !info.dli_fname) {
		void *copy = malloc(len);

		if (!copy) {
			free(m);
			return;
		}
		memcpy(copy, img, len);
		m->data = copy;
		m->owned = true;
	}
	pthread_mutex_lock(&lock);
	if (map_put(&modules, (uintptr_t)handle, m)) {
		if (m->owned)
			free((void *)m->data);
		free(m);
	}
	pthread_mutex_unlock(&lock);
}

void rec_module_drop(const void *handle)
{
	struct rec_image *m;

	pthread_mutex_lock(&lock);
	m = map_take(&modules, (uintptr_t)handle);
	pthread_mutex_unlock(&lock);
	/* functions of the module keep their names; a launch of one after
	 * the unload is the program's bug */
	if (m && m->owned)
		free((void *)m->data);
	free(m);
}

void rec_module_alias(const void *alias, const void *handle)
{
	struct rec_image *m = NULL, *copy;
	void **v;

	pthread_mutex_lock(&lock);
	v = map_find(&modules, (uintptr_t)handle);
	if (v && (copy = malloc(sizeof(*copy)))) {
		/* the alias borrows the library's bytes: it lives no longer */
		*copy = *(struct rec_image *)*v;
		copy->owned = false;
		m = copy;
		if (map_put(&modules, (uintptr_t)alias, m))
			free(m);
	}
	pthread_mutex_unlock(&lock);
}

static void function_put(const void *fn, const void *module, const char *name, bool is_kernel)
{
	struct func *f = calloc(1, sizeof(*f)), *old;

	if (!f || !(f->name = strdup(name))) {
		free(f);
		return;
	}
	f->module = module;
	f->is_kernel = is_kernel;
	f->selected = -1;
	pthread_mutex_lock(&lock);
	old = map_take(&functions, (uintptr_t)fn);
	if (map_put(&functions, (uintptr_t)fn, f)) {
		free(f->name);
		free(f);
	}
	pthread_mutex_unlock(&lock);
	if (old) {
		free(old->name);
		free(old);
	}
}

void rec_function_add(const void *fn, const void *module, const char *name)
{
	function_put(fn, module, name, false);
}

void rec_function_alias(const void *alias, const void *fn)
{
	struct func *f;
	char name[4096] = "";
	const void *module = NULL;

	pthread_mutex_lock(&lock);
	f = map_find(&functions, (uintptr_t)fn) ? *map_find(&functions, (uintptr_t)fn) : NULL;
	if (f) {
		snprintf(name, sizeof(name), "%s", f->name);
		module = f->module;
	}
	pthread_mutex_unlock(&lock);
	if (f)
		function_put(alias, module, name, false);
}

void rec_kernel_add(const void *kernel, const void *library, const char *name)
{
	function_put(kernel, library, name, true);
}

static uintptr_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (uintptr_t)(h | 2);	/* never a map marker */
}

/* The launch counter of kernel name @name, made the first time (under the
 * lock); NULL when memory is short. */
static struct count *count_of(const char *name)
{
	uintptr_t h = name_hash(name);
	struct count *c, *head = map_find(&launches, h) ? *map_find(&launches, h) : NULL;

	for (c = head; c && strcmp(c->name, name); c = c->next)
		;
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strdup(name))) {
		free(c);
		return NULL;
	}
	c->next = head;
	if (map_put(&launches, h, c)) {
		free(c->name);
		free(c);
		return NULL;
	}
	return c;
}

int rec_function_launch(const void *fn, int (*select)(const char *name), char *name, size_t namelen,
			struct rec_image *img, bool *is_kernel, unsigned long *ordinal)
{
	void **v, **m;
	struct func *f;
	int selected;

	pthread_mutex_lock(&lock);
	v = map_find(&functions, (uintptr_t)fn);
	if (!v) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	f = *v;
	/* what a launch costs when nothing is recorded: this lookup, and the
	 * name's demangling and matching once per function */
	if (f->selected < 0)
		f->selected = (signed char)select(f->name);
	if (!f->launches)
		f->launches = count_of(f->name);
	*ordinal = f->launches ? f->launches->n++ : 0;
	selected = f->selected;
	if (selected) {
		snprintf(name, namelen, "%s", f->name);
		*is_kernel = f->is_kernel;
		m = map_find(&modules, (uintptr_t)f->module);
		if (m)
			*img = *(struct rec_image *)*m;
		else
			memset(img, 0, sizeof(*img));
	}
	pthread_mutex_unlock(&lock);
	return selected;
}

void rec_alloc_add(CUdeviceptr base, size_t size, enum rec_mem_kind kind)
{
	struct rec_alloc *a = malloc(sizeof(*a)), *old;

	if (!a || !base)
		goto out;
	a->base = base;
	a->size = size;
	a->kind = kind;
	pthread_mutex_lock(&lock);
	old = map_take(&allocs, (uintptr_t)base);
	if (map_put(&allocs, (uintptr_t)base, a))
		free(a);
	pthread_mutex_unlock(&lock);
	free(old);
	return;
out:
	free(a);
}

void rec_alloc_drop(CUdeviceptr base)
{
	pthread_mutex_lock(&lock);
	free(map_take(&allocs, (uintptr_t)base));
	pthread_mutex_unlock(&lock);
}

static int by_base(const void *a, const void *b)
{
	const struct rec_alloc *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

struct rec_alloc *rec_alloc_snapshot(size_t *n)
{
	struct rec_alloc *out = NULL;
	size_t i, k = 0;

	pthread_mutex_lock(&lock);
	if (allocs.live && (out = malloc(allocs.live * sizeof(*out))))
		for (i = 0; i < allocs.cap; i++)
			if (allocs.keys[i] > GONE)
				out[k++] = *(struct rec_alloc *)allocs.vals[i];
	pthread_mutex_unlock(&lock);
	if (out)
		qsort(out, k, sizeof(*out), by_base);
	*n = k;
	return out;
}

/* Texture and surface objects: a handle names an object of this process
 * only. Keyed by handle + 2 (0 and 1 are the map's markers, and handles
 * start small). */
static struct map objects; /* handle + 2 -> enum rec_object_kind */

void rec_object_add(uint64_t h, enum rec_object_kind kind)
{
	if (h > UINT64_MAX - 2)
		return;
	pthread_mutex_lock(&lock);
	map_put(&objects, (uintptr_t)(h + 2), (void *)(uintptr_t)kind);
	pthread_mutex_unlock(&lock);
}

void rec_object_drop(uint64_t h)
{
	if (h > UINT64_MAX - 2)
		return;
	pthread_mutex_lock(&lock);
	map_take(&objects, (uintptr_t)(h + 2));
	pthread_mutex_unlock(&lock);
}

enum rec_object_kind rec_object_kind(uint64_t h)
{
	void **v;
	enum rec_object_kind k = REC_OBJ_NONE;

	if (h > UINT64_MAX - 2)
		return k;
	pthread_mutex_lock(&lock);
	v = map_find(&objects, (uintptr_t)(h + 2));
	if (v)
		k = (enum rec_object_kind)(uintptr_t)*v;
	pthread_mutex_unlock(&lock);
	return k;
}
