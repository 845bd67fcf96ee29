/* SPDX-License-Identifier: MIT */
/* Where the sheet commands (report, diff) put their sheets: a directory of
 * SHEET.csv files written all or nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/report.h>

#include "util/cli.h"
#include "report/sheets-out.h"

int sheets_make_dir(const char *cmd, const char *dir)
{
	/* the directory and any missing above it, as the docs promise */
	if (tl_output_mkdirs(dir))
		return cli_error("%s: %s", cmd, tl_last_error());
	return 0;
}

int sheets_stage_put(struct sheets_stage *st, const struct tl_sheet *sh)
{
	const char *name = tl_sheet_name(sh);
	struct tl_output *o;
	char *path = NULL;
	FILE *f = NULL;
	int fd = -1, err;

	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 8;
		struct tl_output *v = realloc(st->v, cap * sizeof(*v));

		if (!v)
			return cli_error("%s: out of memory", st->cmd);
		st->v = v;
		st->cap = cap;
	}
	o = &st->v[st->n];
	*o = (struct tl_output){ .fd = -1, .slot = -1 };
	if (asprintf(&path, "%s/%s.csv", st->dir, name) < 0)
		return cli_error("%s: out of memory", st->cmd);
	err = tl_output_open(o, path);
	free(path);
	/* counted now: an output that failed to open is safe to abort */
	st->n++;
	if (!err && ((fd = dup(o->fd)) < 0 || !(f = fdopen(fd, "w"))))
		err = -errno;
	if (!err) {
		err = tl_sheet_write_csv(sh, f);
		if (fclose(f) && !err)
			err = -errno;
	} else if (fd >= 0) {
		close(fd);
	}
	if (err)
		return cli_error("%s: cannot write %s/%s.csv: %s", st->cmd, st->dir, name, strerror(-err));
	return 0;
}

void sheets_stage_abort(struct sheets_stage *st)
{
	for (size_t i = 0; i < st->n; i++)
		tl_output_abort(&st->v[i]);
	free(st->v);
	st->v = NULL;
	st->n = st->cap = 0;
}

int sheets_stage_commit(struct sheets_stage *st)
{
	int rc = 0;

	/* all named at once: a Ctrl-C leaves the old sheets or all the new ones */
	if (tl_output_commit_all(st->v, st->n))
		rc = cli_error("%s: %s", st->cmd, tl_last_error());
	/* commit_all released them: the abort only frees the list */
	sheets_stage_abort(st);
	return rc;
}

/* Write every sheet to an unnamed file in DIR (tlreplay/output.h), then name
 * them all together; on any error nothing is named and nothing stays. */
int sheets_write_dir(const char *cmd, const char *dir, const struct tl_report *r)
{
	struct sheets_stage st = { .cmd = cmd, .dir = dir };

	for (size_t i = 0; i < r->n; i++)
		if (sheets_stage_put(&st, r->v[i])) {
			sheets_stage_abort(&st);
			return 1;
		}
	return sheets_stage_commit(&st);
}

/* -o FILE.xlsx: one workbook rather than a directory of CSVs */
bool sheets_is_xlsx(const char *out)
{
	size_t n = strlen(out);

	return n > 5 && !strcasecmp(out + n - 5, ".xlsx");
}

