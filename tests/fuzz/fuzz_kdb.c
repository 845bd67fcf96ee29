/* SPDX-License-Identifier: MIT */
/* libFuzzer target for kernel record databases, as `kreplay DB` and
 * `pack --kdb` open them: the input is split at lines "--8<--"; the first
 * part becomes DB/index.json (none when empty), the others
 * DB/launches/N.json (what a recording that was killed leaves). Then:
 * tl_kdb_open; each launch's fields; tl_kdb_gather (the launches/ files
 * moved into the index, written again); tl_kdb_open once more.
 *
 * Rules: a refusal is -EINVAL, -ENOENT or -ENOMEM with one line; an opened
 * database's launches have a kernel name, an API, a parameter layout inside
 * the parameter blob's size, launch dimensions of at least 1, memory ranges
 * that do not wrap and blob names for each; what gather writes opens again
 * with the same launches, in the same order. Any breach aborts. Built with
 * -DTL_FUZZ_STANDALONE it replays files (standalone.h). */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/kreplay.h>
#include <tlreplay/tlreplay.h>

#define FUZZ_TARGET "fuzz_kdb"
#include "refusal.h"
#include "standalone.h"

#define SEP "\n--8<--\n"

static const int kdb_codes[] = { EINVAL, ENOENT, ENOMEM, EBADMSG, 0 };

static void check_launch(const struct tl_kdb_launch *l)
{
	size_t i;

	if (!l->kernel || !*l->kernel || !l->api)
		fail("a launch", "no kernel name or API");
	for (i = 0; i < 3; i++)
		if (!l->grid[i] || !l->block[i])
			fail(l->kernel, "a launch dimension of 0");
	if (l->nparams && !l->layout)
		fail(l->kernel, "parameters without a layout");
	for (i = 0; i < l->nparams; i++)
		if (l->layout[i][0] > l->params_size || l->layout[i][1] > l->params_size - l->layout[i][0])
			fail(l->kernel, "a parameter outside the parameter blob");
	if (l->nparams && !l->params_blob)
		fail(l->kernel, "parameters without their blob");
	for (i = 0; i < l->nmem; i++) {
		const struct tl_kdb_mem *m = &l->mem[i];

		if (m->base + m->size < m->base)
			fail(l->kernel, "a memory range that wraps");
		if (!m->kind || !m->before || !m->after)
			fail(l->kernel, "a memory range without its kind or blobs");
	}
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void write_part(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
}

/* The parts of the input into @dir. */
static void lay_out(const char *dir, const char *data, size_t size)
{
	const char *p = data, *end = data + size;
	char path[4200];
	size_t k = 0;

	while (p <= end) {
		const char *q = memmem(p, (size_t)(end - p), SEP, strlen(SEP));
		size_t n = (size_t)((q ? q : end) - p);

		if (!k) {
			if (n) {
				snprintf(path, sizeof(path), "%s/index.json", dir);
				write_part(path, p, n);
			}
		} else {
			snprintf(path, sizeof(path), "%s/launches", dir);
			mkdir(path, 0700);
			snprintf(path, sizeof(path), "%s/launches/100-%06zu.json", dir, k);
			write_part(path, p, n);
		}
		k++;
		if (!q)
			break;
		p = q + strlen(SEP);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	struct tl_kdb *db = NULL, *again = NULL;
	size_t i, n, added = 0;
	int err;

	snprintf(dir, sizeof(dir), "%s/fuzz-kdb.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	lay_out(dir, (const char *)data, size);
	err = tl_kdb_open(dir, &db);
	if (err) {
		check_refusal("open", err, kdb_codes);
		goto out;
	}
	n = tl_kdb_count(db);
	for (i = 0; i < n; i++)
		check_launch(tl_kdb_launch(db, i));
	if (tl_kdb_launch(db, n))
		fail("open", "a launch past the end");
	err = tl_kdb_gather(dir, NULL, &added);
	if (err) {
		check_refusal("gather", err, kdb_codes);
		goto out;
	}
	err = tl_kdb_open(dir, &again);
	if (err) {
		char why[700];

		snprintf(why, sizeof(why), "what gather wrote does not open: %.600s", tl_last_error());
		fail("gather", why);
	}
	if (tl_kdb_count(again) != n)
		fail("gather", "another number of launches after gathering");
	for (i = 0; i < n; i++) {
		const struct tl_kdb_launch *a = tl_kdb_launch(db, i), *b = tl_kdb_launch(again, i);

		if (strcmp(a->kernel, b->kernel) || a->ordinal != b->ordinal || a->pid != b->pid ||
		    a->nparams != b->nparams || a->nmem != b->nmem || memcmp(a->grid, b->grid, sizeof(a->grid)))
			fail(a->kernel, "another launch after gathering");
	}
out:
	tl_kdb_free(again);
	tl_kdb_free(db);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
