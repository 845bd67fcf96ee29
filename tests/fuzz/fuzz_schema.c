/* SPDX-License-Identifier: MIT */
/* libFuzzer target for operator schema strings, as a schema snapshot
 * (`ir --schemas`) or a live worker's registry gives them:
 * "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
 *
 * Each line of the input is parsed alone (tl_schema_parse), then all lines
 * become a database (tl_schema_db_from_strings) and each schema in it is
 * looked up by name.
 *
 * Rules: a refusal is -EINVAL or -ENOMEM with one line that says something;
 * a parsed schema keeps its text, has a name, no more positional arguments
 * than arguments, every argument a name, a type and a base, keyword-only
 * exactly from npos on, a list size only on a list, an alias set only with
 * an alias, and nreturns >= -1; a database holds no more schemas than
 * lines, says how many it skipped, gives each in registry order, and finds
 * each by its name. Any breach aborts. Built with -DTL_FUZZ_STANDALONE it
 * replays files (standalone.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#define FUZZ_TARGET "fuzz_schema"
#include "refusal.h"
#include "standalone.h"

#define MAX_LINES 64

static void check_schema(const struct tl_schema *s, const char *text)
{
	size_t i;

	if (text && (!s->text || strcmp(s->text, text)))
		fail(text, "the schema does not keep its text");
	if (!s->name || !*s->name || !s->overload || !s->returns)
		fail(s->text, "no name, overload or returns");
	if (s->npos > s->nargs || (s->nargs && !s->args) || s->nreturns < -1)
		fail(s->text, "counts out of range");
	for (i = 0; i < s->nargs; i++) {
		const struct tl_schema_arg *a = &s->args[i];

		if (!a->name || !a->type || !a->base)
			fail(s->text, "an argument without a name, type or base");
		if (a->kwarg_only != (i >= s->npos))
			fail(s->text, "keyword-only arguments that are not those after npos");
		if (a->list_size < 0 || (a->list_size && !a->is_list))
			fail(s->text, "a list size on what is not a list");
		if (a->alias_set && !a->alias)
			fail(s->text, "an alias set without an alias");
		if (a->has_default != !!a->default_text)
			fail(s->text, "a default without its text");
	}
}

static void parse_one(const char *line)
{
	struct tl_schema *s = NULL;
	const char *m;
	int err = tl_schema_parse(line, &s);

	if (!err) {
		check_schema(s, line);
		tl_schema_free(s);
		return;
	}
	m = tl_last_error();
	if ((err != -EINVAL && err != -ENOMEM) || !*m || strchr(m, '\n') || s)
		fail(line, "a refusal that is not -EINVAL with one line, or that leaves a schema");
}

static void check_db(const char *const *lines, size_t n)
{
	struct tl_schema_db *db = NULL;
	size_t i, count;
	int err = tl_schema_db_from_strings(lines, n, "fuzz", &db);

	if (err) {
		if (err != -ENOMEM && err != -EINVAL)
			fail("database", "a refusal that is not -EINVAL or -ENOMEM");
		return;
	}
	count = tl_schema_db_count(db);
	if (count > n || tl_schema_db_skipped(db) > n || strcmp(tl_schema_db_label(db), "fuzz"))
		fail("database", "more schemas or skips than lines, or another label");
	if (tl_schema_db_at(db, count))
		fail("database", "a schema past the end");
	for (i = 0; i < count; i++) {
		const struct tl_schema *s = tl_schema_db_at(db, i), *const *found = NULL;
		size_t k, nf;

		if (!s || s->index != i)
			fail("database", "a schema out of registry order");
		check_schema(s, NULL);
		nf = tl_schema_db_find(db, s->name, &found);
		for (k = 0; k < nf && found[k] != s; k++)
			;
		if (k == nf)
			fail(s->text, "not found by its own name");
	}
	tl_schema_db_free(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size > 16384 ? 16384 : size), *save = NULL, *line;
	const char *lines[MAX_LINES];
	size_t n = 0;

	if (!text)
		return 0;
	for (line = strtok_r(text, "\n", &save); line && n < MAX_LINES; line = strtok_r(NULL, "\n", &save)) {
		parse_one(line);
		lines[n++] = line;
	}
	check_db(lines, n);
	free(text);
	return 0;
}
