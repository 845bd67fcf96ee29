/* SPDX-License-Identifier: MIT */
/* `tlreplay pack --kdb`: see kpack.h. The launch descriptions are plain
 * lines (launch-N.txt) so that the replayer needs no JSON parser. Every blob
 * is checked against the index before the output exists; blobs then stream
 * from their files through the zip writer, in bounded memory. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <tlreplay/kreplay.h>

#include "util/cli.h"
#include "replay/kpack.h"
#include "util/zip-writer.h"

extern const unsigned char kpack_replayer[];
extern const size_t kpack_replayer_len;

static const char makefile[] =
	"# Build the standalone kernel replayer: a C compiler and libdl are all it needs;\n"
	"# the CUDA driver (libcuda.so.1) is opened at run time.\n"
	"CC ?= cc\n"
	"replay: replay.c\n"
	"\t$(CC) -O2 -std=c11 -o $@ replay.c -ldl\n";

/* cuLaunchKernelEx's CU_LAUNCH_ATTRIBUTE_COOPERATIVE */
#define KPACK_ATTR_COOPERATIVE 2

/* The description of launch @l (the replayer's launch-N.txt). */
static char *manifest(const struct tl_kdb_launch *l)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "tlreplay-kernel 1\nkernel %s\ngrid %u %u %u\nblock %u %u %u\nshared %u %d\n", l->kernel,
		l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2], l->shared_bytes,
		l->max_dynamic_shared);
	fprintf(f, "module %s %llu\nparams %s %llu\n", l->module_blob, (unsigned long long)l->module_size,
		l->params_blob, (unsigned long long)l->params_size);
	for (i = 0; i < l->nattrs; i++) {
		fprintf(f, "attr %d ", l->attrs[i].id);
		for (j = 0; j < sizeof(l->attrs[i].value); j++)
			fprintf(f, "%02x", l->attrs[i].value[j]);
		fputc('\n', f);
	}
	/* a cooperative launch recorded before the recorder said it as the
	 * attribute: the replayer launches with it all the same */
	if (!strncmp(l->api, "cuLaunchCooperativeKernel", 25)) {
		for (i = 0; i < l->nattrs && l->attrs[i].id != KPACK_ATTR_COOPERATIVE; i++)
			;
		if (i == l->nattrs)
			fprintf(f, "attr %d 01%0126d\n", KPACK_ATTR_COOPERATIVE, 0);
	}
	if (l->non_portable_cluster)
		fprintf(f, "nonportable 1\n");
	if (l->arena_size)
		fprintf(f, "arena %llx %llu\n", (unsigned long long)l->arena_base, (unsigned long long)l->arena_size);
	for (i = 0; i < l->nmem; i++)
		fprintf(f, "mem %llx %llu %s %s\n", (unsigned long long)l->mem[i].base,
			(unsigned long long)l->mem[i].size, l->mem[i].before, l->mem[i].after);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *readme(const struct tl_kdb *db, const size_t *pick, size_t n, const char *dir)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "# %s: recorded CUDA kernel launches\n\n", dir);
	fprintf(f, "Made by `tlreplay pack --kdb` from the kernel record database %s.\n"
		   "Each launch replays alone, bit-exactly, with its recorded inputs at their recorded\n"
		   "device addresses:\n\n"
		   "    make\n    ./replay launch-0.txt [REPEATS]\n\n"
		   "`replay` needs a CUDA driver (libcuda.so.1; TLREPLAY_CUDA_LIB names another) and a\n"
		   "GPU that can run the module: the one it was recorded on, or one the module's image\n"
		   "has code for. It prints the median time (CUDA events) and whether the memory after\n"
		   "the launch matches the recording (exit 0), or not (exit 1).\n\n"
		   "| file | kernel | grid | block | shared | recorded on |\n|---|---|---|---|---|---|\n",
		tl_kdb_dir(db));
	for (i = 0; i < n; i++) {
		const struct tl_kdb_launch *l = tl_kdb_launch(db, pick[i]);

		fprintf(f, "| launch-%zu.txt | `%s` | %ux%ux%u | %ux%ux%u | %u | %s |\n", i, l->demangled, l->grid[0],
			l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2], l->shared_bytes,
			l->device_name);
	}
	fprintf(f, "\nThe blobs/ files are the module images, argument buffers and memory contents,\n"
		   "named by their SHA-256; launch-N.txt lists which it uses (see tlreplay's\n"
		   "docs/kernel-replay.md).\n");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* One use of a blob by a picked launch, in packing order. */
struct blob_use {
	const char *name;
	uint64_t size;
	size_t launch, mem, order;	/* the database's launch; memory[mem] */
	enum { USE_MODULE, USE_PARAMS, USE_BEFORE, USE_AFTER } kind;
	bool packed;			/* in the zip already */
};

/* "launch 3's memory[2] before" */
static const char *use_str(const struct blob_use *u, char *buf, size_t n)
{
	static const char *const kinds[] = { "module", "params", "before", "after" };

	if (u->kind == USE_MODULE || u->kind == USE_PARAMS)
		snprintf(buf, n, "launch %zu's %s", u->launch, kinds[u->kind]);
	else
		snprintf(buf, n, "launch %zu's memory[%zu] %s", u->launch, u->mem, kinds[u->kind]);
	return buf;
}

