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

/* Write every sheet to an unnamed file in DIR (tlreplay/output.h), then name
 * them all together; on any error nothing is named and nothing stays. */
int sheets_write_dir(const char *cmd, const char *dir, const struct tl_report *r)
{
	struct tl_output *out = calloc(r->n ? r->n : 1, sizeof(*out));
	size_t i;
	int rc = 1;

	if (!out)
		return cli_error("%s: out of memory", cmd);
	for (i = 0; i < r->n; i++)
		out[i] = (struct tl_output){ .fd = -1, .slot = -1 };
	for (i = 0; i < r->n; i++) {
		const char *name = tl_sheet_name(r->v[i]);
		char *path = NULL;
		FILE *f = NULL;
		int fd = -1, err;

		if (asprintf(&path, "%s/%s.csv", dir, name) < 0) {
			cli_error("%s: out of memory", cmd);
			goto out;
		}
		err = tl_output_open(&out[i], path);
		free(path);
		if (!err && ((fd = dup(out[i].fd)) < 0 || !(f = fdopen(fd, "w"))))
			err = -errno;
		if (err) {
			if (fd >= 0)
				close(fd);
			cli_error("%s: cannot write %s/%s.csv: %s", cmd, dir, name, strerror(-err));
			goto out;
		}
		err = tl_sheet_write_csv(r->v[i], f);
		if (fclose(f) && !err)
			err = -errno;
		if (err) {
			cli_error("%s: cannot write %s/%s.csv: %s", cmd, dir, name, strerror(-err));
			goto out;
		}
	}
	/* all named at once: a Ctrl-C leaves the old sheets or all the new ones */
	if (tl_output_commit_all(out, r->n)) {
		cli_error("%s: %s", cmd, tl_last_error());
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < r->n; i++)
		tl_output_abort(&out[i]);
	free(out);
	return rc;
}

/* -o FILE.xlsx: one workbook rather than a directory of CSVs */
bool sheets_is_xlsx(const char *out)
{
	size_t n = strlen(out);

	return n > 5 && !strcasecmp(out + n - 5, ".xlsx");
}

