/* SPDX-License-Identifier: MIT */
/* `tlreplay pack --kdb`: see kpack.h. The launch descriptions are plain
 * lines (launch-N.txt) so that the replayer needs no JSON parser. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/kreplay.h>

#include "cli.h"
#include "kpack.h"
#include "zip-writer.h"

extern const unsigned char kpack_replayer[];
extern const size_t kpack_replayer_len;

static const char makefile[] =
	"# Build the standalone kernel replayer: a C compiler and libdl are all it needs;\n"
	"# the CUDA driver (libcuda.so.1) is opened at run time.\n"
	"CC ?= cc\n"
	"replay: replay.c\n"
	"\t$(CC) -O2 -std=c11 -o $@ replay.c -ldl\n";

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

/* Add blob @name to the zip once (@added: the names added so far). */
static int add_blob(struct zipw *z, const struct tl_kdb *db, const char *dir, const char *name, uint64_t size,
		    char ***added, size_t *nadded)
{
	char path[4200], member[1200], **grown;
	char *data;
	size_t len = 0, i;
	int err;

	for (i = 0; i < *nadded; i++)
		if (!strcmp((*added)[i], name))
			return 0;
	snprintf(path, sizeof(path), "%s/blobs/%s", tl_kdb_dir(db), name);
	data = cli_read_file(path, false, &len);
	if (!data)
		return cli_error("pack: %s: %s", path, strerror(errno));
	if (len != size) {
		free(data);
		return cli_error("pack: %s: %zu bytes, the index says %llu", path, len, (unsigned long long)size);
	}
	snprintf(member, sizeof(member), "%s/blobs/%s", dir, name);
	err = zipw_add(z, member, data, len, 0644);
	free(data);
	if (err)
		return cli_error("pack: %s: %s", member, strerror(-err));
	grown = realloc(*added, (*nadded + 1) * sizeof(**added));
	if (!grown)
		return cli_error("out of memory");
	*added = grown;
	(*added)[(*nadded)++] = (char *)name;
	return 0;
}

int kpack_write(const char *out, const char *dir, const char *dbpath, const char *launch)
{
	struct tl_kdb *db = NULL;
	struct out_fmt o = { 0 };
	struct zipw *z = NULL;
	size_t *pick = NULL, n = 0, i, j, nadded = 0;
	char **added = NULL, *text = NULL, member[1200];
	int rc = 1, err;

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
	if (out_open(&o, out))
		goto out;
	z = zipw_new(o.f);
	if (!z) {
		cli_error("out of memory");
		goto fail;
	}
	text = readme(db, pick, n, dir);
	snprintf(member, sizeof(member), "%s/README.md", dir);
	if (!text || (err = zipw_add(z, member, text, strlen(text), 0644)))
		goto zip_error;
	snprintf(member, sizeof(member), "%s/Makefile", dir);
	if ((err = zipw_add(z, member, makefile, strlen(makefile), 0644)))
		goto zip_error;
	snprintf(member, sizeof(member), "%s/replay.c", dir);
	if ((err = zipw_add(z, member, kpack_replayer, kpack_replayer_len, 0644)))
		goto zip_error;
	for (i = 0; i < n; i++) {
		const struct tl_kdb_launch *l = tl_kdb_launch(db, pick[i]);

		free(text);
		text = manifest(l);
		snprintf(member, sizeof(member), "%s/launch-%zu.txt", dir, i);
		if (!text || (err = zipw_add(z, member, text, strlen(text), 0644)))
			goto zip_error;
		if (add_blob(z, db, dir, l->module_blob, l->module_size, &added, &nadded) ||
		    add_blob(z, db, dir, l->params_blob, l->params_size, &added, &nadded))
			goto fail;
		for (j = 0; j < l->nmem; j++)
			if (add_blob(z, db, dir, l->mem[j].before, l->mem[j].size, &added, &nadded) ||
			    add_blob(z, db, dir, l->mem[j].after, l->mem[j].size, &added, &nadded))
				goto fail;
	}
	err = zipw_finish(z);
	z = NULL;
	if (err)
		goto zip_error;
	rc = out_close(&o, false);
	if (!rc)
		fprintf(stderr, "tlreplay: packed %zu kernel launch%s into %s (make && ./replay launch-0.txt)\n", n,
			n == 1 ? "" : "es", out);
	goto out;
zip_error:
	cli_error("pack: %s: %s", out, err ? strerror(-err) : "out of memory");
fail:
	zipw_abort(z);
	out_close(&o, true);
out:
	free(text);
	free(added);
	free(pick);
	tl_kdb_free(db);
	return rc;
}