static int by_name_only(const void *a, const void *b)
{
	return strcmp(((const struct blob_use *)a)->name, ((const struct blob_use *)b)->name);
}

static int by_blob(const void *a, const void *b)
{
	const struct blob_use *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Append a use to @u (room made by the caller). */
static void use(struct blob_use *u, size_t *nu, const char *name, uint64_t size, size_t launch, size_t mem, int kind)
{
	struct blob_use *x = &u[*nu];

	memset(x, 0, sizeof(*x));
	x->name = name;
	x->size = size;
	x->launch = launch;
	x->mem = mem;
	x->kind = kind;
	x->order = (*nu)++;
}

/* The blobs of the picked launches, each once (by name), checked against
 * the disk before anything is read or written: present, a regular file, of
 * the size the index gives (one size per name). *total: their bytes. */
static int check_blobs(const struct tl_kdb *db, const size_t *pick, size_t n, struct blob_use **out,
		       size_t *nout, uint64_t *total)
{
	struct blob_use *u = NULL;
	size_t nu = 0, cap = 0, i, j, k;
	char path[4200], w1[96], w2[96];

	for (i = 0; i < n; i++) {
		const struct tl_kdb_launch *l = tl_kdb_launch(db, pick[i]);
		size_t need = nu + 2 + 2 * l->nmem;

		if (need > cap) {
			struct blob_use *g = realloc(u, (cap = 2 * need) * sizeof(*u));

			if (!g) {
				free(u);
				return cli_error("out of memory");
			}
			u = g;
		}
		use(u, &nu, l->module_blob, l->module_size, pick[i], 0, USE_MODULE);
		use(u, &nu, l->params_blob, l->params_size, pick[i], 0, USE_PARAMS);
		for (j = 0; j < l->nmem; j++) {
			use(u, &nu, l->mem[j].before, l->mem[j].size, pick[i], j, USE_BEFORE);
			use(u, &nu, l->mem[j].after, l->mem[j].size, pick[i], j, USE_AFTER);
		}
	}
	qsort(u, nu, sizeof(*u), by_blob);
	*total = 0;
	for (i = 0, k = 0; i < nu; i = j) {
		struct stat st;

		for (j = i + 1; j < nu && !strcmp(u[j].name, u[i].name); j++)
			if (u[j].size != u[i].size)
				goto two_sizes;
		snprintf(path, sizeof(path), "%s/blobs/%s", tl_kdb_dir(db), u[i].name);
		if (lstat(path, &st)) {	/* a symbolic link is no blob: it could point anywhere */
			cli_error("pack: %s: %s (%s, %llu bytes in the index)", path,
				  errno == ENOENT ? "missing" : strerror(errno), use_str(&u[i], w1, sizeof(w1)),
				  (unsigned long long)u[i].size);
			goto fail;
		}
		if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != u[i].size) {
			cli_error("pack: %s: %s%llu bytes, the index says %llu (%s)", path,
				  S_ISREG(st.st_mode) ? "" : S_ISLNK(st.st_mode) ? "a symbolic link, " : "not a regular file, ",
				  (unsigned long long)st.st_size,
				  (unsigned long long)u[i].size, use_str(&u[i], w1, sizeof(w1)));
			goto fail;
		}
		if (*total + u[i].size < *total) {
			cli_error("pack: %s: the index's blob sizes overflow", tl_kdb_dir(db));
			goto fail;
		}
		*total += u[i].size;
		u[k++] = u[i];
	}
	*out = u;
	*nout = k;
	return 0;
two_sizes:
	cli_error("pack: %s/index.json: blob %s is %llu bytes for %s and %llu for %s", tl_kdb_dir(db), u[i].name,
		  (unsigned long long)u[i].size, use_str(&u[i], w1, sizeof(w1)), (unsigned long long)u[j].size,
		  use_str(&u[j], w2, sizeof(w2)));
fail:
	free(u);
	return 1;
}

/* Stream blob @name (checked by check_blobs) into the zip the first time a
 * launch uses it. Returns 0, 1 after saying why, or the zip's -errno (the
 * caller names the output). */
static int add_blob(struct zipw *z, const struct tl_kdb *db, const char *dir, const char *name,
		    struct blob_use *blobs, size_t nblobs)
{
	struct blob_use key = { .name = name }, *b = bsearch(&key, blobs, nblobs, sizeof(*blobs), by_name_only);
	char path[4200], member[1200];
	struct stat st;
	int fd, err;

