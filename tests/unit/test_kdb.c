/* SPDX-License-Identifier: MIT */
/* A kernel record database's index.json is a file anyone may hand over: every
 * number in it that becomes an integer (grid, sizes, offsets, ids) is
 * checked whole and in range before the cast (run it in a SANITIZER= build:
 * float-cast-overflow), and a parameter must lie inside the argument buffer
 * (no negative offset or size, no offset + size that wraps). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tlreplay/tlreplay.h>
#include <tlreplay/kreplay.h>

#include "subst.h"
#include "tap.h"

static char dir[] = "/tmp/tl-test-kdb-XXXXXX";

#define BLOB "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char launch[] =
	"{\"v\":1,\"launches\":[{\"kernel\":\"k\",\"grid\":[2,1,1],\"block\":[128,1,1],\"ordinal\":3,"
	"\"pid\":77,\"shared_bytes\":0,\"max_dynamic_shared_bytes\":0,"
	"\"module\":{\"blob\":\"" BLOB "\",\"size\":4096,\"kind\":\"cubin\"},"
	"\"params\":{\"blob\":\"" BLOB "\",\"size\":16,\"layout\":[[0,8],[8,8]]},"
	"\"attrs\":[{\"id\":4,\"value\":\"" BLOB BLOB "\"}],"
	"\"memory\":[{\"base\":\"0x7f0000000000\",\"size\":256,\"kind\":\"alloc\",\"before\":\"" BLOB
	"\",\"after\":\"" BLOB "\"}],"
	"\"device\":{\"name\":\"X\",\"cc\":[9,0],\"driver\":12040}}]}";

/* The index with the first @from replaced by @to, opened: the error or 0. */
static int open_with(const char *from, const char *to, struct tl_kdb **out)
{
	char path[256], text[4096];
	FILE *f;
	struct tl_kdb *db = NULL;
	int err;

	if (!subst(text, sizeof(text), launch, from, to))
		return 1;
	snprintf(path, sizeof(path), "%s/index.json", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fputs(text, f);
	fclose(f);
	err = tl_kdb_open(dir, &db);
	if (out)
		*out = db;
	else
		tl_kdb_free(db);
	return err;
}

static void refused(const char *from, const char *to, const char *msg)
{
	int err = open_with(from, to, NULL);

	ok(err == -EINVAL && strstr(tl_last_error(), "launch 0: k: ") && strstr(tl_last_error(), msg),
	   "%s -> %s: %s", from, to, err ? tl_last_error() : "accepted");
}

int main(void)
{
	struct tl_kdb *db = NULL;
	char cmd[300];

	if (!mkdtemp(dir))
		skip_all("cannot create a temporary directory");

	if (open_with("\"k\"", "\"k\"", &db) == 0) {
		const struct tl_kdb_launch *l = tl_kdb_launch(db, 0);

		ok(l->grid[0] == 2 && l->block[0] == 128 && l->ordinal == 3 && l->pid == 77 &&
		   l->params_size == 16 && l->nparams == 2 && l->layout[1][0] == 8 && l->layout[1][1] == 8 &&
		   l->attrs[0].id == 4 && l->mem[0].size == 256 && l->driver == 12040,
		   "a well-formed index opens with its numbers");
	} else {
		ok(0, "a well-formed index opens: %s", tl_last_error());
	}
	tl_kdb_free(db);

	/* the parameter layout: inside the buffer, whatever the numbers */
	refused("[[0,8],[8,8]]", "[[-8,16],[8,8]]", "parameter 0 lies outside the argument buffer");
	refused("[[0,8],[8,8]]", "[[0,8],[16,-8]]", "parameter 1 lies outside");
	refused("[[0,8],[8,8]]", "[[0,8],[9,8]]", "parameter 1 lies outside");
	refused("[[0,8],[8,8]]", "[[0,8],[1e300,-1e300]]", "parameter 1 lies outside");
	refused("[[0,8],[8,8]]", "[[0,8],[18446744073709551615,2]]", "parameter 1 lies outside");
	refused("[[0,8],[8,8]]", "[[0.5,8],[8,8]]", "parameter 0 lies outside");
	refused("[[0,8],[8,8]]", "[[0,8],8]", "parameter 1 lies outside");
	/* numbers that become integers */
	refused("\"grid\":[2,1,1]", "\"grid\":[1e300,1,1]", "grid and block");
	refused("\"block\":[128,1,1]", "\"block\":[1.5,1,1]", "grid and block");
	refused("\"ordinal\":3", "\"ordinal\":1e300", "not a whole number in range");
	refused("\"pid\":77", "\"pid\":-1e300", "not a whole number in range");
	refused("\"shared_bytes\":0", "\"shared_bytes\":4294967296", "not a whole number in range");
	refused("\"max_dynamic_shared_bytes\":0", "\"max_dynamic_shared_bytes\":1e400",
		"not a whole number in range");
	refused("\"size\":4096", "\"size\":-4096", "not a whole number in range");
	refused("\"size\":16", "\"size\":1e300", "not a whole number in range");
	refused("\"driver\":12040", "\"driver\":1e19", "not a whole number in range");
	refused("\"id\":4", "\"id\":1e300", "malformed launch attribute");
	refused("\"size\":256", "\"size\":1e300", "memory[0] needs");
	refused("\"size\":256", "\"size\":9223372036854775807", "memory[0] needs");
	refused("\"base\":\"0x7f0000000000\"", "\"base\":\"0xffffffffffffff00\"", "memory[0] needs");

	/* the recorder's arena: a hex base and a size, holding what starts in it */
#define DEV "\"device\":{"
	if (open_with(DEV, "\"arena\":{\"base\":\"0x7f0000000000\",\"size\":1048576}," DEV, &db) == 0) {
		const struct tl_kdb_launch *l = tl_kdb_launch(db, 0);

		ok(l->arena_base == 0x7f0000000000ULL && l->arena_size == 1048576, "an arena is read: 0x%llx, %llu",
		   (unsigned long long)l->arena_base, (unsigned long long)l->arena_size);
	} else {
		ok(0, "an index with an arena opens: %s", tl_last_error());
	}
	tl_kdb_free(db);
	db = NULL;
	if (open_with("\"k\"", "\"k\"", &db) == 0)
		ok(tl_kdb_launch(db, 0)->arena_size == 0, "without an arena: none");
	else
		ok(0, "a well-formed index opens");
	tl_kdb_free(db);
	refused(DEV, "\"arena\":{\"base\":\"0x7f0000000000\",\"size\":128}," DEV,
		"memory[0] starts in the arena and runs past its end");
	refused(DEV, "\"arena\":{\"base\":\"7f0000000000\",\"size\":4096}," DEV, "arena needs a hex base");
	refused(DEV, "\"arena\":{\"base\":\"0xffffffffffff0000\",\"size\":1e10}," DEV, "arena needs");
	refused(DEV, "\"arena\":{\"base\":\"0x7f0000000000\",\"size\":-1}," DEV, "arena needs");
	refused(DEV, "\"arena\":{\"base\":\"0x7f0000000000\",\"size\":0.5}," DEV, "arena needs");
	refused(DEV, "\"arena\":[]," DEV, "arena needs");
	refused(DEV, "\"arena\":{\"base\":\"0x0\",\"size\":4096}," DEV, "arena needs");

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return done_testing();
}
