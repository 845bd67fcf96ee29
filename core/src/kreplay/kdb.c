/* SPDX-License-Identifier: MIT */
/* The kernel record database (docs/kernel-replay.md): reading index.json
 * and the launches/ files a recording leaves, and gathering the latter into
 * the former. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/input.h>
#include <tlreplay/kreplay.h>
#include <tlreplay/output.h>

#include "base/base_internal.h"

struct tl_kdb {
	char *dir;
	cJSON *index;			/* {"v":1,"launches":[...]} */
	struct tl_kdb_launch *launches;
	size_t n;
	struct tl_arena arena;		/* the launches' arrays */
};

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num_of(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		return false;
	*out = v->valuedouble;
	return true;
}

/* An integer member of [@lo, @hi], @dflt when absent: false when it is
 * there but no such integer (1e300, -1, 2.5), tested before any cast. */
static bool int_of(const cJSON *o, const char *key, int64_t lo, int64_t hi, int64_t dflt, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = dflt;
	return !v || tl_json_i64(v, lo, hi, out);
}

static bool dim3_of(const cJSON *o, const char *key, unsigned d[3])
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	int64_t x;
	int i;

	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
		return false;
	for (i = 0; i < 3; i++) {
		if (!tl_json_i64(cJSON_GetArrayItem(v, i), 1, UINT32_MAX, &x))
			return false;
		d[i] = (unsigned)x;
	}
	return true;
}

static bool blob_name_ok(const char *s)
{
	size_t i;

	if (!s || strlen(s) != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

static bool hex_byte(const char *s, unsigned char *out)
{
	unsigned v;

	if (sscanf(s, "%2x", &v) != 1)
		return false;
	*out = (unsigned char)v;
	return true;
}

/* Fill @l from the JSON object @o (which the database keeps). */
/* "arena": {"base": "0x...", "size": N}, optional: a nonzero range that
 * does not wrap, holding every allocation that starts in it. */
static int parse_arena(const cJSON *o, const char *where, struct tl_kdb_launch *l)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "arena");
	const char *base = str_of(a, "base");
	char *end = NULL;
	int64_t size;
	size_t i;

	if (!a)
		return 0;
	l->arena_base = base ? strtoull(base, &end, 16) : 0;
	if (!cJSON_IsObject(a) || !base || strncmp(base, "0x", 2) || !end || *end || !l->arena_base ||
	    !tl_json_i64(cJSON_GetObjectItemCaseSensitive(a, "size"), 1, INT64_MAX, &size) ||
	    (uint64_t)size > UINT64_MAX - l->arena_base)
		return tl_err(-EINVAL, "%s: %s: arena needs a hex base and a size that fit the address space", where,
			      l->kernel);
	l->arena_size = (uint64_t)size;
	for (i = 0; i < l->nmem; i++) {
		const struct tl_kdb_mem *m = &l->mem[i];

		if (m->base >= l->arena_base && m->base - l->arena_base < l->arena_size &&
		    m->size > l->arena_base + l->arena_size - m->base)
			return tl_err(-EINVAL, "%s: %s: memory[%zu] starts in the arena and runs past its end", where,
				      l->kernel, i);
	}
	return 0;
}