	if (!b)
		return cli_error("pack: blob %s was not checked", name);	/* cannot be: every use was */
	if (b->packed)
		return 0;
	snprintf(path, sizeof(path), "%s/blobs/%s", tl_kdb_dir(db), name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);	/* as checked: a regular file */
	if (fd < 0)
		return cli_error("pack: %s: %s", path, strerror(errno));
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	snprintf(member, sizeof(member), "%s/blobs/%s", dir, name);
	err = fstat(fd, &st) || (uint64_t)st.st_size != b->size ? -ENODATA : 0;
	if (!err)
		err = zipw_add_fd(z, member, fd, b->size, 0644);
	if (!err && (fstat(fd, &st) || (uint64_t)st.st_size != b->size))
		err = -ENODATA;
	close(fd);
	if (err == -ENODATA)
		return cli_error("pack: %s: changed while being packed (no longer the %llu bytes of the index)", path,
				 (unsigned long long)b->size);
	b->packed = !err;
	return err;
}

/* The zip's error @err on @out, with the room there was when it ran out. */
static int zip_error(const char *out, int err, uint64_t total, uint64_t avail)
{
	if (err == -ENOSPC && avail != UINT64_MAX)
		return cli_error("pack: %s: %s (its file system had %.1f MB free; the blobs are %.1f MB before "
				 "compression)", out, strerror(-err), avail / 1e6, total / 1e6);
	return cli_error("pack: %s: %s", out, strerror(-err));
}

/* Free bytes where the file @out will be, UINT64_MAX when unknown or when
 * @out is a device or a pipe (written in place, no room to speak of). */
static uint64_t room_for(const char *out)
{
	char *copy = strdup(out);
	struct statvfs vfs;
	struct stat st;
	uint64_t avail = UINT64_MAX;

	if (copy && (stat(out, &st) || S_ISREG(st.st_mode)) && !statvfs(dirname(copy), &vfs))
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	free(copy);
	return avail;
}

int kpack_write(const char *out, const char *dir, const char *dbpath, const char *launch)
{
	struct tl_kdb *db = NULL;
	struct out_fmt o = { 0 };
	struct zipw *z = NULL;
	struct blob_use *blobs = NULL;
	size_t *pick = NULL, n = 0, nblobs = 0, i, j;
	uint64_t total = 0, avail;
	char *text = NULL, member[1200];
	int rc = 1, err = 0;

	if ((err = tl_kdb_open(dbpath, &db))) {
		cli_lib_error(err);
		goto out;
	}
	pick = calloc(tl_kdb_count(db) + 1, sizeof(*pick));
	if (!pick) {
		cli_error("out of memory");
		goto out;
	}
	if (launch) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(launch, &end, 10);
		if (errno || end == launch || *end || *launch == '-' || v >= tl_kdb_count(db)) {
			cli_error("pack: bad --launch '%s' (%s has %zu launches, from 0)", launch, dbpath,
				  tl_kdb_count(db));
			goto out;
		}
		pick[n++] = v;
	} else {
		for (i = 0; i < tl_kdb_count(db); i++)
			pick[n++] = i;
	}
	if (!n) {
		cli_error("pack: %s holds no launch", dbpath);
		goto out;
	}
	/* every blob as the index says before the output exists */
	if (check_blobs(db, pick, n, &blobs, &nblobs, &total))
		goto out;
	avail = room_for(out);
	if (out_open(&o, out))
		goto out;
	z = zipw_new(o.f);
	err = z ? 0 : -ENOMEM;
	text = readme(db, pick, n, dir);
	snprintf(member, sizeof(member), "%s/README.md", dir);
	if (!err)
		err = text ? zipw_add(z, member, text, strlen(text), 0644) : -ENOMEM;
	snprintf(member, sizeof(member), "%s/Makefile", dir);
	if (!err)
		err = zipw_add(z, member, makefile, strlen(makefile), 0644);
	snprintf(member, sizeof(member), "%s/replay.c", dir);
	if (!err)
		err = zipw_add(z, member, kpack_replayer, kpack_replayer_len, 0644);
	for (i = 0; !err && i < n; i++) {
		const struct tl_kdb_launch *l = tl_kdb_launch(db, pick[i]);

		free(text);
		text = manifest(l);
		snprintf(member, sizeof(member), "%s/launch-%zu.txt", dir, i);
		err = text ? zipw_add(z, member, text, strlen(text), 0644) : -ENOMEM;
		if (!err)
			err = add_blob(z, db, dir, l->module_blob, blobs, nblobs);
		if (!err)
			err = add_blob(z, db, dir, l->params_blob, blobs, nblobs);
		for (j = 0; !err && j < l->nmem; j++) {
			err = add_blob(z, db, dir, l->mem[j].before, blobs, nblobs);
			if (!err)
				err = add_blob(z, db, dir, l->mem[j].after, blobs, nblobs);
		}
	}
	if (!err) {
		err = zipw_finish(z);
		z = NULL;
	}
	if (err) {
		if (err < 0)
			zip_error(out, err, total, avail);
		/* said: what stdio still holds would only fail again in out_close */
		clearerr(o.f);
		__fpurge(o.f);
		zipw_abort(z);
		out_close(&o, true);
		goto out;
	}
	rc = out_close(&o, false);
	if (!rc)
		fprintf(stderr, "tlreplay: packed %zu kernel launch%s into %s (make && ./replay launch-0.txt)\n", n,
			n == 1 ? "" : "es", out);
out:
	free(text);
	free(blobs);
	free(pick);
	tl_kdb_free(db);
	return rc;
}
