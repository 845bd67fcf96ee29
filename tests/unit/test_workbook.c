/* SPDX-License-Identifier: MIT */
/* The xlsx workbook: written whole or not at all, worksheet names cut to
 * Excel's 31 characters and kept distinct, the header bold, numbers as
 * numbers, NaN blank. The workbook is read back with Python's openpyxl
 * (python3-openpyxl) when it is there, else its sheet XML with zipfile. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/report_sheets.h>

#include "tap.h"

static struct tl_sheet *mk(const char *name)
{
	static const char *const cols[] = { "name", "count", "Kernel duration (µs) sum", "ok" };
	struct tl_sheet *sh = NULL;
	struct tl_cell r1[4] = { tl_cell_str("aten::mm, \"x\""), tl_cell_int(3), tl_cell_num(1.5), tl_cell_bool(1) };
	struct tl_cell r2[4] = { tl_cell_str("b"), tl_cell_empty(), tl_cell_num(NAN), tl_cell_bool(0) };

	if (tl_sheet_new(name, 4, cols, &sh) || tl_sheet_add_row(sh, r1) || tl_sheet_add_row(sh, r2))
		abort();
	return sh;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The check, in Python: sheet names, header bold, cell values and types. */
static const char *check_py =
	"import sys, zipfile\n"
	"p = sys.argv[1]\n"
	"try:\n"
	"    import openpyxl\n"
	"except ImportError:\n"
	"    z = zipfile.ZipFile(p); w = z.read('xl/workbook.xml').decode()\n"
	"    assert 'kernel_launchers_summary_by_cat' in w and 'kernel_launchers_summary_by_c~2' in w, w\n"
	"    x = z.read('xl/worksheets/sheet1.xml').decode()\n"
	"    assert '<v>3</v>' in x and '<v>1.5</v>' in x, x\n"
	"    print('# read with zipfile'); sys.exit(0)\n"
	"wb = openpyxl.load_workbook(p)\n"
	"want = ['kernel_launchers_summary_by_cat', 'kernel_launchers_summary_by_c~2', 'GEMM', 'gemm~2']\n"
	"assert wb.sheetnames == want, wb.sheetnames\n"
	"ws = wb['GEMM']\n"
	"rows = list(ws.iter_rows(values_only=True))\n"
	"assert rows[0] == ('name', 'count', 'Kernel duration (µs) sum', 'ok'), rows[0]\n"
	"assert all(c.font.b for c in ws[1]), 'header not bold'\n"
	"assert not ws['A2'].font.b\n"
	"assert rows[1] == ('aten::mm, \"x\"', 3, 1.5, True), rows[1]\n"
	"assert isinstance(rows[1][1], int) and isinstance(rows[1][2], float)\n"
	"assert rows[2] == ('b', None, None, False), rows[2]\n"
	"print('# read with openpyxl')\n";

int main(void)
{
	char dir[] = "/tmp/tl-workbook.XXXXXX", path[256], cmd[1024], script[256];
	struct tl_sheet *sh[4];
	struct stat st;
	FILE *f;
	size_t i;
	int rc;

	plan(8);
	umask(022);
	if (!mkdtemp(dir))
		abort();
	sh[0] = mk("kernel_launchers_summary_by_category");
	sh[1] = mk("kernel_launchers_summary_by_category_x");	/* the same 31 characters */
	sh[2] = mk("GEMM");
	sh[3] = mk("gemm");	/* Excel compares names without case */

	ok(tl_sheets_write_xlsx(sh, 0, "/tmp/x.xlsx") == -EINVAL, "no sheets: -EINVAL");
	snprintf(path, sizeof(path), "%s/no/such/dir/r.xlsx", dir);
	rc = tl_sheets_write_xlsx(sh, 4, path);
	ok(rc == -ENOENT, "a missing directory: -ENOENT (%d: %s)", rc, tl_last_error());

	snprintf(path, sizeof(path), "%s/r.xlsx", dir);
	rc = tl_sheets_write_xlsx(sh, 4, path);
	ok(rc == 0, "written (%d: %s)", rc, rc ? tl_last_error() : "");
	ok(count_entries(dir) == 1, "nothing left beside it but the workbook");
	if (stat(path, &st))
		st.st_mode = 0;
	ok((st.st_mode & 0777) == 0644, "mode 0644 under umask 022 (%o)", (unsigned)(st.st_mode & 0777));

	snprintf(script, sizeof(script), "%s/check.py", dir);
	f = fopen(script, "w");
	if (!f)
		abort();
	fputs(check_py, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s %s", getenv("PYTHON") ? getenv("PYTHON") : "/usr/bin/python3",
		 script, path);
	ok(system(cmd) == 0, "read back: names, bold header, numbers as numbers, NaN blank");

	/* a second write replaces the first whole */
	rc = tl_sheets_write_xlsx(sh + 2, 1, path);
	ok(rc == 0 && count_entries(dir) == 2, "rewritten in place (%d)", rc);
	snprintf(cmd, sizeof(cmd), "%s -c \"import zipfile,sys; w=zipfile.ZipFile('%s').read('xl/workbook.xml').decode(); "
		 "sys.exit(0 if 'GEMM' in w and 'by_ca' not in w else 1)\"",
		 getenv("PYTHON") ? getenv("PYTHON") : "/usr/bin/python3", path);
	ok(system(cmd) == 0, "the new workbook has only the new sheet");

	for (i = 0; i < 4; i++)
		tl_sheet_free(sh[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return tap_failed ? 1 : 0;
}