static int parse_launch(struct tl_kdb *db, const cJSON *o, const char *where, struct tl_kdb_launch *l)
{
	const cJSON *mod = cJSON_GetObjectItemCaseSensitive(o, "module");
	const cJSON *par = cJSON_GetObjectItemCaseSensitive(o, "params");
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(o, "memory");
	const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(o, "attrs");
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device");
	const cJSON *layout = cJSON_GetObjectItemCaseSensitive(par, "layout");
	const cJSON *it;
	int64_t ord, pid, shb, mds, msz, psz, drv, x;
	size_t i;
	int err;

	memset(l, 0, sizeof(*l));
	l->kernel = str_of(o, "kernel");
	l->demangled = str_of(o, "demangled");
	l->api = str_of(o, "api");
	if (!l->kernel || !*l->kernel)
		return tl_err(-EINVAL, "%s: a launch without a kernel name", where);
	if (!l->demangled)
		l->demangled = l->kernel;
	if (!l->api)
		l->api = "cuLaunchKernel";
	if (!dim3_of(o, "grid", l->grid) || !dim3_of(o, "block", l->block))
		return tl_err(-EINVAL, "%s: %s: grid and block must be three positive numbers", where, l->kernel);
	if (!int_of(o, "ordinal", 0, INT64_MAX, 0, &ord) || !int_of(o, "pid", 0, INT32_MAX, 0, &pid) ||
	    !int_of(o, "shared_bytes", 0, UINT32_MAX, 0, &shb) ||
	    !int_of(o, "max_dynamic_shared_bytes", 0, INT32_MAX, 0, &mds) ||
	    !int_of(mod, "size", 0, INT64_MAX, 0, &msz) || !int_of(par, "size", 0, INT64_MAX, 0, &psz) ||
	    !int_of(dev, "driver", 0, INT32_MAX, 0, &drv))
		return tl_err(-EINVAL, "%s: %s: ordinal, pid, shared_bytes, max_dynamic_shared_bytes, a size or the "
			      "driver is not a whole number in range", where, l->kernel);
	l->ordinal = (unsigned long)ord;
	l->pid = (int)pid;
	l->shared_bytes = (unsigned)shb;
	l->max_dynamic_shared = (int)mds;
	{
		int64_t np = 0;

		if (!int_of(o, "non_portable_cluster", 0, 1, 0, &np))
			return tl_err(-EINVAL, "%s: %s: non_portable_cluster is not 0 or 1", where, l->kernel);
		l->non_portable_cluster = np == 1;
	}
	l->module_blob = str_of(mod, "blob");
	l->module_kind = str_of(mod, "kind");
	l->module_size = (uint64_t)msz;
	l->params_blob = str_of(par, "blob");
	l->params_size = (uint64_t)psz;
	l->driver = (int)drv;
	if (!blob_name_ok(l->module_blob) || !blob_name_ok(l->params_blob))
		return tl_err(-EINVAL, "%s: %s: module or params without a blob", where, l->kernel);
	if (!l->module_kind)
		l->module_kind = "other";
	l->nparams = cJSON_IsArray(layout) ? (size_t)cJSON_GetArraySize(layout) : 0;
	if (l->nparams) {
		uint64_t(*lay)[2] = tl_arena_alloc(&db->arena, l->nparams * sizeof(*lay), 8);

		if (!lay)
			return -ENOMEM;
		i = 0;
		cJSON_ArrayForEach(it, layout) {
			int64_t off, size;

			/* offset and size whole, >= 0, and offset + size <= the buffer
			 * without computing a sum that could wrap */
			if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 ||
			    !tl_json_i64(cJSON_GetArrayItem(it, 0), 0, psz, &off) ||
			    !tl_json_i64(cJSON_GetArrayItem(it, 1), 0, psz, &size) || off > psz - size)
				return tl_err(-EINVAL, "%s: %s: parameter %zu lies outside the argument buffer", where,
					      l->kernel, i);
			lay[i][0] = (uint64_t)off;
			lay[i][1] = (uint64_t)size;
			i++;
		}
		l->layout = (const uint64_t(*)[2])lay;
	}
	l->nattrs = cJSON_IsArray(attrs) ? (size_t)cJSON_GetArraySize(attrs) : 0;
	if (l->nattrs) {
		struct tl_kdb_attr *a = tl_arena_alloc(&db->arena, l->nattrs * sizeof(*a), 8);

		if (!a)
			return -ENOMEM;
		i = 0;
		cJSON_ArrayForEach(it, attrs) {
			const char *hex = str_of(it, "value");
			size_t j;

			if (!tl_json_i64(cJSON_GetObjectItemCaseSensitive(it, "id"), 0, INT32_MAX, &x) || !hex ||
			    strlen(hex) != 128)
				return tl_err(-EINVAL, "%s: %s: malformed launch attribute", where, l->kernel);
			a[i].id = (int)x;
			for (j = 0; j < 64; j++)
				if (!hex_byte(hex + 2 * j, &a[i].value[j]))
					return tl_err(-EINVAL, "%s: %s: malformed launch attribute", where, l->kernel);
			i++;
		}
		l->attrs = a;
	}
	l->nmem = cJSON_IsArray(mem) ? (size_t)cJSON_GetArraySize(mem) : 0;
	if (l->nmem) {
		struct tl_kdb_mem *m = tl_arena_alloc(&db->arena, l->nmem * sizeof(*m), 8);

		if (!m)
			return -ENOMEM;
		i = 0;
		cJSON_ArrayForEach(it, mem) {
			const char *base = str_of(it, "base");
			char *end = NULL;

			m[i].base = base ? strtoull(base, &end, 16) : 0;
			m[i].kind = str_of(it, "kind") ? str_of(it, "kind") : "alloc";
			m[i].before = str_of(it, "before");
			m[i].after = str_of(it, "after");
			/* a size whole and > 0, that does not run past the end of the
			 * address space from its base */
			if (!base || !end || *end || !m[i].base ||
			    !tl_json_i64(cJSON_GetObjectItemCaseSensitive(it, "size"), 1, INT64_MAX, &x) ||
			    (uint64_t)x > UINT64_MAX - m[i].base || !blob_name_ok(m[i].before) ||
			    !blob_name_ok(m[i].after))
				return tl_err(-EINVAL, "%s: %s: memory[%zu] needs a hex base, a size and two blobs",
					      where, l->kernel, i);
			m[i].size = (uint64_t)x;
			if (i && m[i].base < m[i - 1].base + m[i - 1].size)
				return tl_err(-EINVAL, "%s: %s: memory[%zu] overlaps the one before or is out of order",
					      where, l->kernel, i);
			i++;
		}
		l->mem = m;
	}
	if ((err = parse_arena(o, where, l)))
		return err;
	l->device_name = str_of(dev, "name") ? str_of(dev, "name") : "";
	if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(dev, "cc"))) {
		const cJSON *cc = cJSON_GetObjectItemCaseSensitive(dev, "cc");

		l->cc_major = cJSON_GetArrayItem(cc, 0) ? cJSON_GetArrayItem(cc, 0)->valueint : 0;
		l->cc_minor = cJSON_GetArrayItem(cc, 1) ? cJSON_GetArrayItem(cc, 1)->valueint : 0;
	}
	l->notes = cJSON_GetObjectItemCaseSensitive(o, "notes");
	if (l->notes && !cJSON_IsArray(l->notes))
		l->notes = NULL;
	l->source = cJSON_GetObjectItemCaseSensitive(o, "source");
	if (l->source && !cJSON_IsObject(l->source))
		l->source = NULL;
	return 0;
}

