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

#include "cli.h"
#include "sheets-out.h"

int sheets_make_dir(const char *cmd, const char *dir)
{
	struct stat st;

	if (!mkdir(dir, 0777) || errno == EEXIST) {
		if (!stat(dir, &st) && S_ISDIR(st.st_mode))
			return 0;
		return cli_error("%s: %s: not a directory", cmd, dir);
	}
	return cli_error("%s: cannot make %s: %s", cmd, dir, strerror(errno));
}

/* Write every sheet to DIR/.NAME.csv.XXXXXX, then rename them all; on any
 * error the temporaries go and nothing is renamed. */
int sheets_write_dir(const char *cmd, const char *dir, const struct tl_report *r)
{
	char **tmp = calloc(r->n ? r->n : 1, sizeof(*tmp));
	size_t i;
	int rc = 1;

	if (!tmp)
		return cli_error("%s: out of memory", cmd);
	for (i = 0; i < r->n; i++) {
		const char *name = tl_sheet_name(r->v[i]);
		FILE *f;
		int fd, err;

		if (asprintf(&tmp[i], "%s/.%s.csv.XXXXXX", dir, name) < 0) {
			tmp[i] = NULL;
			cli_error("%s: out of memory", cmd);
			goto out;
		}
		fd = mkstemp(tmp[i]);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			cli_error("%s: cannot write %s/%s.csv: %s", cmd, dir, name, strerror(errno));
			if (fd >= 0)
				close(fd);
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
	for (i = 0; i < r->n; i++) {
		char *path = NULL;

		if (asprintf(&path, "%s/%s.csv", dir, tl_sheet_name(r->v[i])) < 0 ||
		    rename(tmp[i], path)) {
			cli_error("%s: cannot write %s/%s.csv: %s", cmd, dir, tl_sheet_name(r->v[i]),
				  strerror(errno));
			free(path);
			goto out;
		}
		free(path);
		free(tmp[i]);
		tmp[i] = NULL;
	}
	rc = 0;
out:
	for (i = 0; i < r->n; i++) {
		if (tmp[i])
			unlink(tmp[i]);
		free(tmp[i]);
	}
	free(tmp);
	return rc;
}

/* -o FILE.xlsx: one workbook rather than a directory of CSVs */
bool sheets_is_xlsx(const char *out)
{
	size_t n = strlen(out);

	return n > 5 && !strcasecmp(out + n - 5, ".xlsx");
}