/* index.json and launches/ files are parts of the database, which may have
 * come from a shared directory or an archive: a symbolic link (to
 * /dev/zero, to someone else's file), a FIFO or a device is refused, and
 * the size is held to the small-input limit (tlreplay/input.h). */
static int read_json(const char *path, const char *what, cJSON **out)
{
	char *text;
	size_t len;
	int err = tl_input_read(path, what, TL_INPUT_PART, 0, &text, &len);

	if (err)
		return err;
	*out = cJSON_ParseWithLength(text, len);
	free(text);
	if (!*out)
		return tl_err(-EINVAL, "%s: not valid JSON", path);
	return 0;
}

/* Whether the database has an index.json (a dangling link is one, to be
 * refused, not a database without an index). */
static bool has_part(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static int by_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The launches/ files of @dir in recording order (pid, then sequence),
 * each appended to @arr; their names into @names when not NULL. */
static int read_fragments(const char *dir, cJSON *arr, char ***names, size_t *nnames)
{
	char path[4096];
	DIR *d;
	struct dirent *e;
	char **list = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0;

	snprintf(path, sizeof(path), "%s/launches", dir);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : tl_err(-errno, "%s: %s", path, strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if ((err = tl_grow((void **)&list, &cap, n + 1, sizeof(*list))) || !(list[n] = strdup(e->d_name))) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (!err)
		tl_qsort(list, n, sizeof(*list), by_name);
	for (i = 0; i < n && !err; i++) {
		cJSON *o;

		snprintf(path, sizeof(path), "%s/launches/%s", dir, list[i]);
		if (!(err = read_json(path, "a recorded launch", &o)))
			cJSON_AddItemToArray(arr, o);
	}
	if (names && !err) {
		*names = list;
		*nnames = n;
		return 0;
	}
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return err;
}

int tl_kdb_open(const char *dir, struct tl_kdb **out)
{
	struct tl_kdb *db = calloc(1, sizeof(*db));
	char path[4096];
	cJSON *arr, *it;
	size_t i = 0;
	double v;
	int err;

	*out = NULL;
	if (!db)
		return -ENOMEM;
	tl_arena_init(&db->arena, 1 << 16);
	db->dir = strdup(dir);
	if (!db->dir) {
		err = -ENOMEM;
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/index.json", dir);
	if (has_part(path)) {
		if ((err = read_json(path, "a kernel record index", &db->index)))
			goto fail;
		if (!num_of(db->index, "v", &v) || v != TL_KDB_VERSION ||
		    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(db->index, "launches"))) {
			err = tl_err(-EINVAL, "%s: not a kernel record index (version %d)", path, TL_KDB_VERSION);
			goto fail;
		}
	} else {
		struct stat st;

		snprintf(path, sizeof(path), "%s/launches", dir);
		if (stat(path, &st)) {
			err = tl_err(-ENOENT, "%s: no kernel record database (no index.json, no launches/)", dir);
			goto fail;
		}
		db->index = cJSON_CreateObject();
		if (!db->index || !cJSON_AddNumberToObject(db->index, "v", TL_KDB_VERSION) ||
		    !cJSON_AddArrayToObject(db->index, "launches")) {
			err = -ENOMEM;
			goto fail;
		}
	}
	arr = cJSON_GetObjectItemCaseSensitive(db->index, "launches");
	if ((err = read_fragments(dir, arr, NULL, NULL)))
		goto fail;
	db->n = (size_t)cJSON_GetArraySize(arr);
	db->launches = calloc(db->n ? db->n : 1, sizeof(*db->launches));
	if (!db->launches) {
		err = -ENOMEM;
		goto fail;
	}
	cJSON_ArrayForEach(it, arr) {
		char where[4200];

		snprintf(where, sizeof(where), "%s: launch %zu", dir, i);
		if ((err = parse_launch(db, it, where, &db->launches[i++])))
			goto fail;
	}
	*out = db;
	return 0;
fail:
	tl_kdb_free(db);
	return err;
}

void tl_kdb_free(struct tl_kdb *db)
{
	if (!db)
		return;
	cJSON_Delete(db->index);
	free(db->launches);
	tl_arena_free(&db->arena);
	free(db->dir);
	free(db);
}

size_t tl_kdb_count(const struct tl_kdb *db)
{
	return db->n;
}

const struct tl_kdb_launch *tl_kdb_launch(const struct tl_kdb *db, size_t i)
{
	return i < db->n ? &db->launches[i] : NULL;
}

const char *tl_kdb_dir(const struct tl_kdb *db)
{
	return db->dir;
}

/* Write @j to @path: whole or not at all, with a new file's mode. */
static int write_json_atomic(const char *path, const cJSON *j)
{
	struct tl_output o;
	char *text = cJSON_Print(j);
	int err;

	if (!text)
		return -ENOMEM;
	err = tl_output_open(&o, path);
	if (!err && !(err = tl_output_write(&o, text, strlen(text))) && !(err = tl_output_write(&o, "\n", 1)))
		err = tl_output_commit(&o);
	tl_output_abort(&o);
	free(text);
	return err;
}

int tl_kdb_gather(const char *dir, const cJSON *source, size_t *added)
{
	char path[4096];
	cJSON *index = NULL, *arr, *fresh = cJSON_CreateArray(), *it;
	char **names = NULL;
	size_t nnames = 0, i;
	double v;
	int err;

	if (added)
		*added = 0;
	if (!fresh)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/index.json", dir);
	if (has_part(path)) {
		if ((err = read_json(path, "a kernel record index", &index)))
			goto out;
		if (!num_of(index, "v", &v) || v != TL_KDB_VERSION ||
		    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(index, "launches"))) {
			err = tl_err(-EINVAL, "%s: not a kernel record index", path);
			goto out;
		}
	} else if (!(index = cJSON_CreateObject()) || !cJSON_AddNumberToObject(index, "v", TL_KDB_VERSION) ||
		   !cJSON_AddStringToObject(index, "tlreplay", tl_version()) ||
		   !cJSON_AddArrayToObject(index, "launches")) {
		err = -ENOMEM;
		goto out;
	}
	arr = cJSON_GetObjectItemCaseSensitive(index, "launches");
	if ((err = read_fragments(dir, fresh, &names, &nnames)))
		goto out;
	while ((it = cJSON_DetachItemFromArray(fresh, 0))) {
		if (source && !cJSON_GetObjectItemCaseSensitive(it, "source"))
			cJSON_AddItemToObject(it, "source", cJSON_Duplicate(source, true));
		cJSON_AddItemToArray(arr, it);
		if (added)
			(*added)++;
	}
	if ((err = write_json_atomic(path, index)))
		goto out;
	/* the index holds them now */
	for (i = 0; i < nnames; i++) {
		snprintf(path, sizeof(path), "%s/launches/%s", dir, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/launches", dir);
	rmdir(path);
out:
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	cJSON_Delete(fresh);
	cJSON_Delete(index);
	return err;
}
